"""SCRU128: Sortable, Clock and Random number-based Unique identifier

A drop-in replacement of PyPI ``scru128`` 1.0.1 (spec v1.0.2, the 26-digit format)
on the codec and generators of the Rust ``scru128`` crate.
"""

from __future__ import annotations

__all__ = [
    "scru128",
    "scru128_string",
    "scru128_strings",
    "Scru128Generator",
    "Scru128Id",
    "TIMESTAMP_BIAS",
]

import secrets
import sys
import types
from typing import Any

from ._scru128 import MAX_COUNTER as MAX_COUNTER
from ._scru128 import TIMESTAMP_BIAS as TIMESTAMP_BIAS
from ._scru128 import Scru128Generator as Scru128Generator
from ._scru128 import Scru128Id as Scru128Id
from ._scru128 import default_generator as default_generator
from ._scru128 import scru128 as scru128
from ._scru128 import scru128_string as scru128_string
from ._scru128 import scru128_strings as scru128_strings
from ._scru128 import _set_default_generator


def _give_the_classes_their_signatures() -> None:
    """Before CPython 3.10 the stable ABI gives an extension class no text signature,
    so ``inspect.signature(Scru128Id)`` was a ``ValueError``; 3.10 and later read
    these from the classes themselves. Subclasses do not inherit them (see
    ``Scru128Id.__init_subclass__``)."""
    import inspect

    p = inspect.Parameter
    signatures = {
        Scru128Id: inspect.Signature([p("int_value", p.POSITIONAL_OR_KEYWORD)]),
        Scru128Generator: inspect.Signature([p("rng", p.KEYWORD_ONLY, default=None)]),
    }
    for cls, signature in signatures.items():
        setattr(cls, "__signature__", signature)


if sys.version_info < (3, 10):
    _give_the_classes_their_signatures()

# Digit characters used in the base 32 notation (as in 1.0.1).
DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUV"


class DefaultRandom:
    """1.0.1's random source, ``secrets.randbits``, for ``Scru128Generator(rng=...)``.

    ``Scru128Generator()`` does not need it: its own source is faster.
    """

    def getrandbits(self, k: int) -> int:
        return secrets.randbits(k)


class _Module(types.ModuleType):
    """This module's class: in 1.0.1, ``scru128()`` used whatever generator
    ``scru128.default_generator`` named at the time, so assigning to it (or deleting
    it) is passed on to the native functions."""

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name == "default_generator":
            _set_default_generator(value)

    def __delattr__(self, name: str) -> None:
        super().__delattr__(name)
        if name == "default_generator":
            _set_default_generator(None)


sys.modules[__name__].__class__ = _Module
