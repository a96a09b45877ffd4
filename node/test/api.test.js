// Every function and error of the 1.0.1 API, on the package as `require` loads it.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const util = require("node:util");
const {
  TIMESTAMP_BIAS,
  Scru128Id,
  Scru128Generator,
  setLogger,
  scru128,
  scru128String,
} = require("..");

const CANONICAL = /^[0-7][0-9A-V]{25}$/;
const X = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4";
// The fields of X, from the shared test vectors' format (docs/format.md).
const X_FIELDS = [54797179124, 167421561, 7920082, 3804179076];

test("exports 1.0.1's names, and ENGINE", () => {
  assert.deepEqual(Object.keys(require("..")).sort(), [
    "ENGINE",
    "Scru128Generator",
    "Scru128Id",
    "TIMESTAMP_BIAS",
    "scru128",
    "scru128String",
    "setLogger",
  ]);
  assert.equal(TIMESTAMP_BIAS, 1577836800000);
  // Which engine runs: the native addon of this platform, or WebAssembly.
  const { ENGINE } = require("..");
  const expected = process.env.SCRU128_ENGINE === "wasm" ? /^wasm: SCRU128_ENGINE=wasm$/ : /^native linux-(x64|arm64)-gnu$/;
  assert.match(ENGINE, expected);
});

test("scru128() gives a Scru128Id of now; scru128String() its string", () => {
  const before = Date.now();
  const x = scru128();
  const s = scru128String();
  const after = Date.now();
  assert.ok(x instanceof Scru128Id);
  assert.match(String(x), CANONICAL);
  assert.match(s, CANONICAL);
  assert.ok(s > String(x), "the second ID is greater");
  const t = x.timestamp + TIMESTAMP_BIAS;
  assert.ok(t >= before - 1 && t <= after + 1, `timestamp ${t} within [${before}, ${after}]`);
});

test("the seed's example prints the 26-digit text: inspect, String, template, JSON", () => {
  const x = scru128();
  const s = x.toString();
  assert.equal(util.inspect(x), s);
  assert.equal(util.format("%s", x), s);
  assert.equal(util.format(x), s);
  assert.equal(String(x), s);
  assert.equal(`${x}`, s);
  assert.equal(x + "", s);
  assert.equal(JSON.stringify({ id: x }), `{"id":"${s}"}`);
  assert.equal(x.toJSON(), s);
  assert.equal(util.inspect([x]), `[ ${s} ]`);
});

test("fields are own, enumerable numbers, as 1.0.1's: structuredClone and deep equality see them", () => {
  const x = Scru128Id.fromString(X);
  assert.deepEqual([x.timestamp, x.counter, x.perSecRandom, x.perGenRandom], X_FIELDS);
  assert.deepEqual(Object.keys(x), ["timestamp", "counter", "perSecRandom", "perGenRandom"]);
  for (const make of [() => scru128(), () => new Scru128Generator().generate(), () => Scru128Id.fromHex("0x1"), () => x.clone()]) {
    assert.deepEqual(Object.keys(make()), ["timestamp", "counter", "perSecRandom", "perGenRandom"]);
  }
  assert.deepEqual(structuredClone(x), {
    timestamp: X_FIELDS[0],
    counter: X_FIELDS[1],
    perSecRandom: X_FIELDS[2],
    perGenRandom: X_FIELDS[3],
  });
  assert.throws(() => assert.deepStrictEqual(x, Scru128Id.fromFields(1, 2, 3, 4)), assert.AssertionError);
  assert.deepStrictEqual(x, Scru128Id.fromFields(...X_FIELDS));
  assert.equal(util.isDeepStrictEqual(x, scru128()), false);
});

test("fromFields: every field at its bounds; RangeError outside or not an integer", () => {
  const max = [2 ** 44 - 1, 2 ** 28 - 1, 2 ** 24 - 1, 2 ** 32 - 1];
  const x = Scru128Id.fromFields(...X_FIELDS);
  assert.equal(String(x), X);
  const top = Scru128Id.fromFields(...max);
  assert.equal(String(top), "7VVVVVVVVVVVVVVVVVVVVVVVVV");
  assert.deepEqual([top.timestamp, top.counter, top.perSecRandom, top.perGenRandom], max);
  assert.equal(String(Scru128Id.fromFields(0, 0, 0, 0)), "0".repeat(26));
  for (let i = 0; i < 4; i++) {
    for (const bad of [max[i] + 1, -1, 0.5, NaN, Infinity, -Infinity, "1", 1n, null, undefined]) {
      const args = [0, 0, 0, 0];
      args[i] = bad;
      assert.throws(() => Scru128Id.fromFields(...args), RangeError, `field ${i} = ${String(bad)}`);
    }
  }
  assert.throws(() => Scru128Id.fromFields(0, 2 ** 28, 0, 0), {
    name: "RangeError",
    message: "invalid field value: counter 268435456 is out of range (maximum 268435455)",
  });
  assert.throws(() => Scru128Id.fromFields(0, 0, 0, 2 ** 32), {
    message: "invalid field value: perGenRandom 4294967296 is out of range (maximum 4294967295)",
  });
  assert.throws(() => Scru128Id.fromFields(0, 0, 1.5, 0), {
    message: "invalid field value: perSecRandom is number 1.5, not an integer",
  });
});

test("fromString: 26 digits [0-7][0-9A-Va-v]{25}, either case; SyntaxError otherwise", () => {
  assert.equal(String(Scru128Id.fromString(X.toLowerCase())), X);
  assert.equal(String(Scru128Id.fromString("7" + "v".repeat(25))), "7" + "V".repeat(25));
  const bad = [
    "",
    X.slice(1),
    X + "0",
    "8" + X.slice(1),
    "V" + X.slice(1),
    X.slice(0, 10) + "W" + X.slice(11),
    X.slice(0, 10) + "-" + X.slice(11),
    " " + X.slice(1),
    X.slice(0, 25) + "\n",
    X.slice(0, 25) + "\u0130", // İ, whose Latin-1 byte would be "0"
    X.slice(0, 25) + "\uff10", // a full-width digit
  ];
  for (const s of bad) {
    assert.throws(() => Scru128Id.fromString(s), SyntaxError, JSON.stringify(s));
  }
  assert.throws(() => Scru128Id.fromString(X.slice(0, 5) + "w" + X.slice(6)), {
    name: "SyntaxError",
    message:
      "invalid string representation: invalid digit 'w' at position 5: expected 0-9 or A-V in either case",
  });
  assert.throws(() => Scru128Id.fromString("8" + X.slice(1)), {
    message:
      "invalid string representation: out of range: the first digit is '8', above the largest allowed '7'",
  });
  assert.throws(() => Scru128Id.fromString("abc"), {
    message: "invalid string representation: invalid length: expected 26 characters, found 3",
  });
});

test("fromString, then toString: the canonical string, from either case", () => {
  const s = scru128String();
  assert.equal(Scru128Id.fromString(s).toString(), s);
  assert.equal(Scru128Id.fromString(s.toLowerCase()).toString(), s);
});

test("toArrayBuffer / fromArrayBuffer: 16 big-endian bytes; RangeError for other lengths", () => {
  const x = Scru128Id.fromString(X);
  const buf = x.toArrayBuffer();
  assert.ok(buf instanceof ArrayBuffer);
  assert.equal(Buffer.from(buf).toString("hex"), "00cc22a98f49faa67978d9d2e2bf2a84");
  assert.ok(Scru128Id.fromArrayBuffer(buf).equals(x));
  assert.notEqual(x.toArrayBuffer(), buf, "a new buffer each time");
  // Views and SharedArrayBuffer (additions to 1.0.1).
  const u8 = new Uint8Array(20);
  u8.set(new Uint8Array(buf), 2);
  assert.ok(Scru128Id.fromArrayBuffer(u8.subarray(2, 18)).equals(x));
  assert.ok(Scru128Id.fromArrayBuffer(Buffer.from(buf)).equals(x));
  assert.ok(Scru128Id.fromArrayBuffer(new DataView(buf)).equals(x));
  const shared = new SharedArrayBuffer(16);
  new Uint8Array(shared).set(new Uint8Array(buf));
  assert.ok(Scru128Id.fromArrayBuffer(shared).equals(x));
  for (const n of [0, 15, 17, 32]) {
    assert.throws(() => Scru128Id.fromArrayBuffer(new ArrayBuffer(n)), {
      name: "RangeError",
      message: `not a 128-bit byte array: ${n} bytes`,
    });
  }
  // Not a buffer: a RangeError, as 1.0.1's length check threw first; TypeError for
  // null and undefined (1.0.1 read `byteLength` of them).
  for (const v of ["x".repeat(16), [1, 2, 3], {}, { byteLength: 16 }, 16]) {
    assert.throws(() => Scru128Id.fromArrayBuffer(v), {
      name: "RangeError",
      message: /^not a 128-bit byte array: expected an ArrayBuffer or a view of one, got /,
    });
  }
  for (const v of [undefined, null]) {
    assert.throws(() => Scru128Id.fromArrayBuffer(v), TypeError);
  }
});

test("toHex: 0x and 32 lowercase digits; fromHex: optional 0x, leading zeros, <= 32 significant digits", () => {
  const x = Scru128Id.fromString(X);
  assert.equal(x.toHex(), "0x00cc22a98f49faa67978d9d2e2bf2a84");
  assert.equal(BigInt(x.toHex()), 0xcc22a98f49faa67978d9d2e2bf2a84n);
  const ok = [
    "0x00cc22a98f49faa67978d9d2e2bf2a84",
    "00cc22a98f49faa67978d9d2e2bf2a84",
    "cc22a98f49faa67978d9d2e2bf2a84",
    "0xCC22A98F49FAA67978D9D2E2BF2A84",
    "0XcC22a98f49faa67978d9d2e2bf2a84",
    "0x" + "0".repeat(100) + "cc22a98f49faa67978d9d2e2bf2a84",
    0xcc22a98f49faa67978d9d2e2bf2a84n.toString(16),
  ];
  for (const h of ok) assert.ok(Scru128Id.fromHex(h).equals(x), h);
  assert.equal(String(Scru128Id.fromHex("0")), "0".repeat(26));
  assert.equal(String(Scru128Id.fromHex("0x0")), "0".repeat(26));
  assert.equal(String(Scru128Id.fromHex("f".repeat(32))), "7" + "V".repeat(25));
  const bad = ["", "0x", "x", "1" + "0".repeat(32), "0x-1", "-1", "+1", " 1", "1 ", "0x0x1", "g", "0xcc22a98f49faa67978d9d2e2bf2a8\u0130"];
  for (const h of bad) assert.throws(() => Scru128Id.fromHex(h), SyntaxError, JSON.stringify(h));
  assert.throws(() => Scru128Id.fromHex("12g4"), {
    name: "SyntaxError",
    message:
      "invalid hexadecimal integer representation: invalid hex digit 'g' at position 2: expected 0-9 or a-f in either case",
  });
  assert.throws(() => Scru128Id.fromHex(12), TypeError);
});

test("equals, compareTo (-1, 0, 1) and clone", () => {
  const a = Scru128Id.fromFields(1, 2, 3, 4);
  const b = Scru128Id.fromFields(1, 2, 3, 5);
  const c = Scru128Id.fromFields(2, 0, 0, 0);
  const a2 = Scru128Id.fromString(String(a));
  assert.ok(a.equals(a2) && a2.equals(a));
  assert.ok(!a.equals(b));
  assert.ok(!a.equals(String(a)), "a string is not an ID");
  assert.ok(!a.equals(null) && !a.equals(undefined));
  assert.equal(a.compareTo(a2), 0);
  assert.equal(a.compareTo(b), -1);
  assert.equal(b.compareTo(a), 1);
  assert.equal(b.compareTo(c), -1);
  assert.equal(c.compareTo(a), 1);
  assert.throws(() => a.compareTo(String(b)), TypeError);
  const d = a.clone();
  assert.ok(d instanceof Scru128Id);
  assert.notEqual(d, a);
  assert.ok(d.equals(a));
  // Every word of the 128 bits counts in the order.
  const ids = ["0".repeat(26), "0".repeat(25) + "1", "0".repeat(19) + "1" + "0".repeat(6), "00000000000000000000000000"]
    .concat(["000000000000010000000000000", "1" + "0".repeat(25), "7" + "V".repeat(25)].map((s) => s.slice(0, 26)))
    .map((s) => Scru128Id.fromString(s));
  for (const p of ids) {
    for (const q of ids) {
      const want = String(p) < String(q) ? -1 : String(p) > String(q) ? 1 : 0;
      assert.equal(p.compareTo(q), want, `${p} vs ${q}`);
      assert.equal(p.equals(q), want === 0);
    }
  }
});

test("the constructor: 1.0.1's four fields, checked as fromFields", () => {
  const x = new Scru128Id(...X_FIELDS);
  assert.equal(String(x), X);
  assert.throws(() => new Scru128Id(), RangeError);
  assert.throws(() => new Scru128Id(0, 2 ** 28, 0, 0), RangeError);
});

test("Scru128Generator: IDs increase; the default one and scru128() are independent", () => {
  const g = new Scru128Generator();
  let prev = g.generate();
  assert.ok(prev instanceof Scru128Id);
  for (let i = 0; i < 10000; i++) {
    const next = g.generate();
    assert.equal(prev.compareTo(next), -1);
    prev = next;
  }
  const t = prev.timestamp + TIMESTAMP_BIAS;
  assert.ok(Math.abs(t - Date.now()) < 1000);
});

test("Scru128Generator(rng): nextUint32() looked up and called at every draw, as 1.0.1", () => {
  const calls = [];
  const rng = {
    nextUint32() {
      calls.push("a");
      return 0x12345678;
    },
  };
  const g = new Scru128Generator(rng);
  const x = g.generate();
  // counter = v >>> 4, perSecRandom = v >>> 8 (the high bits), perGenRandom = v:
  // 1.0.1's order and use.
  assert.equal(calls.length, 3);
  assert.equal(x.counter, 0x1234567);
  assert.equal(x.perSecRandom, 0x123456);
  assert.equal(x.perGenRandom, 0x12345678);
  rng.nextUint32 = () => (calls.push("b"), 7);
  const y = g.generate();
  assert.equal(calls.at(-1), "b");
  assert.ok(y.compareTo(x) > 0);
  assert.equal(y.perGenRandom, 7);
  // Falsy arguments give the default source, as `rng || new DefaultRandom()` did.
  for (const v of [undefined, null, 0, false, ""]) {
    assert.ok(new Scru128Generator(v).generate() instanceof Scru128Id);
  }
  assert.throws(() => new Scru128Generator({}), TypeError);
  assert.throws(() => new Scru128Generator({ nextUint32: 5 }), TypeError);
});

test("Scru128Generator(rng): the same values give 1.0.1's IDs (a seeded source)", () => {
  // 1.0.1's generator at a new millisecond: counter = a >>> 4, perSecRandom = b >>> 8
  // at the first ID, perGenRandom = c, from three draws a, b, c in that order.
  let x = 0x9e3779b9;
  const draws = [];
  const g = new Scru128Generator({
    nextUint32() {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      draws.push(x);
      return x;
    },
  });
  const id = g.generate();
  assert.deepEqual(
    [id.counter, id.perSecRandom, id.perGenRandom],
    [draws[0] >>> 4, draws[1] >>> 8, draws[2]],
  );
});

test("Scru128Generator(rng): counter and perSecRandom take value >>> 4 and >>> 8, as 1.0.1", () => {
  const cases = [0xffffffff, -1, 2 ** 32 + 0x50, 74565.9, NaN, Infinity, -Infinity, "4096", "0x100", { valueOf: () => 0x900 }, null, undefined, true, [], [0x7777]];
  for (const value of cases) {
    let n = 0;
    const g = new Scru128Generator({ nextUint32: () => (n++ < 2 ? value : 77) });
    const x = g.generate();
    // JavaScript's own `>>>`, which 1.0.1 applied.
    assert.equal(x.counter, value >>> 4, `counter of ${String(value)}`);
    assert.equal(x.perSecRandom, value >>> 8, `perSecRandom of ${String(value)}`);
    assert.equal(x.perGenRandom, 77);
  }
});

test("Scru128Generator(rng): perGenRandom must be an integer from 0 to 2^32-1 (RangeError)", () => {
  for (const value of [-1, 2 ** 32, 0.5, NaN, "5", null, undefined, {}, 5n]) {
    let n = 0;
    const g = new Scru128Generator({ nextUint32: () => (n++ < 2 ? 1 : value) });
    assert.throws(() => g.generate(), RangeError, String(value));
  }
});

test("an exception of nextUint32 reaches the caller and leaves the generator as it was", () => {
  let mode = "ok";
  let next = 100;
  const rng = {
    nextUint32() {
      if (mode === "throw") throw new Error("rng failed");
      if (mode === "bigint") return 1n;
      if (mode === "symbol") return Symbol("x");
      if (mode === "valueOf") return { valueOf() { throw new Error("valueOf failed"); } };
      return next++;
    },
  };
  const g = new Scru128Generator(rng);
  const first = g.generate();
  // A value that ToInt32 refuses (or whose valueOf throws) is that exception when it
  // is drawn as a counter (a new millisecond) and a RangeError as perGenRandom (the
  // same millisecond: the only draw), as in 1.0.1.
  const either = (kind) => (err) => err instanceof RangeError || kind(err);
  for (const [m, want] of [
    ["throw", (err) => /rng failed/.test(err.message)],
    ["bigint", either((err) => err instanceof TypeError)],
    ["symbol", either((err) => err instanceof TypeError)],
    ["valueOf", either((err) => /valueOf failed/.test(err.message))],
  ]) {
    mode = m;
    assert.throws(() => g.generate(), want, m);
    mode = "ok";
    const after = g.generate();
    assert.ok(after.compareTo(first) > 0, `${m}: IDs still increase`);
  }
  // The state is the one before the failed call: within one millisecond the counter
  // goes on by exactly one from the last ID handed out.
  let a;
  let b;
  do {
    a = g.generate();
    mode = "throw";
    assert.throws(() => g.generate(), /rng failed/);
    mode = "ok";
    b = g.generate();
  } while (a.timestamp !== b.timestamp);
  assert.equal(b.counter, a.counter + 1);
});

test("a generator called from its own random source: an Error, not a crash", () => {
  let g;
  let depth = 0;
  g = new Scru128Generator({
    nextUint32() {
      if (depth++ === 0) g.generate();
      return 1;
    },
  });
  assert.throws(() => g.generate(), /called from its own random source/);
  // Another generator, or scru128(), from inside a source is fine.
  const inner = new Scru128Generator();
  let made;
  const h = new Scru128Generator({
    nextUint32() {
      made = [inner.generate(), scru128(), Scru128Id.fromString(X)];
      return 5;
    },
  });
  const x = h.generate();
  assert.equal(x.perGenRandom, 5);
  assert.equal(String(made[2]), X);
});

test("setLogger: 1.0.1's info message when the counter limit is reached", () => {
  const messages = [];
  setLogger({
    error: (m) => messages.push(["error", m]),
    warn: (m) => messages.push(["warn", m]),
    info: (m) => messages.push(["info", m]),
  });
  try {
    // Counters drawn at the top: the next ID of the same millisecond overflows (and
    // takes the next millisecond). The clock read after b not past a's timestamp
    // shows that b's generation saw the same or an earlier millisecond.
    const g = new Scru128Generator({ nextUint32: () => 0xffffffff });
    let a;
    let b;
    do {
      a = g.generate();
      messages.length = 0;
      b = g.generate();
    } while (Date.now() - TIMESTAMP_BIAS > a.timestamp);
    assert.equal(b.timestamp, a.timestamp + 1);
    // 1.0.1's words, with its "scru128: " in front.
    assert.deepEqual(messages, [["info", "scru128: counter limit reached; will wait until clock goes forward"]]);
    assert.ok(b.compareTo(a) > 0);
    // Nothing for ordinary IDs.
    messages.length = 0;
    const quiet = new Scru128Generator();
    for (let i = 0; i < 1000; i++) quiet.generate();
    assert.deepEqual(messages, []);
  } finally {
    setLogger(undefined);
  }
});

test("a logger that makes IDs itself does not change the ID being returned", () => {
  const g = new Scru128Generator({ nextUint32: () => 0xffffffff });
  setLogger({ error() {}, warn() {}, info: () => scru128() });
  try {
    for (let i = 0; i < 100; i++) {
      const x = g.generate();
      assert.equal(x.counter, 0xfffffff);
    }
  } finally {
    setLogger(undefined);
  }
});

test("instanceof and class identity", () => {
  assert.ok(scru128() instanceof Scru128Id);
  assert.ok(Scru128Id.fromString(X) instanceof Scru128Id);
  assert.ok(new Scru128Generator().generate() instanceof Scru128Id);
  assert.equal(Object.getPrototypeOf(scru128()), Scru128Id.prototype);
});
