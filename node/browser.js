"use strict";
// scru128-v1 for browsers, web workers and Deno: the package's API on the WebAssembly
// engine (the Rust library built for wasm32-unknown-unknown), with `Date.now()` and
// `crypto.getRandomValues`.

const { makeApi } = require("./lib/api.js");
const { wasmEngine } = require("./lib/wasm.js");

const webCrypto = globalThis.crypto;
if (webCrypto === undefined || typeof webCrypto.getRandomValues !== "function") {
  throw new Error("scru128-v1: no crypto.getRandomValues (the Web Crypto API) here");
}
module.exports = makeApi(wasmEngine((view) => webCrypto.getRandomValues(view)));
