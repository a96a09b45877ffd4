// `tsc --noEmit` type-checks 1.0.1's README examples and the seed's against index.d.ts
// (test/typing/examples.ts; its @ts-expect-error lines must be errors).
"use strict";
const test = require("node:test");
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

test("tsc --noEmit on test/typing", () => {
  const tsc = path.join(__dirname, "..", "node_modules", "typescript", "bin", "tsc");
  if (!fs.existsSync(tsc)) throw new Error("typescript is missing: run `npm install` in node/ first");
  execFileSync(process.execPath, [tsc, "-p", path.join(__dirname, "typing")], { stdio: "inherit" });
});
