// The addon's own functions, called directly (as test/hostile.test.js does), found by a
// review: word buffers whose memory went away under the addon crashed the process
// (`registerWords` kept the pointer of an array JavaScript handed in, which a transfer
// or a resize of its buffer took away), and a user generator given a draw that is not
// a function returned nothing, silently. Now the addon makes the word buffers, over
// memory of its own that is never freed (`newWords`), and checks the draw's type. Each
// crash scenario runs in a child process, so that a signal is reported rather than
// killing this file.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const { spawnSync } = require("node:child_process");

const addonPath = path.join(__dirname, "..", `scru128.${process.platform}-${process.arch}-gnu.node`);

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

test("registerWords is gone: the addon takes no buffer of JavaScript's", () => {
  const addon = require(addonPath);
  assert.equal(addon.registerWords, undefined);
  const [slot, words] = addon.newWords();
  assert.equal(typeof slot, "number");
  assert.ok(words instanceof Uint32Array && words.length === 4);
  assert.equal(words.buffer.resizable ?? false, false);
  addon.generateWords(slot);
  assert.ok(words.some((w) => w !== 0), "the ID was written into the words");
});

test("newWords, then its buffer transferred away and collected: never a crash", () => {
  const r = run(`
    const slots = [];
    for (let i = 0; i < 1000; i++) {
      const [slot, words] = addon.newWords();
      slots.push(slot);
      try { structuredClone(words.buffer, { transfer: [words.buffer] }); } catch (err) {}
    }
    gc();
    for (let k = 0; k < 100; k++) {
      const junk = [];
      for (let i = 0; i < 1000; i++) junk.push(new ArrayBuffer(1 << 20));
      for (const s of slots) {
        try { addon.generateWords(s); } catch (err) {}
      }
    }
  `);
  assertNoCrash("transferred and collected buffer", r);
});

test("NativeGenerator(true).generate(slot, draw) with a draw that is not a function: a TypeError", () => {
  const addon = require(addonPath);
  const [slot] = addon.newWords();
  for (const draw of [42, true, "f", {}, Symbol("s"), 1n, null]) {
    const g = new addon.NativeGenerator(true);
    assert.throws(
      () => g.generate(slot, draw),
      TypeError,
      `draw = ${String(typeof draw)}: generate returned without an exception and without an ID`,
    );
  }
});
