// IDs through clock steps back, with the clock stepped for real under libfaketime
// (Debian: libfaketime), in a child process: SCRU128_FAKETIME names the library
// (scripts/test-node sets it). 1.0.1 kept its last timestamp and counted on whatever
// the clock did, so its IDs stayed in order; so do ours, from generator objects and
// from scru128(), on either engine.
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

test("clock steps back of 5 s and 60 s: the IDs stay in order and nothing is logged, as in 1.0.1", (t) => {
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
    // The clock did step: the run's end reads 65 s before its start.
    assert.ok(r.stepped < -60_000, `the clock stepped back (${r.stepped} ms)`);
    assert.deepEqual(r.backs, { generator: 0, scru128: 0 }, `no ID went back (${r.ENGINE})`);
    assert.deepEqual(r.messages, []);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
