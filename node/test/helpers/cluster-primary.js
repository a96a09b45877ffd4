// A cluster primary: starts N workers that each make IDs, collects their lists and
// sends them to its parent (threads.test.js).
"use strict";
const cluster = require("node:cluster");

const n = Number(process.argv[2]);
const count = Number(process.argv[3]);
if (cluster.isPrimary) {
  const lists = [];
  for (let i = 0; i < count; i++) {
    const w = cluster.fork();
    w.on("message", (ids) => {
      lists.push(ids);
      w.disconnect();
      if (lists.length === count) process.send(lists, () => process.disconnect());
    });
  }
} else {
  const { scru128String } = require("../..");
  const ids = new Array(n);
  for (let i = 0; i < n; i++) ids[i] = scru128String();
  process.send(ids);
}
