"""The console scripts ``scru128`` and ``scru128-inspect`` next to 1.0.1's: the same
options, help, output, warnings and exit statuses."""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path
from typing import List, Optional

import pytest

from conftest import REPO, Reference

FIXTURES = REPO / "cli" / "tests" / "fixtures"
ID = re.compile(r"^[0-7][0-9A-V]{25}$")
ENV = {**os.environ, "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8"}


def run(bin_dir: Path, command: str, args: List[str], stdin: bytes = b"", cwd: Optional[Path] = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [str(bin_dir / command), *args], input=stdin, capture_output=True, env=ENV, cwd=cwd, timeout=120
    )


def both(ours_bin: Path, ref: Reference, command: str, args: List[str], stdin: bytes = b"", cwd: Optional[Path] = None) -> tuple[subprocess.CompletedProcess[bytes], subprocess.CompletedProcess[bytes]]:
    return run(ours_bin, command, args, stdin, cwd), run(ref.bin, command, args, stdin, cwd)


def same(ours: subprocess.CompletedProcess[bytes], theirs: subprocess.CompletedProcess[bytes]) -> None:
    assert (ours.returncode, ours.stdout.decode(), ours.stderr.decode()) == (
        theirs.returncode,
        theirs.stdout.decode(),
        theirs.stderr.decode(),
    )


@pytest.mark.parametrize(
    "args",
    [["-h"], ["--help"], ["-n"], ["-n", "x"], ["-n", "1.5"], ["-x"], ["extra"], ["-n", "2", "-n"],
     ["-n", "generate"], ["extra", "inspect"], ["--form"], ["--he"], ["-h", "--format", "hex"]],
)
def test_generate_help_and_usage_errors_are_101s(ours_bin: Path, ref: Reference, args: List[str]) -> None:
    same(*both(ours_bin, ref, "scru128", args))


@pytest.mark.parametrize("args, count", [([], 1), (["-n", "5"], 5), (["-n", "0"], 0), (["-n", "-3"], 0), (["-n", "10000"], 10000), (["-n5"], 5), (["-n", "+2"], 2)])
def test_generate_prints_count_ids_one_a_line(ours_bin: Path, ref: Reference, args: List[str], count: int) -> None:
    ours, theirs = both(ours_bin, ref, "scru128", args)
    for result in (ours, theirs):
        assert result.returncode == 0 and result.stderr == b""
        lines = result.stdout.decode().splitlines()
        assert len(lines) == count
        assert all(ID.match(line) for line in lines)
    ours_lines = ours.stdout.decode().splitlines()
    assert ours_lines == sorted(set(ours_lines))
    assert ours.stdout.endswith(b"\n") or count == 0


def test_generate_ends_quietly_when_the_reader_goes_away(ours_bin: Path) -> None:
    script = f"set -o pipefail; {ours_bin / 'scru128'} -n 2000000 | head -n 1"
    result = subprocess.run(["bash", "-c", script], capture_output=True, env=ENV, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr == b""
    assert ID.match(result.stdout.decode().strip())


@pytest.mark.parametrize("name", ["inspect-input.txt"])
def test_inspect_matches_101_byte_for_byte(ours_bin: Path, ref: Reference, name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    same(*both(ours_bin, ref, "scru128-inspect", [], stdin=data))
    same(*both(ours_bin, ref, "scru128-inspect", [str(FIXTURES / name)]))
    same(*both(ours_bin, ref, "scru128-inspect", ["-"], stdin=data))


def exact_iso(unix_ts_ms: int) -> str:
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    return (epoch + datetime.timedelta(milliseconds=unix_ts_ms)).isoformat(timespec="milliseconds")


def test_inspect_far_future_differs_only_by_101s_rounding(ours_bin: Path, ref: Reference) -> None:
    data = (FIXTURES / "inspect-input-after-2242.txt").read_bytes()
    ours, theirs = both(ours_bin, ref, "scru128-inspect", [], stdin=data)
    assert ours.returncode == theirs.returncode == 0
    assert ours.stderr == theirs.stderr
    our_objects = [json.loads(o) for o in re.findall(r"\{.*?\}", ours.stdout.decode(), re.S)]
    their_objects = [json.loads(o) for o in re.findall(r"\{.*?\}", theirs.stdout.decode(), re.S)]
    assert len(our_objects) == len(their_objects) > 20
    rounded = 0
    for o, t in zip(our_objects, their_objects):
        assert {k: v for k, v in o.items() if k != "timestampIso"} == {
            k: v for k, v in t.items() if k != "timestampIso"
        }
        exact = exact_iso(int(o["timestamp"]) + 1577836800000)
        assert o["timestampIso"] == exact
        if t["timestampIso"] != exact:
            rounded += 1
            one_ms_early = exact_iso(int(o["timestamp"]) + 1577836800000 - 1)
            assert t["timestampIso"] == one_ms_early
    assert rounded > 0  # the fixture holds times that 1.0.1 gets wrong
    # Apart from those values, the text is the same.
    our_text = re.sub(r'"timestampIso": "[^"]*"', "", ours.stdout.decode())
    their_text = re.sub(r'"timestampIso": "[^"]*"', "", theirs.stdout.decode())
    assert our_text == their_text


HOSTILE_LINES = "\n".join(
    [
        "  017FA1DE51A80FD992F9E8CC2D  ",
        "\t017fa1de51a80fd992f9e8cc2d\r",
        "\u3000017FA1DE51A80FD992F9E8CC2D\u3000",
        "017FA1DE51A80FD992F9E8CC2",
        "017FA1DE51A80FD992F9E8CC2DX",
        "817FA1DE51A80FD992F9E8CC2D",
        "\uff10\uff11" + "7FA1DE51A80FD992F9E8CC2D",
        "017FA1DE51A80FD992F9E8CC2D 017FA1DE51A80FD992F9E8CC2D",
        "",
        "   ",
        "\x00" * 10,
        "7VVVVVVVVVVVVVVVVVVVVVVVVV",
        "00000000000000000000000000",
        "x" * 100_000,
        "017FA1DE51A80FD992F9E8CC2D",
    ]
)


def test_inspect_hostile_lines_as_101(ours_bin: Path, ref: Reference) -> None:
    data = HOSTILE_LINES.encode()
    same(*both(ours_bin, ref, "scru128-inspect", [], stdin=data))
    same(*both(ours_bin, ref, "scru128-inspect", [], stdin=data.replace(b"\n", b"\r\n")))


@pytest.mark.parametrize("args", [["-h"], ["--help"], ["no-such-file"], ["a", "b"], ["-x"]])
def test_inspect_help_and_errors_are_101s(ours_bin: Path, ref: Reference, tmp_path: Path, args: List[str]) -> None:
    same(*both(ours_bin, ref, "scru128-inspect", args, cwd=tmp_path))


@pytest.mark.parametrize("arg", ["035KKKAKHEG93QIMNV404923V1", "035kkkakheg93qimnv404923v1"])
def test_inspect_of_an_id_argument_is_101s_error_then_a_hint(ours_bin: Path, ref: Reference, tmp_path: Path, arg: str) -> None:
    # 1.0.1 reads its argument as a FILE: "can't open", status 2. Ours too, then says how.
    ours, theirs = both(ours_bin, ref, "scru128-inspect", [arg], cwd=tmp_path)
    assert ours.returncode == theirs.returncode == 2
    assert ours.stdout == theirs.stdout == b""
    their_text, our_text = theirs.stderr.decode(), ours.stderr.decode()
    assert f"can't open '{arg}'" in their_text
    assert our_text == their_text + (
        f"scru128-inspect: '{arg}' is an ID, but the argument is a FILE to read IDs from, as in 1.0.1; "
        f"give IDs on standard input (echo {arg} | scru128-inspect), or as arguments to the Rust tool "
        "(scru128 inspect ID)\n"
    )
    # A file of that name is read, as by 1.0.1.
    (tmp_path / arg).write_text("035KKKAKHEG93QIMNV404923V1\n")
    same(*both(ours_bin, ref, "scru128-inspect", [arg], cwd=tmp_path))
    # The hint is only for an ID that 1.0.1 would read (not hex, not a UUID).
    same(*both(ours_bin, ref, "scru128-inspect", ["032d2945527df183b5380ba6209cf30d"], cwd=tmp_path))


def test_inspect_empty_input(ours_bin: Path, ref: Reference) -> None:
    same(*both(ours_bin, ref, "scru128-inspect", []))


def test_inspect_reports_input_that_is_not_text_in_one_line(ours_bin: Path, ref: Reference) -> None:
    data = b"017FA1DE51A80FD992F9E8CC2D\n\xff\xfe\n"
    ours, theirs = both(ours_bin, ref, "scru128-inspect", [], stdin=data)
    assert ours.returncode == theirs.returncode == 1
    assert theirs.stderr.count(b"\n") > 3  # 1.0.1: a traceback
    assert ours.stderr.decode().count("\n") == 1
    assert "not text" in ours.stderr.decode()


def test_inspect_of_generated_ids_agrees_with_101(ours_bin: Path, ref: Reference) -> None:
    ids = run(ours_bin, "scru128", ["-n", "50"]).stdout
    same(*both(ours_bin, ref, "scru128-inspect", [], stdin=ids))


RUST_ONLY = [
    ["--format", "uuid"],
    ["--format=hex"],
    ["-n", "2", "--format", "int"],
    ["--at", "now"],
    ["-V"],
    ["generate", "-n", "3"],
    ["inspect", "035KKKAKHEG93QIMNV404923V1"],
    ["bounds", "2024-05-01"],
    ["check"],
]
RUST_COMMANDS = ("generate", "inspect", "convert", "bounds", "check", "completions", "man", "help")


def rust_hint(name: str) -> str:
    kind = "an option" if name.startswith("-") else "a command"
    return (
        f"scru128: '{name}' is {kind} of the Rust scru128 command-line tool; this scru128 is the "
        "Python package's console script, which has only 1.0.1's -n count\n"
    )


def usage_error_then(ours_bin: Path, ref: Reference, args: List[str], path: str) -> str:
    """Runs both with PATH; checks that ours is 1.0.1's usage error and more; the more."""
    env = {**ENV, "PATH": path}
    ours = subprocess.run([str(ours_bin / "scru128"), *args], capture_output=True, env=env, timeout=60)
    theirs = subprocess.run([str(ref.bin / "scru128"), *args], capture_output=True, env=env, timeout=60)
    assert ours.returncode == theirs.returncode == 2
    assert ours.stdout == theirs.stdout == b""
    their_text, our_text = theirs.stderr.decode(), ours.stderr.decode()
    assert our_text.startswith(their_text), our_text
    return our_text[len(their_text):]


@pytest.mark.parametrize("args", RUST_ONLY)
def test_an_option_of_the_rust_cli_is_named_as_such(ours_bin: Path, ref: Reference, tmp_path: Path, args: List[str]) -> None:
    # The Rust tool is also `scru128`; this one shadows it in an active venv. Its usage
    # error is 1.0.1's, then says what the argument is and where the Rust tool is.
    rust = tmp_path / "rust-bin"
    rust.mkdir()
    shutil.copy("/bin/true", rust / "scru128")  # a program, not a script: taken for the Rust tool
    script = tmp_path / "script-bin"
    script.mkdir()
    (script / "scru128").write_text("#!/bin/sh\nexit 0\n")  # another console script: passed over
    (script / "scru128").chmod(0o755)
    name = args[0] if args[0] in RUST_COMMANDS else next(a.split("=")[0] for a in args if a.startswith("--") or a == "-V")
    extra = usage_error_then(ours_bin, ref, args, f"{script}:{rust}:/usr/bin:/bin")
    assert extra == rust_hint(name) + (
        f"scru128: the Rust tool is {rust}/scru128: run it by that path, or put {rust} first in PATH\n"
    )


def test_without_the_rust_cli_on_path_the_error_says_how_to_get_it(ours_bin: Path, ref: Reference) -> None:
    extra = usage_error_then(ours_bin, ref, ["--format", "uuid"], "/usr/bin:/bin")
    assert extra == rust_hint("--format") + (
        "scru128: no Rust scru128 on PATH; install it with `cargo install --path cli` "
        "from a clone of the scru128 repository and run ~/.cargo/bin/scru128\n"
    )


@pytest.mark.parametrize("command, args, stdin", [
    ("scru128", ["-n", "5"], b""),
    ("scru128", [], b""),
    ("scru128", ["-h"], b""),
    ("scru128-inspect", [], (FIXTURES / "inspect-input.txt").read_bytes() + b"bad line\n"),
])
def test_a_closed_standard_output_is_as_in_101(ours_bin: Path, ref: Reference, command: str, args: List[str], stdin: bytes) -> None:
    # `>&-`: Python's sys.stdout is None; 1.0.1's print() wrote nowhere, status 0.
    # (Before: an AttributeError and status 1.)
    def closed(bin_dir: Path) -> subprocess.CompletedProcess[bytes]:
        command_line = " ".join([str(bin_dir / command), *args]) + " >&-"
        return subprocess.run(["bash", "-c", command_line], input=stdin, capture_output=True, env=ENV, timeout=60)

    ours, theirs = closed(ours_bin), closed(ref.bin)
    assert theirs.returncode == 0
    same(ours, theirs)


def test_ctrl_c_during_a_long_run_is_as_in_101(ours_bin: Path, ref: Reference) -> None:
    # 1.0.1: a KeyboardInterrupt traceback, and the process ends by SIGINT (130 in a
    # shell). (Before: quietly, status 1.)
    def interrupted(bin_dir: Path) -> subprocess.CompletedProcess[bytes]:
        process = subprocess.Popen(
            [str(bin_dir / "scru128"), "-n", "100000000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV
        )
        assert process.stdout and process.stderr
        assert ID.match(process.stdout.readline().decode().strip())  # running, past its start
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
        return subprocess.CompletedProcess(process.args, process.returncode, b"", stderr)

    ours, theirs = interrupted(ours_bin), interrupted(ref.bin)
    for result in (ours, theirs):
        assert result.returncode == -signal.SIGINT, result
        lines = result.stderr.decode().splitlines()
        assert lines[0] == "Traceback (most recent call last):" and lines[-1] == "KeyboardInterrupt", lines
