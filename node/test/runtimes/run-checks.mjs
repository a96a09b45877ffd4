// Run by test/runtimes.test.mjs in Deno and Bun, from a project that installed the
// package's tarball: the checks of browser/checks.mjs here and in four workers, and
// whether any ID repeats across them; prints the outcome as JSON.
import { ENGINE, scru128String } from "scru128";
import { checks, increasingStrings } from "./checks.mjs";

const WORKERS = 4;
const PER_WORKER = 50_000;

const main = checks();
const workers = await Promise.all(
  Array.from({ length: WORKERS }, () => {
    const worker = new Worker(new URL("./worker.mjs", import.meta.url).href, { type: "module" });
    return new Promise((resolve, reject) => {
      worker.onmessage = (event) => {
        worker.terminate();
        resolve(event.data);
      };
      worker.onerror = (event) => reject(new Error(`worker: ${event.message}`));
      worker.postMessage(PER_WORKER);
    });
  }),
);
const mine = increasingStrings(PER_WORKER);
const all = new Set(mine);
let total = mine.length;
for (const w of workers) {
  for (const id of w.ids) all.add(id);
  total += w.ids.length;
}
console.log(JSON.stringify({ ENGINE, example: scru128String(), main, workers: workers.map((w) => w.checks), unique: all.size, total }));
