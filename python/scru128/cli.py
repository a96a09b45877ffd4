"""Command-line interface to generate and inspect SCRU128 identifiers

The console scripts ``scru128`` and ``scru128-inspect``, with the options, help and
output of 1.0.1's (the argument definitions and texts below are 1.0.1's, so that
``--help`` and the error messages read the same). Differences, on purpose:
``timestampIso`` is exact (1.0.1 computed it in floating point, 1 ms early for some
times after about 2242), a reader that closes the pipe ends the command quietly
(1.0.1 printed a traceback), and input that is not text in the locale's encoding is
a one-line error (1.0.1 printed a traceback); the exit status is 1 in both.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Callable, Iterator

from . import Scru128Id, scru128_strings

# IDs per write: amortises the call without holding many strings.
_CHUNK = 4096


def generate() -> None:
    parser = argparse.ArgumentParser(description="Generate SCRU128 identifiers.")
    parser.add_argument(
        "-n",
        default=1,
        type=int,
        help="generate given number of identifiers",
        metavar="count",
    )

    args = parser.parse_args()
    n: int = args.n

    def write() -> None:
        remaining = n
        while remaining > 0:
            count = min(remaining, _CHUNK)
            sys.stdout.write("\n".join(scru128_strings(count)) + "\n")
            remaining -= count
        sys.stdout.flush()

    _run(write)


def inspect() -> None:
    parser = argparse.ArgumentParser(
        description="Show components of SCRU128 identifiers read from stdin. "
        + "Print a human-readable JSON object for each valid line read."
    )
    parser.add_argument(
        "file",
        nargs="?",
        default="-",
        type=argparse.FileType("r"),
        help="read identifiers from file",
    )

    pattern = re.compile(r"^[0-7][0-9A-Va-v]{25}$")

    args = parser.parse_args()

    def write() -> None:
        for line in _lines(args.file):
            line = line.strip()
            if line == "":
                continue
            elif pattern.match(line):
                print(_inspect_id(line))
            else:
                print("warning: skipped invalid identifier:", line, file=sys.stderr)
        sys.stdout.flush()

    _run(write)


def _lines(file: Iterator[str]) -> Iterator[str]:
    try:
        yield from file
    except UnicodeDecodeError as err:
        name = getattr(file, "name", "<stdin>")
        print(f"scru128-inspect: {name}: not text ({err})", file=sys.stderr)
        sys.exit(1)


def _run(write: Callable[[], None]) -> None:
    try:
        write()
    except KeyboardInterrupt:
        sys.exit(1)
    except BrokenPipeError:
        # The reader went away: a normal end. Point stdout at /dev/null so that the
        # interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)


def _inspect_id(src: str) -> str:
    obj = Scru128Id.from_str(src)
    timestamp_iso = obj.to_datetime().isoformat(timespec="milliseconds")
    fields_hex = '["{:011x}", "{:07x}", "{:06x}", "{:08x}"]'.format(
        obj.timestamp, obj.counter, obj.per_sec_random, obj.per_gen_random
    )

    return "\n".join(
        (
            "{",
            f'  "input":        "{src}",',
            f'  "canonical":    "{obj}",',
            f'  "timestampIso": "{timestamp_iso}",',
            f'  "timestamp":    "{obj.timestamp}",',
            f'  "counter":      "{obj.counter}",',
            f'  "perSecRandom": "{obj.per_sec_random}",',
            f'  "perGenRandom": "{obj.per_gen_random}",',
            f'  "fieldsHex":    {fields_hex}',
            "}",
        )
    )
