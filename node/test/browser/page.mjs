// The page of test/browser.test.mjs: prints IDs, runs the checks (checks.mjs) in the
// page and in web workers, checks that the workers' IDs and the page's never repeat,
// and leaves the outcome in `globalThis.__result` for the test to read.
import { scru128, scru128String, ENGINE } from "scru128";
import { acrossWorkers, checks } from "./checks.mjs";

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
  const across = await acrossWorkers(() => new Worker("worker.js"), WORKERS, PER_WORKER);
  const unique = {
    name: `${WORKERS} workers x ${PER_WORKER} IDs and the page's ${PER_WORKER}: no duplicate`,
    ok: across.unique === across.total && across.complete,
    detail: `${across.unique} unique of ${across.total}`,
  };
  const reference = globalThis.__referenceRun ? await globalThis.__referenceRun() : null;
  globalThis.__result = { page, workers: across.checks, unique, reference, printed: document.getElementById("out").textContent };
}

main().catch((err) => {
  globalThis.__result = { error: String(err && err.stack ? err.stack : err) };
});
