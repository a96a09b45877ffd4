// Makes IDs with scru128() or scru128String() and sends them back as strings: as a
// worker thread (workerData) or as a forked child process (argv, IPC).
"use strict";
const { isMainThread, parentPort, workerData } = require("node:worker_threads");
const { scru128, scru128String } = require("../..");

function make(n, kind) {
  const ids = new Array(n);
  for (let i = 0; i < n; i++) ids[i] = kind === "object" ? String(scru128()) : scru128String();
  return ids;
}

if (!isMainThread) {
  parentPort.postMessage(make(workerData.n, workerData.kind));
} else {
  process.send(make(Number(process.argv[2]), "string"), () => process.disconnect());
}
