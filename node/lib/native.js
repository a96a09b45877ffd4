"use strict";
// The native engine: the Node-API addon (src/lib.rs) for this platform, adapted to the
// engine interface lib/api.js uses. An engine has:
// - `name`: what runs, for the `ENGINE` export ("native linux-x64-gnu", "wasm");
// - `numbers`: a Float64Array the engine and lib/api.js share: [0..4] an ID's fields,
//   [4..9] a generator's state, [9] the logger event of the last `step`;
// - `bytes`: a Uint8Array(16), an ID's bytes, shared the same way;
// - `newId()` (the process-wide generator: fields into `numbers`), `newString()`;
// - `encode()`, `toHex()`, `toBytes()` (of the fields in `numbers`; a RangeError if
//   they are not an ID's), `fromBytes()`;
// - `parse(s)` (s a string of 26 code units: 0 canonical, 1 valid but not canonical,
//   -1 invalid) and `parseMessage(s)`;
// - `checkFields(t, c, p, g)` (four integers: null, or the message), `fromHex(s)`
//   (null, or the message);
// - `step(now, draw)`: one generate() at `now` (Date.now()) over the state in `numbers`
//   (`draw` undefined for the default random source).

/**
 * The engine over `addon`, the module object of a loaded addon named `name`.
 */
function nativeEngine(addon, name) {
  const [slot, buffer] = addon.newIo();
  return {
    name: `native ${name}`,
    numbers: new Float64Array(buffer, 0, 16),
    bytes: new Uint8Array(buffer, 128, 16),
    newId: () => addon.newId(slot),
    newString: addon.newString,
    encode: () => addon.encode(slot),
    toHex: () => addon.toHex(slot),
    toBytes: () => addon.toBytes(slot),
    fromBytes: () => addon.fromBytes(slot),
    parse: (value) => addon.parse(value, slot),
    parseMessage: addon.parseMessage,
    checkFields: addon.checkFields,
    fromHex: (value) => addon.fromHex(value, slot),
    step: (now, draw) => addon.step(slot, now, draw),
  };
}

module.exports = { nativeEngine };
