"use strict";
// The WebAssembly engine: the module built from wasm/ (the library's codec and
// generator for wasm32-unknown-unknown), embedded in lib/wasm-module.js as base64 so
// that every bundler, browser, worker, Deno and Bun loads it synchronously with no
// loader of its own. Adapted to the engine interface of lib/native.js.
//
// The time of each ID is `Date.now()`, read once per ID just before the module makes
// it; the random bytes are `getRandomValues` (the Web Crypto API), fetched 1 KiB at a
// time into the module's memory between calls, when a call says the pool is low (so no
// JavaScript runs, and nothing can throw, while the module makes an ID).

const { wasmBase64 } = require("./wasm-module.js");

// The layout of the module's `Io` block (wasm/src/lib.rs).
const NUMBERS = 0;
const BYTES = 128;
const TEXT = 144;
const UNITS = 400;
const UNITS_LEN = 4096;
// A call's answer when the pool of random words is low (wasm/src/lib.rs `REFILL`).
const REFILL = 0x7fffffff;
const POOL_BYTES = 1024;

function decodeBase64(text) {
  if (typeof Buffer === "function" && typeof Buffer.from === "function") {
    return Buffer.from(text, "base64");
  }
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) {
    bytes[i] = binary.charCodeAt(i);
  }
  return bytes;
}

let compiled;

/**
 * A new instance of the module, as an engine. `getRandomValues(view)` fills a
 * Uint8Array with cryptographically secure random bytes (`crypto.getRandomValues`,
 * or Node's `randomFillSync`); `why`, if given, is why this engine runs (for `ENGINE`).
 */
function wasmEngine(getRandomValues, why) {
  try {
    if (compiled === undefined) {
      compiled = new WebAssembly.Module(decodeBase64(wasmBase64));
    }
    return instantiate(getRandomValues, why);
  } catch (err) {
    return unavailable(err);
  }
}

/**
 * The engine where WebAssembly cannot run (`node --jitless`, a page whose Content
 * Security Policy does not allow 'wasm-unsafe-eval', Safari's Lockdown Mode): the
 * package loads, `ENGINE` says why, and every function throws one line that says so.
 * (No JavaScript copy of the codec stands in: the rules are the Rust library's.)
 */
function unavailable(err) {
  const cause = typeof WebAssembly === "undefined" ? "WebAssembly is not defined" : `${err && err.name}: ${err && err.message}`;
  const why = `WebAssembly cannot run here (${cause}); in a page, the Content-Security-Policy must allow it ('wasm-unsafe-eval' in script-src)`;
  const fail = () => {
    throw new Error(`scru128-v1: no engine: ${why}`);
  };
  return {
    name: `unavailable: ${why}`,
    numbers: new Float64Array(16),
    bytes: new Uint8Array(16),
    newId: fail,
    newString: fail,
    encode: fail,
    toHex: fail,
    toBytes: fail,
    fromBytes: fail,
    parse: fail,
    parseMessage: fail,
    checkFields: fail,
    fromHex: fail,
    step: fail,
  };
}

function instantiate(getRandomValues, why) {
  // The generator's user random source during a `step` (see lib/api.js), and what it
  // threw: an exception must not cross the module's frames, so it is kept here and
  // thrown once the module has returned.
  let draw;
  let thrown;
  let failed = false;
  const instance = new WebAssembly.Instance(compiled, {
    scru128: {
      draw(bits) {
        if (failed) {
          return NaN;
        }
        try {
          return draw(bits);
        } catch (err) {
          failed = true;
          thrown = err;
          return NaN;
        }
      },
    },
  });
  const x = instance.exports;
  const memory = x.memory;
  const pool = new Uint8Array(memory.buffer, x.pool(), POOL_BYTES);
  /** Fills the pool; an exception of getRandomValues reaches the caller, and the pool
   * stays low, so the next call asks again. */
  const refill = () => {
    getRandomValues(pool);
    x.pool_filled();
  };
  // The module never grows its memory, so these views stay valid.
  const io = x.io();
  const numbers = new Float64Array(memory.buffer, io + NUMBERS, 16);
  const bytes = new Uint8Array(memory.buffer, io + BYTES, 16);
  const text = new Uint8Array(memory.buffer, io + TEXT, 256);
  const units = new Uint16Array(memory.buffer, io + UNITS, UNITS_LEN);
  const decoder = new TextDecoder();

  /** The message of a negative result. */
  const message = (code) => decoder.decode(text.subarray(0, -code));
  /** The 26 characters in `text`. */
  const text26 = () =>
    String.fromCharCode(
      text[0], text[1], text[2], text[3], text[4], text[5], text[6], text[7], text[8],
      text[9], text[10], text[11], text[12], text[13], text[14], text[15], text[16],
      text[17], text[18], text[19], text[20], text[21], text[22], text[23], text[24],
      text[25],
    );
  /** A call of the process-wide generator at `Date.now()`, the pool filled first if low. */
  const global = (make) => {
    const now = Date.now();
    let code = make(now);
    if (code === REFILL) {
      refill();
      code = make(now);
    }
    return code;
  };
  const check = (code) => {
    if (code < 0) {
      throw new RangeError(message(code));
    }
  };

  return {
    name: why ? `wasm: ${why}` : "wasm",
    numbers,
    bytes,
    newId() {
      check(global(x.scru128));
    },
    newString() {
      check(global(x.scru128_string));
      return text26();
    },
    encode() {
      check(x.encode());
      return text26();
    },
    toHex() {
      check(x.to_hex());
      return String.fromCharCode.apply(null, text.subarray(0, 34));
    },
    toBytes() {
      check(x.to_bytes());
    },
    fromBytes() {
      x.from_bytes();
    },
    parse(value) {
      // The 26 code units as arguments, four bytes to each (no copy through memory);
      // a unit above 255 cannot be packed, and goes through memory whole.
      const c = (i) => value.charCodeAt(i);
      const u0 = c(0), u1 = c(1), u2 = c(2), u3 = c(3), u4 = c(4), u5 = c(5), u6 = c(6);
      const u7 = c(7), u8 = c(8), u9 = c(9), u10 = c(10), u11 = c(11), u12 = c(12);
      const u13 = c(13), u14 = c(14), u15 = c(15), u16 = c(16), u17 = c(17), u18 = c(18);
      const u19 = c(19), u20 = c(20), u21 = c(21), u22 = c(22), u23 = c(23), u24 = c(24);
      const u25 = c(25);
      const all = u0 | u1 | u2 | u3 | u4 | u5 | u6 | u7 | u8 | u9 | u10 | u11 | u12 | u13 |
        u14 | u15 | u16 | u17 | u18 | u19 | u20 | u21 | u22 | u23 | u24 | u25;
      if (all > 0xff) {
        for (let i = 0; i < 26; i++) {
          units[i] = value.charCodeAt(i);
        }
        const code = x.parse();
        return code < 0 ? -1 : code;
      }
      return x.parse_packed(
        u0 | (u1 << 8) | (u2 << 16) | (u3 << 24),
        u4 | (u5 << 8) | (u6 << 16) | (u7 << 24),
        u8 | (u9 << 8) | (u10 << 16) | (u11 << 24),
        u12 | (u13 << 8) | (u14 << 16) | (u15 << 24),
        u16 | (u17 << 8) | (u18 << 16) | (u19 << 24),
        u20 | (u21 << 8) | (u22 << 16) | (u23 << 24),
        u24 | (u25 << 8),
      );
    },
    parseMessage(value) {
      for (let i = 0; i < 26; i++) {
        units[i] = value.charCodeAt(i);
      }
      return message(x.parse());
    },
    checkFields(timestamp, counter, perSecRandom, perGenRandom) {
      const code = x.check_fields(timestamp, counter, perSecRandom, perGenRandom);
      return code < 0 ? message(code) : null;
    },
    fromHex(value) {
      x.hex_start();
      for (let start = 0; start < value.length; start += UNITS_LEN) {
        const end = Math.min(value.length, start + UNITS_LEN);
        for (let i = start; i < end; i++) {
          units[i - start] = value.charCodeAt(i);
        }
        x.hex_feed(end - start);
      }
      const code = x.hex_finish();
      return code < 0 ? message(code) : null;
    },
    step(now, userDraw) {
      if (userDraw === undefined) {
        let code = x.step(now, 0);
        if (code === REFILL) {
          refill();
          code = x.step(now, 0);
        }
        check(code);
        return;
      }
      // A source that makes IDs of another generator calls back in: the outer call's
      // draw and failure are put back after.
      const outer = [draw, thrown, failed];
      draw = userDraw;
      failed = false;
      let code;
      try {
        code = x.step(now, 1);
      } finally {
        const err = thrown;
        const threw = failed;
        [draw, thrown, failed] = outer;
        if (threw) {
          // eslint-disable-next-line no-unsafe-finally
          throw err;
        }
      }
      check(code);
    },
  };
}

module.exports = { wasmEngine };
