"""Types of the native module ``scru128._scru128``, re-exported by ``scru128``."""

import datetime
import types
import typing
import uuid
from typing import Any, List, Optional, Tuple, Type, TypeVar, Union

from typing import SupportsIndex

from typing_extensions import Self, disjoint_base

__all__ = [
    "TIMESTAMP_BIAS",
    "MAX_COUNTER",
    "Scru128Id",
    "Scru128Generator",
    "scru128",
    "scru128_string",
    "scru128_strings",
    "_setup",
    "_default_generator_changed",
]

TIMESTAMP_BIAS: int
MAX_COUNTER: int

class Scru128Id:
    """Represents a SCRU128 ID and provides converters and comparison operators."""

    __slots__ = "_value"

    def __init__(self, int_value: SupportsIndex) -> None:
        """Creates an object from a 128-bit unsigned integer (``ValueError`` outside it)."""
    @classmethod
    def from_fields(
        cls,
        timestamp: SupportsIndex,
        counter: SupportsIndex,
        per_sec_random: SupportsIndex,
        per_gen_random: SupportsIndex,
    ) -> Self:
        """Creates an object from field values (``ValueError`` on one out of range)."""
    @classmethod
    def from_str(cls, str_value: str) -> Self:
        """Creates an object from a 26-digit string representation, in either case."""
    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview]) -> Self:
        """Creates an object from its 16-byte big-endian representation."""
    @classmethod
    def from_hex(cls, text: str) -> Self:
        """Creates an object from the 32-digit hex or 8-4-4-4-12 UUID form, in either case."""
    @classmethod
    def from_uuid(cls, value: uuid.UUID) -> Self:
        """Creates an object from a ``uuid.UUID`` holding the same 128 bits."""
    @classmethod
    def min_at(cls, time: datetime.datetime) -> Self:
        """The smallest ID of the millisecond of ``time`` (an aware ``datetime``)."""
    @classmethod
    def max_at(cls, time: datetime.datetime) -> Self:
        """The largest ID of the millisecond of ``time`` (an aware ``datetime``)."""
    def __int__(self) -> int: ...
    @property
    def _value(self) -> int:
        """1.0.1's slot: the 128-bit unsigned integer."""
    @_value.setter
    def _value(self, value: SupportsIndex) -> None: ...
    @property
    def timestamp(self) -> int:
        """The 44-bit millisecond timestamp field value."""
    @property
    def counter(self) -> int:
        """The 28-bit per-timestamp monotonic counter field value."""
    @property
    def per_sec_random(self) -> int:
        """The 24-bit per-second randomness field value."""
    @property
    def per_gen_random(self) -> int:
        """The 32-bit per-generation randomness field value."""
    @property
    def unix_ts_ms(self) -> int:
        """The Unix time of the ID in milliseconds."""
    def to_datetime(self) -> datetime.datetime:
        """The time of the ID as an aware ``datetime`` in UTC."""
    def to_bytes(self) -> bytes:
        """The 16-byte big-endian representation."""
    def to_hex(self) -> str:
        """The 32-digit lowercase hex form of the 128 bits."""
    def to_uuid(self) -> uuid.UUID:
        """A ``uuid.UUID`` holding the same 128 bits."""
    def __hash__(self) -> int: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __ne__(self, value: object, /) -> bool: ...
    def __lt__(self, value: Scru128Id, /) -> bool: ...
    def __le__(self, value: Scru128Id, /) -> bool: ...
    def __gt__(self, value: Scru128Id, /) -> bool: ...
    def __ge__(self, value: Scru128Id, /) -> bool: ...
    def __reduce__(self) -> Tuple[Any, ...]: ...
    def __setstate__(self, state: Any) -> None: ...

_G = TypeVar("_G", bound="Scru128Generator")

class _RandomSource(typing.Protocol):
    def getrandbits(self, k: int, /) -> int: ...

@disjoint_base
class Scru128Generator:
    """The native base of ``scru128.Scru128Generator``."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Self: ...
    def __init__(self, *, rng: Optional[_RandomSource] = None) -> None: ...
    def generate(self) -> Scru128Id:
        """Generates a new SCRU128 ID object."""
    def generate_many(self, n: int) -> List[Scru128Id]:
        """Generates ``n`` new IDs at once, in increasing order."""

def scru128() -> Scru128Id:
    """Generates a new SCRU128 ID object from the process-wide generator."""

def scru128_string() -> str:
    """Generates a new SCRU128 ID as its 26-digit canonical string."""

def scru128_strings(n: int) -> List[str]:
    """Generates ``n`` new IDs as 26-digit strings, in increasing order."""

def _setup(module: types.ModuleType, cls: Type[_G]) -> _G: ...
def _default_generator_changed() -> None: ...
