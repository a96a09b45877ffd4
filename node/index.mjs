// The ES module entry point: the same objects as the CommonJS one (index.js), so that
// `instanceof` holds whichever way a program loads the package.
import cjs from "./index.js";

export const { TIMESTAMP_BIAS, Scru128Id, Scru128Generator, setLogger, scru128, scru128String, ENGINE } =
  cjs;
