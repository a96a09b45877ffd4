"use strict";
// scru128-v1 for Node.js (and Bun): SCRU128 (spec v1.0.2, the 26-digit format), a
// drop-in for npm scru128 1.0.1 on this repository's Rust library. The engine is the
// native addon where the package has one for this platform (linux x64 and arm64, glibc
// and musl), else the same library built for WebAssembly; `ENGINE` says which.
// `SCRU128_ENGINE=wasm` (or `native`) in the environment picks one.

const { makeApi } = require("./lib/api.js");

const ADDONS = ["linux-x64-gnu", "linux-arm64-gnu", "linux-x64-musl", "linux-arm64-musl"];

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
    return { why: `no native addon for ${name}` };
  }
  // A path the bundlers leave alone: a bundle then runs the WebAssembly engine.
  const file = `${__dirname}/scru128.${name}.node`;
  try {
    return { addon: require(file), name };
  } catch (err) {
    return { why: `the native addon ${name} did not load (${err && err.code})` };
  }
}

function pickEngine() {
  const wanted = process.env.SCRU128_ENGINE;
  if (wanted !== "wasm") {
    const { addon, name, why } = loadAddon();
    if (addon !== undefined) {
      return require("./lib/native.js").nativeEngine(addon, name);
    }
    if (wanted === "native") {
      throw new Error(`scru128-v1: SCRU128_ENGINE=native, but ${why}`);
    }
  }
  const { randomFillSync } = require("node:crypto");
  return require("./lib/wasm.js").wasmEngine(randomFillSync);
}

module.exports = makeApi(pickEngine());
