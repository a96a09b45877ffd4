// The page of browser-review.test.mjs's CSP test: the package imported (dynamically, so that
// the page can report a failure to load) under a Content Security Policy without
// 'wasm-unsafe-eval'. Sets globalThis.__result.
let lib;
try {
  lib = await import("./csp-lib.js");
} catch (err) {
  globalThis.__result = { loadError: `${err.name}: ${err.message}` };
}
if (lib) {
  try {
    globalThis.__result = { ENGINE: lib.ENGINE, id: lib.scru128String() };
  } catch (err) {
    globalThis.__result = { ENGINE: lib.ENGINE, error: `${err.name}: ${err.message}` };
  }
}
