"""Where a run's time goes (judge/busy.py): busy quarters and wasted tests, on real reductions."""

from __future__ import annotations

import threading
from collections.abc import Iterable

from hypothesis import given
from hypothesis import strategies as st
from test_engine import LINES, EachLine, Run, Scripted, keeps

import treereduce_py
from treereduce_py import events
from treereduce_py.edit.edits import Edits
from treereduce_py.edit.tasks import Delete, DeleteChunk, Task
from treereduce_py.judge.busy import WASTE, busy_shares
from treereduce_py.lang.syntax import NodeTable

WAIT = 10.0  # seconds a scripted test waits for the other one at most (a guard, not a timing)


def test_busy_shares_split_each_interval_between_the_quarters_it_spans() -> None:
    # Four quarters of 1 s; one worker busy all along, the other from 0.5 s to 1.5 s.
    assert busy_shares([(0, 4), (0.5, 1.5)], 0, 4, jobs=2) == (0.75, 0.75, 0.5, 0.5)
    assert busy_shares([(-5, 1), (3.5, 9)], 0, 4, jobs=1) == (1.0, 0.0, 0.0, 0.5)
    assert busy_shares([(1, 2)], 3, 3, jobs=1) == (0.0,) * 4


@given(st.lists(st.tuples(st.floats(0, 100), st.floats(0, 100)).map(sorted), max_size=20))
def test_busy_shares_add_up_to_the_time_covered(pairs: list[list[float]]) -> None:
    intervals = [(a, b) for a, b in pairs]
    shares = busy_shares(intervals, 0.0, 100.0, jobs=3)
    covered = sum(b - a for a, b in intervals)
    assert abs(sum(shares) * 25.0 * 3 - covered) < 1e-2 * (1 + len(intervals))


def on_commit(run: Run, event: threading.Event) -> None:
    """Set `event` when the run's best changes."""
    offer = run.best.offer

    def offered(data: bytes) -> None:
        offer(data)
        event.set()

    run.best.offer = offered  # type: ignore[method-assign]


def chunk_and_line(run: Run, size: int = 3) -> Scripted:
    """Delete lines 0-2 together and line 2 alone: the chunk's success makes the line moot.
    (The chunk is worth under `engine.DECLINE` times the line, so the line's test starts
    beside it.)"""
    lines = list(run.table.children(0))
    return Scripted([DeleteChunk(tuple(lines[:size])), Delete(lines[2])])


def test_a_test_whose_edit_a_concurrent_success_removed_is_counted_moot() -> None:
    line_started, chunk_committed = threading.Event(), threading.Event()
    without_line_2 = LINES.replace(b"line 02\n", b"")

    def predicate(candidate: bytes) -> bool:
        if candidate == without_line_2:  # the line's test: still running when the chunk commits
            line_started.set()
            chunk_committed.wait(WAIT)
        else:  # the chunk's test: answers once the line's test runs
            line_started.wait(WAIT)
        return True

    run = Run(predicate, jobs=2)
    on_commit(run, chunk_committed)
    assert run.run(chunk_and_line(run))
    counts = run.counters
    assert counts.tests == 2
    assert dict(counts.wasted) == {"stale": 0, "moot": 1, "merge": 0}


def test_a_task_inside_a_running_test_worth_far_more_waits_for_its_answer() -> None:
    tested: list[bytes] = []

    def predicate(candidate: bytes) -> bool:
        tested.append(candidate)
        return True

    run = Run(predicate, jobs=2)
    assert run.run(chunk_and_line(run, size=6))  # lines 0-5: six times the line
    # The line's test would be lost if the chunk passed: the second worker waited for the
    # chunk's answer, and then the line was gone, settled without a test.
    assert run.counters.tests == 1
    assert LINES.replace(b"line 02\n", b"") not in tested
    assert dict(run.counters.wasted) == {"stale": 0, "moot": 0, "merge": 0}


def whole_and_chunk(run: Run) -> Scripted:
    """Delete the whole text, and lines 0-2 (worth far less than `engine.DECLINE` times less)."""
    lines = list(run.table.children(0))
    return Scripted([Delete(0), DeleteChunk(tuple(lines[:3]))])


def test_the_whole_texts_deletion_keeps_no_task_waiting() -> None:
    chunk_started = threading.Event()
    beside: list[bool] = []

    def predicate(candidate: bytes) -> bool:
        if not candidate.strip():  # the whole text's deletion: is the chunk tested meanwhile?
            beside.append(chunk_started.wait(WAIT))
            return False
        chunk_started.set()
        return True

    run = Run(predicate, jobs=2)
    assert run.run(whole_and_chunk(run))
    assert beside == [True]
    assert run.counters.tests == 2


class WholeThenRound(Scripted):
    """The whole text's deletion and a small first task (line 11 alone, as an offer's), with
    what the deletion's failure explores (lines 0-5 as a chunk) only as its speculation, which
    a worker takes long to make (SMT-LIB's exploration of 700 commands does): until another
    test has started."""

    def __init__(self, run: Run, other_started: threading.Event) -> None:
        self.lines = list(run.table.children(0))
        self.other_started = other_started
        super().__init__([Delete(0), Delete(self.lines[11])])

    def speculate(self, task: Task, passed: bool = False) -> Iterable[Task]:
        if task != Delete(0):
            return []
        if threading.current_thread() is not threading.main_thread():
            self.other_started.wait(WAIT)
        return [DeleteChunk(tuple(self.lines[:6]))]


def test_a_worker_free_beside_the_whole_texts_deletion_takes_the_first_round() -> None:
    # With only the first tasks queued, the free worker took line 11: on smt-unsat-conflicts,
    # an SMT-LIB rule's small first task, which left it a fifth larger after 5000 tests.
    other_started = threading.Event()
    beside: list[bytes] = []
    lock = threading.Lock()

    def predicate(candidate: bytes) -> bool:
        if not candidate.strip():  # the whole text's deletion: waits for the other test
            other_started.wait(WAIT)
            return False
        with lock:
            beside.append(candidate)
        other_started.set()
        return False

    run = Run(predicate, jobs=2)
    run.run(WholeThenRound(run, other_started))
    assert beside[0] == LINES.split(b"\n", 6)[6], beside


def test_a_success_on_an_overtaken_state_is_counted_stale() -> None:
    first, committed = threading.Event(), threading.Event()

    def predicate(candidate: bytes) -> bool:
        if not first.is_set():  # the first test waits until another success commits
            first.set()
            committed.wait(WAIT)
        return b"line 03" in candidate

    run = Run(predicate, jobs=2)
    on_commit(run, committed)
    assert run.run()
    assert run.best.data == b"line 03\n"
    assert run.counters.wasted["stale"] >= 1
    assert sum(run.counters.wasted.values()) <= run.counters.tests


def test_a_real_reduction_reports_consistent_busy_quarters_and_waste() -> None:
    source = b"".join(b"x%d = %d\n" % (i, i) for i in range(40)) + b"keep = 1\n"
    seen: list[events.Event] = []

    def test(candidate: bytes) -> bool:
        threading.Event().wait(0.01)  # a slow test, so that workers overlap
        return b"keep" in candidate

    result = treereduce_py.reduce(
        source, language="python", test=test, jobs=4, progress=seen.append
    )
    done = [e for e in seen if isinstance(e, events.Done)]
    assert b"keep" in result.reduced and len(result.reduced) < 10 and len(done) == 1
    stats = done[0].stats
    assert len(stats.busy_quarters) == 4
    assert all(0.0 <= share <= 1.0 for share in stats.busy_quarters)
    assert any(share > 0 for share in stats.busy_quarters)
    assert set(stats.wasted) == set(WASTE)
    assert sum(stats.wasted.values()) <= stats.tests
    # Elsewhere the quarters are not computed.
    assert all(e.stats.busy_quarters == () for e in seen if isinstance(e, events.Progress))


def test_in_deterministic_mode_no_test_is_stale_at_any_jobs() -> None:
    # Each line deleted on its own, no follow-ups: a group's tests are all built on one state,
    # so four workers run exactly the tests one runs, none of them on a state that is gone.
    one = Run(keeps(b"line 03", b"line 07"), jobs=1)
    one.run(deterministic=True)
    four = Run(keeps(b"line 03", b"line 07"), jobs=4)
    four.run(deterministic=True)
    assert four.best.data == one.best.data == b"line 03\nline 07\n"
    assert one.counters.wasted["stale"] == four.counters.wasted["stale"] == 0
    assert four.counters.tests == one.counters.tests


class MergeAndFollowUp(Scripted):
    """Lines 1 and 5 as one chunk, lines 0 and 1 each alone, and line 9 once the chunk failed
    (its follow-up: queued while the merge of line 1's success is tested)."""

    def __init__(self, run: Run) -> None:
        self.lines = list(run.table.children(0))
        chunk = DeleteChunk((self.lines[1], self.lines[5]))
        super().__init__([chunk, Delete(self.lines[0]), Delete(self.lines[1])])

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        return [Delete(self.lines[9])] if isinstance(task, DeleteChunk) else []


def test_a_task_started_while_a_merge_is_tested_is_built_on_the_union() -> None:
    b_started, a_committed = threading.Event(), threading.Event()
    merge_started, c_seen = threading.Event(), threading.Event()
    c_candidates: list[bytes] = []

    def has(candidate: bytes, k: int) -> bool:
        return b"line %02d\n" % k in candidate

    def predicate(candidate: bytes) -> bool:
        if not has(candidate, 9):  # line 9's deletion, started while the merge is tested
            c_candidates.append(candidate)
            c_seen.set()
            return True
        if not has(candidate, 5):  # the chunk: fails once the merge is under way
            merge_started.wait(WAIT)
            return False
        if not has(candidate, 0) and not has(candidate, 1):  # the merge of line 1's success
            merge_started.set()
            c_seen.wait(WAIT)
            return True
        if not has(candidate, 0):  # line 0's: commits first
            b_started.wait(WAIT)
            return True
        b_started.set()  # line 1's: passes on the state line 0's commit replaced
        a_committed.wait(WAIT)
        return True

    run = Run(predicate, jobs=3)
    on_commit(run, a_committed)
    assert run.run(MergeAndFollowUp(run))
    assert merge_started.is_set() and len(c_candidates) == 1
    # Line 9's deletion was built on the union being tested (lines 0 and 1 gone), not on the
    # committed state (line 0 gone), and it is in the result with the others.
    assert not has(c_candidates[0], 0) and not has(c_candidates[0], 1)
    gone = (b"line 00\n", b"line 01\n", b"line 09\n")
    assert run.best.data == b"".join(x for x in LINES.splitlines(keepends=True) if x not in gone)


def test_a_success_that_arrives_while_a_merge_is_tested_is_merged_beside_it() -> None:
    # Line 0's deletion commits; line 1's passes on the state it replaced, and its merge is
    # tested; line 2's passes while that merge is under way. Its own merge is built on the
    # union being tested and tested beside it (it used to wait for the first merge's answer).
    b_started, c_started, a_committed = threading.Event(), threading.Event(), threading.Event()
    merge_started, chained_seen = threading.Event(), threading.Event()
    chained: list[bytes] = []
    in_time: list[bool] = []

    def has(candidate: bytes, k: int) -> bool:
        return b"line %02d\n" % k in candidate

    def predicate(candidate: bytes) -> bool:
        gone = {k for k in range(3) if not has(candidate, k)}
        if gone == {0, 1, 2}:  # the chained merge
            chained.append(candidate)
            chained_seen.set()
            return True
        if gone == {2}:  # line 2's deletion: passes once the first merge is under way
            c_started.set()
            merge_started.wait(WAIT)
            return True
        if gone == {0, 1}:  # the merge of line 1's success
            merge_started.set()
            in_time.append(chained_seen.wait(WAIT))
            return True
        if gone == {0}:  # line 0's: commits first, once the other two are under way
            b_started.wait(WAIT)
            c_started.wait(WAIT)
            return True
        if gone == {1}:  # line 1's: passes on the state line 0's commit replaced
            b_started.set()
            a_committed.wait(WAIT)
            return True
        return False

    run = Run(predicate, jobs=4)
    on_commit(run, a_committed)
    lines = list(run.table.children(0))
    assert run.run(Scripted([Delete(lines[k]) for k in range(3)]))
    assert in_time == [True] and len(chained) == 1
    gone = (b"line 00\n", b"line 01\n", b"line 02\n")
    assert run.best.data == b"".join(x for x in LINES.splitlines(keepends=True) if x not in gone)
    assert run.counters.tests == 5


class Speculating(EachLine):
    """EachLine, recording which tasks were asked what a failure would start."""

    def __init__(self, table: NodeTable) -> None:
        super().__init__(table)
        self.asked: list[Task] = []

    def speculate(self, task: Task, passed: bool = False) -> Iterable[Task]:
        with self.lock:
            self.asked.append(task)
        return ()


def test_every_task_a_worker_starts_is_asked_for_its_speculation_however_full_the_heap() -> None:
    # Twelve line deletions that all fail, on two workers: the heap holds more than two tasks
    # nearly all along, and a list's next round (rounds.py) must still start beside the last
    # chunks of its round.
    every_line = [b"line %02d" % i for i in range(12)]
    run = Run(keeps(*every_line), jobs=2)
    planner = Speculating(run.table)
    assert not run.run(planner)
    assert set(planner.asked) == {task for task, _ in planner.answers}
    assert len(planner.answers) == 12
    one = Run(keeps(*every_line), jobs=1)
    alone = Speculating(one.table)
    one.run(alone)
    assert alone.asked == []  # one worker has nobody to start them
