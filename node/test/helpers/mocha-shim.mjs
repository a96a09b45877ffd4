// A small stand-in for mocha's `describe` and `it`, so that test files written for mocha
// (npm scru128 1.0.1's own, test/*.mjs of its repository) run in Node.js, browsers,
// web workers, Deno and Bun alike: import this module before them, then `await run()`.
const tests = [];
const path = [];

globalThis.describe = (name, body) => {
  path.push(name);
  try {
    body();
  } finally {
    path.pop();
  }
};

globalThis.it = (name, body) => {
  tests.push({ name: [...path, name].join(" "), body });
};

/** Runs every test collected; returns [{ name, ok, error }]. */
export async function run() {
  const results = [];
  for (const { name, body } of tests) {
    try {
      await body.call({ timeout() {} });
      results.push({ name, ok: true });
    } catch (err) {
      results.push({ name, ok: false, error: String(err && err.stack ? err.stack : err) });
    }
  }
  return results;
}
