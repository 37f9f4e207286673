"""The parallel engine: worker threads, the task heap, optimistic commits merged when they race.

One pass works on one `NodeTable`. Each worker pops the task with the largest expected gain,
applies it to a snapshot of the global state (edits and text), renders the candidate and asks
the `Judge`. A success on a snapshot that is still current is committed at once. A success on a
snapshot that another commit has overtaken is a *proposal*: it joins the pending proposals, and
one merge task (first in the heap) applies them all to the newest state and tests the union
once (GreeDDy, seed 002). If the union is interesting, all of them commit together; if not, the
proposals are split in halves and merged again, down to single ones (which then simply failed
on the newer state). So N workers that succeed at once cost about one extra test, not N.
A candidate whose snapshot a commit overtook before its test started is rebuilt on the newer
state rather than tested stale. While a merge's union is tested, it is the *projected* state:
tasks started meanwhile are built on it, and it is installed as that very state when it passes.
Successes that arrive meanwhile are merged on it too, by a chained merge tested beside it.

Workers never wait for each other's answers to go on. A worker that starts a task also queues
what the planner would do next if the task failed (C-Reduce's speculation): the children of a
node whose deletion is being tested, a list's next round while the last chunks of its round are
out. If the deletion succeeds, those tasks no longer apply and are dropped without a test. A
worker takes such a dependent task (one that edits a subtree another worker's task edits, or a
success waiting to be merged) only when nothing independent is near the top of the heap, and
not at all while the task it overlaps is worth `DECLINE` times more: it waits for that answer
instead (a chunk of a long list usually passes, and then the small task inside it would have
been tested for nothing).

Every change of the state and the best goes through `_Pass.commit`, which hands the judge's
`Interesting` answer to the commit service (commit.py): only the oracle can make a candidate
interesting, so no uninteresting candidate is ever committed.
Follow-ups are pushed before a task is reported done, and a pending proposal always has its
merge task queued, so "heap empty and no task running" means the pass is over.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import queue
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from treereduce_py import events
from treereduce_py.edit.edits import Edits, Span, apply, diff, shifts, spans_since
from treereduce_py.edit.order import shorter, smaller
from treereduce_py.edit.tasks import (
    Delete,
    Footprint,
    Planner,
    Task,
    anchor,
    cover,
    footprint,
    gain,
    overlap,
    task_edits,
    task_pairs,
    within,
)
from treereduce_py.engine.commit import Committer
from treereduce_py.engine.heap import TaskHeap
from treereduce_py.judge.judge import Interesting, Judge, Overtaken, PassJudge
from treereduce_py.lang.syntax import NodeTable

# Merge tasks go before every ordinary task: they carry successes already found.
MERGE_PRIORITY = 1 << 48

# A candidate is rebuilt at most this many times when commits keep overtaking its base; then it
# is tested on the last one (a success is then proposed, as a stale one is).
REBUILDS = 3

# Deterministic mode tests groups of at most this many independent tasks on one state (a
# constant, not `jobs`: the groups, and so the output, must not depend on the workers). More
# jobs than this add nothing there. At 16 the groups held more stale tests: on
# python-orders-exception, 396 tests against 8's 388, and in test-times 4.7x faster at 8 jobs
# than at 1 against 8's 5.6x (16 jobs: 6.2x against 5.6x).
GROUP = 8

# A worker waits rather than start a task that overlaps a running test worth this many times
# more: if that test passes (a chunk of a long list usually does), the task's test is lost.
DECLINE = 4

# ... passing over at most this many times `GROUP` tasks that overlap one in the group.
LOOKAHEAD = 4


@dataclass(frozen=True)
class _State:
    """A committed state: its edits, its text, and the edits' prefix sums of length changes
    (`edits.shifts`), with which candidates are built from this text."""

    edits: Edits
    text: bytes
    shifts: Sequence[int] = (0,)


@dataclass(frozen=True)
class _Candidate:
    """A task applied to a state: the new edits, what they change in the state's text, and
    the resulting text."""

    edits: Edits
    spans: list[Span]
    text: bytes


@dataclass(frozen=True)
class _Merge:
    """Test the union of proposals on the current state; `tasks` empty means every pending one.
    `chained`: on the union another merge is testing, when it still is (see `_Parallel.merge`)."""

    tasks: tuple[Task, ...] = ()
    chained: bool = False


@dataclass(frozen=True)
class _Link:
    """A merge's union under test, on which a chained merge builds; `done` is set once that
    merge has installed it as the state or failed to (then it never will be)."""

    union: _State
    done: threading.Event


_Item = Task | _Merge


@dataclass(frozen=True)
class _Union:
    """Deterministic mode: the union of a group's successes on `base`, to be tested (beside
    the next group, which is built on its `state`)."""

    base: _State
    won: tuple[tuple[Task, _Candidate, Interesting], ...]  # each with its own candidate, answer
    cand: _Candidate
    state: _State

    @property
    def tasks(self) -> tuple[Task, ...]:
        return tuple(task for task, _, _ in self.won)


class Engine:
    """Runs passes of tasks over node tables with `jobs` worker threads, committing through
    `committer`."""

    def __init__(
        self,
        judge: Judge,
        committer: Committer,
        jobs: int,
        emit: events.EventSink,
        stats: Callable[[], events.Stats],
        progress_interval: float = 0.25,
    ) -> None:
        self.judge = judge
        self.committer = committer
        self.jobs = jobs
        self.emit = emit
        self.stats = stats
        self.progress_interval = progress_interval

    def run_pass(
        self,
        table: NodeTable,
        planner: Planner,
        judge: PassJudge,
        deterministic: bool = False,
        same_length: bool = False,
    ) -> bool:
        """Run one pass to exhaustion, asking `judge` (the pass's view of the judge); True if it
        improved the best. A candidate is progress when it is shorter, or with `same_length`
        when it is smaller in the progress order (edit/order.py); no other is tested.

        Raises Stopped when a budget ran out, and re-raises a worker's exception (or a
        KeyboardInterrupt in the calling thread) after stopping every worker and test.
        """
        mode = _InOrder if deterministic else _Parallel
        run = mode(self, table, planner, judge, smaller if same_length else shorter)
        pool = concurrent.futures.ThreadPoolExecutor(self.jobs, "treereduce-worker")
        try:
            run.run(pool)
        except BaseException:
            self.judge.stop("interrupted")
            run.heap.close()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        if run.failure is not None:
            raise run.failure
        self.judge.raise_if_stopped()
        return len(run.state.edits) > 0

    def progress(self) -> None:
        stats = self.stats()
        self.emit(events.Progress(stats, elapsed=stats.elapsed))


class _Pass:
    """The state of one pass: its table, planner, heap and global state, and how a success is
    committed and an answered task followed up. `ask` is the pass's view of the judge; `judge`
    the judge itself (stops, statistics). `run` works the heap to exhaustion, in one of two
    modes: `_Parallel` or `_InOrder` (deterministic)."""

    def __init__(
        self,
        engine: Engine,
        table: NodeTable,
        planner: Planner,
        ask: PassJudge,
        better: Callable[[bytes, bytes], bool] = shorter,
    ) -> None:
        self.engine = engine
        self.better = better
        self.judge = engine.judge
        self.ask = ask
        self.table = table
        self.planner = planner
        self.state = _State(Edits(), table.source)
        self.heap: TaskHeap[_Item] = TaskHeap()
        self.failure: BaseException | None = None
        self.lock = threading.Lock()
        self.merges = 0  # merges queued or running (parallel mode): other commits wait for them
        self.setup()
        self.start(list(planner.initial()))

    def setup(self) -> None:
        """The mode's own fields, set before the planner's first tasks are queued."""

    def start(self, tasks: list[Task]) -> None:
        """Queue the planner's first tasks."""
        self.push(tasks)

    def run(self, pool: concurrent.futures.ThreadPoolExecutor) -> None:
        """Work the heap to exhaustion with the pool's workers."""
        raise NotImplementedError

    def push(self, tasks: Iterable[Task]) -> None:
        self.heap.push_all((t, gain(self.table, t), anchor(t)) for t in tasks)

    def commit(
        self,
        base: _State,
        cand: _Candidate,
        verdict: Interesting,
        merging: bool = False,
        state: _State | None = None,
    ) -> bool:
        """Commit `cand`, built on `base`, which the judge answered interesting (`verdict`), if
        `base` is still current and no merge is under way (its union would go stale); `merging`
        says this is that merge, and `state` the state it installs, made beforehand from `cand`
        (the one its projection named). The commit service writes the best in commit order."""
        assert verdict.candidate is cand.text  # the answer is about this candidate
        if state is None:
            state = _State(cand.edits, cand.text, shifts(cand.edits))  # outside the lock
        assert state.text is cand.text and state.edits is cand.edits

        def install() -> bool:
            with self.lock:
                if self.state is not base or self.judge.stop_reason is not None:
                    return False
                if self.merges and not merging:
                    return False
                self.state = state
                self.ask.committed(cand.edits, cand.spans)  # the next checks' base
                return True

        return self.engine.committer.commit(verdict, install)

    def settle(self, tasks: Iterable[Task], accepted: bool) -> None:
        """Queue the planner's follow-ups of answered tasks (accepted: its edit is in, or moot)."""
        for task in tasks:
            self.push(self.planner.after(task, accepted, self.state.edits))

    def candidate(self, base: _State, task: _Item) -> _Candidate | None:
        """`task` applied to `base`, built from its text; None when the task no longer applies."""
        assert not isinstance(task, _Merge)
        pairs = task_pairs(self.table, base.edits, task)
        edits = None if pairs is None else base.edits.with_edits(self.table, pairs)
        if pairs is None or edits is None:
            return None
        spans = spans_since(self.table, base.edits, base.shifts, pairs)
        return _Candidate(edits, spans, apply(base.text, spans))


class _Parallel(_Pass):
    """Parallel mode: each worker pops, tests and commits on its own; successes that raced
    become proposals, merged and tested together (see the module docstring)."""

    def setup(self) -> None:
        self.pending: list[Task] = []
        self.running: dict[int, tuple[Footprint, int]] = {}  # worker -> what its task edits, gain
        self.held: dict[Task, tuple[Footprint, int]] = {}  # proposals not settled yet, likewise
        # The union of those footprints, rebuilt after a change (None): a task is checked
        # against all of them with one lookup.
        self.busy: Footprint | None = None
        # Footprint and gain of each task a pop has looked at, until it is taken: a declined
        # task is looked at again at every pop (id -> task, footprint, gain; holding the task
        # keeps its id from being reused while the entry is there).
        self.prints: dict[int, tuple[_Item, Footprint, int]] = {}
        # The union a merge is testing, as the state it installs if it passes: tasks started
        # meanwhile are built on it (`test`).
        self.projected: _State | None = None
        # The union a (not chained) merge is testing, for a chained merge to build on; and
        # whether a chained merge is queued or running (one at a time).
        self.link: _Link | None = None
        self.chain = False
        self.running_lock = threading.Lock()

    def start(self, tasks: list[Task]) -> None:
        """Queue the planner's first tasks and, with more than one worker, what the whole
        text's deletion would explore: that deletion blocks nothing (`claim`), so a worker free
        while it is tested should find the top-level list's first round in the heap, not only
        the offers' small first tasks (taking one of SMT-LIB's rules' first left
        smt-unsat-conflicts about a fifth larger after 5000 tests at --jobs 2)."""
        whole = [t for t in tasks if _whole(t)] if self.engine.jobs > 1 else []
        self.push([*tasks, *(s for t in whole for s in self.planner.speculate(t))])

    def run(self, pool: concurrent.futures.ThreadPoolExecutor) -> None:
        """`jobs` workers, with progress reported until every one of them is idle."""
        workers = [pool.submit(self.work, w) for w in range(self.engine.jobs)]
        while workers:
            _, running = concurrent.futures.wait(workers, self.engine.progress_interval)
            workers = list(running)
            self.engine.progress()
            if self.judge.stop_reason is not None:
                self.heap.close()

    def work(self, worker: int) -> None:
        def fits(item: _Item, taken: bool) -> bool:
            return self.claim(worker, item, taken)

        while (item := self.pop(fits)) is not None:
            try:
                # What the oracle holds (a test slot shared with other reductions, in batch
                # mode) is taken before the candidate is built: it is built on the newest state.
                with self.judge.hold(self.worth(item)):
                    if isinstance(item, _Merge):
                        self.merge(item, worker)
                    else:
                        self.attempt(item, worker)
            except BaseException as e:  # surfaced by run_pass in the main thread
                if self.failure is None:
                    self.failure = e
                self.judge.stop("error")
                self.heap.close()
            finally:
                with self.running_lock:
                    self.running.pop(worker, None)
                    self.busy = None
                self.prints.pop(id(item), None)
                self.heap.done()

    def worth(self, item: _Item) -> float:
        """What testing `item` is worth, for test slots shared with other passes (bytes; a
        merge carries successes already found: more than any task)."""
        return float(MERGE_PRIORITY) if isinstance(item, _Merge) else float(gain(self.table, item))

    def pop(self, fits: Callable[[_Item, bool], bool]) -> _Item | None:
        """The next item for a worker: with one worker the best; with more, the best task
        independent of the running tests (`claim`) unless it is worth less than the best one
        would be if the test it overlaps failed (the share of tests so far that failed, with
        one failure and one success assumed before any: most fail). At 16 workers, preferring
        independent work at any gain took a 125 KB Python case's 522-byte purges ahead of its
        48 KB chunk deletions: 1215 tests in 94 s; with this floor, 726 tests in 59 s."""
        if self.engine.jobs == 1:
            return self.heap.pop()
        counts = self.judge.counts()
        fail_share = (counts.tests - counts.interesting + 1) / (counts.tests + 2)
        return self.heap.pop(fits, fail_share)

    def claim(self, worker: int, item: _Item, taken: bool, also: Sequence[Footprint] = ()) -> bool:
        """Whether `item` is independent of the tasks other workers are testing (it edits none
        of their nodes, nor any of `also`), claiming it for `worker` if so or if `taken` anyway.

        Two tasks on one node (its alternatives, or a deletion and the children speculated
        under it) cannot both be committed: when the first succeeds, the second's test is lost.
        So a worker prefers the best independent task and starts a dependent one only when
        nothing independent is near the top of the heap (speculation, rather than idling)."""
        if isinstance(item, _Merge):
            return True
        known = self.prints.get(id(item))
        if known is None:
            known = (item, footprint(self.table, item), gain(self.table, item))
            self.prints[id(item)] = known
        _, mine, worth = known
        if not taken and any(overlap(mine, fp) for fp in also):
            return False
        with self.running_lock:
            if not taken:
                if self.busy is None:
                    self.busy = cover(fp for fp, _ in self.footprints())
                if overlap(mine, self.busy):
                    return False
            else:
                over = [g for fp, g in self.footprints() if overlap(mine, fp)]
                if over and max(over) >= DECLINE * worth:
                    return False
            # The whole text's deletion blocks nothing: it almost never passes, and the first
            # round over the top-level list would wait a test-time for it.
            self.running[worker] = (((), ()) if _whole(item) else mine, worth)
            self.busy = None
        return True

    def footprints(self) -> Iterable[tuple[Footprint, int]]:
        """What the running tests and the held proposals edit, with their gains (the caller
        holds `running_lock`)."""
        return itertools.chain(self.running.values(), self.held.values())

    def attempt(self, task: Task, worker: int) -> None:
        """Test `task` on the current state; commit, propose, or settle it as failed."""
        tested = self.test(task, worker)
        if tested is None:
            return
        base, cand, verdict = tested
        if verdict is None:
            self.settle([task], False)
            if self.engine.jobs > 1:
                self.push(self.planner.speculate(task))  # a round's last chunks are running
            return None
        if self.commit(base, cand, verdict):
            return self.settle([task], True)
        self.propose([task])
        self.push(self.planner.speculate(task, passed=True))  # its merge nearly always passes

    def test(self, task: Task, worker: int) -> tuple[_State, _Candidate, Interesting | None] | None:
        """`task` built on the current state and judged: its base, candidate and answer; None
        when it was settled untested (its nodes are gone, or it would not be progress). A
        candidate whose base a concurrent commit replaced before its test started is rebuilt on
        the new state (up to `REBUILDS` times), not tested stale."""
        rebuilds = 0
        while True:
            base = self.projected or self.state
            cand = self.candidate(base, task) if self.planner.wanted(task) else None
            if cand is None:  # its nodes are gone, or it was dropped: nothing left to try
                self.settle([task], True)
                return None
            if not self.better(cand.text, base.text):
                self.settle([task], False)
                return None
            if rebuilds == 0 and self.engine.jobs > 1:
                self.push(self.planner.speculate(task))
            fresh = None if rebuilds >= REBUILDS else self.current(base)
            try:
                verdict = self.ask(cand.text, worker, cand.spans, base.edits, fresh)
            except Overtaken:
                rebuilds += 1
                continue
            self.count_waste(base, task, worker)
            return base, cand, verdict

    def current(self, base: _State) -> Callable[[], bool]:
        """Whether `base` is still the current state, asked later."""
        return lambda: self.state is base or self.projected is base

    def count_waste(self, base: _State, task: Task, worker: int) -> None:
        """A test built on `base` answered after a concurrent commit changed the state is
        stale, or moot when that commit took its edit away (a statistic: judge/busy.py)."""
        now = self.state
        if now is not base:
            # Only whether it still applies, not the edits it would make (on a 20 MB input,
            # building them here was a tenth of the engine's time).
            pairs = task.replacements(self.table, now.edits)
            gone = pairs is None or not now.edits.applies(self.table, pairs)
            self.judge.wasted("moot" if gone else "stale", worker)

    def merge(self, item: _Merge, worker: int) -> None:
        """Apply proposals to the current state and test their union once.

        Successes that arrive while a merge's union is tested alone (tests started together end
        together) are not left for the next merge: a chained merge applies them to that union
        and is tested beside it, then waits for its answer. Unions nearly always pass, so that
        saves a test-time; when the first one did not become the state, the chained merge's
        tasks are proposed again. (At 16 jobs with a test that sleeps, the last successes of
        CDD rounds and of the rename round each took a merge of their own, one after the other.)
        At most two merges run at once: the first and one chained on it."""
        try:
            with self.lock:
                link = self.link if item.chained else None
                if item.chained and (link is None or link.done.is_set()):
                    link = None  # the first merge is over: this one is as any other...
                    if self.merges > 1:  # ... unless another runs (its halves): it takes these
                        return
                if item.tasks:
                    tasks = list(item.tasks)
                else:
                    tasks, self.pending = self.pending, []
                base = self.state if link is None else link.union
            edits, applied, moot = base.edits, [], []
            for task in tasks:
                more = task_edits(self.table, edits, task)
                if more is None:
                    moot.append(task)
                else:
                    edits = more
                    applied.append(task)
            self.settle(moot, True)
            if applied:
                self.unite(base, edits, applied, worker, link)
        finally:
            with self.lock:
                self.chain = self.chain and not item.chained
                self.merges -= 1
                if self.merges == 0 and self.pending:
                    self.merges = 1
                    self.heap.push(_Merge(), MERGE_PRIORITY, -1)

    def ride(self, base: _State, edits: Edits, applied: list[Task], worker: int) -> bool:
        """Test the union of `applied` with the best independent task on top, its rider (one that
        edits nothing the union or another worker's test edits); True when that was interesting
        and all of them committed, with one test instead of two.

        Merges almost always pass (their parts each passed on an older state), so when the
        union and its rider fail together, the rider has failed on the state the union is
        about to become: it is settled as failed, as a stale failure is, and the union is then
        tested alone. A rider that no longer applies on the union goes back to the heap."""
        union = [footprint(self.table, task) for task in applied]

        def fits(item: _Item, taken: bool) -> bool:
            return not isinstance(item, _Merge) and self.claim(worker, item, taken, union)

        rider = self.heap.try_pop(fits)
        if rider is None:
            return False
        try:
            assert not isinstance(rider, _Merge)  # fits turns merges down
            if not self.planner.wanted(rider):
                self.settle([rider], True)
                return False
            pairs = task_pairs(self.table, edits, rider)
            more = None if pairs is None else edits.with_edits(self.table, pairs)
            spans = None if more is None else diff(self.table, base.edits, base.shifts, more)
            if more is None or spans is None:
                self.push([rider])
                return False
            cand = _Candidate(more, spans, apply(base.text, spans))
            verdict = self.ask(cand.text, worker, spans, base.edits)
            if verdict is None:
                self.settle([rider], False)
                return False
            ok = self.commit(base, cand, verdict, merging=True)
            self.settle([*applied, rider], ok)
            return True
        finally:
            self.prints.pop(id(rider), None)
            self.heap.done()

    def unite(
        self, base: _State, edits: Edits, applied: list[Task], worker: int, link: _Link | None
    ) -> None:
        """Commit the union of `applied` (their `edits` on `base`) after a test, with a rider
        (`ride`) or alone (`verify`), and settle them; when it fails, its halves are queued
        (GreeDDy's fallback: the first half next, then the second). A chained merge (`link`:
        `base` is another merge's union under test) takes no rider and commits only after that
        union has become the state.

        While it is tested, the union is the projected state: tasks started meanwhile are built
        on it, so the work that follows a merge (a list's next round, once its chunks' merge
        settles them) does not wait for it. Merges nearly always pass, and the union alone is
        installed as that very state, so the tasks built on it are then current; after a union
        that failed or passed with its rider, their successes are proposed as any built on an
        overtaken state are. (At 8 and 16 jobs, with a test that sleeps, this about halved the
        stale tests in unstored runs of one each.)"""
        spans = diff(self.table, base.edits, base.shifts, edits)
        assert spans is not None  # the union was built on `base`
        cand = _Candidate(edits, spans, apply(base.text, spans))
        if not self.better(cand.text, base.text):
            self.settle(applied, False)
            return
        union = _State(cand.edits, cand.text, shifts(cand.edits))
        mine = None if link is not None else _Link(union, threading.Event())
        with self.lock:
            self.projected = union
        try:
            if link is not None:
                self.chained(base, cand, union, applied, worker, link)
            elif not self.ride(base, edits, applied, worker):
                # Only now may a merge chain on it: with a rider, a state other than the
                # union's is installed when they pass, and a chained merge's test is lost.
                with self.lock:
                    self.link = mine
                self.verify(base, cand, union, applied, worker)
        finally:
            with self.lock:
                if self.projected is union:
                    self.projected = None
                if mine is not None:
                    self.link = None
                    mine.done.set()

    def verify(
        self, base: _State, cand: _Candidate, union: _State, applied: list[Task], worker: int
    ) -> None:
        """Test the union `cand` of `applied` alone; commit it as `union` (see `unite`)."""
        self.decide(
            base, cand, union, applied, worker, self.ask(cand.text, worker, cand.spans, base.edits)
        )

    def decide(
        self,
        base: _State,
        cand: _Candidate,
        union: _State,
        applied: list[Task],
        worker: int,
        verdict: Interesting | None,
    ) -> None:
        """Commit the union `cand` of `applied` as `union` if `verdict` says it passed, else
        queue its halves (single tasks simply failed)."""
        if verdict is not None:
            self.settle(applied, self.commit(base, cand, verdict, merging=True, state=union))
            return
        self.judge.wasted("merge", worker)
        if len(applied) == 1 or self.judge.stop_reason is not None:
            self.settle(applied, False)
            return
        half = len(applied) // 2
        with self.lock:
            self.pending[:0] = applied[half:]
            self.merges += 1
            self.heap.push(_Merge(tuple(applied[:half])), MERGE_PRIORITY, -1)

    def chained(
        self,
        base: _State,
        cand: _Candidate,
        union: _State,
        applied: list[Task],
        worker: int,
        link: _Link,
    ) -> None:
        """A chained merge's union `cand`, built on the union of `link`: tested now, decided
        once that one is (`decide` when it became the state; else `applied` are pending again:
        a test lost)."""
        verdict = self.ask(cand.text, worker, cand.spans, base.edits)
        while not link.done.wait(self.engine.progress_interval):
            if self.judge.stop_reason is not None:
                break
        with self.lock:
            current = self.state is base
            if not current:
                self.pending[:0] = applied
        if current:
            self.decide(base, cand, union, applied, worker, verdict)
        else:
            self.judge.wasted("merge", worker)

    def settle(self, tasks: Iterable[Task], accepted: bool) -> None:
        tasks = list(tasks)
        with self.running_lock:
            for task in tasks:
                self.held.pop(task, None)
            self.busy = None
        super().settle(tasks, accepted)

    def propose(self, tasks: Sequence[Task]) -> None:
        """Successes that cannot commit now wait for the next merge (queued if none is); until
        then, a task that overlaps one of them is started as one that overlaps a running test
        is (`claim`): the merge will almost surely pass."""
        self.judge.proposed(len(tasks))
        held = {t: (footprint(self.table, t), gain(self.table, t)) for t in tasks}
        with self.running_lock:
            self.held.update(held)
            self.busy = None
        with self.lock:
            self.pending.extend(tasks)
            if self.merges == 0:
                self.merges = 1
                self.heap.push(_Merge(), MERGE_PRIORITY, -1)
            elif self.link is not None and not self.chain and not self.link.done.is_set():
                self.chain = True
                self.merges += 1
                self.heap.push(_Merge(chained=True), MERGE_PRIORITY, -1)


class _InOrder(_Pass):
    """Deterministic mode: groups of independent tasks judged on one state, their successes
    committed together.

    A group is the next tasks in heap order that edit no node another task of the group edits
    (`tasks.footprint`), at most `GROUP` of them with a candidate to test; those that overlap
    an earlier one wait for a later group, except its rivals: a task inside an earlier one
    and worth more than a `DECLINE`th of it (another alternative of one node). Heap order
    decides: once an earlier task passes, its rivals are moot and go back on the heap
    whatever their answers, as one worker would not have tested them. The group's candidates
    are all built on the current state and tested `jobs` at a time; then the failures are
    settled and the successes committed: one at once, several as their union, tested once
    (when the union fails, the first success alone, the others back on the heap for the new
    state). The union is tested
    beside the next group (of `GROUP` - 1), which is built on it: unions nearly always pass,
    and a union tested alone left all workers but one idle. When it fails, that group's
    answers are dropped and its tasks go back on the heap. What is tested and committed
    depends on the heap and the answers only, never on `jobs` or on which test ends first, so
    the output and the tests run are the same at any `jobs`; at `jobs` 1 a group is tested in
    turn.

    One worker taking the heap's top each time tests every task on the newest state; so did
    this mode before, `jobs` tasks at a time, losing every test after the first success of a
    batch (C-Reduce's speculation): 2.05x at 8 jobs. A failure after a success here was tested
    on a state one worker would not have used; it counts as a failure all the same. Trying it
    again on the new state cost more tests and ended larger (on python-orders-exception with
    an in-process copy of its test, jobs 1: 641 tests and 739 B against 388 and 523 B; one
    worker's order took 361 tests to 524 B).
    """

    def setup(self) -> None:
        self.last_progress = time.monotonic()
        self.slots: queue.SimpleQueue[int] = queue.SimpleQueue()
        for slot in range(self.engine.jobs):
            self.slots.put(slot)

    def run(self, pool: concurrent.futures.ThreadPoolExecutor) -> None:
        """Groups of the next tasks, until the heap is empty or the run is stopped. A union of
        a group's successes is tested beside the next group, which is built on the union."""
        union: _Union | None = None
        while self.judge.stop_reason is None:
            base = self.state if union is None else union.state
            group = self.next_group(base, GROUP - (union is not None))
            if not group and union is None:
                break
            futures = [pool.submit(self.judged, base, cand) for _, cand in group]
            if union is not None:
                futures.insert(0, pool.submit(self.judged, union.base, union.cand))
            answers = self.wait(futures)
            if union is not None and not self.settle_union(union, answers.pop(0)):
                self.push([task for task, _ in group])  # built on a union that failed
                union = None
                continue
            union = self.use(self.state, group, answers)

    def judged(self, base: _State, cand: _Candidate) -> Interesting | None:
        """`cand` judged by whichever worker slot is free (the pool runs `jobs` at a time)."""
        slot = self.slots.get()
        try:
            return self.ask(cand.text, slot, cand.spans, base.edits)
        finally:
            self.slots.put(slot)

    def wait(
        self, futures: list[concurrent.futures.Future[Interesting | None]]
    ) -> list[Interesting | None]:
        """The group's answers, the live panel kept moving while a slow test runs."""
        pending = list(futures)
        while pending:
            _, running = concurrent.futures.wait(pending, self.engine.progress_interval)
            pending = list(running)
            if time.monotonic() - self.last_progress >= self.engine.progress_interval:
                self.last_progress = time.monotonic()
                self.engine.progress()
        return [f.result() for f in futures]

    def next_group(self, base: _State, size: int) -> list[tuple[Task, _Candidate]]:
        """The next tasks in heap order that are independent of each other and have a candidate
        to test, at most `size` of them, passing over at most `LOOKAHEAD` times `GROUP`.
        A task with nothing to test (its nodes gone: settled as accepted, as in parallel mode;
        or no progress: order.py) is settled at once; a task that overlaps one already in the
        group, or makes the same text, goes back on the heap (the same text would be tested
        twice at once by two workers, and once by one, which answers the second from the
        cache: the tests run would depend on `jobs`)."""
        group: list[tuple[Task, _Candidate]] = []
        prints: list[tuple[Footprint, int]] = []
        later: list[Task] = []  # taken, to go back on the heap
        texts: set[bytes] = set()  # a second task making the same text waits (for the cache)
        while len(group) < size and len(group) + len(later) < LOOKAHEAD * GROUP:
            taken = self.heap.take(1)
            if not taken:
                break
            task = taken[0][1]
            assert not isinstance(task, _Merge)  # merges exist only in parallel mode
            cand = self.candidate(base, task)
            if cand is None or not self.better(cand.text, base.text):
                self.settle([task], cand is None)
                continue
            mine = footprint(self.table, task)
            worth = gain(self.table, task)
            if cand.text in texts or any(
                overlap(mine, fp) and (g >= DECLINE * worth or not within(mine, fp))
                for fp, g in prints
            ):
                later.append(task)
                continue
            group.append((task, cand))
            prints.append((mine, worth))
            texts.add(cand.text)
        self.push(later)
        return group

    def use(
        self,
        base: _State,
        group: list[tuple[Task, _Candidate]],
        answers: list[Interesting | None],
    ) -> _Union | None:
        """Settle the failures and commit a single success; several successes make the union to
        test (with the next group), or when it cannot be built, the first commits alone."""
        won: list[tuple[Task, _Candidate, Interesting]] = []
        prints: list[Footprint] = []
        later: list[Task] = []
        for (task, cand), ok in zip(group, answers, strict=True):
            mine = footprint(self.table, task)
            if any(overlap(mine, fp) for fp in prints):
                later.append(task)  # a rival of an earlier success: moot or tried again later
                continue
            if ok is None:
                self.settle([task], False)
                continue
            won.append((task, cand, ok))
            prints.append(mine)
        self.push(later)
        if not won or self.judge.stop_reason is not None:
            self.push([task for task, _, _ in won])
            return None
        union = self.union(base, won) if len(won) > 1 else None
        if union is None:
            task, cand, ok = won[0]
            self.settle([task], self.commit(base, cand, ok))
            self.push([task for task, _, _ in won[1:]])
        return union

    def union(self, base: _State, won: list[tuple[Task, _Candidate, Interesting]]) -> _Union | None:
        """The union of the `won` tasks, each of which passed alone on `base`, as a candidate
        to test; None when it cannot be built or is no progress."""
        edits = base.edits
        for task, _, _ in won:
            more = task_edits(self.table, edits, task)
            if more is None:
                return None
            edits = more
        spans = diff(self.table, base.edits, base.shifts, edits)
        if spans is None:
            return None
        cand = _Candidate(edits, spans, apply(base.text, spans))
        if not self.better(cand.text, base.text):
            return None
        state = _State(cand.edits, cand.text, shifts(cand.edits))
        return _Union(base, tuple(won), cand, state)

    def settle_union(self, union: _Union, verdict: Interesting | None) -> bool:
        """Commit the union if it passed: True when the state is now the union's; else the first
        of its tasks is committed alone (it passed alone on the union's base) and the others
        go back on the heap for the new state."""
        if verdict is not None:
            committed = self.commit(union.base, union.cand, verdict)
            self.settle(union.tasks, committed)
            return committed
        self.judge.wasted("merge", 0)
        first, cand, ok = union.won[0]
        self.settle([first], self.commit(union.base, cand, ok))
        self.push(union.tasks[1:])
        return False


def _whole(item: _Item) -> bool:
    """Whether `item` is the whole text's deletion (the tree pass's first task)."""
    return isinstance(item, Delete) and item.node == 0
