"""The engine: passes of tasks worked by a pool of worker threads from one shared heap.

`Engine.run_pass` runs one pass over one node table (passes.py: its state, candidates and the
one commit rule) in one of two modes: `Parallel` (parallel.py: each worker tests and commits on
its own, successes that race are merged and tested together) or `InOrder` for `--deterministic`
(inorder.py: groups of independent tasks on one state, the same output at any `--jobs`). The
pass is over when its heap is empty and no worker runs a task (heap.py).
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable

from treereduce_py import events
from treereduce_py.edit.order import shorter, smaller
from treereduce_py.edit.tasks import Planner
from treereduce_py.engine.commit import Committer
from treereduce_py.engine.inorder import InOrder
from treereduce_py.engine.parallel import Parallel
from treereduce_py.judge.judge import Judge, PassJudge
from treereduce_py.lang.syntax import NodeTable


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
        mode = InOrder if deterministic else Parallel
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
