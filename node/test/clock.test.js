// The logger's warning when the clock goes back beyond the rollback allowance, with
// the clock stepped for real under libfaketime (Debian: libfaketime), in a child
// process: SCRU128_FAKETIME names the library (scripts/test-node sets it).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

function faketimeLib() {
  if (process.env.SCRU128_FAKETIME) return process.env.SCRU128_FAKETIME;
  const debian = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
  return fs.existsSync(debian) ? debian : null;
}

test("a clock step back of 60 s: 1.0.1's warning once, and the IDs start over once", (t) => {
  const lib = faketimeLib();
  if (lib === null || !fs.existsSync(lib)) {
    const how = "install libfaketime (Debian: apt-get install libfaketime) or set SCRU128_FAKETIME to its libfaketime.so.1";
    if (process.env.SCRU128_TEST_REQUIRE_ALL === "1") assert.fail(`no libfaketime: ${how}`);
    t.skip(`no libfaketime: ${how}`);
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "scru128-v1-faketime-"));
  try {
    const file = path.join(dir, "offset");
    fs.writeFileSync(file, "+0\n");
    const out = execFileSync(process.execPath, [path.join(__dirname, "helpers", "clock-step.js")], {
      env: {
        ...process.env,
        LD_PRELOAD: lib,
        FAKETIME_TIMESTAMP_FILE: file,
        FAKETIME_NO_CACHE: "1",
        FAKETIME_DONT_FAKE_MONOTONIC: "1",
      },
    }).toString();
    const r = JSON.parse(out);
    assert.equal(r.beforeReset, 0, "nothing logged for a step back within the allowance");
    assert.deepEqual(r.messages, [["warn", "reset state as clock did not go forward"]]);
    assert.equal(r.backs, 1, "one ID went back: the reset");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
