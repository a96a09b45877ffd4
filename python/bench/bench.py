"""Speed of this package against the real scru128 1.0.1, uuid.uuid4() and
uuid_utils.uuid7(), measured in one run.

Both packages are imported as ``scru128``, so each runs in a worker process of its
own interpreter (``--ours`` and ``--ref`` name them); the driver asks the two in
turns, round after round, and keeps each one's best time, so that a change of load
during the run affects both sides alike. Prints a table of nanoseconds per call
and the ratios, and the machine's load before and after.

    python bench.py --ours OUR_PYTHON --ref REFERENCE_PYTHON [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from typing import Dict, List, Optional, Tuple

# (name, setup, statement, calls per statement, target ratio over 1.0.1 or None).
SETUP = "from scru128 import Scru128Generator, Scru128Id, scru128, scru128_string\n"
CASES: List[Tuple[str, str, str, int, Optional[float]]] = [
    ("scru128()", SETUP, "scru128()", 1, 20),
    ("scru128_string()", SETUP, "scru128_string()", 1, 30),
    ("Scru128Id.from_str(s)", SETUP + "s = scru128_string()", "Scru128Id.from_str(s)", 1, 10),
    ("str(id)", SETUP + "x = scru128()", "str(x)", 1, 10),
    ("Scru128Generator().generate()", SETUP + "g = Scru128Generator()", "g.generate()", 1, 20),
    ("Scru128Id(int)", SETUP + "v = int(scru128())", "Scru128Id(v)", 1, None),
    ("Scru128Id.from_fields(...)", SETUP + "f = (1, 2, 3, 4)", "Scru128Id.from_fields(*f)", 1, None),
    ("int(id)", SETUP + "x = scru128()", "int(x)", 1, None),
    ("hash(id)", SETUP + "x = scru128()", "hash(x)", 1, None),
    ("id == id", SETUP + "x = scru128(); y = scru128()", "x == y", 1, None),
    ("id < id", SETUP + "x = scru128(); y = scru128()", "x < y", 1, None),
    ("id.timestamp", SETUP + "x = scru128()", "x.timestamp", 1, None),
]
# Only this package has these: per ID, against 1.0.1's one-at-a-time calls.
BATCHES: List[Tuple[str, str, str, int, str]] = [
    ("scru128_strings(1000), per ID", "from scru128 import scru128_strings", "scru128_strings(1000)", 1000, "scru128_string()"),
    ("generate_many(1000), per ID", SETUP + "g = Scru128Generator()", "g.generate_many(1000)", 1000, "Scru128Generator().generate()"),
]
# For context, in this package's interpreter.
OTHERS: List[Tuple[str, str, str]] = [
    ("uuid.uuid4()", "import uuid", "uuid.uuid4()"),
    ("uuid.uuid4() and str", "import uuid", "str(uuid.uuid4())"),
    ("uuid_utils.uuid7()", "import uuid_utils", "uuid_utils.uuid7()"),
    ("uuid_utils.uuid7() and str", "import uuid_utils", "str(uuid_utils.uuid7())"),
    ("uuid_utils.uuid4()", "import uuid_utils", "uuid_utils.uuid4()"),
]


def worker() -> None:
    """Times the statements the driver sends, one JSON request a line."""
    import timeit

    for line in sys.stdin:
        request = json.loads(line)
        timer = timeit.Timer(request["stmt"], request["setup"])
        # About 50 ms a repeat (autorange aims at 0.2 s).
        number = request.get("number") or max(1, timer.autorange()[0] // 4)
        best = min(timer.repeat(repeat=request["repeat"], number=number)) / number
        print(json.dumps({"ns": best * 1e9, "number": number}), flush=True)


class Worker:
    def __init__(self, python: str) -> None:
        self.process = subprocess.Popen(
            [python, os.path.abspath(__file__), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.numbers: Dict[str, int] = {}

    def time(self, key: str, setup: str, stmt: str, repeat: int) -> float:
        assert self.process.stdin and self.process.stdout
        request = {"setup": setup, "stmt": stmt, "repeat": repeat, "number": self.numbers.get(key)}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        self.numbers[key] = answer["number"]
        ns: float = answer["ns"]
        return ns

    def close(self) -> None:
        assert self.process.stdin
        self.process.stdin.close()
        self.process.wait()


def load() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def main() -> int:
    if sys.argv[1:] == ["--worker"]:
        worker()
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", required=True, help="Python with this package and uuid_utils")
    parser.add_argument("--ref", required=True, help="Python with scru128==1.0.1")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    ours, ref = Worker(args.ours), Worker(args.ref)
    best: Dict[Tuple[str, str], float] = {}

    def measure(side: str, w: Worker, name: str, setup: str, stmt: str, per: int = 1) -> None:
        ns = w.time(name, setup, stmt, repeat=3) / per
        key = (side, name)
        best[key] = min(best.get(key, ns), ns)

    load_before = load()
    started = time.monotonic()
    for _ in range(args.rounds):
        for name, setup, stmt, per, _target in CASES:
            measure("ref", ref, name, setup, stmt, per)
            measure("ours", ours, name, setup, stmt, per)
        for name, setup, stmt, per, _single in BATCHES:
            measure("ours", ours, name, setup, stmt, per)
        for name, setup, stmt in OTHERS:
            measure("ours", ours, name, setup, stmt)
    elapsed = time.monotonic() - started
    load_after = load()
    ours.close()
    ref.close()

    version = subprocess.run(
        [args.ours, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True, text=True
    ).stdout.strip()
    print(f"CPython {version} on {cpu()}, {os.cpu_count()} cores; {args.rounds} rounds in {elapsed:.0f} s")
    print(f"load average (1, 5, 15 min): {load_before} before, {load_after} after")
    print()
    failures = 0
    print(f"| {'operation':<32} | {'1.0.1 (ns)':>10} | {'this (ns)':>9} | {'ratio':>7} | target |")
    print(f"| {'-' * 32} | {'-' * 10}: | {'-' * 9}: | {'-' * 7}: | ------ |")
    for name, _setup, _stmt, _per, target in CASES:
        theirs, mine = best[("ref", name)], best[("ours", name)]
        ratio = theirs / mine
        verdict = ""
        if target is not None:
            ok = ratio >= target
            failures += not ok
            verdict = f">= {target:g}x {'ok' if ok else 'MISSED'}"
        print(f"| {name:<32} | {theirs:>10.0f} | {mine:>9.1f} | {ratio:>6.1f}x | {verdict} |")
    for name, _setup, _stmt, _per, single in BATCHES:
        theirs, mine = best[("ref", single)], best[("ours", name)]
        print(f"| {name:<32} | {theirs:>10.0f} | {mine:>9.1f} | {theirs / mine:>6.1f}x | vs {single} |")
    print()
    ours_scru128 = best[("ours", "scru128()")]
    ours_string = best[("ours", "scru128_string()")]
    print(f"| {'for context (this interpreter)':<32} | {'ns':>9} | {'time / this package':<32} |")
    print(f"| {'-' * 32} | {'-' * 9}: | {'-' * 32} |")
    for name, _setup, _stmt in OTHERS:
        ns = best[("ours", name)]
        mine, label = (ours_string, "scru128_string()") if "str" in name else (ours_scru128, "scru128()")
        print(f"| {name:<32} | {ns:>9.1f} | {f'{ns / mine:.1f}x that of {label}':<32} |")
    print()
    for rival in ("uuid.uuid4()", "uuid_utils.uuid7()"):
        ok = ours_scru128 < best[("ours", rival)]
        failures += not ok
        print(f"scru128() faster than {rival}: {'ok' if ok else 'MISSED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
