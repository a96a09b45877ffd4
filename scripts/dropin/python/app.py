"""A program written for PyPI scru128 1.0.1: the same file must run with 1.0.1 and
with scru128-v1 (scripts/dropin/README.md)."""

import pickle

import scru128
from scru128 import TIMESTAMP_BIAS, Scru128Generator, Scru128Id

ids = [scru128.scru128() for _ in range(10000)]
assert ids == sorted(ids) and len(set(ids)) == len(ids), "IDs of one thread increase"
text = scru128.scru128_string()
assert len(text) == 26 and Scru128Id.from_str(text) > ids[-1]

# The spec's example: 2021-09-26T05:26:19.124Z.
x = Scru128Id.from_str("00PGHAJ3Q9VAJ7IU6PQBHBUAK4")
assert x.timestamp + TIMESTAMP_BIAS == 1632633979124 and TIMESTAMP_BIAS == 1577836800000
assert Scru128Id.from_fields(x.timestamp, x.counter, x.per_sec_random, x.per_gen_random) == x
assert str(x) == "00PGHAJ3Q9VAJ7IU6PQBHBUAK4" == str(Scru128Id.from_str("00pghaj3q9vaj7iu6pqbhbuak4"))
assert Scru128Id(int(x)) == x and hash(Scru128Id(int(x))) == hash(x)
assert int(Scru128Id.from_str("7VVVVVVVVVVVVVVVVVVVVVVVVV")) == 2**128 - 1
for bad in ["", "00PGHAJ3Q9VAJ7IU6PQBHBUAK", "00PGHAJ3Q9-AJ7IU6PQBHBUAK4", "80000000000000000000000000"]:
    try:
        Scru128Id.from_str(bad)
    except ValueError:
        pass
    else:
        raise AssertionError("%r parsed" % bad)

g = Scru128Generator()
prev = g.generate()
for _ in range(10000):
    cur = g.generate()
    assert prev < cur
    prev = cur
assert pickle.loads(pickle.dumps(ids)) == ids

print("scru128 1.0.1's API: 10000 IDs increasing, text, fields, int and pickle round trips, e.g. %s" % ids[0])
