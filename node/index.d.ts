/**
 * scru128-v1: SCRU128 IDs of spec v1.0.2 (44-bit timestamp, 26 base-32 digits
 * `0-9A-V`), with the API of npm `scru128` 1.0.1, on a Rust addon.
 *
 * @example
 * ```javascript
 * import { scru128, scru128String } from "scru128";
 *
 * const x = scru128();
 * console.log(x); // e.g. 035KKN1USJQEUPNJ0E3NEFPCUU
 * console.log(BigInt(x.toHex())); // as a 128-bit unsigned integer
 * console.log(scru128String()); // a new ID as text directly
 * ```
 *
 * @packageDocumentation
 */

/** Unix time in milliseconds at 2020-01-01 00:00:00+00:00. */
export declare const TIMESTAMP_BIAS = 1577836800000;

/** A SCRU128 ID: its fields, its text, hex and byte forms, and comparisons. */
export declare class Scru128Id {
  /** 44-bit millisecond timestamp field value (Unix time minus `TIMESTAMP_BIAS`). */
  readonly timestamp: number;
  /** 28-bit per-timestamp monotonic counter field value. */
  readonly counter: number;
  /** 24-bit per-second randomness field value. */
  readonly perSecRandom: number;
  /** 32-bit per-generation randomness field value. */
  readonly perGenRandom: number;

  /** Use `fromFields`, `fromString` and the like. */
  private constructor();

  /**
   * Creates an object from field values.
   *
   * @throws RangeError if an argument is not an integer or out of its field's range.
   */
  static fromFields(
    timestamp: number,
    counter: number,
    perSecRandom: number,
    perGenRandom: number,
  ): Scru128Id;

  /**
   * Creates an object from a 26-digit string representation, in either case.
   *
   * @throws SyntaxError if the argument is not a valid string representation.
   * @throws TypeError if the argument is not a string.
   */
  static fromString(value: string): Scru128Id;

  /** Returns the 26-digit canonical string representation. */
  toString(): string;

  /**
   * Creates an object from the 16 bytes of a 128-bit unsigned integer in big-endian
   * byte order: an `ArrayBuffer`, or (an addition to 1.0.1) a `SharedArrayBuffer` or
   * a view of one such as a `Uint8Array` or a `Buffer`.
   *
   * @throws RangeError if the byte length is not 16.
   * @throws TypeError if the argument is none of those.
   */
  static fromArrayBuffer(value: ArrayBuffer | SharedArrayBuffer | ArrayBufferView): Scru128Id;

  /** Returns a new 16-byte `ArrayBuffer`: the 128-bit unsigned integer, big-endian. */
  toArrayBuffer(): ArrayBuffer;

  /**
   * Creates an object from a 128-bit unsigned integer in hexadecimal: an optional
   * `0x`, then at most 32 significant digits (leading zeros allowed), in either case.
   *
   * @throws SyntaxError if the argument is not such a string.
   * @throws TypeError if the argument is not a string.
   */
  static fromHex(value: string): Scru128Id;

  /** Returns `"0x"` and the 32 lowercase hexadecimal digits of the 128-bit integer. */
  toHex(): string;

  /** Represents `this` in JSON as the 26-digit canonical string. */
  toJSON(): string;

  /** Creates an object from `this`. */
  clone(): Scru128Id;

  /** Returns true if `other` is a `Scru128Id` of the same value. */
  equals(other: Scru128Id): boolean;

  /** Returns -1, 0 or 1 as `this` is less than, equal to or greater than `other`. */
  compareTo(other: Scru128Id): number;
}

/**
 * Specifies the logger object used in the package (`console` fits). Logging is off by
 * default.
 */
export declare const setLogger: (newLogger: {
  error: (message: string) => void;
  warn: (message: string) => void;
  info: (message: string) => void;
}) => void;

/** A SCRU128 ID generator: a monotonic counter and the other state of the spec. */
export declare class Scru128Generator {
  private readonly _state;

  /**
   * Creates a generator with the default random source (ChaCha12 seeded by the
   * operating system), or with the given one, which should be cryptographically
   * strong and securely seeded.
   */
  constructor(randomNumberGenerator?: {
    /** Returns a 32-bit random unsigned integer. */
    nextUint32: () => number;
  });

  /** Generates a new SCRU128 ID object. */
  generate(): Scru128Id;
}

/** Generates a new SCRU128 ID object from the process-wide generator. */
export declare const scru128: () => Scru128Id;

/**
 * Generates a new SCRU128 ID encoded in a string: the 26-digit canonical string
 * representation, from the process-wide generator.
 */
export declare const scru128String: () => string;

/**
 * Which engine runs the package here, in one line: `"native linux-x64-gnu"` or
 * `"native linux-arm64-gnu"`, the Rust library as a Node-API addon; or `"wasm"` (in
 * browsers, web workers and Deno) or `"wasm: <why not native>"` (in Node.js and Bun,
 * e.g. `"wasm: no native addon for darwin-arm64"`), the same library built for
 * WebAssembly. Not in 1.0.1.
 */
export declare const ENGINE: string;
