"""The build backend (python/build_backend): which stable ABI ``pip install ./python``
builds for the interpreter it installs into. (scripts/test-python builds the cp310
wheel it tests that way and checks its tag.)"""

from __future__ import annotations

import importlib.util
from types import ModuleType
from typing import Tuple

import pytest

from conftest import REPO


def backend() -> ModuleType:
    pytest.importorskip("maturin", reason="the backend wraps maturin's; scripts/test-python has it")
    spec = importlib.util.spec_from_file_location("scru128_build", REPO / "python" / "build_backend" / "scru128_build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("version", [(3, 10), (3, 11), (3, 13), (4, 0)])
def test_cpython_310_and_later_get_the_cp310_build(version: Tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MATURIN_PEP517_ARGS", raising=False)
    b = backend()
    args = "--no-default-features --features abi3-py310"
    assert b.settings_for(None, version) == {"maturin.build-args": args}
    assert b.settings_for({"other": "x"}, version) == {"other": "x", "maturin.build-args": args}


@pytest.mark.parametrize("version", [(3, 8), (3, 9)])
def test_cpython_38_and_39_get_the_crates_default_cp38_build(version: Tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MATURIN_PEP517_ARGS", raising=False)
    b = backend()
    assert b.settings_for(None, version) is None
    assert b.settings_for({"other": "x"}, version) == {"other": "x"}


def test_build_arguments_of_the_user_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MATURIN_PEP517_ARGS", raising=False)
    b = backend()
    for key in ("maturin.build-args", "build-args"):
        assert b.settings_for({key: "--features x"}, (3, 12)) == {key: "--features x"}
    monkeypatch.setenv("MATURIN_PEP517_ARGS", "--profile dev")
    assert b.settings_for(None, (3, 12)) is None
