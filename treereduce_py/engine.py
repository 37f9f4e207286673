"""The parallel engine: worker threads, the task heap, optimistic commits.

One pass works on one `NodeTable`. Each worker pops the task with the largest expected gain,
applies it to a snapshot of the global edits, renders the candidate and asks the `Judge`. If the
candidate is interesting and nobody committed since the snapshot, it becomes the new global state;
otherwise the task is re-applied to the newer edits and judged again (a content-identical
candidate is answered by the cache, so a rebase that changes nothing costs no test). Follow-up
tasks from the strategy are pushed before the worker reports the task done, so "heap empty and
no task running" means the pass is over.

The only way to change the best is `_commit`, and it is only reached with a candidate the judge
answered True, which only happens when the oracle said so (directly or through the cache): no
uninteresting candidate can ever be committed.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from treereduce_py import events
from treereduce_py.cache import Cache, digest
from treereduce_py.edits import Edits, render
from treereduce_py.heap import Key, TaskHeap
from treereduce_py.languages import new_parser
from treereduce_py.oracle import Oracle
from treereduce_py.output import BestSoFar
from treereduce_py.syntax import NodeTable, count_errors
from treereduce_py.tasks import Task, anchor, gain, task_edits


class Planner(Protocol):
    """The tasks of one pass: the first ones, and the follow-ups of each finished task."""

    def initial(self) -> Iterable[Task]: ...

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]: ...


class Stopped(Exception):
    """The run was stopped by a budget (time or tests); the best so far stands."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Counters:
    """Mutable run counters, updated under the engine's lock."""

    tests: int = 0
    interesting: int = 0
    syntax_rejections: int = 0
    commit_retries: int = 0
    timeouts: int = 0
    test_seconds: float = 0.0


@dataclass(frozen=True)
class Budget:
    max_tests: int | None = None
    deadline: float | None = None  # time.monotonic() value


# A success waits to commit while another running task promises this many times its gain.
HOLD_FACTOR = 4


@dataclass
class _State:
    edits: Edits
    text: bytes


class Judge:
    """Decides whether a candidate is interesting: cache, then syntax check, then the oracle."""

    def __init__(
        self,
        oracle: Oracle,
        language: str,
        *,
        syntax_strict: bool,
        budget: Budget,
        counters: Counters,
    ) -> None:
        self.oracle = oracle
        self.language = language
        self.syntax_strict = syntax_strict
        self.budget = budget
        self.counters = counters
        self.cache = Cache()
        self.max_errors = 0
        self.lock = threading.Lock()
        self.stop_reason: str | None = None
        self._local = threading.local()
        # Seconds each worker's running test started at (monotonic), for the UI.
        self.running: dict[int, float] = {}

    def parse_errors(self, text: bytes) -> int:
        parser = getattr(self._local, "parser", None)
        if parser is None:
            parser = self._local.parser = new_parser(self.language)
        return count_errors(parser.parse(text))

    def __call__(self, candidate: bytes, worker: int) -> bool:
        key = digest(candidate)
        known = self.cache.get(key)
        if known is not None:
            return known
        if self.syntax_strict and self.parse_errors(candidate) > self.max_errors:
            with self.lock:
                self.counters.syntax_rejections += 1
            self.cache.put(key, len(candidate), False)
            return False
        if not self._may_test():
            return False
        self.running[worker] = time.monotonic()
        try:
            verdict = self.oracle.check(candidate, worker)
        finally:
            self.running.pop(worker, None)
        with self.lock:
            self.counters.tests += 1
            self.counters.interesting += verdict.interesting
            self.counters.timeouts += verdict.timed_out
            self.counters.test_seconds += verdict.seconds
        if self.stop_reason is not None:
            return False  # a cancelled test says nothing about the candidate
        self.cache.put(key, len(candidate), verdict.interesting)
        return verdict.interesting

    def _may_test(self) -> bool:
        b = self.budget
        with self.lock:
            if self.stop_reason is not None:
                return False
            if b.max_tests is not None and self.counters.tests >= b.max_tests:
                self.stop_reason = "max-tests"
            elif b.deadline is not None and time.monotonic() >= b.deadline:
                self.stop_reason = "max-time"
            return self.stop_reason is None

    def stop(self, reason: str) -> None:
        with self.lock:
            if self.stop_reason is None:
                self.stop_reason = reason
        self.oracle.cancel()


@dataclass
class Engine:
    """Runs passes of tasks over node tables with `jobs` worker threads."""

    judge: Judge
    best: BestSoFar
    jobs: int
    emit: events.EventSink
    stats: Callable[[], events.Stats]
    progress_interval: float = 0.25
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._lock_cond = threading.Condition(self._lock)
        self._in_flight: dict[int, int] = {}  # worker -> gain of the task it is running

    def run_pass(self, table: NodeTable, planner: Planner, deterministic: bool = False) -> bool:
        """Run one pass to exhaustion; True if it improved the best.

        Raises Stopped when a budget ran out, and re-raises a worker's exception (or a
        KeyboardInterrupt in the calling thread) after stopping every worker and test.
        """
        self._state = _State(Edits(), table.source)
        self._table = table
        self._planner = planner
        heap: TaskHeap[Task] = TaskHeap()
        heap.push_all((t, gain(table, t), anchor(t)) for t in planner.initial())
        self._heap = heap
        self._failure: BaseException | None = None
        if deterministic:
            return self._run_in_order()
        threads = [
            threading.Thread(
                target=self._work, args=(w,), name=f"treereduce-worker-{w}", daemon=True
            )
            for w in range(self.jobs)
        ]
        for t in threads:
            t.start()
        try:
            while any(t.is_alive() for t in threads):
                threads[0].join(self.progress_interval)
                for t in threads[1:]:
                    t.join(0)
                stats = self.stats()
                self.emit(events.Progress(stats, elapsed=stats.elapsed))
                if self.judge.stop_reason is not None:
                    heap.close()
        except BaseException:
            self.judge.stop("interrupted")
            heap.close()
            for t in threads:
                t.join()
            raise
        if self._failure is not None:
            raise self._failure
        if self.judge.stop_reason is not None:
            raise Stopped(self.judge.stop_reason)
        return len(self._state.edits) > 0

    def _run_in_order(self) -> bool:
        """Deterministic mode: the outcome of the sequential algorithm, tested `jobs` at a time.

        The next `jobs` tasks in heap order are judged in parallel against the same edits, then
        their answers are used in order, as one worker would have used them: the first success is
        committed and the tasks after it are put back (their candidates changed); a task is also
        put back when the follow-ups of an earlier failure now come before it. Put-back tasks are
        usually answered by the cache. The accepted sequence is therefore the same at any `jobs`.
        """
        heap, table, planner = self._heap, self._table, self._planner
        pool = concurrent.futures.ThreadPoolExecutor(self.jobs, "treereduce-worker")
        last_progress = time.monotonic()
        try:
            while self.judge.stop_reason is None:
                batch = heap.take(self.jobs)
                if not batch:
                    break
                base = self._state
                cands = [self._candidate(base, task) for _, task in batch]
                futures = [
                    pool.submit(self.judge, c, w) if c is not None else None
                    for w, c in enumerate(cands)
                ]
                answers = [f.result() if f is not None else False for f in futures]
                for k, ((key, task), cand, ok) in enumerate(
                    zip(batch, cands, answers, strict=True)
                ):
                    top = heap.top_key()
                    if k > 0 and top is not None and top < key:
                        self._put_back(batch[k:])
                        break
                    if ok and cand is not None and self.judge.stop_reason is None:
                        edits = task_edits(table, base.edits, task)
                        assert edits is not None
                        self._install(edits, cand)
                        heap.push_all(
                            (t, gain(table, t), anchor(t))
                            for t in planner.after(task, True, self._state.edits)
                        )
                        self._put_back(batch[k + 1 :])
                        break
                    heap.push_all(
                        (t, gain(table, t), anchor(t))
                        for t in planner.after(task, False, self._state.edits)
                    )
                now = time.monotonic()
                if now - last_progress >= self.progress_interval:
                    last_progress = now
                    stats = self.stats()
                    self.emit(events.Progress(stats, elapsed=stats.elapsed))
        except BaseException:
            self.judge.stop("interrupted")
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        if self.judge.stop_reason is not None:
            raise Stopped(self.judge.stop_reason)
        return len(self._state.edits) > 0

    def _candidate(self, base: _State, task: Task) -> bytes | None:
        edits = task_edits(self._table, base.edits, task)
        if edits is None:
            return None
        candidate = render(self._table, edits)
        return candidate if len(candidate) < len(base.text) else None

    def _put_back(self, items: list[tuple[Key, Task]]) -> None:
        self._heap.push_all((task, -key[0], key[1]) for key, task in items)

    def _install(self, edits: Edits, candidate: bytes) -> None:
        with self._lock:
            self._state = _State(edits, candidate)
            self.best.offer(candidate)
            self.judge.cache.shrink_to(len(candidate))
        stats = self.stats()
        self.emit(events.Improvement(len(candidate), stats, elapsed=stats.elapsed))

    def _work(self, worker: int) -> None:
        heap = self._heap
        while (task := heap.pop()) is not None:
            try:
                accepted = self._attempt(task, worker)
                follow = self._planner.after(task, accepted, self._state.edits)
                heap.push_all((t, gain(self._table, t), anchor(t)) for t in follow)
            except BaseException as e:  # surfaced by run_pass in the main thread
                if self._failure is None:
                    self._failure = e
                self.judge.stop("error")
                heap.close()
            finally:
                heap.done()

    def _attempt(self, task: Task, worker: int) -> bool:
        table = self._table
        my_gain = gain(table, task)
        with self._lock:
            self._in_flight[worker] = my_gain
        try:
            return self._attempt_loop(task, worker, my_gain)
        finally:
            with self._lock:
                del self._in_flight[worker]
                self._lock_cond.notify_all()

    def _attempt_loop(self, task: Task, worker: int, my_gain: int) -> bool:
        table = self._table
        while self.judge.stop_reason is None:
            base = self._state
            edits = task_edits(table, base.edits, task)
            if edits is None:
                return False
            candidate = render(table, edits)
            if len(candidate) >= len(base.text):
                return False
            if not self.judge(candidate, worker):
                return False
            with self._lock:
                # A small commit now would make every much larger test still running stale
                # (each would need a second test): hold it until they are answered.
                while (
                    self._state is base
                    and self.judge.stop_reason is None
                    and any(
                        g > HOLD_FACTOR * my_gain for w, g in self._in_flight.items() if w != worker
                    )
                ):
                    self._lock_cond.wait(0.1)
                if self._state is base:
                    self._state = _State(edits, candidate)
                    self.best.offer(candidate)  # under the lock: writes land in commit order
                    self.judge.cache.shrink_to(len(candidate))
                    break
                self.judge.counters.commit_retries += 1
        else:
            return False
        stats = self.stats()
        self.emit(events.Improvement(len(candidate), stats, elapsed=stats.elapsed))
        return True
