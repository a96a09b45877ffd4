// The ES module entry point: the same API and the same objects as `require` gives.
import test from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { execFileSync } from "node:child_process";
import * as ns from "scru128-v1";
import { Scru128Id, Scru128Generator, TIMESTAMP_BIAS, scru128, scru128String, setLogger } from "../index.mjs";

const require = createRequire(import.meta.url);

test("import gives the named exports of 1.0.1, the very objects of require", () => {
  const cjs = require("..");
  assert.deepEqual(Object.keys(ns).sort(), ["ENGINE", "Scru128Generator", "Scru128Id", "TIMESTAMP_BIAS", "scru128", "scru128String", "setLogger"]);
  assert.equal(ns.ENGINE, cjs.ENGINE);
  assert.equal(Scru128Id, cjs.Scru128Id);
  assert.equal(ns.Scru128Id, cjs.Scru128Id);
  assert.equal(Scru128Generator, cjs.Scru128Generator);
  assert.equal(setLogger, cjs.setLogger);
  assert.equal(TIMESTAMP_BIAS, 1577836800000);
  assert.ok(scru128() instanceof cjs.Scru128Id);
  assert.ok(cjs.scru128() instanceof Scru128Id);
  assert.match(scru128String(), /^[0-7][0-9A-V]{25}$/);
});

test("the seed's example, unchanged, prints one 26-digit ID", () => {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", 'import { scru128 } from "scru128-v1"; console.log(scru128());'], {
    cwd: new URL("..", import.meta.url),
  }).toString();
  assert.match(out, /^[0-7][0-9A-V]{25}\n$/);
});
