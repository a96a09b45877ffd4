// A web worker of test/browser.test.mjs: the checks, then `n` IDs for the page to
// compare with the others'.
import { checks, increasingStrings } from "./checks.mjs";

self.onmessage = (event) => {
  const result = checks();
  const ids = increasingStrings(event.data);
  self.postMessage({ checks: result, ids });
};
