// npm scru128 1.0.1's own tests (test/identifier.mjs and test/index.mjs of its
// repository, written for mocha), against this package: bundled by
// test/browser.test.mjs only when SCRU128_JS_101_DIR names a checkout of 1.0.1 (npm no
// longer serves 1.0.1, and its code is not copied into this repository). esbuild puts
// the two files in place of the imports below.
import { run } from "../helpers/mocha-shim.mjs";
import "scru128-101-tests/identifier.mjs";
import "scru128-101-tests/index.mjs";

globalThis.__referenceRun = run;
