"use strict";
// scru128-v1: SCRU128 (spec v1.0.2, the 26-digit format), a drop-in for npm scru128
// 1.0.1 on this repository's Rust library (its codec and process-wide generator),
// through a Node-API addon (src/lib.rs). This file is the thin JavaScript layer: the
// classes, the error classes of 1.0.1, `instanceof`, the logger and `util.inspect`.

const { inspect, types } = require("node:util");

const addon = loadAddon();

function loadAddon() {
  const name = `scru128.${process.platform}-${process.arch}-gnu.node`;
  try {
    return require(`./${name}`);
  } catch (err) {
    if (err && err.code === "MODULE_NOT_FOUND" && String(err.message).includes(name)) {
      throw new Error(
        `scru128-v1: no native addon for ${process.platform}-${process.arch} (${name}); ` +
          "the package ships one for linux-x64 (glibc 2.17 or later); elsewhere build it " +
          "from the repository's node/ folder with `npm run build` (needs Rust)",
      );
    }
    throw err;
  }
}

/** Unix time in milliseconds at 2020-01-01 00:00:00+00:00. */
const TIMESTAMP_BIAS = 1577836800000;

// Objects made by this module: the constructor's first argument.
const MADE = Symbol("Scru128Id");
// Whether a value is a Scru128Id (set by the class's static block).
let isId;

/** What `value` is, for an error message (never its whole text). */
function describe(value) {
  switch (typeof value) {
    case "string":
      return `a string of ${value.length} characters`;
    case "object":
      return value === null ? "null" : "an object";
    case "bigint":
      return "a bigint";
    case "symbol":
      return "a symbol";
    default:
      return `${typeof value} ${String(value)}`;
  }
}

// An ID crosses to and from the addon as four 32-bit words in this array, most
// significant first (its memory outside the JavaScript heap, so that it never moves).
const [slot, words] = addon.newWords();

class Scru128Id {
  // The 128 bits as four 32-bit words, most significant first.
  #a;
  #b;
  #c;
  #d;
  // The canonical 26-digit string, or null until asked for.
  #s;

  /**
   * 1.0.1's constructor took the four field values (a private constructor in its type
   * declarations); they are checked here as `fromFields` checks them.
   */
  constructor(timestamp, counter, perSecRandom, perGenRandom) {
    if (timestamp === MADE) {
      // Made by this module: the words are in `words`; `counter` is the string or null.
      this.#s = counter;
    } else {
      fieldsToWords(timestamp, counter, perSecRandom, perGenRandom);
      this.#s = null;
    }
    this.#a = words[0];
    this.#b = words[1];
    this.#c = words[2];
    this.#d = words[3];
  }

  // Layout: timestamp 44 bits, counter 28, perSecRandom 24, perGenRandom 32.
  get timestamp() {
    return this.#a * 0x1000 + (this.#b >>> 20);
  }

  get counter() {
    return (this.#b & 0xfffff) * 0x100 + (this.#c >>> 24);
  }

  get perSecRandom() {
    return this.#c & 0xffffff;
  }

  get perGenRandom() {
    return this.#d;
  }

  /**
   * Creates an object from field values; `RangeError` if one is not an integer or out
   * of its field's range.
   */
  static fromFields(timestamp, counter, perSecRandom, perGenRandom) {
    fieldsToWords(timestamp, counter, perSecRandom, perGenRandom);
    return new Scru128Id(MADE, null);
  }

  /**
   * Creates an object from a 26-digit string representation (either case);
   * `SyntaxError` if it is not one, `TypeError` if it is not a string.
   */
  static fromString(value) {
    if (typeof value !== "string") {
      throw new TypeError(`Scru128Id.fromString: expected a string, got ${describe(value)}`);
    }
    if (value.length !== 26) {
      throw new SyntaxError(
        `invalid string representation: invalid length: expected 26 characters, found ${value.length}`,
      );
    }
    const s = addon.parse(value, slot);
    if (s === null) {
      throw new SyntaxError(`invalid string representation: ${addon.parseError(value)}`);
    }
    return new Scru128Id(MADE, s);
  }

  /** Returns the 26-digit canonical string representation. */
  toString() {
    return this.#text();
  }

  /**
   * Creates an object from 16 bytes, the 128-bit unsigned integer in big-endian byte
   * order: an `ArrayBuffer` (as 1.0.1), a `SharedArrayBuffer`, or any view of one (a
   * `Uint8Array`, a `Buffer`, a `DataView`). `RangeError` if it is not 16 bytes long.
   */
  static fromArrayBuffer(value) {
    let view;
    if (types.isArrayBuffer(value) || types.isSharedArrayBuffer(value)) {
      view = new DataView(value);
    } else if (ArrayBuffer.isView(value)) {
      view = new DataView(value.buffer, value.byteOffset, value.byteLength);
    } else {
      throw new TypeError(
        `Scru128Id.fromArrayBuffer: expected an ArrayBuffer or a view of one, got ${describe(value)}`,
      );
    }
    if (view.byteLength !== 16) {
      throw new RangeError(`not a 128-bit byte array: ${view.byteLength} bytes`);
    }
    words[0] = view.getUint32(0);
    words[1] = view.getUint32(4);
    words[2] = view.getUint32(8);
    words[3] = view.getUint32(12);
    return new Scru128Id(MADE, null);
  }

  /** Returns a new 16-byte `ArrayBuffer`: the 128-bit integer, big-endian. */
  toArrayBuffer() {
    const view = new DataView(new ArrayBuffer(16));
    view.setUint32(0, this.#a);
    view.setUint32(4, this.#b);
    view.setUint32(8, this.#c);
    view.setUint32(12, this.#d);
    return view.buffer;
  }

  /**
   * Creates an object from a hexadecimal string: an optional `0x`, then at most 32
   * significant hex digits (leading zeros are fine), in either case; `SyntaxError`
   * otherwise, `TypeError` if it is not a string.
   */
  static fromHex(value) {
    if (typeof value !== "string") {
      throw new TypeError(`Scru128Id.fromHex: expected a string, got ${describe(value)}`);
    }
    if (!addon.fromHex(value, slot)) {
      throw new SyntaxError(
        `invalid hexadecimal integer representation: ${addon.hexError(value)}`,
      );
    }
    return new Scru128Id(MADE, null);
  }

  /** Returns `"0x"` and 32 lowercase hexadecimal digits. */
  toHex() {
    this.#put();
    return addon.toHex(slot);
  }

  /** Represents `this` in JSON as the 26-digit canonical string. */
  toJSON() {
    return this.#text();
  }

  /** Creates an object from `this`. */
  clone() {
    this.#put();
    return new Scru128Id(MADE, this.#s);
  }

  /** Returns true if `other` is a `Scru128Id` of the same value. */
  equals(other) {
    const a = this.#a; // a TypeError if `this` is not a Scru128Id
    return (
      isId(other) &&
      a === other.#a &&
      this.#b === other.#b &&
      this.#c === other.#c &&
      this.#d === other.#d
    );
  }

  /** Returns -1, 0 or 1 as `this` is less than, equal to or greater than `other`. */
  compareTo(other) {
    if (!isId(other)) {
      throw new TypeError(`Scru128Id.compareTo: expected a Scru128Id, got ${describe(other)}`);
    }
    if (this.#a !== other.#a) return this.#a < other.#a ? -1 : 1;
    if (this.#b !== other.#b) return this.#b < other.#b ? -1 : 1;
    if (this.#c !== other.#c) return this.#c < other.#c ? -1 : 1;
    if (this.#d !== other.#d) return this.#d < other.#d ? -1 : 1;
    return 0;
  }

  /** `console.log(id)` and `util.inspect(id)` show the 26-digit string. */
  [inspect.custom]() {
    return this.#text();
  }

  /** The canonical string, made on first use. */
  #text() {
    if (this.#s === null) {
      this.#put();
      this.#s = addon.encodeWords(slot);
    }
    return this.#s;
  }

  /** Puts this ID's words into `words`, for the addon. */
  #put() {
    words[0] = this.#a;
    words[1] = this.#b;
    words[2] = this.#c;
    words[3] = this.#d;
  }

  static {
    // A brand check: no getter or Proxy trap of `value` runs.
    isId = (value) => typeof value === "object" && value !== null && #a in value;
  }
}

/** Checks the field values as 1.0.1 did, and puts the ID's words into `words`. */
function fieldsToWords(timestamp, counter, perSecRandom, perGenRandom) {
  // Number.isInteger converts nothing: no getter, valueOf or Proxy trap runs.
  const args = [timestamp, counter, perSecRandom, perGenRandom];
  const names = ["timestamp", "counter", "perSecRandom", "perGenRandom"];
  for (let i = 0; i < 4; i++) {
    if (!Number.isInteger(args[i])) {
      throw new RangeError(
        `invalid field value: ${names[i]} is ${describe(args[i])}, not an integer`,
      );
    }
  }
  addon.fromFields(timestamp, counter, perSecRandom, perGenRandom, slot);
}

let logger;

/**
 * Specifies the logger object used in the package (`console` works). Logging is off
 * by default.
 */
const setLogger = (newLogger) => {
  logger = newLogger;
};

/** 1.0.1's messages, by the event the addon reports. */
function logEvent(event) {
  if (event === 1) {
    logger.info("counter limit reached; will wait until clock goes forward");
  } else if (event === 2) {
    logger.warn("reset state as clock did not go forward");
  }
}

class Scru128Generator {
  #native;
  #draw;

  /**
   * Creates a generator with the default random source (ChaCha12 seeded by the
   * operating system), or with `randomNumberGenerator`, an object whose
   * `nextUint32()` returns a 32-bit unsigned integer, called as 1.0.1 called it.
   */
  constructor(randomNumberGenerator) {
    if (randomNumberGenerator) {
      const rng = randomNumberGenerator;
      if (typeof rng.nextUint32 !== "function") {
        throw new TypeError(
          "Scru128Generator: the random number generator has no nextUint32() method",
        );
      }
      // Looked up at every draw, as in 1.0.1.
      this.#draw = () => rng.nextUint32();
      this.#native = new addon.NativeGenerator(true);
    } else {
      this.#native = new addon.NativeGenerator(false);
    }
  }

  /** Generates a new SCRU128 ID object. */
  generate() {
    this.#native.generate(slot, this.#draw);
    const id = new Scru128Id(MADE, null);
    if (logger !== undefined && logger !== null) {
      logEvent(this.#native.lastEvent());
    }
    return id;
  }
}

/** Generates a new SCRU128 ID object, from the process-wide generator. */
const scru128 = () => {
  addon.generateWords(slot);
  return new Scru128Id(MADE, null);
};

/** Generates a new SCRU128 ID encoded in the 26-digit canonical string. */
const scru128String = addon.generate;

module.exports = {
  TIMESTAMP_BIAS,
  Scru128Id,
  Scru128Generator,
  setLogger,
  scru128,
  scru128String,
};
