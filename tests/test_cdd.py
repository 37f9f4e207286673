"""Tests for the list-reduction schedules: CDD's size formula, round shapes, termination, and the
simulated comparison with ddmin on monotone predicates "interesting iff the kept set contains S".
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treereduce_py.edit.cdd import (
    CDD,
    DEFAULT_P0,
    GROWTH,
    SUBSET_MAX,
    DDMin,
    ListSchedule,
    Round,
    by_weight,
    cdd,
    cdd_size,
    cdd_sizes,
    ddmin,
    simulate,
    with_subsets,
)

Predicate = Callable[[tuple[int, ...]], bool]


def contains(target: set[int]) -> Predicate:
    """The monotone predicate: a candidate is interesting iff it keeps every index of `target`."""
    frozen = frozenset(target)
    return lambda kept: frozen.issubset(kept)


def log_gain(size: int, p: float) -> float:
    return math.log(size) + size * math.log1p(-p)


def final_round_number(p0: float) -> int:
    """The r at which the size schedule reaches 1, computed independently of `cdd_sizes`."""
    r = 0
    while cdd_size(r, p0) > 1:
        r += 1
    return r


# --- the size formula (section III-B, Algorithm 2) ---------------------------------------------


def test_sizes_match_the_papers_running_example() -> None:
    # Table III: 8 elements, p0 = 0.25 give rounds of size 4, 2, 1. At r = 0, p = 1/4 ties
    # E(3) = 3 * 0.75^3 = 1.265625 with E(4) = 4 * 0.75^4 = 1.265625; the larger size wins.
    # r = 1: p = 0.3955, E(1) = 0.6045 < E(2) = 0.7308. r = 2: p = 0.6257, E(1) = 0.374 > E(2).
    assert cdd_sizes(8, 0.25) == (4, 2, 1)
    assert [cdd_size(r, 0.25) for r in range(3)] == [4, 2, 1]


def test_sizes_for_the_default_p0() -> None:
    # r = 0: p = 1/10 ties E(9) = E(10) = 3.4868 -> 10. r = 1: p = 0.1582, -1/ln(1-p) = 5.81,
    # E(5) = 2.1136 < E(6) = 2.1350 -> 6. r = 2: p = 0.25027, x = 3.47, E(3) = 1.2642 >
    # E(4) = 1.2638 -> 3 (just off the tie). r = 3: p = 0.3959, E(1) = 0.604 < E(2) = 0.730 -> 2.
    # r = 4: p = 0.6264, E(1) = 0.374 > E(2) = 0.279 -> 1, the last round.
    assert DEFAULT_P0 == 0.1
    assert cdd_sizes(100, 0.1) == (10, 6, 3, 2, 1)


def test_sizes_without_a_tie() -> None:
    # r = 0: p = 0.3, x = 2.80, E(2) = 0.98 < E(3) = 1.029 -> 3. r = 1: p = 0.4746, x = 1.55,
    # E(1) = 0.5254 < E(2) = 0.5521 -> 2. r = 2: p = 0.7508, E(1) = 0.249 > E(2) -> 1.
    assert cdd_sizes(50, 0.3) == (3, 2, 1)


def test_sizes_are_capped_by_the_length_and_not_repeated() -> None:
    # With p0 = 0.1 the raw sizes are 10, 6, 3, 2, 1. On 8 elements round 0 is the whole list; on 3
    # elements rounds 0, 1 and 2 would all be the whole list, so only the first of them runs.
    assert cdd_sizes(8, 0.1) == (8, 6, 3, 2, 1)
    assert cdd_sizes(3, 0.1) == (3, 2, 1)
    assert cdd_sizes(1, 0.1) == (1,)
    assert cdd_sizes(0, 0.1) == ()


def test_a_large_p0_starts_at_size_one() -> None:
    # Past p = 1 - 1/e the continuous optimum is below 1, so every element goes alone at once.
    assert cdd_sizes(5, 0.7) == (1,)


@given(st.integers(min_value=2, max_value=5000))
def test_tie_at_p_equal_one_over_k_picks_k(k: int) -> None:
    # E(k-1) = E(k) exactly when 1 - p = (k-1)/k; the paper's Table III takes the larger size.
    assert cdd_size(0, 1.0 / k) == k


@given(st.floats(min_value=1e-4, max_value=0.999), st.integers(min_value=0, max_value=6))
def test_size_maximises_the_expected_gain(p0: float, r: int) -> None:
    p = p0 * GROWTH**r
    size = cdd_size(r, p0)
    if p >= 1:
        assert size == 1
        return
    best = max(log_gain(s, p) for s in range(1, 4 * size + 10))
    assert log_gain(size, p) >= best - 1e-9
    assert log_gain(size + 1, p) < log_gain(size, p)


@given(st.floats(min_value=1e-5, max_value=0.99))
def test_size_schedule_strictly_decreases_to_one(p0: float) -> None:
    sizes = [cdd_size(r, p0) for r in range(final_round_number(p0) + 1)]
    assert sizes[-1] == 1
    assert all(a > b for a, b in itertools.pairwise(sizes))


@pytest.mark.parametrize("p0", [0.0, 1.0, -0.1, 1.5, math.nan, math.inf])
def test_invalid_p0_is_rejected(p0: float) -> None:
    with pytest.raises(ValueError):
        cdd(p0)
    with pytest.raises(ValueError):
        cdd_size(0, p0)


def test_invalid_arguments_are_rejected() -> None:
    with pytest.raises(ValueError):
        cdd_size(-1)
    for schedule in (cdd(), ddmin()):
        with pytest.raises(ValueError):
            schedule.first(-1)
        first = schedule.first(4)
        assert first is not None
        with pytest.raises(ValueError):
            schedule.next(first, frozenset({4}))
    with pytest.raises(ValueError):
        Round(3, ((0, 1), (1, 2)))
    with pytest.raises(ValueError):
        Round(3, ((0, 3),))
    with pytest.raises(ValueError):
        Round(3, ((),))


def test_nothing_to_try_on_tiny_lists() -> None:
    assert cdd().first(0) is None
    assert ddmin().first(0) is None
    assert ddmin().first(1) is None  # ddmin cannot split a single element
    only = cdd().first(1)
    assert only is not None and only.chunks == ((0,),)


# --- round shapes under arbitrary outcomes ------------------------------------------------------


def check_cdd_round(schedule: CDD, current: Round) -> None:
    assert not current.complement
    assert [i for chunk in current.chunks for i in chunk] == list(range(current.length))
    size = min(cdd_size(current.counter, schedule.p0), current.length)
    assert all(len(chunk) == size for chunk in current.chunks[:-1])
    assert 1 <= len(current.chunks[-1]) <= size


def check_ddmin_round(current: Round) -> None:
    assert [i for chunk in current.chunks for i in chunk] == list(range(current.length))
    assert len(current.chunks) == current.counter
    sizes = {len(chunk) for chunk in current.chunks}
    assert max(sizes) - min(sizes) <= 1


def ddmin_round_bound(length: int) -> int:
    # At most `length` rounds delete something; between two of them k doubles at most
    # log2(length) + 1 times, each step being a subset round and a complement round.
    return (length + 1) * 2 * (math.ceil(math.log2(max(length, 2))) + 2)


def draw_deleted(data: st.DataObject, current: Round) -> frozenset[int]:
    """What a round deleted, drawn: any chunks of a deletion round, or everything but one chunk
    (or nothing) of a subset round."""
    if current.complement:
        winner = data.draw(st.none() | st.sampled_from(current.chunks))
        kept = set(range(current.length)) if winner is None else set(winner)
        return frozenset(set(range(current.length)) - kept)
    wins = data.draw(
        st.lists(st.booleans(), min_size=len(current.chunks), max_size=len(current.chunks))
    )
    return frozenset(
        i for chunk, win in zip(current.chunks, wins, strict=True) if win for i in chunk
    )


@given(
    st.integers(min_value=0, max_value=300),
    st.floats(min_value=1e-3, max_value=0.9),
    st.data(),
)
@settings(max_examples=60)
def test_cdd_rounds_partition_and_terminate_whatever_is_deleted(
    length: int, p0: float, data: st.DataObject
) -> None:
    schedule = cdd(p0)
    last_r = final_round_number(p0)
    current = schedule.first(length)
    previous: Round | None = None
    previous_deleted: frozenset[int] = frozenset()
    while current is not None:
        check_cdd_round(schedule, current)
        assert current.counter <= last_r
        if previous is not None:
            assert current.counter > previous.counter
            if not previous_deleted:
                assert current.chunks != previous.chunks  # never the same round twice
        deleted = draw_deleted(data, current)
        previous, previous_deleted = current, deleted
        current = schedule.next(current, deleted)
    if previous is not None and previous.length > len(previous_deleted):
        assert cdd_size(previous.counter, p0) == 1 or previous.length == 1


@given(st.integers(min_value=0, max_value=300), st.data())
@settings(max_examples=60)
def test_ddmin_rounds_partition_and_terminate_whatever_is_deleted(
    length: int, data: st.DataObject
) -> None:
    schedule = ddmin()
    current = schedule.first(length)
    rounds = 0
    while current is not None:
        rounds += 1
        assert rounds <= ddmin_round_bound(length)
        check_ddmin_round(current)
        current = schedule.next(current, draw_deleted(data, current))


# --- simulation on monotone predicates ----------------------------------------------------------


@st.composite
def list_and_target(draw: st.DrawFn) -> tuple[int, set[int]]:
    length = draw(st.integers(min_value=1, max_value=150))
    target = draw(st.sets(st.integers(min_value=0, max_value=length - 1), min_size=1))
    return length, target


@given(list_and_target(), st.floats(min_value=1e-3, max_value=0.9))
@settings(max_examples=120)
def test_cdd_keeps_exactly_the_target(case: tuple[int, set[int]], p0: float) -> None:
    length, target = case
    schedule = cdd(p0)
    result = simulate(schedule, length, contains(target))
    assert result.kept == tuple(sorted(target))
    assert not any(r.complement for r in result.rounds)
    assert result.tests == sum(len(r.chunks) for r in result.rounds)
    for earlier, later in itertools.pairwise(result.rounds):
        if later.length == earlier.length:
            assert later.chunks != earlier.chunks


@given(list_and_target())
@settings(max_examples=120)
def test_ddmin_keeps_exactly_the_target(case: tuple[int, set[int]]) -> None:
    length, target = case
    result = simulate(ddmin(), length, contains(target))
    assert result.kept == tuple(sorted(target))


def test_cdd_matches_the_papers_example_test_count() -> None:
    # Table III: l5 and l8 (indices 4 and 7) must stay; ProbDD needs 8 variants, and so does CDD:
    # round 1 deletes {0..3} and fails on {4..7}, round 2 fails on {4,5} and {6,7}, round 3 tries
    # each of the four alone and deletes 5 and 6.
    result = simulate(cdd(0.25), 8, contains({4, 7}))
    assert result.kept == (4, 7)
    assert [len(r.chunks[0]) for r in result.rounds] == [4, 2, 1]
    assert result.tests == 8


def test_cdd_deletes_everything_when_nothing_matters() -> None:
    result = simulate(cdd(), 7, lambda kept: True)
    assert result.kept == ()
    assert result.tests == 1


def test_ddmin_never_tries_the_empty_list() -> None:
    result = simulate(ddmin(), 7, lambda kept: len(kept) > 0)
    assert len(result.kept) == 1


def test_every_length_up_to_300_terminates_with_the_target() -> None:
    rng = random.Random(300)
    for length in range(1, 301):
        target = set(rng.sample(range(length), min(length, 3)))
        for schedule in (cdd(), cdd(0.25), ddmin()):
            result = simulate(schedule, length, contains(target), max_rounds=10_000)
            assert result.kept == tuple(sorted(target))


@pytest.mark.parametrize("length", [1, 2, 5, 8, 13, 64, 100, 257, 300])
def test_nothing_deletable_costs_one_test_per_chunk_per_round(length: int) -> None:
    everything = set(range(length))
    result = simulate(cdd(), length, contains(everything))
    assert result.kept == tuple(range(length))
    assert result.tests == sum(math.ceil(length / s) for s in cdd_sizes(length))
    baseline = simulate(ddmin(), length, contains(everything), max_rounds=10_000)
    assert baseline.kept == tuple(range(length))


def total_tests(schedule: ListSchedule, cases: list[tuple[int, set[int]]]) -> int:
    return sum(simulate(schedule, n, contains(target)).tests for n, target in cases)


def test_cdd_needs_fewer_tests_than_ddmin_for_small_targets() -> None:
    # The paper's finding (Table IV/V, Fig. 2): skipping complements and revisits saves queries.
    rng = random.Random(2025)
    cases = [
        (n, set(rng.sample(range(n), size)))
        for n in (16, 40, 100, 250)
        for size in (2, 3, 4, 6, 8)
        for _ in range(6)
    ]
    baseline = total_tests(ddmin(), cases)
    assert total_tests(cdd(), cases) < baseline
    assert total_tests(cdd(0.25), cases) < baseline


def test_schedules_are_values() -> None:
    # Stateless: one schedule object can drive any number of lists, in any order.
    schedule = cdd()
    first = schedule.first(20)
    assert first is not None
    assert schedule.next(first, frozenset()) == schedule.next(first, frozenset())
    assert cdd() == CDD(DEFAULT_P0)
    assert ddmin() == DDMin()


# --- subsets: each chunk alone, after a fruitless CDD round ---------------------------------


def mirrored(half: int) -> tuple[int, Predicate]:
    """A list `0 .. half-1, M, 0 .. half-1` and its predicate: the marker M is kept and what
    is kept before it equals what is kept after it. Deleting any one chunk that leaves M breaks
    the equality, so only a chunk kept alone (M, or a stretch symmetric around it) passes."""
    values = [*range(half), -1, *range(half)]

    def interesting(kept: tuple[int, ...]) -> bool:
        if half not in kept:
            return False
        seen = [values[i] for i in kept]
        m = kept.index(half)
        return seen[:m] == seen[m + 1 :]

    return len(values), interesting


@pytest.mark.parametrize("half", [2, 4, 7])
def test_only_subsets_reduce_a_list_whose_one_chunk_alone_passes(half: int) -> None:
    length, interesting = mirrored(half)
    assert simulate(cdd(), length, interesting).kept == tuple(range(length))
    result = simulate(cdd(subsets=True), length, interesting)
    assert result.kept == (half,)
    assert any(r.complement for r in result.rounds)
    assert simulate(ddmin(), length, interesting).kept == (half,)


@given(list_and_target(), st.floats(min_value=1e-3, max_value=0.9))
@settings(max_examples=80)
def test_subset_rounds_follow_only_fruitless_rounds_and_keep_the_target(
    case: tuple[int, set[int]], p0: float
) -> None:
    length, target = case
    result = simulate(cdd(p0, subsets=True), length, contains(target))
    assert result.kept == tuple(sorted(target))
    for earlier, later in itertools.pairwise(result.rounds):
        if later.complement:
            assert not earlier.complement and later.chunks == earlier.chunks
            assert later.length == earlier.length  # the round before deleted nothing
            assert 3 <= len(later.chunks) <= SUBSET_MAX


@given(st.integers(min_value=0, max_value=200), st.data())
@settings(max_examples=60)
def test_cdd_with_subsets_terminates_whatever_is_deleted(length: int, data: st.DataObject) -> None:
    schedule = cdd(adaptive=True, subsets=True)
    current = schedule.first(length)
    rounds = 0
    while current is not None:
        rounds += 1
        assert rounds <= 4 * (length + 1) * (final_round_number(DEFAULT_P0) + 10)
        current = schedule.next(current, draw_deleted(data, current))


def test_with_subsets_changes_only_cdd() -> None:
    assert with_subsets(cdd(0.2, adaptive=True)) == CDD(0.2, adaptive=True, subsets=True)
    assert with_subsets(ddmin()) == ddmin()


# --- weighted splitting (WDD): a round recut by the elements' bytes ------------------------------


@given(st.lists(st.integers(min_value=0, max_value=1000), min_size=1, max_size=80), st.data())
@settings(max_examples=80)
def test_by_weight_keeps_the_count_and_partitions_in_order(
    weights: list[int], data: st.DataObject
) -> None:
    rnd = data.draw(st.sampled_from([r for r in (cdd().first(len(weights)),) if r is not None]))
    recut = by_weight(rnd, weights)
    assert len(recut.chunks) == len(rnd.chunks)
    assert [i for chunk in recut.chunks for i in chunk] == list(range(len(weights)))
    assert (recut.length, recut.complement, recut.counter) == (
        rnd.length,
        rnd.complement,
        rnd.counter,
    )


def test_by_weight_gives_a_heavy_element_a_chunk_of_its_own() -> None:
    # Ten elements, one of them as heavy as the other nine together: count splits 5 + 5, bytes
    # split the heavy one from the rest.
    weights = [10, 10, 10, 10, 90, 10, 10, 10, 10, 10]
    rnd = Round(10, ((0, 1, 2, 3, 4), (5, 6, 7, 8, 9)))
    recut = by_weight(rnd, weights)
    assert [sum(weights[i] for i in c) for c in recut.chunks] == [130, 50]
    even = by_weight(Round(4, ((0, 1), (2, 3))), [5, 5, 5, 5])
    assert even.chunks == ((0, 1), (2, 3))
    subset = Round(4, ((0,), (2, 3)), complement=True)  # not a partition: left as it is
    assert by_weight(subset, [1, 1, 1, 1]) == subset


# --- width: rounds with work for every worker ---------------------------------------------------


@given(list_and_target(), st.integers(min_value=1, max_value=20))
@settings(max_examples=120)
def test_every_round_of_a_wide_cdd_has_width_chunks_and_keeps_the_target(
    case: tuple[int, set[int]], width: int
) -> None:
    length, target = case
    result = simulate(cdd(adaptive=True, width=width), length, contains(target))
    assert result.kept == tuple(sorted(target))
    assert result.rounds, "a list of at least one element has a round"
    for rnd in result.rounds:
        assert len(rnd.chunks) >= min(width, rnd.length)


def test_width_one_leaves_the_schedule_as_it_was() -> None:
    for length in (1, 5, 20, 100, 400):
        assert cdd(adaptive=True, width=1).first(length) == cdd(adaptive=True).first(length)
    # A 400-element list starts in halves; at width 8 in (at least) eight chunks.
    assert len(cdd(adaptive=True).first(400).chunks) == 2  # type: ignore[union-attr]
    assert len(cdd(adaptive=True, width=8).first(400).chunks) >= 8  # type: ignore[union-attr]
