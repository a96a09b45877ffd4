// scru128() in one thread, in worker_threads, and in processes started by
// child_process.fork and cluster: IDs strictly increase in each thread and never
// repeat across threads and processes.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const { fork } = require("node:child_process");
const { Worker } = require("node:worker_threads");
const { scru128, scru128String, Scru128Id } = require("..");

const helper = path.join(__dirname, "helpers", "make-ids.js");

test("1 000 000 IDs from scru128() strictly increase (as objects and as strings)", () => {
  let prev = scru128();
  for (let i = 0; i < 500_000; i++) {
    const next = scru128();
    if (prev.compareTo(next) !== -1) assert.fail(`ID ${i}: ${next} after ${prev}`);
    prev = next;
  }
  let prevS = scru128String();
  assert.ok(prevS > String(prev));
  for (let i = 0; i < 500_000; i++) {
    const next = scru128String();
    if (!(prevS < next)) assert.fail(`string ${i}: ${next} after ${prevS}`);
    prevS = next;
  }
});

/** Checks each list increases and that no ID is in two lists (or twice in one). */
function checkLists(lists, perList) {
  const all = new Set();
  for (const ids of lists) {
    assert.equal(ids.length, perList);
    for (let i = 1; i < ids.length; i++) {
      if (!(ids[i - 1] < ids[i])) assert.fail(`not increasing at ${i}: ${ids[i - 1]}, ${ids[i]}`);
    }
    for (const s of ids) all.add(s);
  }
  assert.equal(all.size, lists.length * perList, "no ID repeats");
  for (const s of all) Scru128Id.fromString(s);
}

test("eight worker_threads x 250 000 IDs: the addon loads in each; no repeats, each increasing", async () => {
  const n = 250_000;
  const runs = Array.from({ length: 8 }, (_, i) =>
    new Promise((resolve, reject) => {
      // Half with scru128(), half with scru128String(); all start together.
      const w = new Worker(helper, { workerData: { n, kind: i % 2 ? "object" : "string" } });
      w.once("message", resolve);
      w.once("error", reject);
      w.once("exit", (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
    }),
  );
  const lists = await Promise.all(runs);
  // The main thread's own IDs meanwhile join the check.
  const mine = Array.from({ length: n }, () => scru128String());
  checkLists([...lists, mine], n);
});

test("processes started by child_process.fork: no repeats with the parent", async () => {
  const n = 50_000;
  const children = Array.from({ length: 4 }, () =>
    new Promise((resolve, reject) => {
      const child = fork(helper, [String(n)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
      child.once("message", resolve);
      child.once("error", reject);
      child.once("exit", (code) => code !== 0 && reject(new Error(`child exited with ${code}`)));
    }),
  );
  const mine = Array.from({ length: n }, () => scru128String());
  checkLists([...(await Promise.all(children)), mine], n);
});

test("cluster workers: no repeats among them", async () => {
  const n = 50_000;
  const lists = await new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, "helpers", "cluster-primary.js"), [String(n), "3"], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    child.once("message", resolve);
    child.once("error", reject);
    child.once("exit", (code) => code !== 0 && reject(new Error(`cluster primary exited with ${code}`)));
  });
  assert.equal(lists.length, 3);
  checkLists(lists, n);
});
