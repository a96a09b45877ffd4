"""What this package adds to 1.0.1: bytes, uuid.UUID, datetime, the bounds of a
time, unix_ts_ms, and batches."""

from __future__ import annotations

import datetime
import random
import signal
import threading
import uuid
from typing import Any, Callable, Dict, List, Tuple

import pytest
import scru128
from scru128 import Scru128Generator, Scru128Id

import refcases

UTC = datetime.timezone.utc
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=UTC)


def sample() -> List[Scru128Id]:
    ids = [Scru128Id(int(v["u128_hex"], 16)) for v in refcases.vectors()]
    rng = random.Random(128)
    ids += [Scru128Id(rng.getrandbits(128)) for _ in range(1000)]
    return ids + [Scru128Id.from_str(t) for t in scru128.scru128_strings(100)]


def test_bytes_are_16_big_endian() -> None:
    for x in sample():
        b = x.to_bytes()
        assert type(b) is bytes
        assert b == int(x).to_bytes(16, "big")
        assert Scru128Id.from_bytes(b) == x
        assert Scru128Id.from_bytes(bytearray(b)) == x
        assert Scru128Id.from_bytes(memoryview(b)) == x


def test_byte_order_is_id_order() -> None:
    ids = sample()
    assert sorted(ids, key=lambda x: x.to_bytes()) == sorted(ids)


@pytest.mark.parametrize("data", [b"", b"\x00" * 15, b"\x00" * 17, bytearray(20)])
def test_from_bytes_wrong_length(data: Any) -> None:
    with pytest.raises(ValueError, match="16 bytes"):
        Scru128Id.from_bytes(data)


@pytest.mark.parametrize("data", ["0" * 16, 5, None, [0] * 16])
def test_from_bytes_wrong_type(data: Any) -> None:
    with pytest.raises(TypeError):
        Scru128Id.from_bytes(data)


def test_hex_holds_the_same_128_bits() -> None:
    ids = sample()
    for x in ids:
        h = x.to_hex()
        assert h == f"{int(x):032x}"
        assert Scru128Id.from_hex(h) == x
        assert Scru128Id.from_hex(h.upper()) == x
        assert Scru128Id.from_hex(str(uuid.UUID(int=int(x)))) == x
        assert Scru128Id.from_hex(str(uuid.UUID(int=int(x))).upper()) == x
    assert sorted(ids, key=lambda x: x.to_hex()) == sorted(ids)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "invalid length"),
        ("0" * 31, "invalid length"),
        ("0" * 31 + "g", "position 31"),
        ("0" * 8 + "_" + "0" * 27, "position 8"),
        ("é" * 32, "position 0"),
        ("0" * 26, "invalid length"),
    ],
)
def test_from_hex_says_what_and_where(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Scru128Id.from_hex(text)


@pytest.mark.parametrize("value", [b"0" * 32, 5, None, uuid.uuid4()])
def test_from_hex_wants_a_str(value: Any) -> None:
    with pytest.raises(TypeError):
        Scru128Id.from_hex(value)


def test_uuid_holds_the_same_128_bits() -> None:
    ids = sample()
    for x in ids:
        u = x.to_uuid()
        assert type(u) is uuid.UUID
        assert u.int == int(x) and u.bytes == x.to_bytes()
        assert Scru128Id.from_uuid(u) == x
    assert sorted(ids, key=lambda x: x.to_uuid()) == sorted(ids)


@pytest.mark.parametrize("value", [str(uuid.uuid4()), uuid.uuid4().int, uuid.uuid4().bytes, None])
def test_from_uuid_wants_a_uuid(value: Any) -> None:
    with pytest.raises(TypeError):
        Scru128Id.from_uuid(value)


def test_datetime_is_the_exact_millisecond() -> None:
    for x in sample():
        ms = x.timestamp + scru128.TIMESTAMP_BIAS
        assert x.unix_ts_ms == ms
        dt = x.to_datetime()
        assert dt.tzinfo is not None and dt.utcoffset() == datetime.timedelta(0)
        # Computed another way: whole seconds, then the milliseconds.
        expected = datetime.datetime.fromtimestamp(ms // 1000, UTC).replace(microsecond=ms % 1000 * 1000)
        assert dt == expected


def test_a_new_id_is_now() -> None:
    before = datetime.datetime.now(UTC)
    x = scru128.scru128()
    after = datetime.datetime.now(UTC)
    assert before - datetime.timedelta(milliseconds=1) <= x.to_datetime() <= after


def test_bounds_of_a_time() -> None:
    t = datetime.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    lo, hi = Scru128Id.min_at(t), Scru128Id.max_at(t)
    ms = (t - EPOCH) // datetime.timedelta(milliseconds=1)
    assert lo.unix_ts_ms == hi.unix_ts_ms == ms
    assert (lo.counter, lo.per_sec_random, lo.per_gen_random) == (0, 0, 0)
    assert (hi.counter, hi.per_sec_random, hi.per_gen_random) == (2**28 - 1, 2**24 - 1, 2**32 - 1)
    # Another time zone, the same instant.
    tokyo = t.astimezone(datetime.timezone(datetime.timedelta(hours=9)))
    assert Scru128Id.min_at(tokyo) == lo and Scru128Id.max_at(tokyo) == hi
    # Before 1970 rounds down too (and is out of range).
    with pytest.raises(ValueError):
        Scru128Id.min_at(datetime.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC))


def test_bounds_select_the_ids_of_a_range() -> None:
    g = Scru128Generator()
    ids = g.generate_many(10) + [scru128.scru128() for _ in range(10)]
    start = ids[0].to_datetime()
    end = ids[-1].to_datetime()
    lo, hi = Scru128Id.min_at(start), Scru128Id.max_at(end)
    assert all(lo <= x <= hi for x in ids)
    assert Scru128Id.max_at(start - datetime.timedelta(milliseconds=1)) < ids[0]
    assert Scru128Id.min_at(end + datetime.timedelta(milliseconds=1)) > ids[-1]


def test_bounds_at_the_ends_of_the_range() -> None:
    first = datetime.datetime(2020, 1, 1, tzinfo=UTC)
    assert int(Scru128Id.min_at(first)) == 0
    last = EPOCH + datetime.timedelta(milliseconds=scru128.TIMESTAMP_BIAS + 2**44 - 1)
    assert int(Scru128Id.max_at(last)) == 2**128 - 1
    with pytest.raises(ValueError):
        Scru128Id.min_at(first - datetime.timedelta(milliseconds=1))
    with pytest.raises(ValueError):
        Scru128Id.max_at(last + datetime.timedelta(milliseconds=1))
    with pytest.raises(ValueError):
        Scru128Id.max_at(datetime.datetime.max.replace(tzinfo=UTC))


@pytest.mark.parametrize("time", [datetime.datetime(2024, 1, 1), "2024-01-01", 1_700_000_000_000, datetime.date(2024, 1, 1), None])
def test_bounds_want_an_aware_datetime(time: Any) -> None:
    with pytest.raises((TypeError, ValueError)) as info:
        Scru128Id.min_at(time)
    if isinstance(time, datetime.datetime):
        assert info.type is ValueError and "naive" in str(info.value)
    else:
        assert info.type is TypeError


GENERATORS: Dict[str, Callable[[], Scru128Generator]] = {
    "default_generator": lambda: scru128.default_generator,
    "Scru128Generator()": Scru128Generator,
    "Scru128Generator(rng=SystemRandom)": lambda: Scru128Generator(rng=random.SystemRandom()),
}


@pytest.mark.parametrize("kind", GENERATORS)
@pytest.mark.parametrize("n", [0, 1, 2, 1000, 100_000])
def test_generate_many(kind: str, n: int) -> None:
    g = GENERATORS[kind]()
    first = g.generate()
    ids = g.generate_many(n)
    last = g.generate()
    assert type(ids) is list and len(ids) == n
    assert all(type(x) is Scru128Id for x in ids)
    sequence = [first, *ids, last]
    assert all(a < b for a, b in zip(sequence, sequence[1:]))


def test_a_batch_keeps_the_counter_rule() -> None:
    ids = Scru128Generator().generate_many(100_000)
    for a, b in zip(ids, ids[1:]):
        if a.timestamp == b.timestamp:
            assert b.counter == a.counter + 1
        else:
            assert b.timestamp > a.timestamp


@pytest.mark.parametrize("n", [0, 1, 1000, 100_000])
def test_scru128_strings(n: int) -> None:
    first = scru128.scru128_string()
    texts = scru128.scru128_strings(n)
    assert type(texts) is list and len(texts) == n
    assert all(type(t) is str and len(t) == 26 and str(Scru128Id.from_str(t)) == t for t in texts)
    assert [first, *texts] == sorted(set([first, *texts]))
    assert scru128.scru128_string() > max([first, *texts])


@pytest.mark.parametrize("n, error", [(-1, ValueError), (1.5, TypeError), ("3", TypeError), (None, TypeError), (2**70, OverflowError)])
def test_batch_sizes(n: Any, error: type) -> None:
    with pytest.raises(error):
        scru128.scru128_strings(n)
    for g in GENERATORS.values():
        with pytest.raises(error):
            g().generate_many(n)


def test_batch_too_big_for_memory() -> None:
    with pytest.raises(MemoryError):
        Scru128Generator().generate_many(2**62)
    with pytest.raises(MemoryError):
        scru128.scru128_strings(2**62)


def test_batch_size_accepts_int_subclasses() -> None:
    assert len(scru128.scru128_strings(True)) == 1
    assert len(Scru128Generator().generate_many(refcases.IntSubclass(3))) == 3


def test_scru128_strings_follows_a_replaced_default_generator() -> None:
    original = scru128.default_generator
    try:
        scru128.default_generator = Scru128Generator(rng=random.Random(3))
        texts = scru128.scru128_strings(5)
        assert texts == sorted(texts) and len(set(texts)) == 5
        del scru128.default_generator
        with pytest.raises(NameError):
            scru128.scru128_strings(1)
    finally:
        scru128.default_generator = original
    assert scru128.default_generator is original
    after = scru128.scru128_strings(2)
    assert after[0] < after[1] and not set(after) & set(texts)


BATCHES: Dict[str, Tuple[Callable[[], Tuple[Callable[[int], List[Any]], Callable[[], Any]]], int]] = {
    # (a maker of (the batch, one ID of the same source), IDs in the batch)
    "default_generator": (lambda: (scru128.default_generator.generate_many, scru128.scru128), 1_000_000),
    "Scru128Generator()": (lambda: one_of(Scru128Generator()), 1_000_000),
    "Scru128Generator(rng=Random)": (lambda: one_of(Scru128Generator(rng=random.Random(5))), 200_000),
    "scru128_strings": (lambda: (scru128.scru128_strings, scru128.scru128_string), 1_000_000),
}


def one_of(g: Scru128Generator) -> Tuple[Callable[[int], List[Any]], Callable[[], Any]]:
    return g.generate_many, g.generate


@pytest.mark.parametrize("kind", BATCHES)
def test_a_large_batch_checks_for_signals_as_it_goes(kind: str) -> None:
    # A Python signal handler runs inside the batch (Ctrl-C stops it), not after it:
    # an ID the handler makes lies between the batch's first and last. (Before: the
    # batch ran to its end first, over a second for 10**7 IDs.)
    make, n = BATCHES[kind]
    batch, one = make()
    made: List[Any] = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: made.append(one()))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.002)
        ids = batch(n)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert len(ids) == n and len(made) == 1
    assert ids[0] < made[0] < ids[-1]
    assert made[0] not in set(ids)


def test_ctrl_c_stops_a_large_batch() -> None:
    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    g = Scru128Generator()
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.002)
        with pytest.raises(KeyboardInterrupt):
            g.generate_many(10**7)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    # The generator goes on after the IDs it made.
    assert g.generate() < g.generate()


def test_a_large_batch_lets_other_threads_run() -> None:
    # The library's generators fill each chunk without the GIL: another thread's IDs
    # from the same generator fall between the batch's. (Before: none could.)
    g = Scru128Generator()
    started, stop = threading.Event(), threading.Event()
    theirs: List[Scru128Id] = []

    def other() -> None:
        started.set()
        while not stop.is_set():
            theirs.append(g.generate())

    thread = threading.Thread(target=other)
    thread.start()
    started.wait()
    try:
        ids = g.generate_many(300_000)
    finally:
        stop.set()
        thread.join()
    inside = [x for x in theirs if ids[0] < x < ids[-1]]
    assert inside
    assert not set(inside) & set(ids)
