// The benchmark in Deno (scripts/bench-node): a project with this package's tarball
// installed as `scru128` and npm scru128 1.0.1 (SCRU128_JS_101_DIR, a build of it) as
// `scru128-101`, bench/deno.mjs run there; prints the medians and the ratios.
//
// Usage: node bench/runtimes.mjs [rounds] [calls per measurement]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { table } from "./suite.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgDir = path.resolve(here, "..");
const [rounds = "11", calls = "100000"] = process.argv.slice(2);
const refDir = process.env.SCRU128_JS_101_DIR;
const deno = process.env.SCRU128_DENO ?? path.resolve(pkgDir, "..", "target", "deno", "node_modules", ".bin", "deno");
if (!refDir || !fs.existsSync(deno)) {
  console.log("bench/runtimes.mjs: needs SCRU128_JS_101_DIR (a build of npm scru128 1.0.1) and Deno (SCRU128_DENO, or scripts/test-node's target/deno)");
  process.exit(1);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "scru128-v1-bench-deno-"));
try {
  const out = execFileSync("npm", ["pack", "--pack-destination", dir, "--json"], { cwd: pkgDir, stdio: ["ignore", "pipe", "pipe"] }).toString();
  const [info] = JSON.parse(out.slice(out.indexOf("[")));
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "bench", private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--silent", "--install-links", `scru128@file:${path.join(dir, info.filename)}`, `scru128-101@file:${refDir}`], { cwd: dir });
  for (const f of ["deno.mjs", "suite.mjs"]) fs.copyFileSync(path.join(here, f), path.join(dir, f));
  const result = JSON.parse(execFileSync(deno, ["run", "--allow-read", "--allow-env", "deno.mjs", rounds, calls], { cwd: dir, encoding: "utf8" }));
  console.log(`Deno ${result.version.deno} (V8 ${result.version.v8}) on ${os.cpus()[0]?.model}, load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}; ENGINE ${result.engine}`);
  console.log(`${rounds} rounds of ${calls} calls per operation and library, interleaved, in one process; medians (ns per call)`);
  console.log();
  console.log(table(result, ["wasm", "1.0.1"], "1.0.1"));
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
