// Run by test/runtimes.test.mjs in Deno and Bun, from a project that installed the
// package's tarball: the checks of browser/checks.mjs here and in four workers, and
// whether any ID repeats across them; prints the outcome as JSON.
import { ENGINE, scru128String } from "scru128";
import { acrossWorkers, checks } from "./checks.mjs";

const WORKERS = 4;
const PER_WORKER = 50_000;

const main = checks();
const across = await acrossWorkers(
  () => new Worker(new URL("./worker.mjs", import.meta.url).href, { type: "module" }),
  WORKERS,
  PER_WORKER,
);
console.log(JSON.stringify({ ENGINE, example: scru128String(), main, workers: across.checks, unique: across.complete ? across.unique : -1, total: across.total }));
