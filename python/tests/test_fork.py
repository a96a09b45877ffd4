"""Fork safety: after ``os.fork()`` or ``multiprocessing`` with the fork start method,
parent and children never repeat an ID, whatever the generator."""

from __future__ import annotations

import multiprocessing
import os
import random
import select
import signal
import threading
import time
from typing import Callable, Dict, List

import pytest
import scru128
from scru128 import Scru128Generator, Scru128Id

CHILDREN = 4
PER_PROCESS = 10_000
TIMEOUT = 60.0

Make = Callable[[int], List[str]]


def in_children(make: Make, children: int = CHILDREN, per_process: int = PER_PROCESS) -> Dict[str, List[str]]:
    """Makes IDs before forking, then in each child and in the parent at once: the
    children wait for one signal, so that they all start in the same millisecond,
    each with a copy of the same generator."""
    outputs: Dict[str, List[str]] = {"before": make(1000)}
    readers = {}
    pids = []
    go_r, go_w = os.pipe()
    for i in range(children):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: write its IDs and leave, whatever happens
            status = 1
            try:
                os.close(r)
                os.close(go_w)
                os.read(go_r, 1)
                data = "\n".join(make(per_process)).encode()
                with os.fdopen(w, "wb") as out:
                    out.write(data)
                status = 0
            finally:
                os._exit(status)
        os.close(w)
        readers[r] = f"child {i}"
        pids.append(pid)
    os.close(go_r)
    os.write(go_w, b"g" * children)
    os.close(go_w)
    outputs["parent"] = make(per_process)
    chunks: Dict[int, List[bytes]] = {r: [] for r in readers}
    deadline = time.monotonic() + TIMEOUT
    open_fds = set(readers)
    while open_fds:
        ready, _, _ = select.select(list(open_fds), [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            for pid in pids:
                os.kill(pid, signal.SIGKILL)
            pytest.fail("a child did not finish (hung?)")
        for r in ready:
            data = os.read(r, 1 << 16)
            if data:
                chunks[r].append(data)
            else:
                open_fds.discard(r)
                os.close(r)
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    for r, name in readers.items():
        outputs[name] = b"".join(chunks[r]).decode().split("\n")
    return outputs


def check(outputs: Dict[str, List[str]], per_process: int = PER_PROCESS) -> None:
    every = [text for texts in outputs.values() for text in texts]
    assert len(every) == 1000 + per_process * (len(outputs) - 1)
    repeated = len(every) - len(set(every))
    assert repeated == 0, f"{repeated} IDs repeated across processes"
    last_before = max(outputs["before"])
    for name, texts in outputs.items():
        assert texts == sorted(texts), name  # increasing in each process
        if name != "before":
            assert min(texts) > last_before, name  # and after the IDs made before


def texts(ids: List[Scru128Id]) -> List[str]:
    return [str(x) for x in ids]


def test_scru128_after_fork() -> None:
    check(in_children(lambda n: [str(scru128.scru128()) for _ in range(n)]))


def test_scru128_strings_after_fork() -> None:
    check(in_children(scru128.scru128_strings))


def test_default_generator_after_fork() -> None:
    check(in_children(lambda n: texts(scru128.default_generator.generate_many(n))))


def test_own_generator_after_fork() -> None:
    g = Scru128Generator()
    check(in_children(lambda n: [str(g.generate()) for _ in range(n)]))


def test_own_generator_batches_after_fork() -> None:
    g = Scru128Generator()
    check(in_children(lambda n: texts(g.generate_many(n))))


def test_generator_with_system_random_after_fork() -> None:
    g = Scru128Generator(rng=random.SystemRandom())
    check(in_children(lambda n: [str(g.generate()) for _ in range(n)]))


# A random.Random is copied into each child with its state, so on its own it gives the
# parent and every child the same numbers. After a fork the library mixes a stream of
# the child's own (seeded by the OS) into every draw of a generator's source, so
# parent and children never continue one random stream, whatever the source.


def test_generator_with_a_seeded_python_rng_after_fork() -> None:
    g = Scru128Generator(rng=random.Random(2026))
    check(in_children(lambda n: [str(g.generate()) for _ in range(n)]))


def test_parent_and_child_do_not_continue_one_random_stream() -> None:
    g = Scru128Generator(rng=random.Random(2026))
    outputs = in_children(lambda n: texts(g.generate_many(n)), children=1, per_process=2000)
    # Independent 32-bit draws: 2000 x 2000 / 2**32 = 0.001 equal pairs expected.
    parent = {Scru128Id.from_str(t).per_gen_random for t in outputs["parent"]}
    child = {Scru128Id.from_str(t).per_gen_random for t in outputs["child 0"]}
    assert len(parent & child) <= 2


def test_grandchildren() -> None:
    g = Scru128Generator()

    def make(n: int) -> List[str]:
        if os.getpid() == parent:
            return [str(g.generate()) for _ in range(n)]
        # In a child: fork again, and return both generations' IDs.
        nested = in_children(lambda m: [str(g.generate()) for _ in range(m)], children=2, per_process=n // 2)
        return sorted(t for ts in nested.values() for t in ts)[: n]

    parent = os.getpid()
    outputs = in_children(make, children=2)
    every = [t for ts in outputs.values() for t in ts]
    assert len(every) == len(set(every))


def worker(n: int) -> List[str]:
    return [str(scru128.scru128()) for _ in range(n)] + scru128.scru128_strings(n)


def own_worker(n: int) -> List[str]:
    return [str(SHARED.generate()) for _ in range(n)]


SHARED = Scru128Generator()


@pytest.mark.parametrize("target", [worker, own_worker])
def test_multiprocessing_fork_pool(target: Callable[[int], List[str]]) -> None:
    before = target(1000)
    context = multiprocessing.get_context("fork")
    with context.Pool(CHILDREN) as pool:
        results = pool.map(target, [PER_PROCESS // 2] * (CHILDREN * 2))
    after = target(PER_PROCESS)
    every = before + after + [t for r in results for t in r]
    assert len(every) == len(set(every))
    assert min(min(r) for r in results) > max(before)


def test_multiprocessing_fork_process() -> None:
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    scru128.scru128()

    def run() -> None:
        queue.put(scru128.scru128_strings(PER_PROCESS))

    processes = [context.Process(target=run) for _ in range(CHILDREN)]
    for p in processes:
        p.start()
    mine = scru128.scru128_strings(PER_PROCESS)
    theirs = [t for _ in processes for t in queue.get(timeout=TIMEOUT)]
    for p in processes:
        p.join(TIMEOUT)
        assert p.exitcode == 0
    every = mine + theirs
    assert len(every) == len(set(every))


def test_fork_while_another_thread_is_inside_generate() -> None:
    """The forking thread is the only one in the child: a generator another thread
    had out (its random source was running) is not lost, and the child goes on after
    the last ID handed out."""
    entered = threading.Event()
    release = threading.Event()

    class Blocking:
        block = False

        def getrandbits(self, k: int) -> int:
            if self.block and threading.current_thread() is not threading.main_thread():
                entered.set()
                release.wait(TIMEOUT)
            return random.getrandbits(k)

    rng = Blocking()
    g = Scru128Generator(rng=rng)
    last = g.generate()
    rng.block = True
    inside = threading.Thread(target=g.generate)
    inside.start()
    assert entered.wait(TIMEOUT)

    def make(n: int) -> List[str]:
        if os.getpid() != parent:
            rng.block = False
        return [str(g.generate()) for _ in range(n)] if os.getpid() != parent else []

    parent = os.getpid()
    outputs = in_children(make, children=2, per_process=1000)
    release.set()
    inside.join(TIMEOUT)
    for name in ("child 0", "child 1"):
        assert len(outputs[name]) == 1000
        assert min(outputs[name]) > str(last)
    # The generator still works in the parent once the other thread is done.
    assert g.generate() > last
