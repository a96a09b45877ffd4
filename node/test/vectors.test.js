// The shared test vectors (tests/data/test-vectors.json, read by the Rust tests too),
// and the same IDs as the command-line tool reads and writes them.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { Scru128Id, Scru128Generator, scru128, scru128String } = require("..");

const repo = path.resolve(__dirname, "..", "..");
const vectors = JSON.parse(fs.readFileSync(path.join(repo, "tests", "data", "test-vectors.json"), "utf8"));

test("every vector reads and writes as the Rust library does", () => {
  assert.equal(vectors.length, 50);
  for (const v of vectors) {
    const fields = [v.timestamp, v.counter, v.per_sec_random, v.per_gen_random];
    const hex = "0x" + v.u128_hex;
    const forms = [
      Scru128Id.fromString(v.text),
      Scru128Id.fromString(v.text.toLowerCase()),
      Scru128Id.fromFields(...fields),
      Scru128Id.fromHex(hex),
      Scru128Id.fromHex(v.u128_hex.toUpperCase()),
      Scru128Id.fromHex(BigInt(hex).toString(16)),
      Scru128Id.fromArrayBuffer(Uint8Array.from(Buffer.from(v.u128_hex, "hex")).buffer),
    ];
    for (const x of forms) {
      assert.equal(String(x), v.text);
      assert.equal(x.toHex(), hex);
      assert.deepEqual([x.timestamp, x.counter, x.perSecRandom, x.perGenRandom], fields);
      assert.equal(Buffer.from(x.toArrayBuffer()).toString("hex"), v.u128_hex);
      assert.equal(JSON.stringify(x), JSON.stringify(v.text));
      assert.ok(x.equals(forms[0]));
    }
  }
  // Their order as IDs is their order as text and as integers.
  const sorted = vectors.map((v) => Scru128Id.fromString(v.text)).sort((a, b) => a.compareTo(b));
  for (let i = 1; i < sorted.length; i++) {
    assert.ok(String(sorted[i - 1]) <= String(sorted[i]));
    assert.ok(BigInt(sorted[i - 1].toHex()) <= BigInt(sorted[i].toHex()));
  }
});

/** Whether `cli` is this repository's tool (a `scru128` of another package may be on PATH). */
function isOurCli(cli) {
  try {
    const out = execFileSync(cli, ["inspect", "00PGHAJ3Q9VAJ7IU6PQBHBUAK4"], { stdio: ["ignore", "pipe", "ignore"] });
    return out.toString().includes('"canonical":"00PGHAJ3Q9VAJ7IU6PQBHBUAK4"');
  } catch {
    return false;
  }
}

/**
 * The CLI: $SCRU128_CLI, the repository's cargo build, or `scru128` on PATH (after
 * `cargo install --path cli`) if it is this repository's; null if there is none.
 */
function findCli() {
  const onPath = (process.env.PATH || "")
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, "scru128"));
  const candidates = [
    process.env.SCRU128_CLI,
    path.join(repo, "target", "release", "scru128"),
    path.join(repo, "target", "debug", "scru128"),
    ...onPath,
  ].filter(Boolean);
  return candidates.find((p) => fs.existsSync(p) && isOurCli(p)) ?? null;
}

test("the same IDs as the command-line tool, both ways", (t) => {
  const cli = findCli();
  if (cli === null) {
    const how = "build it with `cargo build -p scru128-v1-cli` at the repository root, `cargo install --path cli`, or set SCRU128_CLI (scripts/test-node does)";
    if (process.env.SCRU128_TEST_REQUIRE_ALL === "1") assert.fail(`no scru128 CLI: ${how}`);
    t.skip(`no scru128 CLI: ${how}`);
    return;
  }
  // Ours to the CLI: every kind of ID we make, read back by `inspect`.
  const g = new Scru128Generator({ nextUint32: (() => { let n = 0x9e3779b9; return () => (n = (n * 1103515245 + 12345) >>> 0); })() });
  const ids = [];
  for (let i = 0; i < 300; i++) ids.push(scru128(), Scru128Id.fromString(scru128String().toLowerCase()), g.generate());
  ids.push(...vectors.map((v) => Scru128Id.fromString(v.text)));
  const inspected = execFileSync(cli, ["inspect"], { input: ids.map(String).join("\n") + "\n" })
    .toString()
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  assert.equal(inspected.length, ids.length);
  ids.forEach((x, i) => {
    const r = inspected[i];
    assert.equal(r.canonical, String(x));
    assert.deepEqual(
      [r.timestamp, r.counter, r.perSecRandom, r.perGenRandom],
      [x.timestamp, x.counter, x.perSecRandom, x.perGenRandom].map(String),
    );
  });
  const hexes = execFileSync(cli, ["convert", "--format", "hex"], { input: ids.map(String).join("\n") + "\n" })
    .toString()
    .trim()
    .split("\n");
  ids.forEach((x, i) => assert.equal("0x" + hexes[i], x.toHex()));
  // The CLI's IDs to ours: its text, hex and integer forms.
  const made = execFileSync(cli, ["-n", "500"]).toString().trim().split("\n");
  const asHex = execFileSync(cli, ["convert", "--format", "hex"], { input: made.join("\n") + "\n" }).toString().trim().split("\n");
  const asInt = execFileSync(cli, ["convert", "--format", "int"], { input: made.join("\n") + "\n" }).toString().trim().split("\n");
  made.forEach((s, i) => {
    const x = Scru128Id.fromString(s);
    assert.equal(String(x), s);
    assert.ok(Scru128Id.fromHex(asHex[i]).equals(x));
    assert.equal(BigInt(x.toHex()).toString(), asInt[i]);
    if (i > 0) assert.equal(Scru128Id.fromString(made[i - 1]).compareTo(x), -1);
  });
});
