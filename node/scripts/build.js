#!/usr/bin/env node
// `npm run build`: builds the addon with cargo (release) and copies it next to
// index.js as scru128.<platform>-<arch>-gnu.node, the name index.js loads.
// `SCRU128_NODE_ADDON=path` copies a library built elsewhere instead (scripts/release
// builds one for glibc 2.17 with cargo-zigbuild).
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const here = path.resolve(__dirname, "..");
const dest = path.join(here, `scru128.${process.platform}-${process.arch}-gnu.node`);
let built = process.env.SCRU128_NODE_ADDON;
if (!built) {
  const cargo = process.env.CARGO || "cargo";
  try {
    execFileSync(cargo, ["build", "--release", "--locked"], { cwd: here, stdio: "inherit" });
  } catch (err) {
    console.error(`npm run build: \`${cargo} build --release --locked\` in ${here} failed: ${err.message}`);
    process.exit(1);
  }
  built = path.join(here, "target", "release", "libscru128_node.so");
}
fs.copyFileSync(built, dest);
console.log(`npm run build: ${path.relative(here, built)} -> ${path.basename(dest)}`);
