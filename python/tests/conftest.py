"""Shared fixtures: the real scru128 1.0.1, run in its own interpreter.

``SCRU128_PYREF_PYTHON`` names the Python of a venv where PyPI ``scru128==1.0.1`` is
installed (``scripts/test-python`` makes one); ``SCRU128_PYREF_BIN`` its ``bin``
folder, with 1.0.1's console scripts. The tests fail without them: a comparison
with the reference that cannot run is a failure, not a skip.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent.parent


def _required_env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run the tests with scripts/test-python", pytrace=False)
    return value


class Reference:
    """Runs code in the interpreter of the real scru128 1.0.1."""

    def __init__(self, python: str, bin_dir: str) -> None:
        self.python = python
        self.bin = Path(bin_dir)

    def run(self, code: str, *, stdin: bytes = b"") -> Any:
        """Runs ``code``, which must leave its answer in ``result``; returns it."""
        program = (
            "import pickle, sys\n"
            + code
            + "\nsys.stdout.buffer.write(pickle.dumps(result))\n"
        )
        done = subprocess.run(
            [self.python, "-c", program], cwd=TESTS, input=stdin, capture_output=True
        )
        if done.returncode != 0:
            raise AssertionError("the reference failed:\n" + done.stderr.decode(errors="replace"))
        return pickle.loads(done.stdout)

    def version(self) -> str:
        result: str = self.run(
            "from importlib.metadata import version\nresult = version('scru128')"
        )
        return result


@pytest.fixture(scope="session")
def ref() -> Reference:
    reference = Reference(_required_env("SCRU128_PYREF_PYTHON"), _required_env("SCRU128_PYREF_BIN"))
    assert reference.version() == "1.0.1"
    return reference


@pytest.fixture(scope="session")
def ours_bin() -> Path:
    """The folder of this package's console scripts (the venv running the tests)."""
    return Path(sys.executable).parent
