// The page of browser-review.test.mjs: crypto.getRandomValues fails once (as a test's mock
// does, or a stack overflow that lands in it), then is itself again; scru128String()
// must work again too. Sets globalThis.__result.
import { scru128String, scru128, ENGINE } from "scru128";

const result = { ENGINE, failure: null, after: null };
const real = crypto.getRandomValues;
let failOnce = true;
crypto.getRandomValues = function (view) {
  if (failOnce) {
    failOnce = false;
    throw new Error("getRandomValues failed once");
  }
  return real.call(crypto, view);
};
// The package's pool holds 256 words: a refill, the failing call, comes within a few
// hundred IDs.
for (let i = 0; i < 1000 && result.failure === null; i++) {
  try {
    scru128String();
  } catch (err) {
    result.failure = err.message;
  }
}
crypto.getRandomValues = real;
try {
  result.after = [scru128String(), String(scru128())];
} catch (err) {
  result.after = `${err.name}: ${err.message}`;
}
globalThis.__result = result;
