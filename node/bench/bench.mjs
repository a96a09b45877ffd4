// The package's benchmark in Node.js (scripts/bench-node, `npm run bench`): one of this
// package's engines (the native addon, or WebAssembly), npm scru128 1.0.1 itself (where
// SCRU128_JS_101_DIR names a build of it: npm no longer serves 1.0.1), and
// crypto.randomUUID(), npm ulid's monotonicFactory() and npm uuid's v7() for context,
// in one process (bench/suite.mjs: rounds interleaved, medians). One engine per
// process: with both in one process each ran slower than alone (measured), as no
// program uses both.
//
// Usage: node bench/bench.mjs [rounds] [calls per measurement] [native|wasm]
import { randomFillSync, randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import os from "node:os";
import { monotonicFactory } from "ulid";
import { v7 as uuidv7 } from "uuid";
import { runBenchmark, table } from "./suite.mjs";

const require = createRequire(import.meta.url);
const rounds = Number(process.argv[2] ?? 11);
const calls = Number(process.argv[3] ?? 100_000);

const engine = process.argv[4] ?? "native";
let libs;
if (engine === "native") {
  const native = require("../index.js");
  if (!native.ENGINE.startsWith("native")) {
    console.error(`bench: the native engine did not load (${native.ENGINE}); run \`npm run build\``);
    process.exit(1);
  }
  libs = { native };
} else {
  const { makeApi } = require("../lib/api.js");
  const { wasmEngine } = require("../lib/wasm.js");
  libs = { wasm: makeApi(wasmEngine(randomFillSync)) };
}
const refDir = process.env.SCRU128_JS_101_DIR;
if (refDir) {
  libs["1.0.1"] = require(refDir);
} else {
  console.log("npm scru128 1.0.1 not measured: set SCRU128_JS_101_DIR to a build of it (npm no longer serves 1.0.1)");
}
const ulid = monotonicFactory();
const hr = () => Number(process.hrtime.bigint()) / 1e6;
const started = Date.now();
const result = runBenchmark({
  libs,
  extra: { "crypto.randomUUID()": randomUUID, "ulid monotonicFactory()()": ulid, "uuid v7()": uuidv7 },
  rounds,
  calls,
  now: hr,
});
const cpu = os.cpus()[0]?.model ?? "unknown CPU";
console.log(`Node ${process.version} on ${cpu}, ${os.cpus().length} cores; load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
console.log(`${rounds} rounds of ${calls} calls per operation and library, interleaved, in ${((Date.now() - started) / 1000).toFixed(1)} s; medians (ns per call)`);
console.log();
console.log(table(result, Object.keys(libs), refDir ? "1.0.1" : engine));
