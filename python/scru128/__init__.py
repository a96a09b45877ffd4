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
from typing import TYPE_CHECKING, Any, Optional

from . import _scru128
from ._scru128 import MAX_COUNTER as MAX_COUNTER
from ._scru128 import TIMESTAMP_BIAS as TIMESTAMP_BIAS
from ._scru128 import Scru128Id as Scru128Id
from ._scru128 import scru128 as scru128
from ._scru128 import scru128_string as scru128_string
from ._scru128 import scru128_strings as scru128_strings

if TYPE_CHECKING:
    from ._scru128 import _RandomSource

# Digit characters used in the base 32 notation (as in 1.0.1).
DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUV"


class DefaultRandom:
    """1.0.1's random source, ``secrets.randbits``, for ``Scru128Generator(rng=...)``.

    ``Scru128Generator()`` does not need it: its own source is faster.
    """

    def getrandbits(self, k: int) -> int:
        return secrets.randbits(k)


# A reload of this module runs this code again in the same namespace: the class and
# default_generator of the first run are kept (the native module has one of each).
if "Scru128Generator" not in globals():

    class Scru128Generator(_scru128.Scru128Generator):
        """
        Represents a SCRU128 ID generator that encapsulates the monotonic counter and other
        internal states.

        A Python class on the native one (``scru128._scru128.Scru128Generator``), so that
        its objects have a ``__dict__`` and weak references as in 1.0.1; its methods are
        the native class's.
        """

        def __init__(self, *, rng: Optional[_RandomSource] = None) -> None:
            """
            Creates a generator object with the default random number generator, or with the
            specified one if passed as an argument. The specified random number generator
            should be cryptographically strong and securely seeded.

            Args:
                rng: Any object that implements a k-bit random unsigned integer generation
                     method: `getrandbits(k: int) -> int`. The interface is compatible with
                     random.Random and random.SystemRandom.
            """
            super().__init__(rng=rng)


default_generator: Scru128Generator = _scru128._setup(sys.modules[__name__], Scru128Generator)


def _give_scru128id_its_signature() -> None:
    """Before CPython 3.10 the stable ABI gives an extension class no text signature,
    so ``inspect.signature(Scru128Id)`` was a ``ValueError``; 3.10 and later read it
    from the class itself. Subclasses do not inherit it (see
    ``Scru128Id.__init_subclass__``)."""
    import inspect

    p = inspect.Parameter
    signature = inspect.Signature([p("int_value", p.POSITIONAL_OR_KEYWORD)])
    setattr(Scru128Id, "__signature__", signature)


if sys.version_info < (3, 10):
    _give_scru128id_its_signature()


class _Module(types.ModuleType):
    """This module's class: in 1.0.1, ``scru128()`` used whatever generator
    ``scru128.default_generator`` named at the time, so assigning to it (or deleting
    it) is passed on to the native functions."""

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name == "default_generator":
            _scru128._default_generator_changed()

    def __delattr__(self, name: str) -> None:
        super().__delattr__(name)
        if name == "default_generator":
            _scru128._default_generator_changed()


sys.modules[__name__].__class__ = _Module
_scru128._default_generator_changed()
