"""A subclass of Scru128Id with an attribute of its own, importable by this package's
tests and by the reference interpreter (each with its own ``scru128``)."""

from __future__ import annotations

from typing import Any

import scru128


class Tagged(scru128.Scru128Id):
    tag: Any


def tagged(value: int, tag: str) -> Tagged:
    x = Tagged(value)
    x.tag = tag
    return x
