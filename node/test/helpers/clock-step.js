// Run under libfaketime by clock.test.js: steps this process's clock back 60 s (the
// offset file) while a Scru128Generator makes IDs, and prints what the logger got
// and whether the IDs went back, as JSON.
"use strict";
const fs = require("node:fs");
const { Scru128Generator, setLogger } = require("../..");

const file = process.env.FAKETIME_TIMESTAMP_FILE;
const messages = [];
setLogger({ error: (m) => messages.push(["error", m]), warn: (m) => messages.push(["warn", m]), info: (m) => messages.push(["info", m]) });
const g = new Scru128Generator();
let prev = g.generate();
let backs = 0;
const step = (offset) => fs.writeFileSync(file, offset + "\n");
const run = (ms) => {
  const end = process.hrtime.bigint() + BigInt(ms) * 1000000n;
  while (process.hrtime.bigint() < end) {
    const x = g.generate();
    if (x.compareTo(prev) <= 0) backs++;
    prev = x;
  }
};
run(50);
step("-5"); // within the 10 s allowance: counts on
run(50);
const beforeReset = messages.length;
step("-65"); // 60 s further back: the generator starts over
run(50);
console.log(JSON.stringify({ beforeReset, messages, backs }));
