// Which engine index.js loads, on platforms this machine can only pretend to be (a
// preload script changes what Node reports): musl, macOS, Windows, a missing addon, a
// bundle. Never a crash, never a wrong addon loaded; `ENGINE` says why not native.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { execFileSync, spawnSync } = require("node:child_process");

const pkgDir = path.resolve(__dirname, "..");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "scru128-v1-loader-"));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Runs `code` with the package bound to `s`, after a preload that runs `pretend`. */
function run(pretend, code, env = {}) {
  const preload = path.join(tmp, `pretend-${Math.random().toString(36).slice(2)}.js`);
  fs.writeFileSync(preload, pretend);
  return spawnSync(process.execPath, ["--require", preload, "-e", `const s = require(${JSON.stringify(pkgDir)}); ${code}`], {
    encoding: "utf8",
    env: { ...process.env, SCRU128_ENGINE: "", ...env },
  });
}

const MUSL = `const real = process.report.getReport.bind(process.report);
process.report.getReport = () => { const r = real(); delete r.header.glibcVersionRuntime; return r; };`;
const PLATFORM = (platform, arch) =>
  `Object.defineProperty(process, "platform", { value: ${JSON.stringify(platform)} });
   Object.defineProperty(process, "arch", { value: ${JSON.stringify(arch)} });`;
const PRINT = 'console.log(s.ENGINE); console.log(s.scru128String()); console.log(String(s.Scru128Id.fromString("00pghaj3q9vaj7iu6pqbhbuak4")));';

function engineOf(r) {
  assert.equal(r.status, 0, r.stderr);
  const [engine, id, parsed] = r.stdout.trim().split("\n");
  assert.match(id, /^[0-7][0-9A-V]{25}$/);
  assert.equal(parsed, "00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
  return engine;
}

test("musl (no glibc in process.report): the WebAssembly engine, and why", () => {
  const arch = process.arch;
  assert.equal(engineOf(run(MUSL, PRINT)), `wasm: no native addon for linux-${arch}-musl (the musl addons are not shipped: untested)`);
});

test("macOS, Windows, FreeBSD and Linux on other CPUs: the WebAssembly engine, and why", () => {
  for (const [platform, arch] of [["darwin", "arm64"], ["darwin", "x64"], ["win32", "x64"], ["freebsd", "x64"], ["linux", "riscv64"], ["linux", "s390x"]]) {
    const engine = engineOf(run(PLATFORM(platform, arch), PRINT));
    if (platform === "linux") {
      assert.equal(engine, `wasm: no native addon for linux-${arch}-gnu`);
    } else {
      assert.equal(engine, `wasm: no native addon for ${platform}-${arch}`);
    }
  }
});

test("SCRU128_ENGINE=native where there is no addon: one line that says why", () => {
  const r = run(PLATFORM("darwin", "arm64"), PRINT, { SCRU128_ENGINE: "native" });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /Error: scru128-v1: SCRU128_ENGINE=native, but no native addon for darwin-arm64/);
});

test("a package copy without its addon: the WebAssembly engine, and why", () => {
  const copy = path.join(tmp, "no-addon");
  fs.mkdirSync(path.join(copy, "lib"), { recursive: true });
  for (const f of ["index.js", "package.json", "lib/api.js", "lib/native.js", "lib/wasm.js", "lib/wasm-module.js"]) {
    fs.copyFileSync(path.join(pkgDir, f), path.join(copy, f));
  }
  const out = execFileSync(process.execPath, ["-e", `const s = require(${JSON.stringify(copy)}); console.log(s.ENGINE, s.scru128String().length)`], {
    encoding: "utf8",
    env: { ...process.env, SCRU128_ENGINE: "" },
  });
  assert.match(out, /^wasm: the native addon linux-(x64|arm64)-gnu did not load \(MODULE_NOT_FOUND\) 26\n$/);
});

test("bundled by esbuild for Node (no loader for .node files): it builds and runs, on WebAssembly", () => {
  const esbuild = require("esbuild");
  const dir = path.join(tmp, "bundle");
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "main.mjs"), 'import { scru128String, ENGINE } from "scru128"; console.log(ENGINE); console.log(scru128String());');
  for (const format of ["cjs", "esm"]) {
    const outfile = path.join(dir, `out.${format === "cjs" ? "cjs" : "mjs"}`);
    const result = esbuild.buildSync({
      entryPoints: [path.join(dir, "main.mjs")],
      bundle: true,
      platform: "node",
      format,
      outfile,
      alias: { scru128: pkgDir },
      logLevel: "silent",
    });
    assert.deepEqual(result.errors, []);
    const out = execFileSync(process.execPath, [outfile], { encoding: "utf8", env: { ...process.env, SCRU128_ENGINE: "" } });
    const [engine, id] = out.trim().split("\n");
    assert.match(engine, /^wasm: the native addon linux-(x64|arm64)-gnu did not load \((MODULE_NOT_FOUND|ReferenceError)\)$/);
    assert.match(id, /^[0-7][0-9A-V]{25}$/);
  }
});
