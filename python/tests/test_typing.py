"""Typing: the stub matches the runtime module (mypy's stubtest), correct uses check
under ``mypy --strict``, and wrong ones are reported where they are."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import TESTS

TYPING = TESTS / "typing"


def mypy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--strict", *args],
        capture_output=True,
        text=True,
        cwd=TESTS,
    )


def test_the_package_has_its_marker_and_stub() -> None:
    import scru128

    folder = Path(scru128.__file__).parent
    assert (folder / "py.typed").is_file()
    assert (folder / "_scru128.pyi").is_file()


def test_the_stub_matches_the_runtime(tmp_path: Path) -> None:
    # In a folder of its own: stubtest writes a .mypy_cache where it runs.
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "scru128"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found in 3 modules" in done.stdout


def test_correct_uses_type_check() -> None:
    done = mypy(str(TYPING / "usage_ok.py"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_wrong_uses_are_rejected_on_their_lines() -> None:
    path = TYPING / "usage_errors.py"
    expected = {i for i, line in enumerate(path.read_text().splitlines(), 1) if line.endswith("# E")}
    done = mypy(str(path))
    assert done.returncode == 1
    reported = {int(m.group(1)) for m in re.finditer(r"usage_errors\.py:(\d+): error", done.stdout)}
    assert reported == expected, done.stdout
    assert len(expected) > 15


def test_the_package_and_these_tests_type_check() -> None:
    done = mypy("-p", "scru128")
    assert done.returncode == 0, done.stdout + done.stderr
    done = mypy("--exclude", r"typing/usage_errors\.py", ".")
    assert done.returncode == 0, done.stdout + done.stderr
