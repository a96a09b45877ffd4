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


class Slotted(scru128.Scru128Id):
    """A subclass with slots of its own and no __dict__."""

    __slots__ = ("tag", "note")
    tag: Any
    note: Any


def slotted(value: int, tag: Any) -> Slotted:
    x = Slotted(value)
    x.tag = tag
    return x


class OwnState(scru128.Scru128Id):
    """A subclass with its own __getstate__ and __setstate__ (which 1.0.1 honoured)."""

    got: Any

    def __getstate__(self) -> Any:
        return {"own": int(self) * 2}

    def __setstate__(self, state: Any) -> None:
        self.got = state


class NewArgs(scru128.Scru128Id):
    """A subclass whose objects are pickled with arguments for __new__."""

    new_args: Any

    def __getnewargs__(self) -> Any:
        return (int(self),)

    def __new__(cls, *args: Any) -> "NewArgs":
        obj = super().__new__(cls)
        obj.new_args = args
        return obj
