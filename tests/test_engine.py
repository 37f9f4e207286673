"""The engine alone, with scripted oracles: commits, merges, speculation, stops and failures."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterable

import pytest
import tree_sitter
from hypothesis import given, settings
from hypothesis import strategies as st

from treereduce_py import events
from treereduce_py.edit.edits import Edits, Span
from treereduce_py.edit.tasks import Delete, Planner, Replace, Task, gain
from treereduce_py.engine.commit import Committer
from treereduce_py.engine.engine import Engine
from treereduce_py.engine.inorder import GROUP
from treereduce_py.engine.merging import MERGE_PRIORITY
from treereduce_py.engine.output import BestSoFar
from treereduce_py.engine.parallel import Parallel
from treereduce_py.engine.passes import Merge
from treereduce_py.judge.check import SyntaxCheck
from treereduce_py.judge.judge import Budget, Counts, Interesting, Judge, PassJudge, Stopped
from treereduce_py.judge.oracle import CallableOracle
from treereduce_py.lang.languages import new_parser
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.transform.facts import SyntaxFacts
from treereduce_py.transform.planners import TreePlanner

LINES = b"".join(b"line %02d\n" % i for i in range(12))


class EachLine:
    """Delete each line of a line table on its own: independent tasks, no follow-ups."""

    def __init__(self, table: NodeTable) -> None:
        self.table = table
        self.answers: list[tuple[Task, bool]] = []
        self.lock = threading.Lock()

    def initial(self) -> Iterable[Task]:
        return [Delete(c) for c in self.table.children(0)]

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        with self.lock:
            self.answers.append((task, accepted))
        return ()

    def speculate(self, task: Task, passed: bool = False) -> Iterable[Task]:
        return ()

    def wanted(self, task: Task) -> bool:
        return True


class Run:
    """An engine over one table with a predicate oracle; records every offered best."""

    def __init__(
        self,
        predicate: Callable[[bytes], bool],
        jobs: int,
        text: bytes = LINES,
        max_tests: int | None = None,
    ) -> None:
        self.judge = Judge(
            CallableOracle(predicate),
            "python",
            syntax_strict=False,
            budget=Budget(max_tests=max_tests),
        )
        self.best = BestSoFar(None, text)
        self.offered: list[bytes] = []
        offer = self.best.offer

        def record(data: bytes) -> None:
            self.offered.append(data)
            offer(data)

        self.best.offer = record  # type: ignore[method-assign]
        self.table = NodeTable.from_lines(text)
        committer = Committer(self.judge, self.best, lambda _e: None, self.stats)
        self.engine = Engine(self.judge, committer, jobs, lambda _e: None, self.stats)

    @property
    def counters(self) -> Counts:
        return self.judge.counts()

    def stats(self) -> events.Stats:
        return events.Stats(original_size=0, size=len(self.best.data))

    def ask(self) -> PassJudge:
        """The judge as a pass over this run's table asks it."""
        return self.judge.for_pass(check=SyntaxCheck("python"), max_errors=0)

    def run(self, planner: Planner | None = None, deterministic: bool = False) -> bool:
        planner = planner or EachLine(self.table)
        return self.engine.run_pass(self.table, planner, self.ask(), deterministic)


def keeps(*needles: bytes, sleep: float = 0.0) -> Callable[[bytes], bool]:
    def predicate(candidate: bytes) -> bool:
        time.sleep(sleep)
        return all(n in candidate for n in needles)

    return predicate


def test_a_success_on_the_current_state_commits_directly() -> None:
    run = Run(keeps(b"line 03"), jobs=1)
    assert run.run()
    assert run.best.data == b"line 03\n"
    assert run.counters.tests == 12 and run.counters.commit_retries == 0


def test_concurrent_successes_are_merged_into_one_test() -> None:
    # Twelve workers delete twelve lines at once; eleven succeed on the same (soon overtaken)
    # state. Retesting each on the newer state would take eleven more tests; merging takes few.
    run = Run(keeps(b"line 03", sleep=0.05), jobs=12)
    assert run.run()
    assert run.best.data == b"line 03\n"
    assert run.counters.tests <= 12 + 3
    assert run.counters.commit_retries >= 1  # the merge path was taken


def test_a_failed_merge_falls_back_to_smaller_merges() -> None:
    # Deleting line 01 or line 02 alone is fine, deleting both is not: the merge of the two
    # successes fails, and the halves are tried one after the other.
    def one_of_them(candidate: bytes) -> bool:
        time.sleep(0.05)
        return b"line 01" in candidate or b"line 02" in candidate

    text = b"line 01\nline 02\n"
    run = Run(one_of_them, jobs=2, text=text)
    assert run.run()
    assert run.best.data in (b"line 01\n", b"line 02\n")
    assert all(one_of_them(b) for b in run.offered)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), jobs=st.sampled_from([2, 16]))
def test_only_interesting_candidates_are_committed(seed: int, jobs: int) -> None:
    """A randomized (but consistent) oracle with 16 workers: every best was answered yes."""
    rng = random.Random(seed)
    answers: dict[bytes, bool] = {}
    lock = threading.Lock()

    def oracle(candidate: bytes) -> bool:
        time.sleep(rng.random() * 0.002)
        with lock:
            return answers.setdefault(candidate, rng.random() < 0.4)

    text = b"".join(b"x%d y%d\n" % (i, i) for i in range(8))
    table = NodeTable.from_tree(text, _parse(text))
    run = Run(oracle, jobs=jobs, text=text)
    run.table = table
    run.run(TreePlanner(table, SyntaxFacts.build(table, None)))
    assert all(answers[b] for b in run.offered)
    assert [len(b) for b in run.offered] == sorted((len(b) for b in run.offered), reverse=True)
    assert run.best.data == (run.offered[-1] if run.offered else text)


def _parse(text: bytes) -> tree_sitter.Tree:
    return new_parser("python").parse(text)


def test_speculated_children_are_dropped_when_the_parent_goes() -> None:
    # Deleting the root succeeds: the children queued while it was tested no longer apply,
    # so they cost no test.
    text = b"a = 1\nb = 2\nc = 3\nd = 4\n"
    run = Run(lambda _c: True, jobs=1, text=text)
    run.table = NodeTable.from_tree(text, _parse(text))
    assert run.run(TreePlanner(run.table, SyntaxFacts.build(run.table, None)))
    assert run.best.data == b""
    assert run.counters.tests == 1


def test_a_budget_stops_the_pass() -> None:
    run = Run(keeps(b"line 03"), jobs=2, max_tests=3)
    with pytest.raises(Stopped) as stop:
        run.run()
    assert stop.value.reason == "max-tests"
    assert run.counters.tests <= 3


def test_a_worker_exception_surfaces_and_stops_every_worker() -> None:
    def broken(candidate: bytes) -> bool:
        if b"line 05" not in candidate:
            raise RuntimeError("oracle bug")
        time.sleep(0.01)
        return False

    run = Run(broken, jobs=4)
    before = threading.active_count()
    with pytest.raises(RuntimeError, match="oracle bug"):
        run.run()
    assert threading.active_count() <= before


def test_a_pass_ends_when_every_worker_is_idle() -> None:
    # Nothing is interesting: sixteen workers, twelve tasks; the pass must end, not hang.
    run = Run(lambda _c: False, jobs=16)
    assert not run.run()
    assert run.counters.tests == 12
    assert run.best.data == LINES


def test_deterministic_mode_gives_the_same_result_at_any_jobs() -> None:
    results = set()
    for jobs in (1, 3, 8):
        run = Run(keeps(b"line 03", b"line 09"), jobs=jobs)
        run.run(deterministic=True)
        results.add(run.best.data)
    assert results == {b"line 03\nline 09\n"}


@pytest.mark.parametrize("jobs", [1, 4])
def test_deterministic_mode_commits_a_groups_successes_as_one_union(jobs: int) -> None:
    # The twelve deletions edit twelve different lines: groups of GROUP (8), then 4, each
    # tested on one state. Of each group all but one pass alone; their union is tested once and
    # committed whole, at any jobs.
    assert GROUP == 8
    run = Run(keeps(b"line 03", b"line 09"), jobs=jobs)
    assert run.run(deterministic=True)
    assert run.offered == [b"line 03\nline 08\nline 09\nline 10\nline 11\n", b"line 03\nline 09\n"]
    assert run.counters.tests == 12 + 2


def test_deterministic_mode_runs_the_same_tests_when_two_tasks_make_one_text() -> None:
    # Deleting either of two equal lines makes the same text: in one group two workers would
    # test it twice at once, where one worker answers the second from the cache.
    counts = set()
    for jobs in (1, 2):
        run = Run(keeps(b"x", sleep=0.05), jobs=jobs, text=b"x\nx\n")
        run.run(deterministic=True)
        assert run.best.data == b"x\n"
        counts.add(run.counters.tests)
    assert counts == {2}  # "x\n", then "" (which fails)


def test_deterministic_mode_falls_back_to_the_first_success_when_the_union_fails() -> None:
    # Each deletion passes alone, no two together: the first group's union fails, its first
    # success in heap order (equal gains: the first line) is committed alone, and the others
    # are tried again on the new state, where each fails. The four tasks left after the first
    # group were tested beside the union, built on it: those answers are dropped.
    def eleven_lines(candidate: bytes) -> bool:
        return candidate.count(b"\n") >= 11

    run = Run(eleven_lines, jobs=3)
    assert run.run(deterministic=True)
    assert run.offered == [LINES.replace(b"line 00\n", b"")]
    assert run.counters.tests == GROUP + 1 + 4 + 11
    assert run.counters.wasted.get("merge") == 1


def test_deterministic_mode_reports_progress_at_most_once_an_interval() -> None:
    # Quick groups must not flood the event stream (--json) with a progress event each.
    seen: list[events.Event] = []
    run = Run(keeps(b"line 03"), jobs=2)
    run.engine.emit = seen.append
    run.engine.progress_interval = 60.0
    run.run(deterministic=True)
    assert not [e for e in seen if isinstance(e, events.Progress)]


def test_deterministic_mode_reports_progress_while_a_slow_test_runs() -> None:
    # The live panel shows how long a slow test has run; a batch of deterministic mode must
    # not leave it frozen until every test of the batch is done.
    seen: list[float] = []
    first = threading.Event()

    def slow_once(candidate: bytes) -> bool:
        if not first.is_set():
            first.set()
            time.sleep(0.6)
        return b"line 03" in candidate

    def sink(event: events.Event) -> None:
        if isinstance(event, events.Progress):
            seen.extend(event.stats.running)

    run = Run(slow_once, jobs=2)
    judge = run.judge
    run.engine.emit = sink
    run.engine.stats = lambda: events.Stats(
        original_size=0,
        size=0,
        running=tuple(time.monotonic() - t for t in judge.counts().running_since),
    )
    run.engine.progress_interval = 0.05
    run.run(deterministic=True)
    assert any(t >= 0.3 for t in seen), seen


class Scripted:
    """Fixed first tasks, no follow-ups."""

    def __init__(self, tasks: list[Task]) -> None:
        self.tasks = tasks

    def initial(self) -> Iterable[Task]:
        return self.tasks

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        return ()

    def speculate(self, task: Task, passed: bool = False) -> Iterable[Task]:
        return ()

    def wanted(self, task: Task) -> bool:
        return True


def alternatives_first(width: int, good: bytes) -> tuple[Run, list[bytes], list[Task]]:
    """Two workers on a first line of `width` x's, whose replacements by "A" and "B" come
    before deleting each other line; interesting when the first line became `good`. The run,
    the first two bytes of each candidate in the order tests started, and the tasks."""
    started: list[bytes] = []
    lock = threading.Lock()

    def predicate(candidate: bytes) -> bool:
        with lock:
            started.append(candidate[:2])
        time.sleep(0.05)
        return candidate.startswith(good)

    run = Run(predicate, jobs=2, text=b"x" * width + b"\n" + LINES)
    first, *rest = run.table.children(0)
    tasks: list[Task] = [Replace(first, b"A\n"), Replace(first, b"B\n")]
    tasks += [Delete(c) for c in rest]
    assert run.run(Scripted(tasks))
    assert run.best.data.startswith(good)
    return run, started, tasks


def test_a_nodes_alternatives_wait_for_each_other_while_independent_work_exists() -> None:
    # The two replacements of the first line are the best tasks. With two workers the second
    # worker deletes other lines meanwhile (each worth as much as a replacement; much smaller
    # independent tasks would not be preferred, below) instead of testing the other
    # replacement at the same time: the first replacement succeeds, so the second is never tested.
    run, started, tasks = alternatives_first(9, b"A\n" + LINES)
    assert {gain(run.table, t) for t in tasks} == {8}
    assert b"B\n" not in started
    assert run.counters.tests == len(tasks) - 1, started


def test_a_big_alternative_is_speculated_before_small_independent_work() -> None:
    # The replacements of a long first line are worth far more than deleting another line:
    # the second worker tests the other replacement at once (if the first fails, as most tests
    # do, it was the best thing to test) instead of a small deletion that happens to be
    # independent.
    _, started, _ = alternatives_first(60, b"B\n")
    assert sorted(started[:2]) == [b"A\n", b"B\n"], started


@pytest.mark.parametrize("rider_passes", [True, False])
def test_a_merge_carries_the_best_independent_task(rider_passes: bool) -> None:
    # Two proposals wait for their merge; the best task in the heap rides along. When the union
    # with it is interesting, one test commits all three; when not, the rider has failed and
    # the union is tested alone.
    keep = b"line 00" if rider_passes else b"line 03"
    run = Run(keeps(keep), jobs=2)
    planner = EachLine(run.table)
    lines = list(run.table.children(0))
    run_pass = Parallel(run.engine, run.table, planner, run.ask())
    run_pass.heap = type(run_pass.heap)()  # only what the test puts there
    run_pass.pending = [Delete(lines[1]), Delete(lines[2])]
    run_pass.merges = 1
    run_pass.push([Delete(lines[3])])
    run_pass.heap.push(Merge(), MERGE_PRIORITY, -1)
    item = run_pass.heap.pop()
    assert isinstance(item, Merge)
    run_pass.merge(item, 0)
    run_pass.heap.done()
    gone = [b"line %02d" % i for i in (1, 2, 3) if b"line %02d" % i not in run_pass.state.text]
    rider = (Delete(lines[3]), rider_passes)
    if rider_passes:
        assert run.counters.tests == 1 and len(gone) == 3
    else:
        assert run.counters.tests == 2 and gone == [b"line 01", b"line 02"]
    assert rider in planner.answers
    assert len(run_pass.heap) == 0 and run_pass.merges == 0


def test_successes_that_arrive_during_a_riders_test_chain_on_the_union_tested_alone() -> None:
    # A merge takes the two pending proposals and the best independent task as its rider; while
    # that test runs, another chunk of the round succeeds on the old state and is proposed. The
    # rider fails, so the union is tested alone: the new proposal gets a chained merge on it at
    # once (tested beside it by another worker), not a merge of its own after it.
    run_pass: Parallel | None = None
    queued: list[bool] = []  # per test: whether a chained merge was queued when it started

    def predicate(candidate: bytes) -> bool:
        assert run_pass is not None
        queued.append(any(isinstance(m, Merge) and m.chained for *_, m in run_pass.heap._heap))
        if len(queued) == 1:  # the union with its rider: meanwhile line 04's deletion passed
            run_pass.propose([Delete(lines[4])])
        return b"line 03" in candidate

    run = Run(predicate, jobs=2)
    lines = list(run.table.children(0))
    run_pass = Parallel(run.engine, run.table, EachLine(run.table), run.ask())
    run_pass.heap = type(run_pass.heap)()  # only what the test puts there
    run_pass.pending = [Delete(lines[1]), Delete(lines[2])]
    run_pass.merges = 1
    run_pass.push([Delete(lines[3])])  # the rider, which fails
    run_pass.heap.push(Merge(), MERGE_PRIORITY, -1)
    item = run_pass.heap.pop()
    assert isinstance(item, Merge)
    run_pass.merge(item, 0)
    run_pass.heap.done()
    assert queued == [False, True]  # the union alone started with the chained merge queued
    assert b"line 01" not in run_pass.state.text and b"line 02" not in run_pass.state.text
    chained = run_pass.heap.pop()
    assert isinstance(chained, Merge) and chained.chained and run_pass.pending == [Delete(lines[4])]


def test_a_chained_merge_whose_first_is_over_leaves_its_proposals_to_the_one_running() -> None:
    # The first merge failed and its halves are being merged: a chained merge that starts now
    # tests nothing (two merges on one state would race, and the loser's passing union would
    # be settled as failed); its proposals wait for the halves' merge, which takes them next.
    run = Run(keeps(b"line 03"), jobs=2)
    lines = list(run.table.children(0))
    run_pass = Parallel(run.engine, run.table, EachLine(run.table), run.ask())
    run_pass.heap = type(run_pass.heap)()  # only what the test puts there
    pending = [Delete(lines[1]), Delete(lines[2])]
    run_pass.pending = list(pending)
    run_pass.merges = 2  # the halves' merge, running elsewhere, and this one
    run_pass.chain = True
    run_pass.heap.push(Merge(chained=True), MERGE_PRIORITY, -1)
    item = run_pass.heap.pop()
    assert isinstance(item, Merge) and item.chained
    run_pass.merge(item, 0)
    run_pass.heap.done()
    assert run.counters.tests == 0 and run_pass.pending == pending
    assert run_pass.merges == 1 and not run_pass.chain and len(run_pass.heap) == 0


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_deterministic_mode_commits_the_same_sequence_as_one_worker(seed: int) -> None:
    """Tests run at random speeds; the commits and the tests run are those of `jobs=1`."""
    text = b"".join(
        b"def f%d(a, b):\n    x = a + %d\n    return [x, b, (a, %d)]\n" % (i, i, i)
        for i in range(4)
    )
    table = NodeTable.from_tree(text, _parse(text))
    rng = random.Random(seed)
    answers: dict[bytes, bool] = {}
    lock = threading.Lock()

    def oracle(candidate: bytes) -> bool:
        with lock:
            delay = rng.random() * 0.003
            answer = answers.setdefault(candidate, rng.random() < 0.3)
        time.sleep(delay)
        return answer

    sequences, tests = [], []
    for jobs in (1, 3, 8):
        run = Run(oracle, jobs=jobs, text=text)
        run.table = table
        run.run(TreePlanner(table, SyntaxFacts.build(table, None)), deterministic=True)
        sequences.append(run.offered)
        tests.append(run.counters.tests)
    assert sequences[0] == sequences[1] == sequences[2]
    assert tests[0] == tests[1] == tests[2]  # the same tests, not only the same commits


def waits_for(condition: Callable[[], bool]) -> None:
    """Until `condition` holds (a test that hangs fails on its deadline, not on timing)."""
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.001)


class Overtaking(PassJudge):
    """The pass's judge, which holds a candidate lacking `late` (but not `first`) between its
    build and its test until `first` is gone from the best; `built` says it is held."""

    def __init__(self, run: Run, late: bytes, first: bytes, built: threading.Event) -> None:
        ask = run.ask()
        super().__init__(run.judge, ask._check, ask._max_errors)
        self.run, self.late, self.first, self.built = run, late, first, built

    def __call__(
        self,
        candidate: bytes,
        worker: int,
        spans: list[Span] | None = None,
        since: Edits | None = None,
        fresh: Callable[[], bool] | None = None,
    ) -> Interesting | None:
        if self.late not in candidate and self.first in candidate:
            self.built.set()
            waits_for(lambda: self.first not in self.run.best.data)
        return super().__call__(candidate, worker, spans, since, fresh)


def test_a_candidate_overtaken_before_its_test_is_rebuilt_on_the_new_state() -> None:
    # Line 01's deletion is built on the state that still has line 02, whose deletion commits
    # before that test starts: it is rebuilt on the new state and tested there, once.
    one, two = b"line 01", b"line 02"
    tested: list[bytes] = []
    built = threading.Event()

    def predicate(candidate: bytes) -> bool:
        if two not in candidate and one in candidate:
            built.wait(30)
        tested.append(candidate)
        return b"line 05" in candidate

    run = Run(predicate, jobs=2)
    ask = Overtaking(run, late=one, first=two, built=built)
    first, second = list(run.table.children(0))[1:3]
    assert run.engine.run_pass(run.table, Scripted([Delete(first), Delete(second)]), ask)
    assert one not in run.best.data and two not in run.best.data
    assert all(one in t or two not in t for t in tested)  # never tested on the old state
    assert len(tested) == 2 and run.counters.wasted["stale"] == 0


class Unwanted(Scripted):
    """Scripted tasks, some of which the planner no longer wants by the time they are popped."""

    def __init__(self, tasks: list[Task], unwanted: list[Task]) -> None:
        super().__init__(tasks)
        self.unwanted = unwanted
        self.settled: list[tuple[Task, bool]] = []

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        self.settled.append((task, accepted))
        return ()

    def wanted(self, task: Task) -> bool:
        return all(task is not t for t in self.unwanted)


@pytest.mark.parametrize("jobs", [1, 3])
def test_a_task_the_planner_no_longer_wants_is_settled_without_a_test(jobs: int) -> None:
    tested: list[bytes] = []

    def predicate(candidate: bytes) -> bool:
        tested.append(candidate)
        return False

    run = Run(predicate, jobs=jobs)
    tasks: list[Task] = [Delete(c) for c in run.table.children(0)]
    planner = Unwanted(tasks, tasks[2:5])
    assert not run.run(planner)
    assert len(tested) == len(tasks) - 3
    assert all(b"line %02d" % i in t for t in tested for i in (2, 3, 4))
    accepted = [t for t, ok in planner.settled if ok]  # no follow-ups for them
    assert len(planner.settled) == len(tasks) and set(accepted) == set(tasks[2:5])


@pytest.mark.parametrize("jobs", [1, 2])
def test_deterministic_mode_tests_a_nodes_alternatives_in_one_group(jobs: int) -> None:
    # Both alternatives of line 03 are tested on one state (at two jobs, at once); the first in
    # heap order passes and is committed, and the second, though it passed too, is then moot:
    # settled without another test, as one worker would have after the first.
    both = threading.Barrier(2, timeout=10.0)
    met: list[bool] = []

    def predicate(candidate: bytes) -> bool:
        if jobs == 2:
            both.wait()  # breaks (an error) unless the two tests run at the same time
            met.append(True)
        return True

    run = Run(predicate, jobs=jobs)
    line = list(run.table.children(0))[3]
    # Its deletion and a shorter text: gains 8 and 6.
    assert run.run(Scripted([Delete(line), Replace(line, b"x\n")]), deterministic=True)
    assert run.offered == [LINES.replace(b"line 03\n", b"")]
    assert run.counters.tests == 2
    assert met == ([True, True] if jobs == 2 else [])
