// OURS, for the benchmark only: a compact pure-JavaScript SCRU128 of spec v1.0.2 doing
// the same work as npm scru128 1.0.1 (the last npm release of this format, which
// npm no longer serves as a maintained package), written from docs/format.md: fields
// held as numbers, text parsed with a regular expression and `parseInt(…, 32)`, text
// made with `toString(32)`, a generator over `Date.now()` and a buffered
// `crypto.getRandomValues`. It is the baseline "the pure-JavaScript way" of
// bench.mjs; it is not shipped.
import { webcrypto } from "node:crypto";

const TIMESTAMP_BIAS = 1577836800000;
const MAX_COUNTER = 0xfffffff;
const MAX_PER_SEC_RANDOM = 0xffffff;
const PATTERN = /^([0-7][0-9A-Va-v]{9})([0-9A-Va-v]{8})([0-9A-Va-v]{8})$/;

export class PureId {
  constructor(timestamp, counter, perSecRandom, perGenRandom) {
    this.timestamp = timestamp;
    this.counter = counter;
    this.perSecRandom = perSecRandom;
    this.perGenRandom = perGenRandom;
  }

  static fromFields(timestamp, counter, perSecRandom, perGenRandom) {
    if (
      !Number.isInteger(timestamp) ||
      !Number.isInteger(counter) ||
      !Number.isInteger(perSecRandom) ||
      !Number.isInteger(perGenRandom) ||
      timestamp < 0 ||
      counter < 0 ||
      perSecRandom < 0 ||
      perGenRandom < 0 ||
      timestamp > 0xfffffffffff ||
      counter > MAX_COUNTER ||
      perSecRandom > MAX_PER_SEC_RANDOM ||
      perGenRandom > 0xffffffff
    ) {
      throw new RangeError("invalid field value");
    }
    return new PureId(timestamp, counter, perSecRandom, perGenRandom);
  }

  // 26 digits = 130 bits, read as 10 + 8 + 8 digits (50 + 40 + 40 bits, each exact
  // in a double): timestamp(44) counter(28) perSecRandom(24) perGenRandom(32).
  static fromString(value) {
    const m = PATTERN.exec(value);
    if (m === null) {
      throw new SyntaxError("invalid string representation: " + value);
    }
    const h48 = parseInt(m[1], 32); // timestamp and the counter's top 6 bits
    const m40 = parseInt(m[2], 32); // the counter's low 22 bits, perSecRandom's top 18
    const l40 = parseInt(m[3], 32); // perSecRandom's low 6 bits, perGenRandom
    return new PureId(
      Math.trunc(h48 / 0x40),
      (h48 % 0x40) * 0x400000 + Math.trunc(m40 / 0x40000),
      (m40 % 0x40000) * 0x40 + Math.trunc(l40 / 0x100000000),
      l40 % 0x100000000,
    );
  }

  toString() {
    const h48 = this.timestamp * 0x40 + Math.trunc(this.counter / 0x400000);
    const m40 = (this.counter % 0x400000) * 0x40000 + Math.trunc(this.perSecRandom / 0x40);
    const l40 = (this.perSecRandom % 0x40) * 0x100000000 + this.perGenRandom;
    return (
      h48.toString(32).padStart(10, "0") +
      m40.toString(32).padStart(8, "0") +
      l40.toString(32).padStart(8, "0")
    ).toUpperCase();
  }
}

class BufferedRandom {
  #buffer = new Uint32Array(256);
  #cursor = 256;

  nextUint32() {
    if (this.#cursor >= this.#buffer.length) {
      webcrypto.getRandomValues(this.#buffer);
      this.#cursor = 0;
    }
    return this.#buffer[this.#cursor++];
  }
}

export class PureGenerator {
  #tsLastGen = 0;
  #counter = 0;
  #tsLastSec = 0;
  #perSecRandom = 0;
  #rng = new BufferedRandom();

  generate() {
    let tsNow = Date.now();
    if (tsNow > this.#tsLastGen) {
      this.#tsLastGen = tsNow;
      this.#counter = this.#rng.nextUint32() & MAX_COUNTER;
    } else if (++this.#counter > MAX_COUNTER) {
      while (tsNow <= this.#tsLastGen) {
        tsNow = Date.now();
      }
      this.#tsLastGen = tsNow;
      this.#counter = this.#rng.nextUint32() & MAX_COUNTER;
    }
    if (this.#tsLastGen - this.#tsLastSec > 1000) {
      this.#tsLastSec = this.#tsLastGen;
      this.#perSecRandom = this.#rng.nextUint32() & MAX_PER_SEC_RANDOM;
    }
    return PureId.fromFields(
      this.#tsLastGen - TIMESTAMP_BIAS,
      this.#counter,
      this.#perSecRandom,
      this.#rng.nextUint32(),
    );
  }
}

const defaultGenerator = new PureGenerator();
export const pureScru128 = () => defaultGenerator.generate();
export const pureScru128String = () => defaultGenerator.generate().toString();
