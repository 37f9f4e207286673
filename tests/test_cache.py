"""Tests for judge.cache: digests, hits, eviction of entries as large as the best (with its
amortization rule), and use from several threads.
"""

from __future__ import annotations

import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from treereduce_py.judge.cache import Cache, digest


@settings(max_examples=120, deadline=None)
@given(st.binary(max_size=64), st.binary(max_size=64))
def test_digest_is_a_fixed_size_function_of_the_bytes(a: bytes, b: bytes) -> None:
    assert len(digest(a)) == 16
    assert digest(a) == digest(bytes(a))
    assert (digest(a) == digest(b)) == (a == b)  # no collision among small inputs


def test_get_returns_the_outcome_and_counts_hits() -> None:
    cache = Cache()
    yes, no, unknown = digest(b"yes"), digest(b"no"), digest(b"unknown")
    assert cache.get(yes) is None
    assert cache.hits == 0  # a miss is not a hit
    cache.put(yes, 3, True)
    cache.put(no, 2, False)
    assert len(cache) == 2
    assert cache.get(yes) is True
    assert cache.get(no) is False
    assert cache.get(unknown) is None
    assert cache.get(yes) is True
    assert cache.hits == 3
    cache.put(yes, 3, False)  # a later outcome replaces the earlier one
    assert cache.get(yes) is False
    assert len(cache) == 2


def filled(sizes: list[int]) -> tuple[Cache, list[bytes]]:
    cache = Cache()
    keys = [digest(str(k).encode()) for k in range(len(sizes))]
    for key, size in zip(keys, sizes, strict=True):
        cache.put(key, size, size % 2 == 0)
    return cache, keys


def present(cache: Cache, keys: list[bytes]) -> list[int]:
    """Indices of the keys still cached (counts hits; tests compare sets, not hits)."""
    return [k for k, key in enumerate(keys) if cache.get(key) is not None]


def test_the_first_shrink_evicts_every_entry_longer_than_the_best() -> None:
    # One as long as the best stays: a candidate as long and smaller may still be asked.
    sizes = [100, 50, 99, 101, 10, 100]
    cache, keys = filled(sizes)
    assert cache.shrink_to(100) == 1
    assert present(cache, keys) == [k for k, s in enumerate(sizes) if s <= 100]
    assert len(cache) == 5


def test_shrinking_sweeps_again_only_after_the_best_lost_a_tenth() -> None:
    cache, keys = filled([1001])
    assert cache.shrink_to(1000) == 1  # first sweep, at 1000
    cache.put(keys[0], 951, True)
    assert cache.shrink_to(950) == 0  # less than a tenth smaller: no sweep yet
    assert present(cache, keys) == [0]
    assert cache.shrink_to(901) == 0
    assert present(cache, keys) == [0]
    assert cache.shrink_to(900) == 1  # exactly a tenth smaller: sweep (and remember 900)
    assert present(cache, keys) == []
    cache.put(keys[0], 851, True)
    assert cache.shrink_to(850) == 0  # the next sweep waits for 810
    assert cache.shrink_to(810) == 1
    assert len(cache) == 0


@settings(max_examples=120, deadline=None)
@given(st.lists(st.integers(0, 200), max_size=40), st.lists(st.integers(0, 200), max_size=8))
def test_shrink_to_matches_its_documented_rule(sizes: list[int], bests: list[int]) -> None:
    cache, keys = filled(sizes)
    alive = set(range(len(sizes)))
    swept_at: int | None = None
    for best in sorted(bests, reverse=True):
        evicted = cache.shrink_to(best)
        if swept_at is None or best <= swept_at * 0.9:
            swept_at = best
            stale = {k for k in alive if sizes[k] > best}
            assert evicted == len(stale)
            alive -= stale
        else:
            assert evicted == 0
        assert len(cache) == len(alive)
    assert set(present(cache, keys)) == alive


def test_threads_share_the_cache_safely() -> None:
    cache = Cache()
    threads_n, per_thread = 4, 500
    shared = [digest(b"shared-%d" % k) for k in range(50)]
    for key in shared:
        cache.put(key, 1, True)
    errors: list[str] = []

    def work(me: int) -> None:
        for k in range(per_thread):
            own = digest(b"%d-%d" % (me, k))
            cache.put(own, k, k % 3 == 0)
            if cache.get(own) != (k % 3 == 0):
                errors.append(f"thread {me} lost its entry {k}")
            if cache.get(shared[k % len(shared)]) is not True:
                errors.append(f"thread {me} lost a shared entry")
            if k % 100 == 99:
                cache.shrink_to(10_000)  # evicts nothing: every size is below it

    threads = [threading.Thread(target=work, args=(me,)) for me in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert len(cache) == len(shared) + threads_n * per_thread
    assert cache.hits == 2 * threads_n * per_thread  # every get hit, none was lost


def test_syntax_rejections_can_be_forgotten_and_test_answers_stay() -> None:
    cache = Cache()
    cache.put(b"k" * 16, 10, False, by_syntax=True)  # the syntax check refused it
    cache.put(b"t" * 16, 10, False)  # the test said no
    cache.put(b"y" * 16, 10, True)
    assert cache.forget_syntax_rejections() == 1
    assert cache.get(b"k" * 16) is None
    assert cache.get(b"t" * 16) is False and cache.get(b"y" * 16) is True
