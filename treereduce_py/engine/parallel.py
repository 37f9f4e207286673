"""Parallel mode: each worker pops, tests and commits on its own; successes that race are merged.

Each worker pops the task with the largest expected gain, applies it to a snapshot of the
global state (edits and text), renders the candidate and asks the `Judge`. A success on a
snapshot that is still current is committed at once. A success on a snapshot that another
commit has overtaken is a *proposal*: it joins the pending proposals, and one merge task (first
in the heap) applies them all to the newest state and tests the union once (GreeDDy, seed 002).
If the union is interesting, all of them commit together; if not, the proposals are split in
halves and merged again, down to single ones (which then simply failed on the newer state). So
N workers that succeed at once cost about one extra test, not N. A candidate whose snapshot a
commit overtook before its test started is rebuilt on the newer state rather than tested stale.
While a merge's union is tested, it is the *projected* state: tasks started meanwhile are built
on it, and it is installed as that very state when it passes. Successes that arrive meanwhile
are merged on it too, by a chained merge tested beside it.

Workers never wait for each other's answers to go on. A worker that starts a task also queues
what the planner would do next if the task failed (C-Reduce's speculation): the children of a
node whose deletion is being tested, a list's next round while the last chunks of its round are
out. If the deletion succeeds, those tasks no longer apply and are dropped without a test. A
worker takes such a dependent task (one that edits a subtree another worker's task edits, or a
success waiting to be merged) only when nothing independent is near the top of the heap, and
not at all while the task it overlaps is worth `DECLINE` times more: it waits for that answer
instead (a chunk of a long list usually passes, and then the small task inside it would have
been tested for nothing).

Follow-ups are pushed before a task is reported done, and a pending proposal always has its
merge task queued, so "heap empty and no task running" means the pass is over.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from treereduce_py.edit.edits import Edits, apply, diff, shifts
from treereduce_py.edit.tasks import (
    Delete,
    Footprint,
    Task,
    cover,
    footprint,
    gain,
    overlap,
    task_edits,
    task_pairs,
)
from treereduce_py.engine.passes import DECLINE, Candidate, Item, Merge, Pass, State
from treereduce_py.judge.judge import Interesting, Overtaken

# Merge tasks go before every ordinary task: they carry successes already found.
MERGE_PRIORITY = 1 << 48

# A candidate is rebuilt at most this many times when commits keep overtaking its base; then it
# is tested on the last one (a success is then proposed, as a stale one is).
REBUILDS = 3


@dataclass(frozen=True)
class Link:
    """A merge's union under test, on which a chained merge builds; `done` is set once that
    merge has installed it as the state or failed to (then it never will be)."""

    union: State
    done: threading.Event


class Parallel(Pass):
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
        self.prints: dict[int, tuple[Item, Footprint, int]] = {}
        # The union a merge is testing, as the state it installs if it passes: tasks started
        # meanwhile are built on it (`test`).
        self.projected: State | None = None
        # The union a (not chained) merge is testing, for a chained merge to build on; and
        # whether a chained merge is queued or running (one at a time).
        self.link: Link | None = None
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
        def fits(item: Item, taken: bool) -> bool:
            return self.claim(worker, item, taken)

        while (item := self.pop(fits)) is not None:
            try:
                # What the oracle holds (a test slot shared with other reductions, in batch
                # mode) is taken before the candidate is built: it is built on the newest state.
                with self.judge.hold(self.worth(item)):
                    if isinstance(item, Merge):
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

    def worth(self, item: Item) -> float:
        """What testing `item` is worth, for test slots shared with other passes (bytes; a
        merge carries successes already found: more than any task)."""
        return float(MERGE_PRIORITY) if isinstance(item, Merge) else float(gain(self.table, item))

    def pop(self, fits: Callable[[Item, bool], bool]) -> Item | None:
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

    def claim(self, worker: int, item: Item, taken: bool, also: Sequence[Footprint] = ()) -> bool:
        """Whether `item` is independent of the tasks other workers are testing (it edits none
        of their nodes, nor any of `also`), claiming it for `worker` if so or if `taken` anyway.

        Two tasks on one node (its alternatives, or a deletion and the children speculated
        under it) cannot both be committed: when the first succeeds, the second's test is lost.
        So a worker prefers the best independent task and starts a dependent one only when
        nothing independent is near the top of the heap (speculation, rather than idling)."""
        if isinstance(item, Merge):
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

    def test(self, task: Task, worker: int) -> tuple[State, Candidate, Interesting | None] | None:
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

    def current(self, base: State) -> Callable[[], bool]:
        """Whether `base` is still the current state, asked later."""
        return lambda: self.state is base or self.projected is base

    def count_waste(self, base: State, task: Task, worker: int) -> None:
        """A test built on `base` answered after a concurrent commit changed the state is
        stale, or moot when that commit took its edit away (a statistic: judge/busy.py)."""
        now = self.state
        if now is not base:
            # Only whether it still applies, not the edits it would make (on a 20 MB input,
            # building them here was a tenth of the engine's time).
            pairs = task.replacements(self.table, now.edits)
            gone = pairs is None or not now.edits.applies(self.table, pairs)
            self.judge.wasted("moot" if gone else "stale", worker)

    def merge(self, item: Merge, worker: int) -> None:
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
                    self.heap.push(Merge(), MERGE_PRIORITY, -1)

    def ride(self, base: State, edits: Edits, applied: list[Task], worker: int) -> bool:
        """Test the union of `applied` with the best independent task on top, its rider (one that
        edits nothing the union or another worker's test edits); True when that was interesting
        and all of them committed, with one test instead of two.

        Merges almost always pass (their parts each passed on an older state), so when the
        union and its rider fail together, the rider has failed on the state the union is
        about to become: it is settled as failed, as a stale failure is, and the union is then
        tested alone. A rider that no longer applies on the union goes back to the heap."""
        union = [footprint(self.table, task) for task in applied]

        def fits(item: Item, taken: bool) -> bool:
            return not isinstance(item, Merge) and self.claim(worker, item, taken, union)

        rider = self.heap.try_pop(fits)
        if rider is None:
            return False
        try:
            assert not isinstance(rider, Merge)  # fits turns merges down
            if not self.planner.wanted(rider):
                self.settle([rider], True)
                return False
            pairs = task_pairs(self.table, edits, rider)
            more = None if pairs is None else edits.with_edits(self.table, pairs)
            spans = None if more is None else diff(self.table, base.edits, base.shifts, more)
            if more is None or spans is None:
                self.push([rider])
                return False
            cand = Candidate(more, spans, apply(base.text, spans))
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
        self, base: State, edits: Edits, applied: list[Task], worker: int, link: Link | None
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
        cand = Candidate(edits, spans, apply(base.text, spans))
        if not self.better(cand.text, base.text):
            self.settle(applied, False)
            return
        union = State(cand.edits, cand.text, shifts(cand.edits))
        mine = None if link is not None else Link(union, threading.Event())
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
        self, base: State, cand: Candidate, union: State, applied: list[Task], worker: int
    ) -> None:
        """Test the union `cand` of `applied` alone; commit it as `union` (see `unite`)."""
        self.decide(
            base, cand, union, applied, worker, self.ask(cand.text, worker, cand.spans, base.edits)
        )

    def decide(
        self,
        base: State,
        cand: Candidate,
        union: State,
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
            self.heap.push(Merge(tuple(applied[:half])), MERGE_PRIORITY, -1)

    def chained(
        self,
        base: State,
        cand: Candidate,
        union: State,
        applied: list[Task],
        worker: int,
        link: Link,
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
                self.heap.push(Merge(), MERGE_PRIORITY, -1)
            elif self.link is not None and not self.chain and not self.link.done.is_set():
                self.chain = True
                self.merges += 1
                self.heap.push(Merge(chained=True), MERGE_PRIORITY, -1)


def _whole(item: Item) -> bool:
    """Whether `item` is the whole text's deletion (the tree pass's first task)."""
    return isinstance(item, Delete) and item.node == 0
