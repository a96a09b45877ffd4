"use strict";
// The package's API, the same on every engine: the classes and functions of npm
// scru128 1.0.1, over an engine (lib/native.js, the Node-API addon; lib/wasm.js, the
// WebAssembly module) that does the codec and the generators with the Rust library.
// Nothing here takes an ID's bits apart or decides a rule: an ID crosses to and from
// the engine as its four field values in `engine.numbers`, text as strings.
//
// This file imports nothing, so that it runs unchanged in Node.js, browsers, web
// workers, Deno and Bun.

/** Unix time in milliseconds at 2020-01-01 00:00:00+00:00. */
const TIMESTAMP_BIAS = 1577836800000;

/** What `value` is, for an error message: never its text, and no user code runs. */
function describe(value) {
  switch (typeof value) {
    case "string":
      return `a string of ${value.length} characters`;
    case "number":
    case "boolean":
      return `${typeof value} ${value}`;
    case "undefined":
      return "undefined";
    case "bigint":
      return "a bigint";
    case "symbol":
      return "a symbol";
    case "function":
      return "a function";
    default:
      return value === null ? "null" : "an object";
  }
}

// Brand checks that run no getter or Proxy trap of the value: each getter throws a
// TypeError for anything but its own kind of object.
const arrayBufferLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;
const sharedArrayBufferLength =
  typeof SharedArrayBuffer === "function"
    ? Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, "byteLength").get
    : undefined;
const stringValueOf = String.prototype.valueOf;

/** The byte length of an `ArrayBuffer` or `SharedArrayBuffer`, or -1 for anything else. */
function bufferLength(value) {
  try {
    return arrayBufferLength.call(value);
  } catch {
    // not an ArrayBuffer
  }
  if (sharedArrayBufferLength !== undefined) {
    try {
      return sharedArrayBufferLength.call(value);
    } catch {
      // not a SharedArrayBuffer
    }
  }
  return -1;
}

/** The string of a `String` object (`new String(s)`), or undefined. */
function stringObjectValue(value) {
  if (typeof value !== "object" || value === null) {
    return undefined;
  }
  try {
    return stringValueOf.call(value);
  } catch {
    return undefined;
  }
}

// util.inspect (Node.js, Bun) and Deno's console show an ID as its string.
const NODE_INSPECT = Symbol.for("nodejs.util.inspect.custom");
const DENO_INSPECT = Symbol.for("Deno.customInspect");

/** The package's API over `engine` (see lib/native.js for what an engine has). */
function makeApi(engine) {
  const numbers = engine.numbers;

  // Objects made by this module: the constructor's first argument.
  const MADE = Symbol("Scru128Id");
  // Whether a value is a Scru128Id (set by the class's static block).
  let isId;

  class Scru128Id {
    // The canonical 26-digit string and the fields it was made from, or null until
    // asked for: the fields are writable, as in 1.0.1, and the string follows them.
    #s;

    /**
     * 1.0.1's constructor took the four field values (a private constructor in its
     * type declarations); they are checked here as `fromFields` checks them.
     */
    constructor(timestamp, counter, perSecRandom, perGenRandom, made, text) {
      if (timestamp === MADE) {
        // Made by this module: the fields are the next four arguments (shifted).
        this.timestamp = counter;
        this.counter = perSecRandom;
        this.perSecRandom = perGenRandom;
        this.perGenRandom = made;
        this.#s = text;
        return;
      }
      checkFields(timestamp, counter, perSecRandom, perGenRandom);
      // 1.0.1's fields: own, enumerable properties (structuredClone, postMessage
      // and deep equality see them). Read-only by the type declarations; assigned
      // anyway, they change the ID, as in 1.0.1 (every method reads them).
      this.timestamp = timestamp;
      this.counter = counter;
      this.perSecRandom = perSecRandom;
      this.perGenRandom = perGenRandom;
      this.#s = null;
    }

    /**
     * Creates an object from field values; `RangeError` if one is not an integer or
     * out of its field's range.
     */
    static fromFields(timestamp, counter, perSecRandom, perGenRandom) {
      checkFields(timestamp, counter, perSecRandom, perGenRandom);
      return new Scru128Id(MADE, timestamp, counter, perSecRandom, perGenRandom, null);
    }

    /**
     * Creates an object from a 26-digit string representation (either case), or a
     * `String` object holding one; `SyntaxError` if it is not one (also for a value
     * that is not a string, as in 1.0.1), `TypeError` for `null` and `undefined`.
     */
    static fromString(value) {
      if (typeof value !== "string") {
        const text = stringObjectValue(value);
        if (text === undefined) {
          if (value === null || value === undefined) {
            throw new TypeError(`Scru128Id.fromString: expected a string, got ${describe(value)}`);
          }
          throw new SyntaxError(
            `invalid string representation: expected a string, got ${describe(value)}`,
          );
        }
        value = text;
      }
      if (value.length !== 26) {
        throw new SyntaxError(
          `invalid string representation: invalid length: expected 26 characters, found ${value.length}`,
        );
      }
      if (engine.parse(value) < 0) {
        throw new SyntaxError(engine.parseMessage(value));
      }
      // The input is not kept as the ID's text: a slice of a large text would keep
      // all of it alive (V8's substrings are views).
      return made(null);
    }

    /** Returns the 26-digit canonical string representation. */
    toString() {
      return this.#text();
    }

    /** The canonical string of the fields as they are now, kept while they stay. */
    #text() {
      const cache = this.#s;
      if (
        cache !== null &&
        cache.t === this.timestamp &&
        cache.c === this.counter &&
        cache.p === this.perSecRandom &&
        cache.g === this.perGenRandom
      ) {
        return cache.s;
      }
      const s = encode(this);
      this.#s = { s, t: this.timestamp, c: this.counter, p: this.perSecRandom, g: this.perGenRandom };
      return s;
    }

    /**
     * Creates an object from 16 bytes, the 128-bit unsigned integer in big-endian
     * byte order: an `ArrayBuffer` (as 1.0.1), a `SharedArrayBuffer`, or any view of
     * one (a `Uint8Array`, a `Buffer`, a `DataView`). `RangeError` if it is not 16
     * bytes long or not a buffer (as 1.0.1), `TypeError` for `null` and `undefined`.
     */
    static fromArrayBuffer(value) {
      let view;
      const length = bufferLength(value);
      if (length >= 0) {
        if (length !== 16) {
          throw new RangeError(`not a 128-bit byte array: ${length} bytes`);
        }
        view = new Uint8Array(value, 0, 16);
      } else if (ArrayBuffer.isView(value)) {
        if (value.byteLength !== 16) {
          throw new RangeError(`not a 128-bit byte array: ${value.byteLength} bytes`);
        }
        view = new Uint8Array(value.buffer, value.byteOffset, 16);
      } else if (value === null || value === undefined) {
        throw new TypeError(
          `Scru128Id.fromArrayBuffer: expected an ArrayBuffer or a view of one, got ${describe(value)}`,
        );
      } else {
        throw new RangeError(
          `not a 128-bit byte array: expected an ArrayBuffer or a view of one, got ${describe(value)}`,
        );
      }
      engine.bytes.set(view);
      engine.fromBytes();
      return made(null);
    }

    /** Returns a new 16-byte `ArrayBuffer`: the 128-bit integer, big-endian. */
    toArrayBuffer() {
      put(this);
      engine.toBytes();
      return engine.bytes.slice(0, 16).buffer;
    }

    /**
     * Creates an object from a hexadecimal string (or a `String` object): an
     * optional `0x`, any number of leading zeros, then at most 32 significant hex
     * digits, in either case; `SyntaxError` otherwise, `TypeError` if it is not a
     * string.
     */
    static fromHex(value) {
      if (typeof value !== "string") {
        const text = stringObjectValue(value);
        if (text === undefined) {
          throw new TypeError(`Scru128Id.fromHex: expected a string, got ${describe(value)}`);
        }
        value = text;
      }
      const message = engine.fromHex(value);
      if (message !== null) {
        throw new SyntaxError(message);
      }
      return made(null);
    }

    /** Returns `"0x"` and 32 lowercase hexadecimal digits. */
    toHex() {
      put(this);
      return engine.toHex();
    }

    /** Represents `this` in JSON as the 26-digit canonical string. */
    toJSON() {
      return this.#text();
    }

    /** Creates an object from `this`. */
    clone() {
      const a = this.#s; // a TypeError if `this` is not a Scru128Id
      return new Scru128Id(
        MADE,
        this.timestamp,
        this.counter,
        this.perSecRandom,
        this.perGenRandom,
        a,
      );
    }

    /** Returns true if `other` is a `Scru128Id` of the same value. */
    equals(other) {
      this.#s; // a TypeError if `this` is not a Scru128Id
      return (
        isId(other) &&
        this.timestamp === other.timestamp &&
        this.counter === other.counter &&
        this.perSecRandom === other.perSecRandom &&
        this.perGenRandom === other.perGenRandom
      );
    }

    /** Returns -1, 0 or 1 as `this` is less than, equal to or greater than `other`. */
    compareTo(other) {
      this.#s; // a TypeError if `this` is not a Scru128Id
      if (!isId(other)) {
        throw new TypeError(`Scru128Id.compareTo: expected a Scru128Id, got ${describe(other)}`);
      }
      // The fields in this order are the value's digits, most significant first.
      if (this.timestamp !== other.timestamp) return this.timestamp < other.timestamp ? -1 : 1;
      if (this.counter !== other.counter) return this.counter < other.counter ? -1 : 1;
      if (this.perSecRandom !== other.perSecRandom) {
        return this.perSecRandom < other.perSecRandom ? -1 : 1;
      }
      if (this.perGenRandom !== other.perGenRandom) {
        return this.perGenRandom < other.perGenRandom ? -1 : 1;
      }
      return 0;
    }

    /** `console.log(id)` and `util.inspect(id)` show the 26-digit string. */
    [NODE_INSPECT]() {
      return this.toJSON();
    }

    [DENO_INSPECT]() {
      return this.toJSON();
    }

    static {
      // A brand check: no getter or Proxy trap of `value` runs.
      isId = (value) => typeof value === "object" && value !== null && #s in value;
    }
  }

  /** The ID whose fields the engine just wrote, with its string if known. */
  function made(text) {
    return new Scru128Id(MADE, numbers[0], numbers[1], numbers[2], numbers[3], text);
  }

  /** Puts an ID's fields where the engine reads them. */
  function put(id) {
    if (!isId(id)) {
      throw new TypeError(`expected a Scru128Id, got ${describe(id)}`);
    }
    numbers[0] = id.timestamp;
    numbers[1] = id.counter;
    numbers[2] = id.perSecRandom;
    numbers[3] = id.perGenRandom;
  }

  function encode(id) {
    put(id);
    return engine.encode();
  }

  /** 1.0.1's field check: `RangeError` if a value is not an integer or out of range. */
  function checkFields(timestamp, counter, perSecRandom, perGenRandom) {
    // Number.isInteger converts nothing: no getter, valueOf or Proxy trap runs.
    if (
      !Number.isInteger(timestamp) ||
      !Number.isInteger(counter) ||
      !Number.isInteger(perSecRandom) ||
      !Number.isInteger(perGenRandom)
    ) {
      const args = [timestamp, counter, perSecRandom, perGenRandom];
      const names = ["timestamp", "counter", "perSecRandom", "perGenRandom"];
      const i = args.findIndex((v) => !Number.isInteger(v));
      throw new RangeError(
        `invalid field value: ${names[i]} is ${describe(args[i])}, not an integer`,
      );
    }
    const message = engine.checkFields(timestamp, counter, perSecRandom, perGenRandom);
    if (message !== null) {
      throw new RangeError(message);
    }
  }

  let logger;

  /**
   * Specifies the logger object used in the package (`console` works). Logging is
   * off by default.
   */
  const setLogger = (newLogger) => {
    logger = newLogger;
  };

  class Scru128Generator {
    // The state of the generator (see scru128_js_api::step): kept here, so that a
    // generator nobody holds is collected like any object.
    #state = new Float64Array(5);
    // For a generator over a user's random source: `draw(bits)`, which calls
    // `rng.nextUint32()` and hands its value to the engine (see lib/native.js).
    #draw;
    // A `generate()` of this generator is running (its random source may call back).
    #busy = false;

    /**
     * Creates a generator with the default random source, or with
     * `randomNumberGenerator`, an object whose `nextUint32()` returns a 32-bit
     * unsigned integer, called as 1.0.1 called it.
     */
    constructor(randomNumberGenerator) {
      if (randomNumberGenerator) {
        const rng = randomNumberGenerator;
        if (typeof rng.nextUint32 !== "function") {
          throw new TypeError(
            "Scru128Generator: the random number generator has no nextUint32() method",
          );
        }
        // Looked up and called at every draw, as in 1.0.1; the value as 1.0.1 used
        // it: through `>>>` (ToNumber first) for the counter and perSecRandom, and
        // as it is, a number, for perGenRandom.
        this.#draw = (bits) => {
          const value = rng.nextUint32();
          if (bits === 32) {
            return typeof value === "number" ? value : NaN;
          }
          return +value;
        };
      }
    }

    /** Generates a new SCRU128 ID object. */
    generate() {
      if (this.#busy) {
        throw new Error("Scru128Generator.generate() called from its own random source");
      }
      const state = this.#state;
      this.#busy = true;
      try {
        // The clock first, as 1.0.1 read it: a Date.now that makes IDs itself (a mock,
        // instrumentation) then runs before this generator's state is staged.
        const now = Date.now();
        numbers[4] = state[0];
        numbers[5] = state[1];
        numbers[6] = state[2];
        numbers[7] = state[3];
        numbers[8] = state[4];
        engine.step(now, this.#draw);
      } finally {
        this.#busy = false;
      }
      // The engine wrote its results last, after any call back from the source.
      state[0] = numbers[4];
      state[1] = numbers[5];
      state[2] = numbers[6];
      state[3] = numbers[7];
      state[4] = numbers[8];
      const id = made(null);
      if (logger !== undefined && logger !== null) {
        logEvent(numbers[9]);
      }
      return id;
    }
  }

  /** 1.0.1's messages, by the event the engine reports. */
  function logEvent(event) {
    if (event === 1) {
      logger.info("scru128: counter limit reached; will wait until clock goes forward");
    } else if (event === 2) {
      logger.warn("scru128: reset state as clock did not go forward");
    }
  }

  /** Generates a new SCRU128 ID object. */
  const scru128 = () => {
    engine.newId();
    return made(null);
  };

  /** Generates a new SCRU128 ID encoded in the 26-digit canonical string. */
  const scru128String = () => engine.newString();

  return {
    TIMESTAMP_BIAS,
    Scru128Id,
    Scru128Generator,
    setLogger,
    scru128,
    scru128String,
    ENGINE: engine.name,
  };
}

module.exports = { makeApi };
