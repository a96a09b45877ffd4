"""The module's state next to 1.0.1's: a default_generator replaced while the old
one's ``__del__`` calls ``scru128()``, and sub-interpreters. Each runs in a child
interpreter of its own (a hang must not hang the suite)."""

from __future__ import annotations

import subprocess
import sys
from typing import Tuple

import pytest

from conftest import TESTS, Reference

DYING = """
import scru128
seen = []

class Dying:
    def generate(self):
        return scru128.Scru128Id(1)

    def __del__(self):
        seen.append(str(scru128.scru128()))

class Fixed:
    def generate(self):
        return scru128.Scru128Id(2)

scru128.default_generator = Dying()
scru128.default_generator = Fixed()  # drops Dying, whose __del__ calls scru128()
print(seen)
"""


def run(python: str, code: str) -> Tuple[int, str, str]:
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=20, cwd=TESTS)
    return done.returncode, done.stdout, done.stderr


def test_replacing_a_default_generator_whose_del_calls_scru128(ref: Reference) -> None:
    # Before: a deadlock (the old object was dropped under the module's lock).
    ours = run(sys.executable, DYING)
    theirs = run(ref.python, DYING)
    assert theirs == (0, "['00000000000000000000000002']\n", "")
    assert ours == theirs


SUB_INTERPRETER = """
import sys
import scru128
try:
    import _testcapi
except ImportError:
    print("no _testcapi")
    sys.exit(0)

sub = '''
try:
    import scru128
except ImportError as err:
    print("sub: ImportError:", err)
else:
    class Sub:
        def generate(self):
            return scru128.Scru128Id(3)
    scru128.default_generator = Sub()
    print("sub: imported,", scru128.scru128())
'''
status = _testcapi.run_in_subinterp(sub)
# The sub-interpreter is gone; the main one's scru128() is untouched.
x = scru128.scru128()
print("main:", status, type(x).__name__, int(x) != 3, scru128.default_generator.generate() > x)
"""


def test_sub_interpreters_are_refused(ref: Reference) -> None:
    # 1.0.1, a Python module, has a state per interpreter; this package's native module
    # keeps one for the process, so it refuses sub-interpreters. Before: it imported
    # there, and the main interpreter's scru128() then called the destroyed
    # sub-interpreter's generator.
    ours = run(sys.executable, SUB_INTERPRETER)
    theirs = run(ref.python, SUB_INTERPRETER)
    if ours[1] == "no _testcapi\n":
        pytest.skip(f"{sys.executable} has no _testcapi (CPython's test module), which makes the sub-interpreter")
    assert theirs == (0, "sub: imported, 00000000000000000000000003\nmain: 0 Scru128Id True True\n", "")
    assert ours[0] == 0, ours
    lines = ours[1].splitlines()
    assert lines[0].startswith("sub: ImportError: scru128 can only be imported in the main interpreter"), ours
    assert lines[1:] == ["main: 0 Scru128Id True True"], ours


def test_a_sub_interpreter_that_imports_first_is_refused_too() -> None:
    code = SUB_INTERPRETER.replace("import scru128\ntry:", "try:", 1).replace(
        "x = scru128.scru128()", "import scru128\nx = scru128.scru128()"
    )
    ours = run(sys.executable, code)
    if ours[1] == "no _testcapi\n":
        pytest.skip(f"{sys.executable} has no _testcapi (CPython's test module), which makes the sub-interpreter")
    assert ours[0] == 0, ours
    assert ours[1].splitlines()[0].startswith("sub: ImportError: scru128 can only be imported in the main interpreter")
    assert ours[1].splitlines()[1:] == ["main: 0 Scru128Id True True"]


def test_a_reload_keeps_the_generator_class_and_default_generator() -> None:
    code = """
import importlib, scru128
cls, g = scru128.Scru128Generator, scru128.default_generator
scru128.default_generator = None
importlib.reload(scru128)
x = scru128.scru128()
print(scru128.Scru128Generator is cls, scru128.default_generator is g, scru128.default_generator.generate() > x)
"""
    assert run(sys.executable, code) == (0, "True True True\n", "")


