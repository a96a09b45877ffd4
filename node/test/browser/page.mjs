// The page of test/browser.test.mjs: prints IDs, runs the checks (checks.mjs) in the
// page and in web workers, checks that the workers' IDs and the page's never repeat,
// and leaves the outcome in `globalThis.__result` for the test to read.
import { scru128, scru128String, ENGINE } from "scru128";
import { checks, increasingStrings } from "./checks.mjs";

const WORKERS = 4;
const PER_WORKER = 50_000;

function print(line) {
  const pre = document.getElementById("out");
  pre.textContent += line + "\n";
}

async function main() {
  print(`ENGINE ${ENGINE}`);
  for (let i = 0; i < 3; i++) print(scru128String());
  print(String(scru128()));
  const page = checks();
  const workers = await Promise.all(
    Array.from({ length: WORKERS }, () => {
      const worker = new Worker("worker.js");
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
  // The page makes IDs while the workers do, then every ID is looked for twice.
  const mine = increasingStrings(PER_WORKER);
  const all = new Set(mine);
  let total = mine.length;
  for (const w of workers) {
    for (const id of w.ids) all.add(id);
    total += w.ids.length;
  }
  const unique = {
    name: `${WORKERS} workers x ${PER_WORKER} IDs and the page's ${PER_WORKER}: no duplicate`,
    ok: all.size === total && workers.every((w) => w.ids.length === PER_WORKER),
    detail: `${all.size} unique of ${total}`,
  };
  const reference = globalThis.__referenceRun ? await globalThis.__referenceRun() : null;
  globalThis.__result = { page, workers: workers.map((w) => w.checks), unique, reference, printed: document.getElementById("out").textContent };
}

main().catch((err) => {
  globalThis.__result = { error: String(err && err.stack ? err.stack : err) };
});
