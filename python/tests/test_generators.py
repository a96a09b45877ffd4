"""Generators: the rules, random sources given by the user, and where this crate's
rules differ from 1.0.1 on purpose."""

from __future__ import annotations

import copy
import pickle
import random
import time
from typing import Any, List

import pytest
import scru128
from scru128 import Scru128Generator, Scru128Id

from conftest import Reference


class Recording:
    """Records the k of each getrandbits call; returns 0x5A5A5A5A-ish values."""

    def __init__(self, value: int = 0x1234567) -> None:
        self.calls: List[int] = []
        self.value = value

    def getrandbits(self, k: int) -> int:
        self.calls.append(k)
        return self.value


def test_a_generator_increases_and_steps_its_counter() -> None:
    for g in (Scru128Generator(), Scru128Generator(rng=random.Random(1)), scru128.default_generator):
        ids = [g.generate() for _ in range(10_000)]
        for a, b in zip(ids, ids[1:]):
            assert a < b
            if a.timestamp == b.timestamp:
                assert b.counter == a.counter + 1


def test_per_sec_random_is_shared_within_a_second() -> None:
    g = Scru128Generator()
    ids = [g.generate() for _ in range(1000)]
    first = ids[0]
    same_second = [x for x in ids if x.timestamp - first.timestamp < 1000]
    assert {x.per_sec_random for x in same_second} == {first.per_sec_random}
    assert len({x.per_gen_random for x in ids}) > 990


class Top(Recording):
    """Records the k of each getrandbits call; returns k one bits."""

    def getrandbits(self, k: int) -> int:
        self.calls.append(k)
        return (1 << k) - 1


class Widths(Recording):
    """Records the k of each getrandbits call; returns the low k bits of its value."""

    def getrandbits(self, k: int) -> int:
        self.calls.append(k)
        return self.value & ((1 << k) - 1)


def test_the_rng_is_asked_for_28_24_and_32_bits_as_in_101_and_its_numbers_are_used() -> None:
    rng = Widths(0xFEDCBA98)
    g = Scru128Generator(rng=rng)
    x = g.generate()
    # The first ID draws the counter, per_sec_random and per_gen_random, in that order,
    # as 1.0.1 did (test_101_asked_for_28_24_and_32_bits).
    assert rng.calls == [28, 24, 32]
    assert (x.counter, x.per_sec_random, x.per_gen_random) == (0xEDCBA98, 0xDCBA98, 0xFEDCBA98)
    # The same millisecond: per_gen_random only; a new one: a counter too.
    rng.calls.clear()
    y = g.generate()
    assert rng.calls == ([32] if y.timestamp == x.timestamp else [28, 32])


class WideOnce(Widths):
    """Answers the n-th call with a number one bit too wide, then as Widths."""

    def __init__(self, n: int) -> None:
        super().__init__(0x89ABCDEF)
        self.n = n
        self.made = 0

    def getrandbits(self, k: int) -> int:
        self.made += 1
        if self.made == self.n:
            self.calls.append(k)
            return 1 << k
        return super().getrandbits(k)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_a_failed_draw_leaves_the_generator_as_before_the_call(n: int) -> None:
    # The n-th draw of the first ID (28, 24 or 32 bits) is too wide: a ValueError, and
    # no state kept from the failed call, so the retry makes the first ID afresh.
    rng = WideOnce(n)
    g = Scru128Generator(rng=rng)
    with pytest.raises(ValueError, match="invalid field value"):
        g.generate()
    assert rng.calls == [28, 24, 32][:n]
    rng.calls.clear()
    x = g.generate()
    assert rng.calls == [28, 24, 32]
    assert (x.counter, x.per_sec_random, x.per_gen_random) == (0x9ABCDEF, 0xABCDEF, 0x89ABCDEF)


@pytest.mark.parametrize("k_value", [2**28, 2**32 - 1, 2**40])
def test_a_number_wider_than_asked_for_is_a_value_error_as_in_101(k_value: int) -> None:
    g = Scru128Generator(rng=Recording(k_value))
    with pytest.raises(ValueError, match="invalid field value"):
        g.generate()


def test_101_asked_for_28_24_and_32_bits(ref: Reference) -> None:
    calls = ref.run(
        "import scru128\n"
        "class Recording:\n"
        "    calls = []\n"
        "    def getrandbits(self, k):\n"
        "        self.calls.append(k)\n"
        "        return 1\n"
        "rng = Recording()\n"
        "scru128.Scru128Generator(rng=rng).generate()\n"
        "result = rng.calls"
    )
    assert calls == [28, 24, 32]


def test_a_counter_overflow_moves_to_the_next_millisecond_at_once() -> None:
    # A source whose counters are all 2**28 - 1: every ID overflows the counter.
    g = Scru128Generator(rng=Top())
    ids = [g.generate() for _ in range(1000)]
    now_ms = time.time() * 1000
    assert all(x.counter == 2**28 - 1 for x in ids)
    assert [x.timestamp - ids[0].timestamp for x in ids] == list(range(1000))
    # It never waited for the clock (1.0.1 waited 1 ms per ID): the timestamps ran
    # ahead of it, by 999 ms less the time the loop took.
    assert ids[-1].unix_ts_ms > now_ms + 500


def test_101_waits_for_the_clock_on_a_counter_overflow(ref: Reference) -> None:
    stamps = ref.run(
        "import scru128\n"
        "class Top:\n"
        "    def getrandbits(self, k):\n"
        "        return (1 << k) - 1\n"
        "g = scru128.Scru128Generator(rng=Top())\n"
        "result = [g.generate().timestamp for _ in range(20)]"
    )
    # Each ID in a millisecond of its own, read from the clock: they are all distinct.
    assert stamps == sorted(set(stamps)) and len(stamps) == 20


class FailsOnce:
    def __init__(self, after: int) -> None:
        self.n = 0
        self.after = after
        self.inner = random.Random(7)

    def getrandbits(self, k: int) -> int:
        self.n += 1
        if self.n == self.after:
            raise LookupError("the source failed")
        return self.inner.getrandbits(k)


@pytest.mark.parametrize("after", [1, 2, 3, 5, 50])
def test_an_rng_exception_propagates_and_no_id_is_lost(after: int) -> None:
    rng = FailsOnce(after)
    g = Scru128Generator(rng=rng)
    ids: List[Scru128Id] = []
    with pytest.raises(LookupError, match="the source failed"):
        for _ in range(100):
            ids.append(g.generate())
    # The generator is as before the failed call: the next IDs follow on.
    more = [g.generate() for _ in range(100)]
    sequence = ids + more
    assert all(a < b for a, b in zip(sequence, sequence[1:]))


def test_an_rng_exception_in_a_batch_keeps_the_generator() -> None:
    rng = FailsOnce(500)
    g = Scru128Generator(rng=rng)
    first = g.generate()
    with pytest.raises(LookupError):
        g.generate_many(1000)
    rest = g.generate_many(1000)
    assert first < rest[0] and all(a < b for a, b in zip(rest, rest[1:]))


@pytest.mark.parametrize("value, error", [(-1, ValueError), (2**32, ValueError), (1.0, TypeError), ("1", TypeError), (None, TypeError)])
def test_bad_numbers_from_the_rng(value: Any, error: type) -> None:
    g = Scru128Generator(rng=Recording(value))
    with pytest.raises(error):
        g.generate()
    with pytest.raises(error):
        g.generate_many(3)


def test_rng_attribute_is_looked_up_at_each_draw() -> None:
    rng = Recording(1)
    g = Scru128Generator(rng=rng)
    g.generate()
    rng.getrandbits = lambda k: 7  # type: ignore[method-assign]
    assert g.generate().per_gen_random == 7


@pytest.mark.parametrize("make", [Scru128Generator, lambda: Scru128Generator(rng=random.Random()), lambda: scru128.default_generator])
def test_generators_cannot_be_copied_or_pickled(make: Any) -> None:
    # Two copies of one generator's state would repeat each other's IDs (1.0.1's
    # copy.copy made one; its pickling failed on the lock).
    g = make()
    for f in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError):
            f(g)


def test_generator_keyword_only_rng() -> None:
    with pytest.raises(TypeError):
        Scru128Generator(random.Random())  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="getrandbits"):
        Scru128Generator(rng=object())  # type: ignore[arg-type]


def test_subclass_of_generator() -> None:
    class Counting(Scru128Generator):
        calls = 0

        def generate(self) -> Scru128Id:
            Counting.calls += 1
            return super().generate()

    g = Counting()
    g.generate()
    assert Counting.calls == 1


def test_a_cycle_through_the_random_source_is_collected() -> None:
    import gc
    import weakref

    class Keeper:
        generator: Scru128Generator

        def getrandbits(self, k: int) -> int:
            return 1

    rng = Keeper()
    rng.generator = Scru128Generator(rng=rng)
    rng.generator.generate()
    alive = weakref.ref(rng)
    del rng
    gc.collect()
    assert alive() is None
