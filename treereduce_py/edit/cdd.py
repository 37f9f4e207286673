"""List-reduction schedules: which chunks of a child list to try deleting, round by round.

The engine shrinks a list of children (the statements of a block, the arguments of a call, the
elements of an array) by deleting chunks of it. A *schedule* decides the chunks. For a list of
`length` elements it proposes a `Round`: disjoint chunks of indices, each one an independent task
that any worker may test. When the round is over the engine tells the schedule which indices were
deleted, and the schedule proposes the next round for the shorter list, until it is finished.
Schedules are plain values: the whole state travels in the `Round`, so one schedule object serves
any number of lists at once and nothing here has threads, clocks or I/O.

Two schedules:

* **CDD**, counter-based delta debugging (Zhang, Xu, Tian, Cheng, Sun: "Toward a Better
  Understanding of Probabilistic Delta Debugging", ICSE 2025, section V, Algorithm 2). Round r
  cuts the list into consecutive chunks of size s_r (the last may be smaller) and tries deleting
  each chunk once. s_r depends on r and the initial probability p0 only; it is the size ProbDD
  would pick by maximising its expected reduction gain (section III-B, Finding 2). There are no
  complement tests and no revisits, and CDD stops after the round whose size is 1. With
  `subsets` (the flat lists of lines and tokens), a round of three to `SUBSET_MAX` chunks that
  deleted nothing is followed by ddmin's subset round over the same chunks (each kept alone):
  a list where only one chunk by itself is interesting (text before a marker equal to the text
  after it) is otherwise left whole, since deleting any one chunk breaks it.
* **ddmin** (Zeller and Hildebrandt, TSE 2002): granularity k starts at 2; try keeping only one
  chunk ("subsets"), then deleting one chunk ("complements"); double k when neither works; stop
  when k has reached the length and nothing more can be deleted. It backs the `--strategy ddmin`
  preset and gives a baseline for test counts.

Rounds under parallelism. The paper runs the chunks of a round one after another, and each success
shrinks the list before the next chunk is tried. Here the chunks of a round are independent tasks
over the list as it was at the start of the round (their indices refer to that list). The engine
runs them in parallel and commits the successes its commit rule accepts. A later chunk therefore
sees the deletions that earlier ones committed only when the engine rebases it. With one worker
this is exactly the paper's sequential loop. The schedule needs only the set of indices actually
deleted.

Weighted splitting (WDD: Zhou et al., "Weighted Delta Debugging", ICSE 2025). A round's chunks
are cut by count; with `by_bytes`, the planner recuts each round of consecutive chunks into as
many chunks of about equal bytes (`by_weight`), so one long function does not share a chunk's
fate with nine one-line declarations. The schedule itself still sees only indices.

Departures from the paper, each to avoid a test whose answer is already known:

* CDD skips a round whose partition would repeat the previous round's on an unchanged list. This
  happens only when both sizes are at least the length, so that every chunk is the whole list.
* ddmin skips the complement tests at k = 2, where each complement is the other subset.
* ddmin's deletion rounds keep every chunk they manage to delete and lower k by that count. The
  classic algorithm restarts after the first success and lowers k by one. With at most one success
  per round the two are the same.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

# ProbDD's initial probability for program reduction: the paper uses 0.1 on its C compiler-bug and
# debloating benchmarks (section IV-D, following Wang et al.); 0.25 is its running example.
DEFAULT_P0 = 0.1

# Per-round growth of the probability, as written in Algorithm 2 line 19 (Eq. 7: 1/(1 - e^-1)).
GROWTH = 1.582

# CDD's subset rounds (`subsets`) run only over rounds of at most this many chunks: keeping one
# line of a hundred alone almost never passes, and would cost a test per line.
SUBSET_MAX = 16

# Relative tolerance for comparing two expected gains: exact ties (p = 1/(s+1)) must read as ties
# even though p0 = 0.1 is not exact in binary.
_TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class Round:
    """One round of a schedule over a list of `length` elements.

    `chunks` are disjoint tuples of indices into that list, in the order the algorithm tries them.
    If `complement` is false, each chunk is a deletion: test the list without it. If it is true
    (ddmin's "subset" step), each chunk is what to keep: test the list without everything else.
    The chunks are then alternatives, and at most one success can be applied. `counter` is the
    schedule's position: CDD's round number r, ddmin's granularity k.

    Raises ValueError if the length is negative, a chunk is empty or out of range, or two chunks
    share an index.
    """

    length: int
    chunks: tuple[tuple[int, ...], ...]
    complement: bool = False
    counter: int = 0

    def __post_init__(self) -> None:
        if self.length < 0:
            raise ValueError(f"negative list length {self.length}")
        seen: set[int] = set()
        for chunk in self.chunks:
            if not chunk:
                raise ValueError("empty chunk")
            for index in chunk:
                if not 0 <= index < self.length:
                    raise ValueError(f"index {index} outside a list of {self.length}")
                if index in seen:
                    raise ValueError(f"index {index} is in two chunks")
                seen.add(index)


class ListSchedule(Protocol):
    """A list-reduction algorithm, split into rounds of independent chunk tests."""

    def first(self, length: int) -> Round | None:
        """The first round for a list of `length` elements, or None if there is nothing to try.

        Raises ValueError if `length` is negative.
        """
        ...

    def next(self, previous: Round, deleted: frozenset[int]) -> Round | None:
        """The round after `previous`, or None when the algorithm has finished.

        `deleted` holds the indices (into `previous`'s list) that the round deleted: the union of
        the committed chunks, or everything outside the kept chunk after a `complement` round.
        Indices in the returned round refer to the list that is left after the deletion.

        Raises ValueError if an index in `deleted` lies outside `previous`'s list.
        """
        ...


def _remaining_length(previous: Round, deleted: frozenset[int]) -> int:
    """Length of the list after `deleted` is removed from `previous`'s list."""
    for index in deleted:
        if not 0 <= index < previous.length:
            raise ValueError(f"deleted index {index} outside a list of {previous.length}")
    return previous.length - len(deleted)


def _log_gain(size: int, p: float) -> float:
    """Logarithm of ProbDD's expected reduction gain E(s) = s * (1 - p)^s (Eq. 4)."""
    return math.log(size) + size * math.log1p(-p)


def cdd_size(round_number: int, p0: float = DEFAULT_P0) -> int:
    """CDD's chunk size for round `round_number` (ComputeSize, Algorithm 2 lines 18-21).

    p_r = p0 * 1.582^r (line 19), and s_r = argmax over s >= 1 of s * (1 - p_r)^s (line 20). By
    Lemma III.3 the argmax is the floor or the ceiling of -1 / ln(1 - p_r) (Eq. 5), whichever
    gives the larger gain. On a tie (exactly when p_r = 1/(s+1)) the larger size wins. The
    paper's own example needs this: p0 = 0.25 ties 3 with 4, and Table III uses 4. The ProbDD code
    in the paper's artifact does the same, since it stops growing the subset only when the gain
    strictly drops. The listing of Algorithm 1 (`gain > currentMaxGain`) would keep 3 instead.
    Once p_r >= 1 the size is 1.

    Raises ValueError if `round_number` is negative or p0 is not strictly between 0 and 1.
    """
    _check_p0(p0)
    if round_number < 0:
        raise ValueError(f"negative round number {round_number}")
    return _size(round_number, p0)


def _size(round_number: int, p0: float) -> int:
    """`cdd_size` without the checks; a negative round is a smaller probability than p0."""
    p = p0 * GROWTH**round_number
    if p >= 1.0:
        return 1
    smaller = max(1, math.floor(-1.0 / math.log1p(-p)))
    larger = smaller + 1
    gain_smaller = _log_gain(smaller, p)
    if _log_gain(larger, p) >= gain_smaller - _TIE_TOLERANCE * max(1.0, abs(gain_smaller)):
        return larger
    return smaller


def _check_p0(p0: float) -> None:
    if not (math.isfinite(p0) and 0.0 < p0 < 1.0):
        raise ValueError(f"initial probability p0 must lie strictly between 0 and 1, not {p0!r}")


def _consecutive_chunks(length: int, size: int) -> tuple[tuple[int, ...], ...]:
    """Partition(L, s) of Algorithm 2: chunks of `size` from the front, a smaller remainder last."""
    return tuple(tuple(range(start, min(start + size, length))) for start in range(0, length, size))


@dataclass(frozen=True)
class CDD:
    """Counter-based delta debugging with initial probability `p0` (see the module docstring).

    Raises ValueError on construction if p0 is not strictly between 0 and 1.
    """

    p0: float = DEFAULT_P0
    # Long lists start from a smaller probability, so the first chunks are about half the list.
    adaptive: bool = False
    # After a fruitless round of 3..SUBSET_MAX chunks, try each chunk alone (ddmin's subsets).
    subsets: bool = False
    # The planner recuts each round by the elements' sizes (`by_weight`).
    by_bytes: bool = False
    # Every round of a list has at least this many chunks (or one per element): the tests
    # running at once (`--jobs`) in parallel mode, a group's worth in deterministic mode, so
    # each round has work for every worker.
    width: int = 1

    def __post_init__(self) -> None:
        _check_p0(self.p0)

    def first(self, length: int) -> Round | None:
        """Round 0: chunks of size s_0 over the whole list; None for an empty list.

        With `adaptive`, a list longer than 2/p0 starts at an earlier (negative) round whose
        probability is about 2/length: the counter schedule then runs as usual from there, so
        a long list needing few elements is cut down in halves first, as ddmin would, instead
        of being tested ten elements at a time. A round with fewer than `width` chunks (and
        fewer than `length`) is skipped for the first later round that has them (`_round`).
        """
        if length < 0:
            raise ValueError(f"negative list length {length}")
        if length == 0:
            return None
        start = 0
        if self.adaptive and length * self.p0 > 2.0:
            start = math.floor(math.log(2.0 / (length * self.p0)) / math.log(GROWTH))
        return self._round(length, start)

    def next(self, previous: Round, deleted: frozenset[int]) -> Round | None:
        """Round r + 1 on what is left; None after the size-1 round or once the list is empty.

        With `subsets`, a fruitless round of 3 to SUBSET_MAX chunks is first followed by its
        subset round (same chunks, same counter); a chunk kept alone is reduced afresh from
        `first`, and a fruitless subset round goes on as its deletion round would have.
        """
        length = _remaining_length(previous, deleted)
        if previous.complement and deleted:
            return self.first(length)
        fruitless = not previous.complement and not deleted
        if self.subsets and fruitless and 3 <= len(previous.chunks) <= SUBSET_MAX:
            return Round(previous.length, previous.chunks, True, previous.counter)
        round_number = previous.counter
        last_chunk_size = min(_size(round_number, self.p0), previous.length)
        while length > 0 and _size(round_number, self.p0) > 1:
            round_number += 1
            # Same chunks on the same list would only repeat known failures.
            if deleted or min(_size(round_number, self.p0), length) != last_chunk_size:
                return self._round(length, round_number)
        return None

    def _round(self, length: int, round_number: int) -> Round:
        wanted = min(self.width, length)
        while -(-length // _size(round_number, self.p0)) < wanted:
            round_number += 1
        size = _size(round_number, self.p0)
        return Round(length, _consecutive_chunks(length, size), counter=round_number)


def cdd(
    p0: float = DEFAULT_P0,
    adaptive: bool = False,
    subsets: bool = False,
    by_bytes: bool = False,
    width: int = 1,
) -> CDD:
    """The CDD schedule with initial probability `p0` (see `CDD.first` for `adaptive`,
    `CDD.next` for `subsets`, `by_weight` for `by_bytes`).

    Raises ValueError if p0 is not strictly between 0 and 1.
    """
    return CDD(p0, adaptive, subsets, by_bytes, width)


def by_weight(rnd: Round, weights: Sequence[int]) -> Round:
    """`rnd` with its chunks recut to the same number of consecutive chunks of about equal total
    weight (each at least one element); a round whose chunks are not consecutive and cover the
    whole list is returned unchanged.

    Raises ValueError if there is not one weight per element.
    """
    if len(weights) != rnd.length:
        raise ValueError(f"{len(weights)} weights for a list of {rnd.length}")
    k, n = len(rnd.chunks), rnd.length
    if k <= 1 or [i for chunk in rnd.chunks for i in chunk] != list(range(n)):
        return rnd
    prefix = list(itertools.accumulate(weights))
    bounds = [0]
    for j in range(1, k):
        cut = bisect.bisect_left(prefix, prefix[-1] * j / k) + 1
        bounds.append(min(max(cut, bounds[-1] + 1), n - (k - j)))
    bounds.append(n)
    chunks = tuple(tuple(range(a, b)) for a, b in itertools.pairwise(bounds))
    return Round(n, chunks, rnd.complement, rnd.counter)


def with_subsets(schedule: ListSchedule) -> ListSchedule:
    """`schedule`, trying chunks alone where it is CDD (ddmin already does)."""
    return replace(schedule, subsets=True) if isinstance(schedule, CDD) else schedule


def cdd_sizes(length: int, p0: float = DEFAULT_P0) -> tuple[int, ...]:
    """The chunk sizes CDD uses on a list of `length` elements if no chunk is ever deleted.

    This is s_0, s_1, ... down to 1 with each size capped at `length`, leaving out the rounds that
    would repeat the previous one. For `length` 8 and p0 = 0.25 it is (4, 2, 1), the rounds of the
    paper's Table III.

    Raises ValueError if `length` is negative or p0 is not strictly between 0 and 1.
    """
    schedule = CDD(p0)
    sizes: list[int] = []
    current = schedule.first(length)
    while current is not None:
        sizes.append(len(current.chunks[0]))
        current = schedule.next(current, frozenset())
    return tuple(sizes)


def _even_chunks(length: int, count: int) -> tuple[tuple[int, ...], ...]:
    """Zeller's split: `count` consecutive chunks whose sizes differ by at most one."""
    chunks: list[tuple[int, ...]] = []
    start = 0
    for i in range(count):
        stop = start + (length - start) // (count - i)
        chunks.append(tuple(range(start, stop)))
        start = stop
    return tuple(chunks)


@dataclass(frozen=True)
class DDMin:
    """Classic ddmin as rounds: subsets at granularity k, then complements, then k doubles."""

    def first(self, length: int) -> Round | None:
        """Subsets at k = 2; None below two elements, which ddmin cannot split."""
        if length < 0:
            raise ValueError(f"negative list length {length}")
        return self._subsets(length, 2)

    def next(self, previous: Round, deleted: frozenset[int]) -> Round | None:
        """Restart at k = 2 after a subset success, at k minus the deleted chunks after complement
        successes, or double k after a fruitless complement round; None when k was the length.
        """
        length = _remaining_length(previous, deleted)
        granularity = len(previous.chunks)
        if previous.complement:
            if deleted:
                return self._subsets(length, 2)
            if granularity > 2:
                return Round(
                    previous.length, previous.chunks, complement=False, counter=granularity
                )
            # At k = 2 each complement is the other subset, just tested.
            return self._refine(length, granularity)
        if deleted:
            removed = sum(1 for chunk in previous.chunks if deleted.issuperset(chunk))
            return self._subsets(length, max(granularity - max(removed, 1), 2))
        return self._refine(length, granularity)

    @staticmethod
    def _subsets(length: int, granularity: int) -> Round | None:
        if length < 2:
            return None
        k = min(granularity, length)
        return Round(length, _even_chunks(length, k), complement=True, counter=k)

    @staticmethod
    def _refine(length: int, granularity: int) -> Round | None:
        if granularity >= length:
            return None
        return DDMin._subsets(length, min(2 * granularity, length))


def ddmin() -> DDMin:
    """The classic ddmin schedule."""
    return DDMin()


@dataclass(frozen=True)
class Simulation:
    """Outcome of `simulate`: the kept original indices, the tests run, and the rounds proposed."""

    kept: tuple[int, ...]
    tests: int
    rounds: tuple[Round, ...]


def simulate(
    schedule: ListSchedule,
    length: int,
    interesting: Callable[[tuple[int, ...]], bool],
    max_rounds: int = 1_000_000,
) -> Simulation:
    """Run `schedule` on a list of `length` elements the way a one-worker engine would.

    `interesting` receives the original indices a candidate keeps, in order. It is assumed to hold
    for the full list. Inside a round each chunk is tested on the list left by the round's earlier
    successes, which is the paper's sequential loop. In a `complement` round the first chunk that
    is interesting on its own wins and the rest are not tested. Every candidate counts as one
    test; there is no cache.

    Raises RuntimeError if the schedule has not finished after `max_rounds` rounds.
    """
    current = list(range(length))
    tests = 0
    rounds: list[Round] = []
    proposed = schedule.first(length)
    while proposed is not None:
        if len(rounds) >= max_rounds:
            raise RuntimeError(f"schedule still running after {max_rounds} rounds")
        rounds.append(proposed)
        deleted: set[int] = set()
        for chunk in proposed.chunks:
            if proposed.complement:
                candidate = tuple(current[i] for i in chunk)
            else:
                gone = deleted.union(chunk)
                candidate = tuple(e for i, e in enumerate(current) if i not in gone)
            tests += 1
            if interesting(candidate):
                if proposed.complement:
                    deleted = set(range(proposed.length)).difference(chunk)
                    break
                deleted.update(chunk)
        current = [e for i, e in enumerate(current) if i not in deleted]
        proposed = schedule.next(proposed, frozenset(deleted))
    return Simulation(tuple(current), tests, tuple(rounds))
