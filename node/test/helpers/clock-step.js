// Run under libfaketime by clock.test.js: steps this process's clock back 5 s, then
// 60 s more (the offset file), while a Scru128Generator and scru128() make IDs, and
// prints what the logger got and how often the IDs of each went back, as JSON.
"use strict";
const fs = require("node:fs");
const { Scru128Generator, scru128, setLogger, ENGINE } = require("../..");

const file = process.env.FAKETIME_TIMESTAMP_FILE;
const messages = [];
setLogger({ error: (m) => messages.push(["error", m]), warn: (m) => messages.push(["warn", m]), info: (m) => messages.push(["info", m]) });
const g = new Scru128Generator();
const last = { generator: g.generate(), scru128: scru128() };
const backs = { generator: 0, scru128: 0 };
const step = (offset) => fs.writeFileSync(file, offset + "\n");
const run = (ms) => {
  const end = process.hrtime.bigint() + BigInt(ms) * 1000000n;
  while (process.hrtime.bigint() < end) {
    for (const [name, make] of [["generator", () => g.generate()], ["scru128", scru128]]) {
      const x = make();
      if (x.compareTo(last[name]) <= 0) backs[name]++;
      last[name] = x;
    }
  }
};
const start = Date.now();
run(50);
step("-5"); // 5 s back
run(50);
step("-65"); // 60 s further back
run(50);
const stepped = Date.now() - start;
console.log(JSON.stringify({ ENGINE, messages, backs, stepped }));
