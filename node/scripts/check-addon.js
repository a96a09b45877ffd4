#!/usr/bin/env node
// `npm pack` (prepack): the tarball must hold the addon; says how to build it if not.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const addon = path.join(__dirname, "..", "scru128.linux-x64-gnu.node");
if (!fs.existsSync(addon)) {
  console.error(`npm pack: ${path.basename(addon)} is missing; run \`npm run build\` first`);
  process.exit(1);
}
