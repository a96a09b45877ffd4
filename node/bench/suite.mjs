// The package's benchmark body, the same in Node.js, headless Chromium and Deno: the
// operations of each library (this package's engines and npm scru128 1.0.1) measured
// in one process, every operation of every library in each round, rounds
// interleaved, and the median of each over the rounds. `now()` is the engine's
// high-resolution clock in milliseconds.
//
// libs: { name: module namespace of a 1.0.1-style API }; extra: { name: () => string }
// for operations of other libraries (crypto.randomUUID()).

/**
 * The operations of a library: name -> (n) => void, over its own inputs. Compiled
 * anew for each library (`new Function`), so that one library's objects do not make
 * the engine's optimized code for another polymorphic: each is measured as a program
 * using only it would run.
 */
const OPERATIONS = `
  let sink = 0;
  // Flat strings, as text read from a file or the network is (a string built by
  // concatenation, as 1.0.1's scru128String() builds it, is read more slowly).
  const flat = (s) => s.split("").join("");
  const strings = Array.from({ length: 1024 }, () => flat(lib.scru128String()));
  const fields = strings.map((s) => {
    const x = lib.Scru128Id.fromString(s);
    return [x.timestamp, x.counter, x.perSecRandom, x.perGenRandom];
  });
  const held = strings.map((s) => lib.Scru128Id.fromString(s));
  // IDs whose string was never asked for (a new set for each measurement).
  let fresh = [];
  return {
    "scru128String()": (n) => {
      for (let i = 0; i < n; i++) sink ^= lib.scru128String().length;
    },
    "scru128()": (n) => {
      for (let i = 0; i < n; i++) sink ^= lib.scru128().counter & 1;
    },
    "Scru128Id.fromString(s)": (n) => {
      for (let i = 0; i < n; i++) sink ^= lib.Scru128Id.fromString(strings[i & 1023]).counter & 1;
    },
    "toString() of a new ID": {
      setup: (n) => {
        fresh = new Array(n);
        for (let i = 0; i < n; i++) fresh[i] = lib.Scru128Id.fromFields(...fields[i & 1023]);
      },
      run: (n) => {
        for (let i = 0; i < n; i++) sink ^= fresh[i].toString().length;
      },
    },
    "toString() again": (n) => {
      for (let i = 0; i < n; i++) sink ^= held[i & 1023].toString().length;
    },
    "new Scru128Generator().generate()": (n) => {
      const g = new lib.Scru128Generator();
      for (let i = 0; i < n; i++) sink ^= g.generate().counter & 1;
    },
    "Scru128Id.fromHex(hex)": (n) => {
      for (let i = 0; i < n; i++) sink ^= lib.Scru128Id.fromHex("0x00cc22a98f49faa67978d9d2e2bf2a84").counter & 1;
    },
  };
`;

function operations(lib) {
  return new Function("lib", OPERATIONS)(lib);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Runs the benchmark; returns { ns: { op: { lib: median ns per call } }, ranges } and
 * the number of rounds and calls.
 */
export function runBenchmark({ libs, extra = {}, rounds = 11, calls = 100_000, now }) {
  const cases = [];
  for (const [libName, lib] of Object.entries(libs)) {
    for (const [op, f] of Object.entries(operations(lib))) {
      const c = typeof f === "function" ? { run: f } : f;
      cases.push({ op, lib: libName, ...c, times: [] });
    }
  }
  // The floors: what every ID of every library costs at least, in this engine: one
  // clock read, and the 26 characters of a string read out of it.
  const floors = new Function(`
    let sink = 0;
    const strings = Array.from({ length: 1024 }, (_, i) => (i.toString(32).padStart(6, "0") + "00PGHAJ3Q9VAJ7IU6PQBHB").slice(0, 26).split("").join(""));
    return {
      "floor: Date.now()": (n) => { for (let i = 0; i < n; i++) sink ^= Date.now() & 1; },
      "floor: 26 x charCodeAt": (n) => {
        for (let i = 0; i < n; i++) {
          const s = strings[i & 1023];
          let a = 0;
          for (let j = 0; j < 26; j++) a += s.charCodeAt(j);
          sink ^= a;
        }
      },
    };
  `)();
  for (const [name, run] of Object.entries(floors)) cases.push({ op: name, lib: "", run, times: [] });
  for (const [name, f] of Object.entries(extra)) {
    const run = new Function("f", "let sink = 0; return (n) => { for (let i = 0; i < n; i++) sink ^= f().length; };")(f);
    cases.push({ op: name, lib: "", run, times: [] });
  }
  // Warm-up (the JIT), then the rounds.
  for (const c of cases) {
    c.setup?.(calls);
    c.run(calls);
  }
  for (let r = 0; r < rounds; r++) {
    for (const c of cases) {
      c.setup?.(calls);
      const t0 = now();
      c.run(calls);
      c.times.push(((now() - t0) * 1e6) / calls);
    }
  }
  const ns = {};
  for (const c of cases) {
    ns[c.op] ??= {};
    ns[c.op][c.lib] = median(c.times);
  }
  return { ns, rounds, calls };
}

/** The results as a Markdown table: ns per call of each library and the ratios to `ref`. */
export function table({ ns }, libNames, ref) {
  const lines = [`| operation | ${libNames.join(" | ")} | ${libNames.filter((n) => n !== ref).map((n) => `${ref} / ${n}`).join(" | ")} |`];
  lines.push(`| --- |${" ---: |".repeat(libNames.length * 2 - 1)}`);
  for (const [op, byLib] of Object.entries(ns)) {
    if ("" in byLib) {
      lines.push(`| ${op} | ${byLib[""].toFixed(1)} |${" |".repeat(libNames.length * 2 - 2)}`);
      continue;
    }
    const cells = libNames.map((n) => (n in byLib ? byLib[n].toFixed(1) : ""));
    const ratios = libNames.filter((n) => n !== ref).map((n) => (n in byLib && ref in byLib ? `${(byLib[ref] / byLib[n]).toFixed(2)}x` : ""));
    lines.push(`| ${op} | ${cells.join(" | ")} | ${ratios.join(" | ")} |`);
  }
  return lines.join("\n");
}
