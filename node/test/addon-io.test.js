// The native addon's own functions, called directly (as test/hostile.test.js does):
// a review found that buffers whose memory went away under the addon crashed the
// process (an array JavaScript handed in could be transferred or resized away), and a
// user generator given a draw that is not a function returned nothing, silently. The
// addon makes its blocks (`newIo`) over memory of its own that is never freed, and
// checks the draw's type. Each crash scenario runs in a child process, so that a
// signal is reported rather than killing this file. Native engine only.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const { spawnSync } = require("node:child_process");
const { ENGINE } = require("..");

const native = ENGINE.startsWith("native ");
const skip = native ? false : `the engine is ${ENGINE}: the native addon's own tests need it (unset SCRU128_ENGINE)`;
const addonPath = native ? path.join(__dirname, "..", `scru128.${ENGINE.slice(7)}.node`) : null;

/** Runs `body` in a new Node process with `addon` bound; its exit status and output. */
function run(body) {
  const src = `const addon = require(${JSON.stringify(addonPath)});\n${body}\nconsole.log("survived");`;
  const r = spawnSync(process.execPath, ["--expose-gc", "-e", src], { encoding: "utf8", timeout: 60_000 });
  return { status: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

function assertNoCrash(label, r) {
  assert.ok(
    r.signal === null && r.status === 0 && r.out.includes("survived"),
    `${label}: the process died (status ${r.status}, signal ${r.signal}); stderr: ${r.err.slice(0, 300)}`,
  );
}

test("the addon takes no buffer of JavaScript's: newIo makes its own", { skip }, () => {
  const addon = require(addonPath);
  assert.equal(addon.registerWords, undefined);
  assert.equal(addon.newWords, undefined);
  const [slot, buffer] = addon.newIo();
  assert.equal(typeof slot, "number");
  assert.ok(buffer instanceof ArrayBuffer && buffer.byteLength === 144);
  assert.equal(buffer.resizable ?? false, false);
  const numbers = new Float64Array(buffer, 0, 16);
  addon.newId(slot);
  assert.ok(numbers[0] > 0, "the ID's timestamp was written into the block");
});

test("newIo, then its buffer transferred away and collected: never a crash", { skip }, () => {
  const r = run(`
    const slots = [];
    for (let i = 0; i < 1000; i++) {
      const [slot, buffer] = addon.newIo();
      slots.push(slot);
      try { structuredClone(buffer, { transfer: [buffer] }); } catch (err) {}
    }
    gc();
    for (let k = 0; k < 100; k++) {
      const junk = [];
      for (let i = 0; i < 1000; i++) junk.push(new ArrayBuffer(1 << 20));
      for (const s of slots) {
        try { addon.newId(s); addon.step(s, Date.now()); addon.encode(s); } catch (err) {}
      }
    }
  `);
  assertNoCrash("transferred and collected buffer", r);
});

test("step(slot, now, draw) with a draw that is not a function: a TypeError", { skip }, () => {
  const addon = require(addonPath);
  const [slot] = addon.newIo();
  for (const draw of [42, true, "f", {}, Symbol("s"), 1n]) {
    assert.throws(
      () => addon.step(slot, Date.now(), draw),
      TypeError,
      `draw = ${String(typeof draw)}: step returned without an exception and without an ID`,
    );
  }
});

test("a slot that no newIo made: a TypeError", { skip }, () => {
  const addon = require(addonPath);
  for (const f of ["newId", "encode", "toHex", "toBytes", "fromBytes", "step"]) {
    assert.throws(() => addon[f](1e6, Date.now()), TypeError, f);
  }
});
