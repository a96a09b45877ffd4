"""Thread safety: 8 threads x 100 000 IDs, each thread's IDs increasing, none repeated."""

from __future__ import annotations

import random
import threading
from typing import Callable, List

import pytest
import scru128
from scru128 import Scru128Generator, Scru128Id

THREADS = 8


def hammer(make: Callable[[], List[Scru128Id]]) -> List[List[Scru128Id]]:
    results: List[List[Scru128Id]] = [[] for _ in range(THREADS)]
    start = threading.Barrier(THREADS)

    def work(i: int) -> None:
        start.wait()
        results[i] = make()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def check(results: List[List[Scru128Id]], per_thread: int) -> None:
    for ids in results:
        assert len(ids) == per_thread
        assert all(a < b for a, b in zip(ids, ids[1:]))
    every = [x for ids in results for x in ids]
    assert len(set(every)) == len(every) == THREADS * per_thread


def test_scru128_from_8_threads() -> None:
    check(hammer(lambda: [scru128.scru128() for _ in range(100_000)]), 100_000)


def test_scru128_string_and_batches_from_8_threads() -> None:
    def make() -> List[Scru128Id]:
        texts: List[str] = []
        for _ in range(50):
            texts.extend(scru128.scru128_string() for _ in range(1000))
            texts.extend(scru128.scru128_strings(1000))
        return [Scru128Id.from_str(t) for t in texts]

    check(hammer(make), 100_000)


def test_default_generator_mixed_with_scru128_from_8_threads() -> None:
    # One generator in 1.0.1: mixing the two keeps each thread's IDs increasing.
    def make() -> List[Scru128Id]:
        ids: List[Scru128Id] = []
        for i in range(100_000):
            ids.append(scru128.scru128() if i % 2 else scru128.default_generator.generate())
        return ids

    check(hammer(make), 100_000)


@pytest.mark.parametrize("batch", [1, 1000])
def test_one_generator_shared_by_8_threads(batch: int) -> None:
    g = Scru128Generator()

    def make() -> List[Scru128Id]:
        if batch == 1:
            return [g.generate() for _ in range(100_000)]
        ids: List[Scru128Id] = []
        for _ in range(100_000 // batch):
            ids.extend(g.generate_many(batch))
        return ids

    results = hammer(make)
    check(results, 100_000)
    # One generator: the counter steps by one within a millisecond, across threads.
    every = sorted(x for ids in results for x in ids)
    steps = [(a, b) for a, b in zip(every, every[1:]) if a.timestamp == b.timestamp]
    assert steps and all(b.counter == a.counter + 1 for a, b in steps)


def test_one_generator_with_a_python_rng_shared_by_8_threads() -> None:
    # Drawing calls Python, so the threads really interleave inside generate().
    g = Scru128Generator(rng=random.SystemRandom())
    results = hammer(lambda: [g.generate() for _ in range(20_000)] + g.generate_many(5_000))
    check(results, 25_000)


def test_a_generator_called_from_its_own_rng_raises() -> None:
    class Reentrant:
        generator: Scru128Generator

        def getrandbits(self, k: int) -> int:
            self.generator.generate()
            return 1

    rng = Reentrant()
    rng.generator = Scru128Generator(rng=rng)
    with pytest.raises(RuntimeError, match="its own random source"):
        rng.generator.generate()


def test_an_rng_using_another_generator_works() -> None:
    inner = Scru128Generator()

    class Chained:
        def getrandbits(self, k: int) -> int:
            return inner.generate().per_gen_random >> (32 - k)

    g = Scru128Generator(rng=Chained())
    ids = [g.generate() for _ in range(1000)]
    assert all(a < b for a, b in zip(ids, ids[1:]))
