// Helpers of the browser test and the browser benchmark: find Chromium, bundle a
// program for the browser with this package as `scru128`, serve a directory, launch
// headless Chromium.
import fs from "node:fs";
import path from "node:path";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export function chromiumPath() {
  for (const p of [process.env.SCRU128_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    if (p && fs.existsSync(p)) return p;
  }
  return null;
}

/** Bundles `entry` for the browser with `scru128` resolved to this package. */
export async function bundle(entry, outfile, extra = {}) {
  const esbuild = require("esbuild");
  await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "browser",
    outfile,
    logLevel: "silent",
    alias: { scru128: pkgDir, ...extra.alias },
    minify: extra.minify ?? false,
    // The test programs live inside this package (and 1.0.1's tests inside its own),
    // both `"sideEffects": false`: without this, imports made for their effect would
    // be dropped.
    ignoreAnnotations: extra.ignoreAnnotations ?? true,
  });
}

/** Serves `dir` on 127.0.0.1; returns { url, close }. */
export function serve(dir) {
  const types = { ".html": "text/html", ".js": "text/javascript" };
  const server = http.createServer((req, res) => {
    const file = path.join(dir, path.normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)));
    if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) }),
    );
  });
}

/** Headless Chromium, as the machine's tests run it (root: no sandbox). */
export async function launch(executablePath) {
  const { chromium } = require("playwright-core");
  return chromium.launch({
    executablePath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

