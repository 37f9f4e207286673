"""Parallel mode: each worker pops, tests and commits on its own.

Each worker pops the task with the largest expected gain, applies it to a snapshot of the
global state (edits and text), renders the candidate and asks the `Judge`. A success on a
snapshot that is still current is committed at once; one on a snapshot that another commit has
overtaken is proposed, and merged with the others (merging.py). A candidate whose snapshot a
commit overtook before its test started is rebuilt on the newer state rather than tested stale.

Workers never wait for each other's answers to go on. A worker that starts a task also queues
what the planner would do next if the task failed (C-Reduce's speculation): the children of a
node whose deletion is being tested, a list's next round while the last chunks of its round are
out. If the deletion succeeds, those tasks no longer apply and are dropped without a test. Which
of them a worker takes while the task they depend on runs is claims.py's rule.

Follow-ups are pushed before a task is reported done, so "heap empty and no task running" means
the pass is over.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable

from treereduce_py.edit.tasks import Task, gain
from treereduce_py.engine.claims import blocks_nothing
from treereduce_py.engine.merging import MERGE_PRIORITY, Merging
from treereduce_py.engine.passes import Candidate, Item, Merge, State
from treereduce_py.judge.judge import Interesting, Overtaken

# A candidate is rebuilt at most this many times when commits keep overtaking its base; then it
# is tested on the last one (a success is then proposed, as a stale one is).
REBUILDS = 3


class Parallel(Merging):
    """Parallel mode: each worker pops, tests and commits on its own; successes that raced
    become proposals, merged and tested together (merging.py)."""

    def start(self, tasks: list[Task]) -> None:
        """Queue the planner's first tasks and, with more than one worker, what the whole
        text's deletion would explore: that deletion blocks nothing (`claim`), so a worker free
        while it is tested should find the top-level list's first round in the heap, not only
        the offers' small first tasks (taking one of SMT-LIB's rules' first left
        smt-unsat-conflicts about a fifth larger after 5000 tests at --jobs 2)."""
        whole = [t for t in tasks if blocks_nothing(t)] if self.engine.jobs > 1 else []
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
                self.claims.ended(worker)
                self.claims.forget(item)
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
