"""The build backend of this package: maturin's, choosing the stable ABI of the wheel
by the Python that builds it.

``pip install ./python`` builds with the interpreter it installs into. On CPython
3.10 and later this backend asks maturin for the ``cp310-abi3`` build (Cargo
feature ``abi3-py310``: calls without argument tuples and strings read without a
copy, about 1.6 times as fast at ``Scru128Id.from_str``); on 3.8 and 3.9 it leaves
the crate's default, the ``cp38-abi3`` build. Build arguments given by the user
(``MATURIN_PEP517_ARGS``, or ``-C maturin.build-args=...``) are passed on unchanged
instead.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Mapping, Optional, Tuple

import maturin

# The hooks that take no build arguments are maturin's own.
build_sdist = maturin.build_sdist
get_requires_for_build_sdist = maturin.get_requires_for_build_sdist
get_requires_for_build_wheel = maturin.get_requires_for_build_wheel
get_requires_for_build_editable = maturin.get_requires_for_build_editable

ABI3_PY310_ARGS = "--no-default-features --features abi3-py310"


def settings_for(
    config_settings: Optional[Mapping[str, Any]], version: Optional[Tuple[int, int]] = None
) -> Optional[Mapping[str, Any]]:
    """``config_settings`` with the build arguments for the interpreter ``version``
    (the running one by default)."""
    version = version or (sys.version_info[0], sys.version_info[1])
    given = config_settings or {}
    if os.environ.get("MATURIN_PEP517_ARGS") or "maturin.build-args" in given or "build-args" in given:
        return config_settings
    if version < (3, 10):
        return config_settings
    return {**given, "maturin.build-args": ABI3_PY310_ARGS}


def build_wheel(
    wheel_directory: str,
    config_settings: Optional[Mapping[str, Any]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    return maturin.build_wheel(wheel_directory, settings_for(config_settings), metadata_directory)


def build_editable(
    wheel_directory: str,
    config_settings: Optional[Mapping[str, Any]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    return maturin.build_editable(wheel_directory, settings_for(config_settings), metadata_directory)


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[Mapping[str, Any]] = None) -> str:
    return maturin.prepare_metadata_for_build_wheel(metadata_directory, settings_for(config_settings))


def prepare_metadata_for_build_editable(metadata_directory: str, config_settings: Optional[Mapping[str, Any]] = None) -> str:
    return maturin.prepare_metadata_for_build_editable(metadata_directory, settings_for(config_settings))
