"use strict";
// scru128-v1 for Node.js (and Bun): SCRU128 (spec v1.0.2, the 26-digit format), a
// drop-in for npm scru128 1.0.1 on this repository's Rust library. The engine is the
// native addon where the package has one for this platform (Linux on x64 and arm64 with
// glibc 2.17 or later), else the same library built for WebAssembly; `ENGINE` says
// which, and why not native. `SCRU128_ENGINE=wasm` (or `native`) picks one.

const { makeApi } = require("./lib/api.js");

// The addons the package ships: each is tested where it runs (scripts/test-node: x64 on
// this machine, arm64 under qemu-user with Node for arm64). The musl addons build
// (scripts/release) but no musl Node.js could be had to test them, so musl systems run
// the WebAssembly engine instead of an untested binary.
const ADDONS = ["linux-x64-gnu", "linux-arm64-gnu"];

/** The C library the running Node links (`gnu` or `musl`), on Linux. */
function linuxLibc() {
  const report = process.report;
  if (report === undefined || typeof report.getReport !== "function") {
    return undefined;
  }
  const skipNetwork = report.excludeNetwork;
  try {
    report.excludeNetwork = true;
    const header = report.getReport().header;
    return header.glibcVersionRuntime ? "gnu" : "musl";
  } catch {
    return undefined;
  } finally {
    report.excludeNetwork = skipNetwork;
  }
}

/** The addon for this platform, or why there is none. */
function loadAddon() {
  if (process.platform !== "linux") {
    return { why: `no native addon for ${process.platform}-${process.arch}` };
  }
  const libc = linuxLibc();
  if (libc === undefined) {
    return { why: "the C library could not be told (no process.report)" };
  }
  const name = `${process.platform}-${process.arch}-${libc}`;
  if (!ADDONS.includes(name)) {
    const untested = libc === "musl" ? " (the musl addons are not shipped: untested)" : "";
    return { why: `no native addon for ${name}${untested}` };
  }
  // A path the bundlers leave alone: a bundle then runs the WebAssembly engine (in an
  // ES module bundle there is neither `__dirname` nor a `require` of files).
  try {
    return { addon: require(`${__dirname}/scru128.${name}.node`), name };
  } catch (err) {
    const code = (err && err.code) || (err && err.name) || "unknown error";
    return { why: `the native addon ${name} did not load (${code})` };
  }
}

function pickEngine() {
  const wanted = process.env.SCRU128_ENGINE;
  let why = "SCRU128_ENGINE=wasm";
  if (wanted !== "wasm") {
    const loaded = loadAddon();
    if (loaded.addon !== undefined) {
      return require("./lib/native.js").nativeEngine(loaded.addon, loaded.name);
    }
    if (wanted === "native") {
      throw new Error(`scru128-v1: SCRU128_ENGINE=native, but ${loaded.why}`);
    }
    why = loaded.why;
  }
  return require("./lib/wasm.js").wasmEngine(randomSource(), why);
}

/** Node's `randomFillSync`, or (in an ES module bundle, with no `require`) Web Crypto's. */
function randomSource() {
  try {
    return require("node:crypto").randomFillSync;
  } catch {
    const webCrypto = globalThis.crypto;
    if (webCrypto === undefined || typeof webCrypto.getRandomValues !== "function") {
      throw new Error("scru128-v1: neither node:crypto nor crypto.getRandomValues is available");
    }
    return (view) => webCrypto.getRandomValues(view);
  }
}

module.exports = makeApi(pickEngine());
