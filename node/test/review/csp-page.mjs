// The page of review.test.mjs's CSP test: the package imported (dynamically, so that
// the page can report a failure to load) under a Content Security Policy without
// 'wasm-unsafe-eval'. Sets globalThis.__result.
try {
  const { scru128String, ENGINE } = await import("./csp-lib.js");
  globalThis.__result = { ENGINE, id: scru128String() };
} catch (err) {
  globalThis.__result = { error: `${err.name}: ${err.message}` };
}
