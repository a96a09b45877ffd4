"""Type-checks cleanly under ``mypy --strict``: the whole API, with the types users
get. Only type-checked, never run."""

from __future__ import annotations

import datetime
import random
import uuid
from typing import Callable, List

from typing_extensions import assert_type

import scru128
from scru128 import (
    TIMESTAMP_BIAS,
    Scru128Generator,
    Scru128Id,
    default_generator,
    scru128_string,
    scru128_strings,
)
from scru128.cli import generate, inspect

x = scru128.scru128()
assert_type(x, Scru128Id)
assert_type(scru128_string(), str)
assert_type(scru128_strings(3), List[str])
assert_type(TIMESTAMP_BIAS, int)
assert_type(scru128.MAX_COUNTER, int)
assert_type(scru128.DIGITS, str)

assert_type(Scru128Id(5), Scru128Id)
assert_type(Scru128Id(int_value=5), Scru128Id)
assert_type(Scru128Id.from_str("0" * 26), Scru128Id)
assert_type(Scru128Id.from_str(str_value="0" * 26), Scru128Id)
assert_type(Scru128Id.from_fields(1, 2, 3, 4), Scru128Id)
assert_type(Scru128Id.from_fields(timestamp=1, counter=2, per_sec_random=3, per_gen_random=4), Scru128Id)
assert_type(Scru128Id.from_bytes(bytes(16)), Scru128Id)
assert_type(Scru128Id.from_bytes(bytearray(16)), Scru128Id)
assert_type(Scru128Id.from_uuid(uuid.uuid4()), Scru128Id)
now = datetime.datetime.now(datetime.timezone.utc)
assert_type(Scru128Id.min_at(now), Scru128Id)
assert_type(Scru128Id.max_at(now), Scru128Id)

assert_type(int(x), int)
assert_type(str(x), str)
assert_type(repr(x), str)
assert_type(hash(x), int)
assert_type(x.timestamp, int)
assert_type(x.counter, int)
assert_type(x.per_sec_random, int)
assert_type(x.per_gen_random, int)
assert_type(x.unix_ts_ms, int)
assert_type(x.to_datetime(), datetime.datetime)
assert_type(x.to_bytes(), bytes)
assert_type(x.to_uuid(), uuid.UUID)
assert_type(x == x, bool)
assert_type(x == 5, bool)
assert_type(x < x, bool)
assert_type(sorted([x, x]), List[Scru128Id])
assert_type({x: 1}[x], int)


class Tagged(Scru128Id):
    tag: str = ""


assert_type(Tagged.from_str("0" * 26), Tagged)
assert_type(Tagged.from_fields(0, 0, 0, 0), Tagged)
assert_type(Tagged(1) < x, bool)

g = Scru128Generator()
assert_type(g.generate(), Scru128Id)
assert_type(g.generate_many(10), List[Scru128Id])
assert_type(Scru128Generator(rng=random.Random()).generate(), Scru128Id)
assert_type(Scru128Generator(rng=random.SystemRandom()).generate(), Scru128Id)
assert_type(Scru128Generator(rng=scru128.DefaultRandom()).generate(), Scru128Id)
assert_type(Scru128Generator(rng=None), Scru128Generator)
assert_type(default_generator.generate(), Scru128Id)


class MyRandom:
    def getrandbits(self, k: int) -> int:
        return 0


Scru128Generator(rng=MyRandom())

# The console scripts' entry points.
entry_points: List[Callable[[], None]] = [generate, inspect]
