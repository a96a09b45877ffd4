// The ES module entry point for browsers, web workers and Deno: the same objects as
// browser.js.
import cjs from "./browser.js";

export const { TIMESTAMP_BIAS, Scru128Id, Scru128Generator, setLogger, scru128, scru128String, ENGINE } =
  cjs;
