// The package, bundled on its own for browser-review.test.mjs's CSP page.
export { scru128String, ENGINE } from "scru128";
