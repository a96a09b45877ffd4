// What the browser, web worker, Deno and Bun runs check on the package, written once:
// each returns { name, ok, detail }. Imported with the package resolved for that
// engine (esbuild's `browser` conditions, or the runtime's own resolution).
import { scru128, scru128String, Scru128Id, Scru128Generator, TIMESTAMP_BIAS, ENGINE, setLogger } from "scru128";

function check(name, f) {
  try {
    const detail = f();
    return { name, ok: true, detail: detail ?? "" };
  } catch (err) {
    return { name, ok: false, detail: String(err && err.stack ? err.stack : err) };
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/** `n` strings of scru128String(): increasing; returns them. */
export function increasingStrings(n) {
  const ids = new Array(n);
  for (let i = 0; i < n; i++) ids[i] = scru128String();
  for (let i = 1; i < n; i++) {
    if (!(ids[i - 1] < ids[i])) throw new Error(`ID ${i}: ${ids[i]} after ${ids[i - 1]}`);
  }
  return ids;
}

const CANONICAL = /^[0-7][0-9A-V]{25}$/;

/** [label, value] of hostile values for every function. */
function hostileValues() {
  const thrower = () => {
    throw new Error("hostile");
  };
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const traps = {};
  for (const t of ["get", "has", "ownKeys", "getPrototypeOf", "getOwnPropertyDescriptor", "defineProperty", "apply", "construct", "set"]) {
    traps[t] = thrower;
  }
  return [
    ["undefined", undefined], ["null", null], ["0", 0], ["NaN", NaN], ["-1", -1], ["1.5", 1.5],
    ["2**53", 2 ** 53], ["1n", 1n], ["Symbol()", Symbol("x")], ["true", true], ['""', ""],
    ["lone surrogate", "\ud800"], ["26 lone surrogates", "\udfff".repeat(26)],
    ["surrogate pair + 24", "\ud83d\ude00" + "0".repeat(24)], ["NUL in 26", "0".repeat(25) + "\0"],
    ["10 MB string", "0".repeat(10 * 1024 * 1024)], ["throwing toString", { toString: thrower }],
    ["throwing valueOf", { valueOf: thrower, [Symbol.toPrimitive]: thrower }],
    ["throwing getters", Object.defineProperties({}, { length: { get: thrower }, byteLength: { get: thrower }, nextUint32: { get: thrower } })],
    ["Proxy with throwing traps", new Proxy({}, traps)], ["revoked Proxy", revoked.proxy],
    ["Proxy of an ID", new Proxy(Scru128Id.fromFields(1, 2, 3, 4), {})],
    ["Proxy of an ArrayBuffer", new Proxy(new ArrayBuffer(16), {})], ["function", thrower],
    ["array", ["00PGHAJ3Q9VAJ7IU6PQBHBUAK4"]], ["Object.create(null)", Object.create(null)],
    ["fake ID", { timestamp: 1, counter: 2, perSecRandom: 3, perGenRandom: 4, toString: () => "0".repeat(26) }],
    ["Float64Array(3)", new Float64Array(3)],
  ];
}

/** Every function given every hostile value: an exception of the documented classes, or a result. */
export function hostile() {
  const bad = [];
  const expect = (label, f, kinds) => {
    try {
      f();
    } catch (err) {
      if (kinds.some((k) => err instanceof k) || (err instanceof Error && err.message === "hostile")) return;
      bad.push(`${label}: ${err && err.name}: ${err && err.message}`);
      return;
    }
  };
  const x = Scru128Id.fromFields(1, 2, 3, 4);
  for (const [label, v] of hostileValues()) {
    expect(`fromString(${label})`, () => Scru128Id.fromString(v), [SyntaxError, TypeError]);
    expect(`fromHex(${label})`, () => Scru128Id.fromHex(v), [SyntaxError, TypeError]);
    expect(`fromArrayBuffer(${label})`, () => Scru128Id.fromArrayBuffer(v), [RangeError, TypeError]);
    for (let i = 0; i < 4; i++) {
      const args = [0, 0, 0, 0];
      args[i] = v;
      expect(`fromFields(${label} at ${i})`, () => Scru128Id.fromFields(...args), [RangeError]);
    }
    expect(`compareTo(${label})`, () => x.compareTo(v), [TypeError]);
    if (x.equals(v)) bad.push(`equals(${label}) is true`);
    for (const m of ["toString", "toHex", "toJSON", "toArrayBuffer", "clone", "equals", "compareTo"]) {
      expect(`${m} on ${label}`, () => Scru128Id.prototype[m].call(v, v), [TypeError]);
    }
    expect(`new Scru128Generator(${label})`, () => new Scru128Generator(v).generate(), [TypeError]);
    let n = 0;
    const g = new Scru128Generator({ nextUint32: () => (n++ % 4 === 3 ? 1 : v) });
    for (let i = 0; i < 4; i++) expect(`nextUint32 -> ${label}`, () => g.generate(), [TypeError, RangeError]);
    setLogger(v);
    const over = new Scru128Generator({ nextUint32: () => 0xffffffff });
    for (let i = 0; i < 4; i++) expect(`logger ${label}`, () => over.generate(), [TypeError]);
    setLogger(undefined);
  }
  assert(bad.length === 0, bad.slice(0, 10).join("\n"));
  // Still works.
  assert(CANONICAL.test(scru128String()), "scru128String after the hostile values");
  return "every hostile value: an exception of the documented class";
}

/** The checks of one page or worker. */
export function checks() {
  return [
    check("ENGINE is wasm", () => {
      assert(ENGINE === "wasm" || ENGINE.startsWith("wasm: "), `ENGINE is ${ENGINE}`);
      return ENGINE;
    }),
    check("100 000 scru128String() increase and are unique", () => {
      const ids = increasingStrings(100_000);
      assert(new Set(ids).size === ids.length, "a duplicate");
      assert(ids.every((s) => CANONICAL.test(s)), "not canonical");
      return `${ids[0]} .. ${ids[ids.length - 1]}`;
    }),
    check("scru128() objects increase; the timestamp is Date.now()", () => {
      let prev = scru128();
      for (let i = 0; i < 50_000; i++) {
        const next = scru128();
        assert(prev.compareTo(next) === -1, `${next} after ${prev}`);
        prev = next;
      }
      const before = Date.now();
      const t = scru128().timestamp + TIMESTAMP_BIAS;
      const after = Date.now();
      assert(t >= before && t <= after + 1, `timestamp ${t} outside [${before}, ${after}]`);
    }),
    check("the random bytes come from crypto.getRandomValues", () => {
      const original = crypto.getRandomValues;
      let calls = 0;
      crypto.getRandomValues = function (view) {
        calls++;
        return original.call(crypto, view);
      };
      try {
        for (let i = 0; i < 2000; i++) scru128String();
      } finally {
        crypto.getRandomValues = original;
      }
      assert(calls > 0, "getRandomValues was not called");
      return `${calls} calls for 2000 IDs`;
    }),
    check("codec round trips and errors", () => {
      const x = Scru128Id.fromString("00pghaj3q9vaj7iu6pqbhbuak4");
      assert(String(x) === "00PGHAJ3Q9VAJ7IU6PQBHBUAK4", String(x));
      assert(x.toHex() === "0x00cc22a98f49faa67978d9d2e2bf2a84", x.toHex());
      assert(Scru128Id.fromArrayBuffer(x.toArrayBuffer()).equals(x), "bytes");
      assert(JSON.stringify(structuredClone(x)) === JSON.stringify({ timestamp: x.timestamp, counter: x.counter, perSecRandom: x.perSecRandom, perGenRandom: x.perGenRandom }), "structuredClone");
      try {
        Scru128Id.fromString("00PGHAJ3Q9VAJ7IU6PQBHBUAKW");
        throw new Error("no error");
      } catch (err) {
        assert(err instanceof SyntaxError && /invalid digit 'W' at position 25/.test(err.message), err.message);
      }
    }),
    check("hostile values", hostile),
  ];
}

/**
 * `count` workers made by `spawn()` (web workers of worker.mjs) each make `perWorker`
 * IDs while this thread makes as many: their checks, and whether any ID repeats.
 */
export async function acrossWorkers(spawn, count, perWorker) {
  const workers = await Promise.all(
    Array.from({ length: count }, () => {
      const worker = spawn();
      return new Promise((resolve, reject) => {
        worker.onmessage = (event) => {
          worker.terminate();
          resolve(event.data);
        };
        worker.onerror = (event) => reject(new Error(`worker: ${event.message}`));
        worker.postMessage(perWorker);
      });
    }),
  );
  const mine = increasingStrings(perWorker);
  const all = new Set(mine);
  let total = mine.length;
  for (const w of workers) {
    for (const id of w.ids) all.add(id);
    total += w.ids.length;
  }
  return { checks: workers.map((w) => w.checks), unique: all.size, total, complete: workers.every((w) => w.ids.length === perWorker) };
}
