// The package in a real browser: a program importing it, bundled by esbuild for the
// browser (the package's `browser` conditions), runs in headless Chromium, in the page
// and in four web workers: it prints IDs, the checks of browser/checks.mjs pass (order,
// uniqueness, Date.now() time, crypto.getRandomValues bytes, the codec, every hostile
// value), no ID repeats across the workers and the page, and, where SCRU128_JS_101_DIR
// names a checkout of npm scru128 1.0.1, 1.0.1's own tests pass against this package.
// Chromium: SCRU128_CHROMIUM, or /usr/bin/chromium (Debian: apt-get install chromium).
import test from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";
import { bundle, chromiumPath, launch, serve } from "./helpers/browser.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));

const skipReason = () => {
  const how = "install Chromium (Debian: apt-get install chromium) or set SCRU128_CHROMIUM; scripts/test-node does";
  if (chromiumPath() !== null) return false;
  if (process.env.SCRU128_TEST_REQUIRE_ALL === "1") return false;
  return `no Chromium: ${how}`;
};

test("in headless Chromium: IDs printed, the checks pass in the page and in 4 web workers, no duplicate across them", { skip: skipReason(), timeout: 300_000 }, async (t) => {
  const chrome = chromiumPath();
  assert.ok(chrome, "no Chromium: install it (Debian: apt-get install chromium) or set SCRU128_CHROMIUM");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "scru128-v1-browser-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ref = process.env.SCRU128_JS_101_DIR;
  const imports = [];
  if (ref) imports.push(path.join(here, "browser", "reference.mjs"));
  else t.diagnostic("1.0.1's own tests not run: set SCRU128_JS_101_DIR to a checkout of npm scru128 1.0.1 (its test/*.mjs; npm no longer serves 1.0.1)");
  imports.push(path.join(here, "browser", "page.mjs"));
  fs.writeFileSync(path.join(dir, "entry.mjs"), imports.map((f) => `import ${JSON.stringify(f)};`).join("\n"));
  const alias = ref ? { "scru128-101-tests": path.join(ref, "test") } : {};
  await bundle(path.join(dir, "entry.mjs"), path.join(dir, "page.js"), { alias });
  await bundle(path.join(here, "browser", "worker.mjs"), path.join(dir, "worker.js"));
  fs.writeFileSync(path.join(dir, "index.html"), '<!doctype html><meta charset="utf-8"><pre id="out"></pre><script type="module" src="page.js"></script>');
  const bundleText = fs.readFileSync(path.join(dir, "page.js"), "utf8");
  assert.ok(!/node:|\.node["']/.test(bundleText), "the browser bundle names no Node built-in and no addon");

  const server = await serve(dir);
  const browser = await launch(chrome);
  try {
    const page = await browser.newPage();
    const errors = [];
    const logs = [];
    page.on("pageerror", (err) => errors.push(String(err)));
    page.on("console", (m) => logs.push(m.text()));
    page.on("requestfailed", (r) => logs.push(`request failed: ${r.url()}`));
    page.on("response", (r) => r.status() >= 400 && logs.push(`${r.status()} ${r.url()}`));
    await page.goto(`${server.url}/index.html`);
    try {
      await page.waitForFunction(() => globalThis.__result !== undefined, null, { timeout: 240_000, polling: 500 });
    } catch (err) {
      assert.fail(`no result from the page: ${err.message}; errors: ${errors.join("; ")}; console: ${logs.join("; ")}`);
    }
    const result = await page.evaluate(() => globalThis.__result);
    assert.deepEqual(errors, [], "no error in the page");
    assert.equal(result.error, undefined, result.error);
    t.diagnostic(`printed by the page:\n${result.printed.trim()}`);
    const lines = result.printed.trim().split("\n");
    assert.equal(lines[0], "ENGINE wasm");
    for (const line of lines.slice(1)) assert.match(line, /^[0-7][0-9A-V]{25}$/);
    for (const [where, list] of [["page", result.page], ...result.workers.map((w, i) => [`worker ${i}`, w])]) {
      for (const c of list) assert.ok(c.ok, `${where}: ${c.name}: ${c.detail}`);
    }
    assert.ok(result.unique.ok, `${result.unique.name}: ${result.unique.detail}`);
    if (ref) {
      assert.ok(result.reference.length >= 10, "1.0.1's tests ran");
      for (const r of result.reference) assert.ok(r.ok, `1.0.1's test "${r.name}": ${r.error}`);
      t.diagnostic(`1.0.1's own tests in Chromium: ${result.reference.length} passed`);
    }
  } finally {
    await browser.close();
    await server.close();
  }
});

test("the browser entry, minified and gzipped: its size", { skip: skipReason() === false ? false : "esbuild comes with npm ci" }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "scru128-v1-size-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, "entry.mjs"), 'import { scru128String } from "scru128"; console.log(scru128String());');
  await bundle(path.join(dir, "entry.mjs"), path.join(dir, "out.js"), { minify: true, ignoreAnnotations: false });
  const raw = fs.readFileSync(path.join(dir, "out.js"));
  const gz = zlib.gzipSync(raw, { level: 9 }).length;
  t.diagnostic(`a browser program of one scru128String() call: ${raw.length} bytes minified, ${gz} gzipped`);
  // A budget that catches a regression (a formatter or a second copy dragged in).
  assert.ok(gz < 40_000, `${gz} bytes gzipped`);
});
