"""The clock, under libfaketime: a clock outside the SCRU128 range is a ValueError
(as in 1.0.1), never a Rust panic, and the generators work again once the clock
does; a clock stepping back is absorbed up to 10 s, beyond that the generators
start again from the clock (1.0.1 kept counting on from its last timestamp)."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import pytest

from conftest import TESTS, Reference


def faketime_library() -> str:
    found = os.environ.get("SCRU128_FAKETIME_LIB") or next(
        iter(sorted(glob.glob("/usr/lib/*/faketime/libfaketime.so.1"))), None
    )
    if not found:
        pytest.fail("libfaketime not found (Debian package faketime); scripts/test-python installs it", pytrace=False)
    return found


PROGRAM = r'''
import os, pickle, sys, time
clock_file = sys.argv[1]

def set_clock(when):
    with open(clock_file, "w") as f:
        f.write("@" + when + "\n")
    time.sleep(0.005)

import scru128
import random

def attempt(f):
    try:
        x = f()
    except BaseException as err:
        return ("raise", type(err).__name__, str(err))
    return ("ok", [str(v) for v in x] if isinstance(x, list) else str(x))

calls = {
    "scru128": lambda: scru128.scru128(),
    "scru128_string": lambda: scru128.scru128_string(),
    "default_generator": lambda: scru128.default_generator.generate(),
    "own": lambda: own.generate(),
    "rng": lambda: rng.generate(),
}
if hasattr(scru128, "scru128_strings"):
    calls.update({
        "scru128_strings": lambda: scru128.scru128_strings(3),
        "own many": lambda: own.generate_many(3),
        "rng many": lambda: rng.generate_many(3),
    })
own = scru128.Scru128Generator()
rng = scru128.Scru128Generator(rng=random.Random(5))
result = {}
result["2019"] = {name: attempt(f) for name, f in calls.items()}
set_clock("2024-06-01 12:00:00")
result["2024"] = {name: attempt(f) for name, f in calls.items()}
set_clock("2024-06-01 11:59:55")
result["5 s back"] = {name: attempt(f) for name, f in calls.items()}
set_clock("2024-06-01 11:00:00")
result["1 h back"] = {name: attempt(f) for name, f in calls.items()}
sys.stdout.buffer.write(pickle.dumps(result))
'''


def run(python: str, tmp_path: Path) -> Dict[str, Any]:
    clock = tmp_path / "clock"
    clock.write_text("@2019-06-01 00:00:00\n")
    env = {
        **os.environ,
        "LD_PRELOAD": faketime_library(),
        "FAKETIME_TIMESTAMP_FILE": str(clock),
        "FAKETIME_NO_CACHE": "1",
        "RUST_BACKTRACE": "1",
    }
    done = subprocess.run([python, "-c", PROGRAM, str(clock)], cwd=TESTS, env=env, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    # No panic message, no traceback: only the exceptions the program caught.
    assert done.stderr == b"", done.stderr.decode()
    import pickle

    result: Dict[str, Any] = pickle.loads(done.stdout)
    return result


@pytest.fixture(scope="module")
def both(ref: Reference, tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Dict[str, Any]]:
    return {
        "ours": run(sys.executable, tmp_path_factory.mktemp("ours")),
        "theirs": run(ref.python, tmp_path_factory.mktemp("theirs")),
    }


def test_a_clock_before_2020_is_a_value_error_as_in_101(both: Dict[str, Dict[str, Any]]) -> None:
    ours, theirs = both["ours"]["2019"], both["theirs"]["2019"]
    assert len(ours) == 8
    for name, outcome in ours.items():
        assert outcome[:2] == ("raise", "ValueError"), name
        assert "outside the range SCRU128 can generate" in outcome[2], name
    for name, outcome in theirs.items():
        assert outcome[:2] == ("raise", "ValueError"), name


def test_everything_works_once_the_clock_does(both: Dict[str, Dict[str, Any]]) -> None:
    for side in ("ours", "theirs"):
        for name, outcome in both[side]["2024"].items():
            assert outcome[0] == "ok", (side, name)
            texts = outcome[1] if isinstance(outcome[1], list) else [outcome[1]]
            assert all(t.startswith("02") for t in texts), (side, name, texts)  # 2024


def test_a_small_step_back_keeps_the_order(both: Dict[str, Dict[str, Any]]) -> None:
    for side in ("ours", "theirs"):
        for name, outcome in both[side]["5 s back"].items():
            before = both[side]["2024"][name][1]
            assert outcome[0] == "ok"
            assert min(outcome[1]) > max(before) if isinstance(before, list) else outcome[1] > before, (side, name)


def test_a_step_back_beyond_10_s_starts_again_from_the_clock(both: Dict[str, Dict[str, Any]]) -> None:
    for name, outcome in both["ours"]["1 h back"].items():
        before = both["ours"]["5 s back"][name][1]
        assert outcome[0] == "ok"
        # This crate's rule: the timestamp follows the clock back (order broken).
        assert (min(outcome[1]) if isinstance(outcome[1], list) else outcome[1]) < (
            max(before) if isinstance(before, list) else before
        ), name
    for name, outcome in both["theirs"]["1 h back"].items():
        before = both["theirs"]["5 s back"][name][1]
        # 1.0.1 kept its last timestamp and counted on.
        assert outcome[1] > before, name
