// The benchmark page of bench/browser.mjs: this package (its browser build, the
// WebAssembly engine) and npm scru128 1.0.1 (its browser build) in one page.
import * as ours from "scru128";
import * as ref from "scru128-101";
import { runBenchmark } from "./suite.mjs";

const params = new URLSearchParams(location.search);
setTimeout(() => {
  const result = runBenchmark({
    libs: { wasm: ours, "1.0.1": ref },
    extra: { "crypto.randomUUID()": () => crypto.randomUUID() },
    rounds: Number(params.get("rounds") ?? 11),
    calls: Number(params.get("calls") ?? 100_000),
    now: () => performance.now(),
  });
  globalThis.__result = { ...result, userAgent: navigator.userAgent };
}, 0);
