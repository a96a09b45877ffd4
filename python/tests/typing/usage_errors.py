"""Wrong uses that ``mypy --strict`` must reject, each on a line marked ``# E``:
the stubs are precise, not ``Any``."""

from __future__ import annotations

import scru128
from scru128 import Scru128Generator, Scru128Id

x = scru128.scru128()
Scru128Id("0" * 26)  # E
Scru128Id.from_str(b"0" * 26)  # E
Scru128Id.from_str(5)  # E
Scru128Id.from_fields(1, 2, 3)  # E
Scru128Id.from_fields(1.5, 2, 3, 4)  # E
Scru128Id.from_bytes("0" * 16)  # E
Scru128Id.from_uuid("0" * 32)  # E
Scru128Id.min_at(1_700_000_000_000)  # E
x < 5  # E
x.timestamp = 5  # E
x.nonexistent  # E
s: str = x  # E
n: int = x  # E
Scru128Generator(5)  # E
Scru128Generator(rng=object())  # E
scru128.scru128_strings("3")  # E
y: str = scru128.scru128()  # E
z: Scru128Id = scru128.scru128_string()  # E
