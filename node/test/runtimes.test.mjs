// The package in Deno and Bun, as their users install it: the tarball of `npm pack`,
// installed into an empty project under the name `scru128` (the npm alias); the
// seed's example prints an ID, and the checks of browser/checks.mjs (order,
// uniqueness, Date.now() time, getRandomValues bytes where the engine is WebAssembly,
// the codec, every hostile value) pass in the main thread and in four workers, with no
// ID repeated across them. Deno runs the WebAssembly engine (the package's `deno`
// condition); Bun the native addon (it loads Node-API addons), so its run skips the
// getRandomValues check. The runtimes: SCRU128_DENO and SCRU128_BUN, or the ones
// scripts/test-node installs into target/deno and target/bun.
import test from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgDir = path.resolve(here, "..");
const targetDir = path.resolve(pkgDir, "..", "target");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "scru128-v1-runtimes-"));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function runtime(name) {
  const env = process.env[`SCRU128_${name.toUpperCase()}`];
  for (const p of [env, path.join(targetDir, name, "node_modules", ".bin", name)]) {
    if (p && fs.existsSync(p)) return p;
  }
  return null;
}

function skipFor(name) {
  if (runtime(name) !== null || process.env.SCRU128_TEST_REQUIRE_ALL === "1") return false;
  return `no ${name}: set SCRU128_${name.toUpperCase()} to its binary, or run scripts/test-node (it installs npm's ${name} into target/${name})`;
}

let project;
/** A project with the tarball installed as `scru128`, and the check programs. */
function makeProject() {
  if (project) return project;
  const out = execFileSync("npm", ["pack", "--pack-destination", tmp, "--json"], { cwd: pkgDir, stdio: ["ignore", "pipe", "pipe"] }).toString();
  const [info] = JSON.parse(out.slice(out.indexOf("[")));
  project = path.join(tmp, "project");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "project", private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--silent", `scru128@file:${path.join(tmp, info.filename)}`], { cwd: project });
  fs.copyFileSync(path.join(here, "browser", "checks.mjs"), path.join(project, "checks.mjs"));
  fs.copyFileSync(path.join(here, "runtimes", "run-checks.mjs"), path.join(project, "run-checks.mjs"));
  fs.copyFileSync(path.join(here, "runtimes", "worker.mjs"), path.join(project, "worker.mjs"));
  fs.writeFileSync(path.join(project, "seed.mjs"), 'import { scru128 } from "scru128";\nconsole.log(scru128());\n');
  return project;
}

for (const [name, args, engine] of [
  ["deno", (file) => ["run", "--allow-read", file], /^wasm$/],
  ["bun", (file) => [file], /^native linux-(x64|arm64)-gnu$/],
]) {
  test(`${name}: the seed's example, and the checks in the main thread and 4 workers, from the tarball`, { skip: skipFor(name), timeout: 600_000 }, (t) => {
    const bin = runtime(name);
    assert.ok(bin, `no ${name}`);
    const dir = makeProject();
    const version = execFileSync(bin, ["--version"], { encoding: "utf8" }).trim().split("\n")[0];
    const seed = execFileSync(bin, args("seed.mjs"), { cwd: dir, encoding: "utf8" });
    assert.match(seed, /^[0-7][0-9A-V]{25}\n$/, `${version}: the seed's example`);
    const result = JSON.parse(execFileSync(bin, args("run-checks.mjs"), { cwd: dir, encoding: "utf8", maxBuffer: 1 << 26 }));
    assert.match(result.ENGINE, engine);
    const native = result.ENGINE.startsWith("native");
    for (const [where, list] of [["main", result.main], ...result.workers.map((w, i) => [`worker ${i}`, w])]) {
      for (const c of list) {
        if (native && /ENGINE is wasm|getRandomValues/.test(c.name)) continue;
        assert.ok(c.ok, `${version}, ${where}: ${c.name}: ${c.detail}`);
      }
    }
    assert.equal(result.unique, result.total, "no ID repeated across the workers and the main thread");
    t.diagnostic(`${version}: ENGINE ${result.ENGINE}, ${result.total} IDs from 4 workers and the main thread, all unique`);
  });
}
