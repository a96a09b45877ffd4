"""Benchmark of the SQLite extension against the reference extensions, in one process
on one SQLite library (sqlean.py's), rounds interleaved, medians.

    python bench.py path/to/scru128.so [--rounds N] [--reps N] [--insert-rounds N]
        [--series-rounds N] [--only calls|series]

Needs sqlean.py (SQLite with sqlean's uuid4()/uuid7() built in) and sqlite-ulid 0.2.1
(ulid(), ulid_bytes(), a loadable .so); scripts/bench-sqlite installs both in a venv.

Per call: `SELECT count(F) FROM c` over a recursive CTE of 1 000 000 rows, less the
empty loop (`count(x)`) of the same round, in CPU time of the thread (the fastest of a
few runs of each, since other processes only add time); the median over the rounds. Inserts:
1 000 000 rows into a new file, `id BLOB PRIMARY KEY DEFAULT (F)` (TEXT for the text
generators), in one transaction; the median wall-clock time and the sizes (dbstat) of the table
and of its primary key index. Many IDs in one statement: scru128_series(n) and
scru128_series_blob(n) against a recursive CTE of scru128(), scru128_blob(), ulid() and
ulid_bytes(), 100 000 rows counted and inserted into a keyed in-memory table.
"""

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time

import sqlean
import sqlite_ulid

N = 1_000_000
LOOP = f"WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c WHERE x < {N})"

CALLS = [
    ("empty loop", "x"),
    ("scru128()", "scru128()"),
    ("scru128_blob()", "scru128_blob()"),
    ("ulid()", "ulid()"),
    ("ulid_bytes()", "ulid_bytes()"),
    ("uuid4()", "uuid4()"),
    ("uuid7()", "uuid7()"),
    ("randomblob(16)", "randomblob(16)"),
]

INSERTS = [
    ("scru128_blob()", "BLOB"),
    ("randomblob(16)", "BLOB"),
    ("ulid_bytes()", "BLOB"),
    ("scru128()", "TEXT"),
    ("uuid7()", "TEXT"),
]


def connect(path, ext):
    conn = sqlean.connect(path, isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_ulid.loadable_path())
    conn.load_extension(ext)
    return conn


def per_call(conn, rounds, reps):
    """Per-call ns of each function: in each round, the fastest of `reps` runs of each,
    in CPU time of this thread (time the scheduler gives to other processes does not
    count; what they do to the caches still does), less the fastest empty loop of the
    same round; the median over the rounds."""
    samples = {name: [] for name, _ in CALLS}
    for r in range(rounds):
        # Rotate the order each round, so no function always runs right after another.
        order = CALLS[r % len(CALLS) :] + CALLS[: r % len(CALLS)]
        best = {}
        for name, expr in order:
            for _ in range(reps):
                start = time.thread_time_ns()
                (count,) = conn.execute(f"{LOOP} SELECT count({expr}) FROM c").fetchone()
                elapsed = time.thread_time_ns() - start
                assert count == N, (name, count)
                best[name] = min(best.get(name, elapsed), elapsed)
        for name, _ in CALLS:
            samples[name].append((best[name] - best["empty loop"]) / N)
        samples["empty loop"][-1] = best["empty loop"] / N
    return samples


SERIES_N = 100_000
SERIES_LOOP = f"WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c WHERE x < {SERIES_N})"

# Many IDs in one statement: the table-valued function, and a recursive CTE calling a
# scalar function (what users write without it).
SERIES = [
    ("scru128_series(n)", "TEXT", f"SELECT id, rowid AS k FROM scru128_series({SERIES_N})"),
    ("CTE of scru128()", "TEXT", f"{SERIES_LOOP} SELECT scru128() AS id, x AS k FROM c"),
    ("CTE of ulid()", "TEXT", f"{SERIES_LOOP} SELECT ulid() AS id, x AS k FROM c"),
    ("scru128_series_blob(n)", "BLOB", f"SELECT id, rowid AS k FROM scru128_series_blob({SERIES_N})"),
    ("CTE of scru128_blob()", "BLOB", f"{SERIES_LOOP} SELECT scru128_blob() AS id, x AS k FROM c"),
    ("CTE of ulid_bytes()", "BLOB", f"{SERIES_LOOP} SELECT ulid_bytes() AS id, x AS k FROM c"),
]


def series_bench(conn, rounds, reps):
    """Per row, ns of CPU time: `SELECT count(id)` over the source (so that every ID is made), and `INSERT INTO t (id,
    k) SELECT ...` into a new in-memory table keyed by id; in each round the fastest of
    `reps` runs of each, the order rotated; the median over the rounds."""
    samples = {(name, what): [] for name, _, _ in SERIES for what in ("select", "insert")}
    for r in range(rounds):
        order = SERIES[r % len(SERIES) :] + SERIES[: r % len(SERIES)]
        for name, kind, source in order:
            best = {}
            for _ in range(reps):
                start = time.thread_time_ns()
                (count,) = conn.execute(f"SELECT count(id) FROM ({source})").fetchone()
                best["select"] = min(best.get("select", 1 << 62), time.thread_time_ns() - start)
                assert count == SERIES_N, (name, count)
                conn.execute(f"CREATE TABLE t (id {kind} PRIMARY KEY, k INTEGER NOT NULL)")
                start = time.thread_time_ns()
                conn.execute("BEGIN")
                conn.execute(f"INSERT INTO t (id, k) {source}")
                conn.execute("COMMIT")
                best["insert"] = min(best.get("insert", 1 << 62), time.thread_time_ns() - start)
                (count,) = conn.execute("SELECT count(*) FROM t").fetchone()
                assert count == SERIES_N, (name, count)
                conn.execute("DROP TABLE t")
            for what, ns in best.items():
                samples[(name, what)].append(ns / SERIES_N)
    return samples


def print_series(conn, rounds, reps):
    print(
        f"\nmany IDs in one statement, ns of CPU time per row ({SERIES_N:,} rows; best of {reps} "
        f"in each of {rounds} rounds; median, and the rounds' range)"
    )
    samples = series_bench(conn, rounds, reps)
    print(f"  {'source':<24} {'SELECT count':>14} {'INSERT (keyed)':>16}")
    for name, _, _ in SERIES:
        cells = []
        for what in ("select", "insert"):
            v = samples[(name, what)]
            cells.append(f"{statistics.median(v):6.1f} ({min(v):.0f}..{max(v):.0f})")
        print(f"  {name:<24} {cells[0]:>14} {cells[1]:>16}")

    def ratio(slow, fast, what):
        return statistics.median(
            s / f for s, f in zip(samples[(slow, what)], samples[(fast, what)])
        )

    print("\n  ratios (how many times as fast; median of the rounds' ratios):")
    for fast, others in [
        ("scru128_series(n)", ["CTE of scru128()", "CTE of ulid()"]),
        ("scru128_series_blob(n)", ["CTE of scru128_blob()", "CTE of ulid_bytes()"]),
    ]:
        for slow in others:
            print(
                f"  {fast:<24} against {slow:<22} select {ratio(slow, fast, 'select'):5.2f}x, "
                f"insert {ratio(slow, fast, 'insert'):5.2f}x"
            )


def insert_once(ext, dirname, expr, kind, r):
    path = os.path.join(dirname, f"insert-{r}-{kind}-{expr.split('(')[0]}.db")
    conn = connect(path, ext)
    conn.execute(f"CREATE TABLE t (id {kind} PRIMARY KEY DEFAULT ({expr}), n INTEGER NOT NULL)")
    start = time.perf_counter()
    conn.execute("BEGIN")
    conn.execute(f"{LOOP} INSERT INTO t (n) SELECT x FROM c")
    conn.execute("COMMIT")
    elapsed = time.perf_counter() - start
    sizes = dict(conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"))
    (rows,) = conn.execute("SELECT count(*) FROM t").fetchone()
    assert rows == N
    conn.close()
    os.remove(path)
    return elapsed, sizes.get("t", 0), sizes.get("sqlite_autoindex_t_1", 0)


def inserts(ext, rounds):
    results = {expr: [] for expr, _ in INSERTS}
    with tempfile.TemporaryDirectory(prefix="scru128-bench-") as dirname:
        for r in range(rounds):
            order = INSERTS[r % len(INSERTS) :] + INSERTS[: r % len(INSERTS)]
            for expr, kind in order:
                results[expr].append(insert_once(ext, dirname, expr, kind, r))
    summary = {}
    for expr, runs in results.items():
        summary[expr] = (
            statistics.median(t for t, _, _ in runs),
            runs[-1][1],
            runs[-1][2],
        )
    return summary


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("extension")
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--insert-rounds", type=int, default=3)
    parser.add_argument("--series-rounds", type=int, default=11)
    parser.add_argument("--only", choices=["calls", "series"], help="run only the per-call or only the many-IDs part")
    args = parser.parse_args()
    sqlean.extensions.enable("uuid")
    conn = connect(":memory:", args.extension)
    (version,) = conn.execute("SELECT sqlite_version()").fetchone()
    (ulid_version,) = conn.execute("SELECT ulid_version()").fetchone()
    load = os.getloadavg()
    print(
        f"bench-sqlite {time.strftime('%Y-%m-%d %H:%M:%S')}: SQLite {version} (sqlean.py), "
        f"sqlite-ulid {ulid_version}, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    if args.only in (None, "series"):
        print_series(conn, args.series_rounds, args.reps)
    if args.only == "series":
        return 0
    print(
        f"\nper call, ns of CPU time (1 000 000 rows of a recursive CTE less the empty loop; best of "
        f"{args.reps} in each of {args.rounds} rounds; median, and the rounds' range)"
    )
    samples = per_call(conn, args.rounds, args.reps)
    calls = {name: statistics.median(v) for name, v in samples.items()}
    for name, _ in CALLS:
        label = "ns per row" if name == "empty loop" else "ns"
        low, high = min(samples[name]), max(samples[name])
        print(f"  {name:<16} {calls[name]:8.1f} {label:<10} ({low:.1f} .. {high:.1f})")

    def ratio(slow, fast):
        # The median of the rounds' ratios: each round's pair ran close together.
        return statistics.median(s / f if f > 0 else float("inf") for s, f in zip(samples[slow], samples[fast]))

    print("\nratios (per call, how many times as fast; median of the rounds' ratios):")
    checks = [
        ("scru128() against ulid()", ratio("ulid()", "scru128()"), 2.0),
        ("scru128() against uuid7()", ratio("uuid7()", "scru128()"), 2.0),
        ("scru128_blob() against ulid_bytes()", ratio("ulid_bytes()", "scru128_blob()"), 1.0),
        ("scru128_blob() against randomblob(16)", ratio("randomblob(16)", "scru128_blob()"), None),
        ("scru128() against uuid4()", ratio("uuid4()", "scru128()"), None),
    ]
    for label, value, goal in checks:
        target = f"  (goal >= {goal:g}x: {'met' if value >= goal else 'NOT met'})" if goal else ""
        print(f"  {label:<40} {value:6.2f}x{target}")

    if args.only == "calls":
        return 0
    print(f"\ninserting {N:,} rows by DEFAULT into a new file, one transaction (median of {args.insert_rounds})")
    rows = inserts(args.extension, args.insert_rounds)
    base_time, base_table, base_index = rows["randomblob(16)"]
    print(f"  {'DEFAULT':<16} {'type':<5} {'seconds':>8} {'vs randomblob':>14} {'table MiB':>10} {'pkey MiB':>9}")
    for expr, kind in INSERTS:
        t, table, index = rows[expr]
        print(
            f"  {expr:<16} {kind:<5} {t:8.2f} {base_time / t:13.2f}x {table / 2**20:10.1f} {index / 2**20:9.1f}"
        )
    t, table, index = rows["scru128_blob()"]
    faster = t < base_time
    no_larger = table <= base_table and index <= base_index
    print(
        f"\n  scru128_blob() against randomblob(16): {base_time / t:.2f}x as fast "
        f"(goal > 1: {'met' if faster else 'NOT met'}); table and primary key "
        f"{table / base_table:.2f} and {index / base_index:.2f} of its size "
        f"(goal <= 1: {'met' if no_larger else 'NOT met'})"
    )
    print("\nnote: one run on a shared, noisy machine; rerun on a quiet one for figures to quote.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
