"""Parallel mode's merges: successes that raced, applied to the newest state and tested once.

A success on a snapshot that another commit has overtaken is a *proposal*: it joins the pending
proposals, and one merge task (first in the heap) applies them all to the newest state and
tests the union once (GreeDDy, seed 002). If the union is interesting, all of them commit
together; if not, the proposals are split in halves and merged again, down to single ones
(which then simply failed on the newer state). So N workers that succeed at once cost about one
extra test, not N. The union is first tested with a *rider* on top (the best independent task:
two for one test when both pass). While a merge's union is tested, it is the *projected* state:
tasks started meanwhile are built on it, and it is installed as that very state when it passes.
Successes that arrive while a union is tested alone are merged on it too, by a chained merge
tested beside it. No other commit is made while a merge is under way (`Pass.merges`): its
union would go stale. A pending proposal always has its merge task queued, so "heap empty and
no task running" still means the pass is over.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from treereduce_py.edit.edits import Edits, apply, diff, shifts
from treereduce_py.edit.tasks import Footprint, Task, footprint, task_edits, task_pairs
from treereduce_py.engine.claims import Claims
from treereduce_py.engine.passes import Candidate, Item, Merge, Pass, State
from treereduce_py.judge.judge import Interesting

# Merge tasks go before every ordinary task: they carry successes already found.
MERGE_PRIORITY = 1 << 48


@dataclass(frozen=True)
class Link:
    """A merge's union under test, on which a chained merge builds; `done` is set once that
    merge has installed it as the state or failed to (then it never will be)."""

    union: State
    done: threading.Event


class Merging(Pass):
    """A pass whose successes may race (the base of `Parallel`): its proposals, their merges,
    and what the running tests and the held proposals edit (`claims`)."""

    def setup(self) -> None:
        self.claims = Claims(self.table)
        self.pending: list[Task] = []
        # The union a merge is testing, as the state it installs if it passes: tasks started
        # meanwhile are built on it (`Parallel.test`).
        self.projected: State | None = None
        # The union a (not chained) merge is testing, for a chained merge to build on; and
        # whether a chained merge is queued or running (one at a time).
        self.link: Link | None = None
        self.chain = False

    def claim(self, worker: int, item: Item, taken: bool, also: Sequence[Footprint] = ()) -> bool:
        """Whether a worker may take `item` now (claims.py): a merge always."""
        return isinstance(item, Merge) or self.claims.claim(worker, item, taken, also)

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
                else:  # a chained merge's tasks, pending again, may chain on a newer union
                    self._chain_pending()

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
            self.claims.forget(rider)
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
                    self._chain_pending()
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
        self.claims.release(tasks)
        super().settle(tasks, accepted)

    def propose(self, tasks: Sequence[Task]) -> None:
        """Successes that cannot commit now wait for the next merge (queued if none is); until
        then, a task that overlaps one of them is started as one that overlaps a running test
        is (`claim`): the merge will almost surely pass."""
        self.judge.proposed(len(tasks))
        self.claims.hold(tasks)
        with self.lock:
            self.pending.extend(tasks)
            if self.merges == 0:
                self.merges = 1
                self.heap.push(Merge(), MERGE_PRIORITY, -1)
            else:
                self._chain_pending()

    def _chain_pending(self) -> None:
        """Under the lock: the pending proposals get a chained merge while a union is tested
        alone and none is queued or running. Not only when a proposal arrives: also when a
        union starts its test alone after its rider failed (the successes of a round's other
        chunks, which ended moments after the merge took its tasks, waited a test-time for the
        rider and then another for the union: at 8 jobs on a 127 KB JavaScript input, 1.5 s of
        one worker busy after the first round), and when a chained merge's tasks are pending
        again."""
        link = self.link
        if self.pending and link is not None and not self.chain and not link.done.is_set():
            self.chain = True
            self.merges += 1
            self.heap.push(Merge(chained=True), MERGE_PRIORITY, -1)
