// Every JavaScript value given to every function: a JavaScript exception (of the
// documented class) or a result, never a crash or a hang. node --test runs this file
// in a process of its own, so a crash fails it.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const { Scru128Id, Scru128Generator, setLogger, scru128, scru128String } = require("..");

const thrower = () => {
  throw new Error("hostile");
};
const revoked = Proxy.revocable({}, {});
revoked.revoke();
const trapAll = new Proxy(
  {},
  Object.fromEntries(
    ["get", "has", "ownKeys", "getPrototypeOf", "getOwnPropertyDescriptor", "defineProperty", "apply", "construct", "set"].map((t) => [t, thrower]),
  ),
);
const HUGE = "0".repeat(100 * 1024 * 1024);

/** [label, value] for every kind of hostile value. */
const hostile = [
  ["undefined", undefined],
  ["null", null],
  ["0", 0],
  ["-0", -0],
  ["1.5", 1.5],
  ["NaN", NaN],
  ["Infinity", Infinity],
  ["-Infinity", -Infinity],
  ["2**53", 2 ** 53],
  ["-1", -1],
  ["1n", 1n],
  ["2n**200n", 2n ** 200n],
  ["Symbol()", Symbol("x")],
  ["true", true],
  ['""', ""],
  ["lone high surrogate", "\ud800"],
  ["26 lone surrogates", "\udfff".repeat(26)],
  ["25 digits + lone surrogate", "0".repeat(25) + "\ud800"],
  ["surrogate pair + 24 digits", "\ud83d\ude00" + "0".repeat(24)],
  ["NUL in 26", "0".repeat(25) + "\0"],
  ["100 MB string", HUGE],
  ["100 MB string, 26 digits in front", "0".repeat(26) + HUGE],
  ["throwing toString", { toString: thrower }],
  ["throwing valueOf", { valueOf: thrower, [Symbol.toPrimitive]: thrower }],
  ["throwing getters", Object.defineProperties({}, { length: { get: thrower }, byteLength: { get: thrower }, nextUint32: { get: thrower }, buffer: { get: thrower } })],
  ["Proxy with throwing traps", trapAll],
  ["revoked Proxy", revoked.proxy],
  ["Proxy of a Scru128Id", new Proxy(Scru128Id.fromFields(1, 2, 3, 4), {})],
  ["Proxy of an ArrayBuffer", new Proxy(new ArrayBuffer(16), {})],
  ["Proxy of a Uint8Array", new Proxy(new Uint8Array(16), {})],
  ["Object.create(null)", Object.create(null)],
  ["String object", new String("00PGHAJ3Q9VAJ7IU6PQBHBUAK4")],
  ["array", ["00PGHAJ3Q9VAJ7IU6PQBHBUAK4"]],
  ["function", thrower],
  ["Date", new Date()],
  ["fake Scru128Id", { timestamp: 1, counter: 2, perSecRandom: 3, perGenRandom: 4, toString: () => "0".repeat(26) }],
  ["Uint8Array(16) with a throwing buffer getter", Object.defineProperty(new Uint8Array(16), "buffer", { get: thrower })],
  ["Uint8Array(16) claiming another byteOffset", Object.defineProperty(new Uint8Array(16), "byteOffset", { value: 1e9 })],
  ["Float64Array(3)", new Float64Array(3)],
  ["detached ArrayBuffer", (() => { const b = new ArrayBuffer(16); structuredClone(b, { transfer: [b] }); return b; })()],
];

/** Whether `v` is a String object (no trap of a Proxy runs). */
function isStringObject(v) {
  try {
    String.prototype.valueOf.call(v);
    return typeof v === "object";
  } catch {
    return false;
  }
}

/** Runs f; the result, or the exception thrown. */
function outcome(f) {
  try {
    return { value: f() };
  } catch (err) {
    return { err };
  }
}

function expectThrows(label, f, kinds) {
  const r = outcome(f);
  assert.ok("err" in r, `${label}: expected an exception, got ${String(r.value)}`);
  assert.ok(
    kinds.some((k) => r.err instanceof k) || (r.err instanceof Error && r.err.message === "hostile"),
    `${label}: ${r.err && r.err.name}: ${r.err && r.err.message}`,
  );
}

test("fromString: SyntaxError for anything but a valid ID (also a non-string, as in 1.0.1), TypeError for null and undefined", () => {
  for (const [label, v] of hostile) {
    if (isStringObject(v) && String(v) === "00PGHAJ3Q9VAJ7IU6PQBHBUAK4") {
      // A String object holding an ID is read, as 1.0.1 read it.
      assert.equal(String(Scru128Id.fromString(v)), String(v), label);
      continue;
    }
    expectThrows(label, () => Scru128Id.fromString(v), v === null || v === undefined ? [TypeError] : [SyntaxError]);
  }
});

test("fromHex: TypeError for a non-string, SyntaxError for a bad string; 100 MB of zeros is 0", () => {
  for (const [label, v] of hostile) {
    if (typeof v === "string" && /^0+$/.test(v.slice(0, 64)) && !/[^0]/.test(v)) {
      assert.equal(String(Scru128Id.fromHex(v)), "0".repeat(26), label);
      continue;
    }
    const text = typeof v === "string" || isStringObject(v);
    expectThrows(label, () => Scru128Id.fromHex(v), text ? [SyntaxError] : [TypeError]);
  }
  assert.equal(Scru128Id.fromHex(new String("0x1f")).perGenRandom, 31, "a String object is read");
  assert.equal(Scru128Id.fromHex(HUGE + "1").perGenRandom, 1);
  expectThrows("100 MB + 33 digits", () => Scru128Id.fromHex(HUGE + "1".repeat(33)), [SyntaxError]);
  expectThrows("100 MB of g", () => Scru128Id.fromHex("g".repeat(100 * 1024 * 1024)), [SyntaxError]);
});

test("fromArrayBuffer: TypeError for a non-buffer, RangeError for a wrong length", () => {
  for (const [label, v] of hostile) {
    expectThrows(label, () => Scru128Id.fromArrayBuffer(v), [TypeError, RangeError]);
  }
  assert.equal(String(Scru128Id.fromArrayBuffer(new Uint8Array(16))), "0".repeat(26));
  assert.equal(String(Scru128Id.fromArrayBuffer(new Float64Array(2))), "0".repeat(26), "any view of 16 bytes");
});

test("fromFields and the constructor: RangeError for any value that is not an integer in range", () => {
  for (const [label, v] of hostile) {
    for (let i = 0; i < 4; i++) {
      const args = [0, 0, 0, 0];
      args[i] = v;
      const ok = Number.isInteger(v) && v >= 0 && v <= [2 ** 44 - 1, 2 ** 28 - 1, 2 ** 24 - 1, 2 ** 32 - 1][i];
      if (ok) {
        assert.ok(Scru128Id.fromFields(...args) instanceof Scru128Id);
        continue;
      }
      expectThrows(`${label} at ${i}`, () => Scru128Id.fromFields(...args), [RangeError]);
      expectThrows(`new, ${label} at ${i}`, () => new Scru128Id(...args), [RangeError]);
    }
  }
});

test("equals is false and compareTo a TypeError for anything but a Scru128Id", () => {
  const x = Scru128Id.fromFields(1, 2, 3, 4);
  for (const [label, v] of hostile) {
    assert.equal(x.equals(v), false, label);
    expectThrows(label, () => x.compareTo(v), [TypeError]);
  }
});

test("methods called on other objects: TypeError", () => {
  const methods = ["toString", "toHex", "toJSON", "toArrayBuffer", "clone", "equals", "compareTo"];
  for (const [label, v] of hostile) {
    for (const m of methods) {
      expectThrows(`${m} on ${label}`, () => Scru128Id.prototype[m].call(v, v), [TypeError]);
    }
    expectThrows(`generate on ${label}`, () => Scru128Generator.prototype.generate.call(v), [TypeError]);
  }
});

test("new Scru128Generator(value): the default source, a TypeError, or the value's own exception", () => {
  for (const [label, v] of hostile) {
    const r = outcome(() => new Scru128Generator(v));
    if ("err" in r) {
      assert.ok(r.err instanceof TypeError || r.err.message === "hostile", `${label}: ${r.err}`);
    } else {
      assert.ok(!v, `${label}: accepted`);
      assert.ok(r.value.generate() instanceof Scru128Id);
    }
  }
});

test("nextUint32 returning each hostile value: an exception or an ID, and the generator goes on", () => {
  for (const [label, v] of hostile) {
    let n = 0;
    const g = new Scru128Generator({ nextUint32: () => (n++ % 4 === 3 ? 1 : v) });
    for (let i = 0; i < 8; i++) {
      const r = outcome(() => g.generate());
      if ("err" in r) {
        assert.ok(r.err instanceof TypeError || r.err instanceof RangeError || r.err.message === "hostile", `${label}: ${r.err}`);
      } else {
        assert.ok(r.value instanceof Scru128Id, label);
      }
    }
  }
});

test("a hostile logger: its exception reaches the caller of generate", () => {
  // Every counter at the top: the logger is called at every other ID.
  const g = new Scru128Generator({ nextUint32: () => 0xffffffff });
  for (const [label, v] of hostile) {
    setLogger(v);
    for (let i = 0; i < 4; i++) {
      const r = outcome(() => g.generate());
      if ("err" in r) assert.ok(r.err instanceof TypeError || r.err.message === "hostile", `${label}: ${r.err}`);
    }
  }
  setLogger(undefined);
  assert.ok(g.generate() instanceof Scru128Id);
});

test("the engine's own functions, called directly with hostile values: exceptions, never a crash", () => {
  const values = hostile.map(([, v]) => v).concat([new Uint32Array(4), new Float64Array(16), 0, 1e9, 2 ** 32 + 1, -1]);
  const engines = [];
  if (process.env.SCRU128_ENGINE !== "wasm") {
    const name = require("..").ENGINE.replace(/^native /, "");
    const addon = require(path.join(__dirname, "..", `scru128.${name}.node`));
    engines.push(["addon", addon]);
  }
  const { wasmEngine } = require("../lib/wasm.js");
  engines.push(["wasm engine", wasmEngine(require("node:crypto").randomFillSync)]);
  for (const [kind, engine] of engines) {
    for (const [name, f] of Object.entries(engine)) {
      if (typeof f !== "function") continue;
      for (const a of values) {
        for (const b of [undefined, 0, 7, 2 ** 40, "x", thrower, () => 5, () => NaN]) {
          const r = outcome(() => f(a, b, a, b, 0));
          if ("err" in r) assert.ok(r.err instanceof Error || typeof r.err !== "undefined", `${kind} ${name}`);
        }
      }
    }
  }
  // The module still works afterwards.
  assert.match(scru128String(), /^[0-7][0-9A-V]{25}$/);
  assert.ok(scru128() instanceof Scru128Id);
});
