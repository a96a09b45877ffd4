// `npm pack` gives the installable tarball, and `npm install ./scru128-v1-<version>.tgz`
// into an empty project, on a PATH without cargo, works: `require`, `import`, the
// seed's example under the name `scru128` (the npm alias users write), and the types.
// With SCRU128_NODE18 set to a Node 18 binary (scripts/test-node installs one), the
// installed package is run by Node 18 too.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

const pkgDir = path.resolve(__dirname, "..");
const { version } = require("../package.json");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "scru128-v1-tarball-"));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

// A PATH with node and npm but no cargo, rustc or rustup.
const pathDirs = [path.dirname(process.execPath), "/usr/bin", "/bin"];
const noRustPath = pathDirs.join(path.delimiter);
const env = { ...process.env, PATH: noRustPath, npm_config_update_notifier: "false" };
delete env.CARGO;
delete env.RUSTUP_HOME;
delete env.CARGO_HOME;

const npm = (args, cwd) => execFileSync("npm", args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] }).toString();
const run = (node, args, cwd) => execFileSync(node, args, { cwd, env }).toString();
const SEED = 'import { scru128 } from "scru128"; console.log(scru128());';
const ID_LINE = /^[0-7][0-9A-V]{25}\n$/;

let tarball;

test("npm pack: the tarball holds the engines, the JavaScript, the types, README and LICENSE only", () => {
  for (const d of pathDirs) {
    for (const tool of ["cargo", "rustc", "rustup"]) {
      assert.ok(!fs.existsSync(path.join(d, tool)), `${tool} in ${d}: the PATH must have no Rust`);
    }
  }
  const out = npm(["pack", "--pack-destination", tmp, "--json"], pkgDir);
  const [info] = JSON.parse(out.slice(out.indexOf("[")));
  assert.equal(info.filename, `scru128-v1-${version}.tgz`);
  tarball = path.join(tmp, info.filename);
  // The addons built here (`npm run build` makes this machine's; scripts/release all four).
  const addons = fs.readdirSync(pkgDir).filter((f) => /^scru128\.linux-(x64|arm64)-(gnu|musl)\.node$/.test(f));
  assert.ok(addons.length > 0, "at least one native addon");
  assert.deepEqual(info.files.map((f) => f.path).sort(), [
    "LICENSE",
    "README.md",
    "browser.js",
    "browser.mjs",
    "index.d.ts",
    "index.js",
    "index.mjs",
    "lib/api.js",
    "lib/native.js",
    "lib/wasm-module.js",
    "lib/wasm.js",
    "package.json",
    ...addons,
  ].sort());
});

test("npm install ./scru128-v1-<version>.tgz into an empty project, without cargo", (t) => {
  assert.ok(tarball, "the tarball was made");
  const project = path.join(tmp, "plain");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "plain", private: true }));
  fs.copyFileSync(tarball, path.join(project, path.basename(tarball)));
  npm(["install", "--offline", "--no-audit", "--no-fund", `./${path.basename(tarball)}`], project);
  const dep = JSON.parse(fs.readFileSync(path.join(project, "package.json"), "utf8")).dependencies;
  assert.deepEqual(Object.keys(dep), ["scru128-v1"]);
  const cjs = run(process.execPath, ["-e", 'const s = require("scru128-v1"); const x = s.scru128(); console.log(x instanceof s.Scru128Id, String(s.Scru128Id.fromString(String(x).toLowerCase())) === String(x), s.scru128String().length)'], project);
  assert.equal(cjs, "true true 26\n");
  assert.match(run(process.execPath, ["--input-type=module", "-e", SEED.replace('"scru128"', '"scru128-v1"')], project), ID_LINE);
  const node18 = process.env.SCRU128_NODE18;
  if (node18) {
    assert.match(run(node18, ["-p", "process.version"], project), /^v18\./);
    assert.match(run(node18, ["--input-type=module", "-e", SEED.replace('"scru128"', '"scru128-v1"')], project), ID_LINE);
    assert.equal(run(node18, ["-e", 'const s = require("scru128-v1"); console.log(s.scru128() instanceof s.Scru128Id)'], project), "true\n");
  } else {
    t.diagnostic("Node 18 not run: set SCRU128_NODE18 to a Node 18 binary (scripts/test-node installs npm's node@18)");
  }
});

test("npm install scru128@<tarball> (the npm alias): the seed's example and 1.0.1's types, unchanged", () => {
  assert.ok(tarball, "the tarball was made");
  const project = path.join(tmp, "alias");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "alias", private: true, type: "module" }));
  // From the registry this is `npm install scru128@npm:scru128-v1`: the package is
  // installed under the name scru128.
  npm(["install", "--offline", "--no-audit", "--no-fund", `scru128@file:${tarball}`], project);
  const installed = JSON.parse(fs.readFileSync(path.join(project, "node_modules", "scru128", "package.json"), "utf8"));
  assert.equal(installed.name, "scru128-v1");
  fs.writeFileSync(path.join(project, "seed.js"), SEED + "\n");
  assert.match(run(process.execPath, ["seed.js"], project), ID_LINE);
  assert.equal(run(process.execPath, ["--input-type=commonjs", "-e", 'console.log(require("scru128").scru128String().length)'], project), "26\n");
  if (process.env.SCRU128_NODE18) assert.match(run(process.env.SCRU128_NODE18, ["seed.js"], project), ID_LINE);
  // The installed declarations type-check 1.0.1's examples (as the package resolves
  // for a user: node16 module resolution, the "types" condition).
  const tsc = path.join(pkgDir, "node_modules", "typescript", "bin", "tsc");
  assert.ok(fs.existsSync(tsc), "typescript is installed (npm install in node/)");
  fs.copyFileSync(path.join(__dirname, "typing", "examples.ts"), path.join(project, "examples.ts"));
  fs.writeFileSync(
    path.join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: "es2020", module: "node16", moduleResolution: "node16", types: [], lib: ["es2020", "dom"] },
      files: ["examples.ts"],
    }),
  );
  execFileSync(process.execPath, [tsc, "-p", "."], { cwd: project, env });
});
