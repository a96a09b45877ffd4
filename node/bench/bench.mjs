// The Node package's benchmark (scripts/bench-node, `npm run bench`): one process,
// every operation measured in each round, rounds interleaved, the median of each
// operation over the rounds, and the ratios of the targets (README.md, "Speed").
//
// Usage: node bench/bench.mjs [rounds] [calls per measurement]
import { randomUUID } from "node:crypto";
import os from "node:os";
import { monotonicFactory } from "ulid";
import { v7 as uuidv7 } from "uuid";
import { Scru128Generator, Scru128Id, scru128, scru128String } from "../index.mjs";
import { PureGenerator, PureId, pureScru128, pureScru128String } from "./purejs.mjs";

const rounds = Number(process.argv[2] ?? 15);
const calls = Number(process.argv[3] ?? 200_000);

const ulid = monotonicFactory();
const strings = Array.from({ length: 1024 }, () => scru128String());
const lower = strings.map((s) => s.toLowerCase());
const ids = strings.map((s) => Scru128Id.fromString(s));
const pureIds = strings.map((s) => PureId.fromString(s));
const hexes = ids.map((x) => x.toHex());
const ourGen = new Scru128Generator();
const pureGen = new PureGenerator();
let sink = 0;

// name -> function of (n) running the operation n times
const ops = {
  "scru128String()": (n) => { for (let i = 0; i < n; i++) sink ^= scru128String().length; },
  "crypto.randomUUID()": (n) => { for (let i = 0; i < n; i++) sink ^= randomUUID().length; },
  "ulid monotonicFactory()()": (n) => { for (let i = 0; i < n; i++) sink ^= ulid().length; },
  "uuid v7()": (n) => { for (let i = 0; i < n; i++) sink ^= uuidv7().length; },
  "pure-JS scru128String()": (n) => { for (let i = 0; i < n; i++) sink ^= pureScru128String().length; },
  "scru128()": (n) => { for (let i = 0; i < n; i++) sink ^= scru128() === null ? 1 : 0; },
  "pure-JS scru128()": (n) => { for (let i = 0; i < n; i++) sink ^= pureScru128() === null ? 1 : 0; },
  "new Scru128Generator().generate() (reused)": (n) => { for (let i = 0; i < n; i++) sink ^= ourGen.generate() === null ? 1 : 0; },
  "pure-JS generator.generate()": (n) => { for (let i = 0; i < n; i++) sink ^= pureGen.generate() === null ? 1 : 0; },
  "Scru128Id.fromString(s)": (n) => { for (let i = 0; i < n; i++) sink ^= Scru128Id.fromString(strings[i & 1023]) === null ? 1 : 0; },
  "pure-JS fromString(s)": (n) => { for (let i = 0; i < n; i++) sink ^= PureId.fromString(strings[i & 1023]) === null ? 1 : 0; },
  "Scru128Id.fromString(lowercase)": (n) => { for (let i = 0; i < n; i++) sink ^= Scru128Id.fromString(lower[i & 1023]) === null ? 1 : 0; },
  "pure-JS fromString(lowercase)": (n) => { for (let i = 0; i < n; i++) sink ^= PureId.fromString(lower[i & 1023]) === null ? 1 : 0; },
  "scru128().toString()": (n) => { for (let i = 0; i < n; i++) sink ^= scru128().toString().length; },
  "pure-JS scru128().toString()": (n) => { for (let i = 0; i < n; i++) sink ^= pureScru128().toString().length; },
  "id.toString()": (n) => { for (let i = 0; i < n; i++) sink ^= ids[i & 1023].toString().length; },
  "pure-JS id.toString()": (n) => { for (let i = 0; i < n; i++) sink ^= pureIds[i & 1023].toString().length; },
  "fromString(s).timestamp": (n) => { for (let i = 0; i < n; i++) sink ^= Scru128Id.fromString(strings[i & 1023]).timestamp & 1; },
  "pure-JS fromString(s).timestamp": (n) => { for (let i = 0; i < n; i++) sink ^= PureId.fromString(strings[i & 1023]).timestamp & 1; },
  "id.toHex()": (n) => { for (let i = 0; i < n; i++) sink ^= ids[i & 1023].toHex().length; },
  "Scru128Id.fromHex(hex)": (n) => { for (let i = 0; i < n; i++) sink ^= Scru128Id.fromHex(hexes[i & 1023]) === null ? 1 : 0; },
  "id.compareTo(id)": (n) => { for (let i = 0; i < n; i++) sink ^= ids[i & 1023].compareTo(ids[(i + 1) & 1023]) & 1; },
};

// Warm up every operation (JIT), then measure.
for (const f of Object.values(ops)) f(calls);
const times = Object.fromEntries(Object.keys(ops).map((k) => [k, []]));
const started = Date.now();
for (let r = 0; r < rounds; r++) {
  for (const [name, f] of Object.entries(ops)) {
    const t0 = process.hrtime.bigint();
    f(calls);
    times[name].push(Number(process.hrtime.bigint() - t0) / calls);
  }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const med = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));

const cpu = os.cpus()[0]?.model ?? "unknown CPU";
console.log(`Node ${process.version} on ${cpu}, ${os.cpus().length} cores; load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
console.log(`${rounds} rounds of ${calls} calls per operation, interleaved, in ${((Date.now() - started) / 1000).toFixed(1)} s; medians over the rounds`);
console.log();
console.log("| operation | ns per call |");
console.log("| --- | ---: |");
for (const [name, t] of Object.entries(med)) console.log(`| ${name} | ${t.toFixed(1)} |`);
console.log();

const targets = [
  ["scru128String()", "crypto.randomUUID()", 1],
  ["scru128String()", "ulid monotonicFactory()()", 3],
  ["scru128String()", "uuid v7()", 3],
  ["scru128()", "pure-JS scru128()", 1],
  ["Scru128Id.fromString(s)", "pure-JS fromString(s)", 1],
  ["id.toString()", "pure-JS id.toString()", 1],
];
const context = [
  ["scru128String()", "pure-JS scru128String()"],
  ["new Scru128Generator().generate() (reused)", "pure-JS generator.generate()"],
  ["Scru128Id.fromString(lowercase)", "pure-JS fromString(lowercase)"],
  ["fromString(s).timestamp", "pure-JS fromString(s).timestamp"],
  ["scru128().toString()", "pure-JS scru128().toString()"],
];
let allMet = true;
console.log("| ours | against | speed-up | target |");
console.log("| --- | --- | ---: | --- |");
for (const [ours, other, want] of targets) {
  const ratio = med[other] / med[ours];
  const met = ratio >= want;
  allMet &&= met;
  console.log(`| ${ours} | ${other} | ${ratio.toFixed(2)}x | >= ${want}x ${met ? "met" : "NOT met"} |`);
}
for (const [ours, other] of context) {
  console.log(`| ${ours} | ${other} | ${(med[other] / med[ours]).toFixed(2)}x | |`);
}
console.log();
console.log(allMet ? "bench-node: every target met" : "bench-node: a target was not met");
if (sink === 0.5) console.log(sink);
