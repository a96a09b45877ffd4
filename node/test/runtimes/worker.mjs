// A worker of run-checks.mjs: the checks, then `n` IDs.
import { checks, increasingStrings } from "./checks.mjs";

self.onmessage = (event) => {
  const result = checks();
  self.postMessage({ checks: result, ids: increasingStrings(event.data) });
};
