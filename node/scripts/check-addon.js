#!/usr/bin/env node
// `npm pack` (prepack): the tarball must hold the WebAssembly engine and at least one
// native addon; says how to build them if not.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const here = path.join(__dirname, "..");
const missing = [];
if (!fs.existsSync(path.join(here, "lib", "wasm-module.js"))) {
  missing.push("lib/wasm-module.js (the WebAssembly engine)");
}
if (!fs.readdirSync(here).some((f) => /^scru128\..*\.node$/.test(f))) {
  missing.push("a native addon (scru128.<platform>.node)");
}
if (missing.length > 0) {
  console.error(`npm pack: missing ${missing.join(" and ")}; run \`npm run build\` first`);
  process.exit(1);
}
