"""Command-line interface to generate and inspect SCRU128 identifiers

The console scripts ``scru128`` and ``scru128-inspect``, with the options, help and
output of 1.0.1's (the argument definitions and texts below are 1.0.1's, so that
``--help`` and the error messages read the same). Differences, on purpose:
``timestampIso`` is exact (1.0.1 computed it in floating point, 1 ms early for some
times after about 2242), a reader that closes the pipe ends the command quietly
(1.0.1 printed a traceback), input that is not text in the locale's encoding is
a one-line error (1.0.1 printed a traceback; the exit status is 1 in both), a
usage error naming a command or option of the Rust command-line tool, also called
``scru128``, says so and where that tool is, and ``scru128-inspect ID`` (1.0.1's
"can't open" error: its argument is a FILE) adds a line saying how to inspect it.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Callable, Iterator, List, NoReturn, Optional

from . import Scru128Id, scru128_strings

# IDs per write: amortises the call without holding many strings.
_CHUNK = 4096


# The commands and options of the Rust command-line tool `scru128` of the same
# repository (cli/src/args.rs) that 1.0.1's `scru128` does not have. With this package
# in an active venv, its `scru128` comes first on PATH and gets them.
_RUST_COMMANDS = ("generate", "inspect", "convert", "bounds", "check", "completions", "man", "help")
_RUST_OPTIONS = ("--format", "--at", "--count", "--pretty", "--from", "--no-clock", "--max-skew", "--show", "--version")


class _GenerateParser(argparse.ArgumentParser):
    """1.0.1's parser; a usage error that names a command or option of the Rust
    ``scru128`` also says so, and where to find that tool (the status is still 2)."""

    def error(self, message: str) -> NoReturn:
        hint = _rust_cli_hint(sys.argv[1:])
        if hint is None:
            super().error(message)
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n{hint}")


def _rust_cli_hint(args: List[str]) -> Optional[str]:
    named = None
    if args and args[0] in _RUST_COMMANDS:
        named = f"'{args[0]}' is a command"
    else:
        for arg in args:
            if arg == "-V" or arg.split("=", 1)[0] in _RUST_OPTIONS:
                named = f"'{arg.split('=', 1)[0]}' is an option"
                break
    if named is None:
        return None
    first = (
        f"scru128: {named} of the Rust scru128 command-line tool; this scru128 is the "
        "Python package's console script, which has only 1.0.1's -n count\n"
    )
    rust = _find_rust_cli()
    if rust is not None:
        folder = os.path.dirname(rust)
        return first + f"scru128: the Rust tool is {rust}: run it by that path, or put {folder} first in PATH\n"
    return first + (
        "scru128: no Rust scru128 on PATH; install it with `cargo install --path cli` "
        "from a clone of the scru128 repository and run ~/.cargo/bin/scru128\n"
    )


def _find_rust_cli() -> Optional[str]:
    """The first ``scru128`` on PATH that is a program rather than a script (a
    console script like this one starts with ``#!``)."""
    here = os.path.realpath(sys.argv[0]) if sys.argv and sys.argv[0] else None
    for folder in os.get_exec_path():
        candidate = os.path.join(folder or os.curdir, "scru128")
        if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
            continue
        if os.path.realpath(candidate) == here:
            continue
        try:
            with open(candidate, "rb") as f:
                if f.read(2) == b"#!":
                    continue
        except OSError:
            continue
        return os.path.abspath(candidate)
    return None


def generate() -> None:
    parser = _GenerateParser(description="Generate SCRU128 identifiers.")
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
        out = sys.stdout
        if out is None:
            # Standard output closed (`>&-`): 1.0.1's print() wrote nowhere.
            return
        remaining = n
        while remaining > 0:
            count = min(remaining, _CHUNK)
            out.write("\n".join(scru128_strings(count)) + "\n")
            remaining -= count
        out.flush()

    # Ctrl-C: 1.0.1's traceback and the status of SIGINT (130 in a shell).
    _run(write, interrupted=None)


class _InspectParser(argparse.ArgumentParser):
    """1.0.1's parser; when the FILE that cannot be opened is an ID (``scru128-inspect
    ID``, as the Rust tool's ``scru128 inspect ID``), 1.0.1's error is followed by a
    line that says how to inspect it (the status is still 2)."""

    def error(self, message: str) -> NoReturn:
        named = [arg for arg in sys.argv[1:] if not arg.startswith("-")]
        if "can't open" not in message or not named or not _ID_101.match(named[0]):
            super().error(message)
        self.print_usage(sys.stderr)
        self.exit(
            2,
            f"{self.prog}: error: {message}\n"
            f"{self.prog}: '{named[0]}' is an ID, but the argument is a FILE to read IDs from, as in "
            f"1.0.1; give IDs on standard input (echo {named[0]} | {self.prog}), or as arguments to "
            "the Rust tool (scru128 inspect ID)\n",
        )


# The lines 1.0.1's scru128-inspect reads as IDs.
_ID_101 = re.compile(r"^[0-7][0-9A-Va-v]{25}$")


def inspect() -> None:
    parser = _InspectParser(
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

    args = parser.parse_args()

    def write() -> None:
        for line in _lines(args.file):
            line = line.strip()
            if line == "":
                continue
            elif _ID_101.match(line):
                print(_inspect_id(line))
            else:
                print("warning: skipped invalid identifier:", line, file=sys.stderr)
        if sys.stdout is not None:  # None: closed (`>&-`), where print() writes nowhere
            sys.stdout.flush()

    # Ctrl-C: 1.0.1's status 1, quietly.
    _run(write, interrupted=1)


def _lines(file: Iterator[str]) -> Iterator[str]:
    try:
        yield from file
    except UnicodeDecodeError as err:
        name = getattr(file, "name", "<stdin>")
        print(f"scru128-inspect: {name}: not text ({err})", file=sys.stderr)
        sys.exit(1)


def _run(write: Callable[[], None], interrupted: Optional[int]) -> None:
    try:
        write()
    except KeyboardInterrupt:
        if interrupted is None:
            raise
        sys.exit(interrupted)
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
