#!/usr/bin/env node
// `npm run build`: builds both engines of the package with cargo.
// - The WebAssembly engine: `cargo build -p scru128-wasm --profile wasm --target
//   wasm32-unknown-unknown` (the target is added with rustup if missing), embedded as
//   base64 in lib/wasm-module.js.
// - The native addon for this machine: `cargo build --release`, copied next to index.js
//   as scru128.<platform>-<arch>-<gnu|musl>.node, the name index.js loads. Built so, it
//   needs this machine's glibc; scripts/release builds the addons it ships for glibc
//   2.17 (and musl) with cargo-zigbuild and hands them in as
//   `SCRU128_NODE_ADDONS=linux-x64-gnu=path,linux-arm64-gnu=path`, copied instead;
//   `SCRU128_NODE_MORE_ADDONS=name=path,...` are copied besides this machine's
//   (scripts/test-node's arm64 addon).
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const here = path.resolve(__dirname, "..");
const cargo = process.env.CARGO || "cargo";

function run(command, args) {
  try {
    execFileSync(command, args, { cwd: here, stdio: "inherit" });
  } catch (err) {
    console.error(`npm run build: \`${command} ${args.join(" ")}\` in ${here} failed: ${err.message}`);
    process.exit(1);
  }
}

// ---- the WebAssembly engine ------------------------------------------------------------
const WASM_TARGET = "wasm32-unknown-unknown";
let libdir = "";
try {
  libdir = execFileSync("rustc", ["--print", "target-libdir", "--target", WASM_TARGET], {
    encoding: "utf8",
  }).trim();
} catch {
  // rustc refuses an unknown target
}
if (!libdir || !fs.existsSync(libdir) || fs.readdirSync(libdir).length === 0) {
  console.log(`npm run build: adding the Rust target ${WASM_TARGET} (rustup target add)`);
  run("rustup", ["target", "add", WASM_TARGET]);
}
run(cargo, ["build", "--locked", "-p", "scru128-wasm", "--profile", "wasm", "--target", WASM_TARGET]);
const built = path.join(here, "target", WASM_TARGET, "wasm", "scru128_wasm.wasm");
// binaryen's wasm-opt (a devDependency, pinned in package-lock.json) makes the module
// about a sixth smaller (measured: 27 982 -> 23 473 bytes), and no slower; without it
// (no `npm install`), the module is cargo's.
const wasmOpt = path.join(here, "node_modules", "binaryen", "bin", "wasm-opt");
let wasmFile = built;
if (fs.existsSync(wasmOpt)) {
  wasmFile = path.join(here, "target", WASM_TARGET, "wasm", "scru128_wasm.opt.wasm");
  // The features Rust enables for this target by default (and every engine the package
  // supports has).
  const features = ["bulk-memory", "sign-ext", "mutable-globals", "nontrapping-float-to-int", "multivalue", "reference-types"];
  run(process.execPath, [wasmOpt, "-O3", ...features.map((f) => `--enable-${f}`), built, "-o", wasmFile]);
} else {
  console.log("npm run build: no wasm-opt (run `npm install` for binaryen): the module is not optimized further");
}
const wasm = fs.readFileSync(wasmFile);
fs.writeFileSync(
  path.join(here, "lib", "wasm-module.js"),
  '"use strict";\n' +
    "// Made by `npm run build` (scripts/build.js) from wasm/: the WebAssembly engine, base64.\n" +
    `exports.wasmBase64 =\n  "${wasm.toString("base64")}";\n`,
);
console.log(`npm run build: the WebAssembly engine (${wasm.length} bytes) -> lib/wasm-module.js`);

// ---- native addons ------------------------------------------------------------------------
function hostName() {
  let libc = "gnu";
  try {
    process.report.excludeNetwork = true;
    libc = process.report.getReport().header.glibcVersionRuntime ? "gnu" : "musl";
  } catch {
    // not Linux, or no report
  }
  return `${process.platform}-${process.arch}-${libc}`;
}

const given = process.env.SCRU128_NODE_ADDONS;
const addons = given
  ? given.split(",").map((pair) => pair.split("="))
  : (() => {
      run(cargo, ["build", "--release", "--locked", "-p", "scru128-node"]);
      return [[hostName(), path.join(here, "target", "release", "libscru128_node.so")]];
    })();
const more = process.env.SCRU128_NODE_MORE_ADDONS;
if (more) addons.push(...more.split(",").map((pair) => pair.split("=")));
for (const [name, built] of addons) {
  const dest = path.join(here, `scru128.${name}.node`);
  fs.copyFileSync(built, dest);
  console.log(`npm run build: ${path.relative(here, built)} -> ${path.basename(dest)}`);
}
