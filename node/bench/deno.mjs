// The benchmark in Deno (bench/runtimes.mjs runs it): this package as Deno's users
// get it (`scru128`, the WebAssembly engine) and npm scru128 1.0.1 (`scru128-101`),
// from a project that installed both, in one process; prints the result as JSON.
import * as ours from "scru128";
import * as ref from "scru128-101";
import { runBenchmark } from "./suite.mjs";

const [rounds, calls] = Deno.args.map(Number);
const result = runBenchmark({
  libs: { wasm: ours, "1.0.1": ref },
  extra: { "crypto.randomUUID()": () => crypto.randomUUID() },
  rounds: rounds || 11,
  calls: calls || 100_000,
  now: () => performance.now(),
});
console.log(JSON.stringify({ ...result, engine: ours.ENGINE, version: Deno.version }));
