"""The SQLite extension through Python's sqlite3 module, on database files.

Every function and its errors (tests/data/functions.txt), keys by DEFAULT for
1 000 000 rows, four threads with a connection each, one connection used by two
threads in turn (scru128() and scru128_series), a parent and forked children
(multiprocessing), spawned and forkserver children while a thread is inside SQLite,
loading twice, and (with sqlean.py installed) a second SQLite library in the same
process.

    SCRU128_SQLITE_EXT=path/to/scru128.so python3 sqlite/tests/python/test_extension.py

Needs an interpreter whose sqlite3 can load extensions (Debian's /usr/bin/python3 can;
pyenv's builds cannot unless built with --enable-loadable-sqlite-extensions). Without
one the tests are skipped with a line that says so, or fail when
SCRU128_TEST_REQUIRE_ALL=1. Standard library only.
"""

import multiprocessing
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "data", "functions.txt")
EXT = os.environ.get("SCRU128_SQLITE_EXT", "")
REQUIRE_ALL = os.environ.get("SCRU128_TEST_REQUIRE_ALL", "0") not in ("", "0")
CAN_LOAD = hasattr(sqlite3.Connection, "enable_load_extension")
ROWS = 1_000_000


def series(n):
    return f"WITH RECURSIVE n(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM n WHERE x < {n})"


OUT_OF_ORDER = (
    "SELECT count(*) FROM t AS a JOIN t AS b ON b.rowid = a.rowid + 1 "
    "WHERE b.id <= a.id OR scru128_text(b.id) <= scru128_text(a.id)"
)


def connect(path, module=sqlite3, ext=None):
    conn = module.connect(path, timeout=60, isolation_level=None, check_same_thread=False)
    conn.enable_load_extension(True)
    conn.load_extension(ext or EXT)
    conn.enable_load_extension(False)
    return conn


def cases():
    with open(CASES, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            expr, expected = line.split("\t", 1)
            yield number, expr, expected


class Scratch(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="scru128-sqlite-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)


class Functions(Scratch):
    def test_every_case(self):
        conn = connect(self.path("cases.db"))
        failures = []
        count = 0
        for number, expr, expected in cases():
            count += 1
            try:
                got = "= " + conn.execute(f"SELECT quote({expr})").fetchone()[0]
            except sqlite3.Error as err:
                got = "! " + str(err)
            if got != expected:
                failures.append(f"functions.txt:{number}: {expr}\n  expected {expected!r}\n  got      {got!r}")
        self.assertFalse(failures, "\n".join(failures))
        self.assertGreater(count, 100)

    def test_errors_are_operational_errors_never_silent(self):
        conn = connect(":memory:")
        with self.assertRaises(sqlite3.OperationalError) as caught:
            conn.execute("SELECT scru128_to_blob(?)", (b"short",)).fetchone()
        self.assertEqual(str(caught.exception), "scru128_to_blob: expected a 16-byte BLOB, found 5 bytes")
        # Bound parameters of each Python type.
        row = conn.execute(
            "SELECT scru128_text(?), scru128_text(?), scru128_min(?), scru128_is_valid(?)",
            ("00pghaj3q9vaj7iu6pqbhbuak4", bytes.fromhex("00cc22a98f49faa67978d9d2e2bf2a84"), 1767225600000, None),
        ).fetchone()
        self.assertEqual(row, ("00PGHAJ3Q9VAJ7IU6PQBHBUAK4", "00PGHAJ3Q9VAJ7IU6PQBHBUAK4", "02O63JO0000000000000000000", None))


def time_strings(count, seed):
    """Time strings in SQLite's forms over the whole range, and near misses."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        s = f"{rng.randrange(2018, 2580):04}-{rng.randrange(1, 13):02}-{rng.randrange(1, 32):02}"
        if rng.randrange(5):
            s += rng.choice(["T", " ", "  ", "T "]) + f"{rng.randrange(25):02}:{rng.randrange(60):02}"
            if rng.randrange(3):
                s += f":{rng.randrange(60):02}"
                digits = rng.randrange(6)
                if digits:
                    s += "." + str(rng.randrange(10**digits)).zfill(digits)
            tz = rng.randrange(6)
            if tz == 0:
                s += "Z"
            elif tz == 1:
                s += " z "
            elif tz == 2:
                s += rng.choice(["+", "-", " +", " -"]) + f"{rng.randrange(15):02}:{rng.randrange(60):02}"
        if rng.randrange(4) == 0:
            at = rng.randrange(len(s))
            s = s[:at] + rng.choice("0123456789-:. TZz+x") + s[at + 1 :]
        out.append(s)
    return out


class TimeStrings(unittest.TestCase):
    def test_time_strings_mean_what_a_second_sqlite_version_says(self):
        """Against sqlean.py's SQLite (3.50), a version other than the host's."""
        try:
            import sqlean
        except ImportError:
            if REQUIRE_ALL:
                raise
            self.skipTest("no sqlean.py: pip install sqlean.py to run this test")
        other = sqlean.connect(":memory:")
        conn = connect(":memory:")
        lo, hi = 1577836800000, 1577836800000 + 2**44 - 1
        read = long = 0
        for s in time_strings(20_000, 2024):
            (ms,) = other.execute(
                "SELECT CAST(round(julianday(?) * 86400000.0) AS INTEGER) - 210866760000000", (s,)
            ).fetchone()
            try:
                got = conn.execute("SELECT scru128_timestamp_ms(scru128_min(?))", (s,)).fetchone()[0]
            except sqlite3.OperationalError as err:
                got = str(err)
            sub_ms = any(
                len(d) > 9 or d[3:].strip("0")
                for d in (f[: len(f) - len(f.lstrip("0123456789"))] for f in s.split(".")[1:])
            )
            if ms is None:
                self.assertIn("is not a time", got, s)
            elif sub_ms:
                # More than 3 digits of fractional seconds: refused here (SQLite versions
                # read them differently).
                self.assertIn("digits of fractional seconds", got, s)
                long += 1
            elif not lo <= ms <= hi:
                self.assertIn(f"unix time {ms} ms is outside the SCRU128 range", got, s)
            else:
                self.assertEqual(got, ms, s)
                read += 1
        self.assertGreater(read, 10_000)
        self.assertGreater(long, 1000)


class Keys(Scratch):
    def keys(self, key, generator):
        conn = connect(self.path(f"{key}.db"))
        conn.executescript(
            f"""CREATE TABLE t (id {key} PRIMARY KEY DEFAULT ({generator}), n INTEGER NOT NULL);
                {series(ROWS)} INSERT INTO t (n) SELECT x FROM n;"""
        )
        kind, size = (("text", 26) if key == "TEXT" else ("blob", 16))
        got = conn.execute(
            f"SELECT count(*) FROM t WHERE typeof(id) = '{kind}' AND length(id) = {size} AND n = rowid"
        ).fetchone()[0]
        self.assertEqual(got, ROWS)
        self.assertEqual(conn.execute(OUT_OF_ORDER).fetchone()[0], 0)

    def test_text_key_by_default_one_million_rows_in_order(self):
        self.keys("TEXT", "scru128()")

    def test_blob_key_by_default_one_million_rows_in_order(self):
        self.keys("BLOB", "scru128_blob()")


class Threads(Scratch):
    def test_four_threads_with_a_connection_each(self):
        threads, per_thread, half = 4, 250_000, 500
        db = self.path("threads.db")
        connect(db).executescript(
            "PRAGMA journal_mode = WAL;"
            "CREATE TABLE t (id TEXT PRIMARY KEY DEFAULT (scru128()), thread INTEGER NOT NULL);"
        )
        errors = []

        def work(thread):
            try:
                conn = connect(db)
                for _ in range(per_thread // (2 * half)):
                    # Half made outside any transaction (the threads generate at the
                    # same time), half by the DEFAULT.
                    ids = conn.execute(f"{series(half)} SELECT scru128() FROM n").fetchall()
                    conn.execute("BEGIN IMMEDIATE")
                    conn.executemany("INSERT INTO t (id, thread) VALUES (?, ?)", ((i, thread) for (i,) in ids))
                    conn.executemany("INSERT INTO t (thread) VALUES (?)", ((thread,) for _ in range(half)))
                    conn.execute("COMMIT")
            except Exception as err:  # reported by the main thread
                errors.append(f"thread {thread}: {err!r}")

        workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        self.assertFalse(errors)
        conn = connect(db)
        last = {}
        counts = {}
        for thread, id_ in conn.execute("SELECT thread, id FROM t ORDER BY rowid"):
            self.assertGreater(id_, last.get(thread, ""), f"thread {thread}")
            last[thread] = id_
            counts[thread] = counts.get(thread, 0) + 1
        self.assertEqual(counts, {t: per_thread for t in range(threads)})


def ping_pong(rounds, *steps):
    """Runs steps[0], steps[1], ... in turn, each on a thread of its own, `rounds` times
    over: one thread at a time, as a connection shared by threads is used."""
    turn = [threading.Event() for _ in steps]
    errors = []

    def run(i):
        try:
            for _ in range(rounds):
                turn[i].wait()
                turn[i].clear()
                steps[i]()
                turn[(i + 1) % len(steps)].set()
        except Exception as err:  # reported by the main thread
            errors.append(repr(err))
            for t in turn:
                t.set()

    workers = [threading.Thread(target=run, args=(i,)) for i in range(len(steps))]
    for w in workers:
        w.start()
    turn[0].set()
    for w in workers:
        w.join()
    return errors


def timestamp(id_):
    return int(id_[:10], 32)


class OneConnectionTwoThreads(Scratch):
    """One connection used by two threads in turn (check_same_thread=False; SQLite's
    serialized mode)."""

    def test_scru128_is_ordered_per_thread_and_by_millisecond(self):
        conn = connect(":memory:")
        made = []
        steps = [lambda t=t: made.append((t, conn.execute("SELECT scru128()").fetchone()[0])) for t in (0, 1)]
        self.assertEqual(ping_pong(5000, *steps), [])
        last = {}
        for thread, id_ in made:
            self.assertGreater(id_, last.get(thread, ""), f"thread {thread}")
            last[thread] = id_
        ids = [id_ for _, id_ in made]
        # In call order the millisecond never goes back ...
        self.assertTrue(all(timestamp(a) <= timestamp(b) for a, b in zip(ids, ids[1:])))
        # ... but within one the two threads' IDs interleave: the connection's IDs are
        # not in call order, as the README says.
        down = sum(a > b for a, b in zip(ids, ids[1:]))
        self.assertGreater(down, 0)
        print(f"\n  one connection, two threads: {down} of {len(ids) - 1} steps go down", file=sys.stderr)

    def test_a_series_stepped_by_two_threads_increases(self):
        conn = connect(":memory:")
        got = {}
        for source in ("SELECT id FROM scru128_series(40000)", f"{series(40000)} SELECT scru128() FROM n"):
            cursor = conn.execute(source)
            rows = []
            steps = [lambda: rows.extend(r for (r,) in cursor.fetchmany(20))] * 2
            self.assertEqual(ping_pong(1000, *steps), [])
            self.assertEqual(len(rows), 40000)
            got[source] = sum(a >= b for a, b in zip(rows, rows[1:]))
        series_down, control_down = got.values()
        self.assertEqual(series_down, 0)
        # The control: scru128() in the same statement, stepped the same way, goes down.
        self.assertGreater(control_down, 0)
        print(f"\n  scru128_series: 0 steps down; scru128() in a recursive CTE: {control_down}", file=sys.stderr)

    def test_a_series_that_a_clock_reset_falls_into_ends_with_an_error(self):
        """The clock stepped back 60 s (libfaketime, in a child Python) between two
        fetches of one scru128_series call: an error, not an ID out of order.

        After each step the child waits 2 ms before it makes IDs: the library's clock
        may give the millisecond from before a step for less than 1 ms after it (its
        time-stamp-counter shortcut, docs/reliability.md). Without the wait, 3 runs of
        10 failed: the IDs right after the step forward to +0 still came from the
        -60 s time of the reset before, so the step back to -60 s was no step for the
        generator (no error, and no ID out of order either)."""
        lib = os.environ.get("SCRU128_FAKETIME", "")
        if not os.path.isfile(lib):
            if REQUIRE_ALL:
                self.fail(f"SCRU128_FAKETIME={lib!r} is not libfaketime.so.1")
            self.skipTest("no libfaketime: set SCRU128_FAKETIME to libfaketime.so.1 (scripts/test-sqlite does)")
        offset = self.path("faketimerc")
        with open(offset, "w") as f:
            f.write("+0\n")
        child = f"""
import os, sqlite3, time
def wait_2ms():
    # A busy wait on the monotonic clock (libfaketime's sleep fails with EINVAL).
    start = time.perf_counter()
    while time.perf_counter() - start < 0.002:
        pass
conn = sqlite3.connect(":memory:")
conn.enable_load_extension(True)
conn.load_extension({EXT!r})
for sql in ("SELECT id FROM scru128_series(1000)", "SELECT id FROM scru128_series_blob(1000)"):
    with open({offset!r} + ".tmp", "w") as f:
        f.write("+0\\n")
    os.rename({offset!r} + ".tmp", {offset!r})
    wait_2ms()
    cursor = conn.execute(sql)
    first = cursor.fetchmany(10)
    with open({offset!r} + ".tmp", "w") as f:
        f.write("-60\\n")
    os.rename({offset!r} + ".tmp", {offset!r})
    wait_2ms()
    try:
        rest = cursor.fetchall()
        print("no error", len(first) + len(rest))
    except sqlite3.OperationalError as err:
        print("error", len(first), err)
"""
        env = dict(
            os.environ,
            LD_PRELOAD=lib,
            FAKETIME_TIMESTAMP_FILE=offset,
            FAKETIME_NO_CACHE="1",
            FAKETIME_DONT_FAKE_MONOTONIC="1",
        )
        env.pop("FAKETIME", None)
        import subprocess

        out = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertEqual(len(lines), 2, out.stdout)
        for line, name in zip(lines, ("scru128_series", "scru128_series_blob")):
            self.assertTrue(
                line.startswith(f"error 10 {name}: the generator was reset in the middle of the call"), line
            )


def busy_in_sqlite(stop):
    """Keeps a thread inside SQLite (allocating, so taking SQLite's mutexes) until stopped."""
    conn = connect(":memory:")
    while not stop.is_set():
        conn.execute(f"{series(200)} SELECT count(randomblob(100)) FROM n").fetchone()


def insert_rounds(db, process, rounds, rows):
    conn = connect(db)
    for _ in range(rounds):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(f"{series(rows)} INSERT INTO t (process) SELECT ? FROM n", (process,))
        conn.execute("COMMIT")
        time.sleep(0.001)  # lets a waiting writer in
    conn.close()


class Fork(Scratch):
    @unittest.skipUnless(hasattr(os, "fork"), "fork() is Unix only")
    def test_parent_and_forked_children_into_one_file(self):
        children, rounds, rows = 3, 50, 1000
        db = self.path("fork.db")
        conn = connect(db)
        conn.executescript(
            "PRAGMA journal_mode = WAL;"
            "CREATE TABLE t (id BLOB PRIMARY KEY DEFAULT (scru128_blob()), process INTEGER NOT NULL);"
            f"{series(1000)} INSERT INTO t (process) SELECT 0 FROM n;"
        )
        conn.close()
        # The parent's generator is warm (it made IDs just now) when the children fork.
        ctx = multiprocessing.get_context("fork")
        procs = [ctx.Process(target=insert_rounds, args=(db, p, rounds, rows)) for p in range(1, children + 1)]
        for p in procs:
            p.start()
        insert_rounds(db, 0, rounds, rows)
        for p in procs:
            p.join()
        self.assertEqual([p.exitcode for p in procs], [0] * children)
        conn = connect(db)
        total = conn.execute("SELECT count(*) FROM t").fetchone()[0]
        self.assertEqual(total, 1000 + (children + 1) * rounds * rows)
        last = {}
        for process, id_ in conn.execute("SELECT process, id FROM t ORDER BY rowid"):
            self.assertGreater(id_, last.get(process, b""), f"process {process}")
            last[process] = id_


    def test_spawn_and_forkserver_children_while_a_thread_is_inside_sqlite(self):
        """The start methods the README recommends when threads use SQLite: the child
        is a new program (no copy of a mutex another thread held), which loads the
        extension itself."""
        for method in ("spawn", "forkserver"):
            children, rounds, rows = 2, 20, 500
            db = self.path(f"{method}.db")
            connect(db).executescript(
                "PRAGMA journal_mode = WAL;"
                "CREATE TABLE t (id BLOB PRIMARY KEY DEFAULT (scru128_blob()), process INTEGER NOT NULL);"
            )
            stop = threading.Event()
            busy = threading.Thread(target=busy_in_sqlite, args=(stop,))
            busy.start()
            try:
                ctx = multiprocessing.get_context(method)
                procs = [ctx.Process(target=insert_rounds, args=(db, p, rounds, rows)) for p in range(1, children + 1)]
                for p in procs:
                    p.start()
                insert_rounds(db, 0, rounds, rows)
                for p in procs:
                    p.join(120)
            finally:
                stop.set()
                busy.join()
            self.assertEqual([p.exitcode for p in procs], [0] * children, method)
            conn = connect(db)
            self.assertEqual(conn.execute("SELECT count(*) FROM t").fetchone()[0], (children + 1) * rounds * rows)
            last = {}
            for process, id_ in conn.execute("SELECT process, id FROM t ORDER BY rowid"):
                self.assertGreater(id_, last.get(process, b""), f"{method}: process {process}")
                last[process] = id_


class Loading(Scratch):
    def test_twice_in_one_connection_and_in_two(self):
        a = connect(":memory:")
        a.enable_load_extension(True)
        a.load_extension(EXT)
        b = connect(":memory:")
        last = ""
        for i in range(10_000):
            id_ = (a if i % 2 else b).execute("SELECT scru128()").fetchone()[0]
            self.assertGreater(id_, last)
            last = id_

    def test_a_second_sqlite_library_in_the_process(self):
        try:
            import sqlean  # sqlean.py: a second SQLite (3.50) with its own sqlite3 module
        except ImportError:
            if REQUIRE_ALL:
                raise
            self.skipTest("no sqlean.py: pip install sqlean.py to run this test")
        connect(":memory:")  # the standard library's SQLite loads it first
        with self.assertRaises(sqlean.OperationalError) as caught:
            connect(":memory:", module=sqlean)
        self.assertIn("already loaded by another SQLite library in this process", str(caught.exception))
        # A copy of the file is a second image, for the second library.
        copy = self.path("copy-of-scru128.so")
        shutil.copy(EXT, copy)
        other = connect(":memory:", module=sqlean, ext=copy)
        self.assertEqual(other.execute("SELECT scru128_is_valid(scru128()), sqlite_version()").fetchone()[0], 1)


def main():
    where = f"{sys.executable} (sqlite {sqlite3.sqlite_version})"
    if not CAN_LOAD or not EXT:
        why = (
            f"{where} cannot load extensions (built without --enable-loadable-sqlite-extensions); "
            "run with Debian's /usr/bin/python3"
            if not CAN_LOAD
            else "SCRU128_SQLITE_EXT is not set; scripts/test-sqlite sets it"
        )
        print(f"skipped: the Python tests: {why}")
        sys.exit(1 if REQUIRE_ALL else 0)
    print(f"python tests on {where}, extension {EXT}")
    unittest.main(verbosity=2)


if __name__ == "__main__":
    main()
