// The benchmark in headless Chromium (scripts/bench-node): bench/page.mjs bundled by
// esbuild for the browser with this package and npm scru128 1.0.1 (SCRU128_JS_101_DIR,
// a build of it), run in one page; prints the medians and the ratios.
//
// Usage: node bench/browser.mjs [rounds] [calls per measurement]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundle, serve, launch, chromiumPath } from "../test/helpers/browser.mjs";
import { table } from "./suite.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const rounds = Number(process.argv[2] ?? 11);
const calls = Number(process.argv[3] ?? 100_000);
const refDir = process.env.SCRU128_JS_101_DIR;
if (!refDir) {
  console.log("bench/browser.mjs: set SCRU128_JS_101_DIR to a build of npm scru128 1.0.1 (npm no longer serves it)");
  process.exit(1);
}
const chrome = chromiumPath();
if (!chrome) {
  console.log("bench/browser.mjs: no Chromium (Debian: apt-get install chromium, or set SCRU128_CHROMIUM)");
  process.exit(1);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "scru128-v1-bench-"));
await bundle(path.join(here, "page.mjs"), path.join(dir, "page.js"), { alias: { "scru128-101": refDir }, minify: true });
fs.writeFileSync(path.join(dir, "index.html"), '<!doctype html><meta charset="utf-8"><script type="module" src="page.js"></script>');
const server = await serve(dir);
const browser = await launch(chrome);
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}/index.html?rounds=${rounds}&calls=${calls}`);
  await page.waitForFunction(() => globalThis.__result !== undefined, null, { timeout: 1_800_000, polling: 1000 });
  const result = await page.evaluate(() => globalThis.__result);
  console.log(`${result.userAgent.match(/(HeadlessChrome|Chrome)\/[\d.]+/)?.[0] ?? result.userAgent} on ${os.cpus()[0]?.model}, load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
  console.log(`${rounds} rounds of ${calls} calls per operation and library, interleaved, in one page; medians (ns per call)`);
  console.log();
  console.log(table(result, ["wasm", "1.0.1"], "1.0.1"));
} finally {
  await browser.close();
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
