"""The one way the best changes: a candidate the judge found interesting, committed.

Every change of the best goes through `Committer.commit`: the engine's commits (a direct success
or a merged union), the polishing steps tried one candidate at a time (tidying, whitespace), the
formatted result, and the tidied text of a run a budget stopped. It takes the judge's
`Interesting` value, which only the judge makes, so a candidate the judge did not answer
interesting cannot be committed. Then, in commit order: the caller's own state is installed (the
engine's pass state, which may refuse when another commit overtook it), the output is written
(`BestSoFar`: atomic, never out of order), and the judge is told (its cache forgets candidates
longer than the new best, which can never be asked again); last, outside the lock, the
Improvement event goes out.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from treereduce_py import events
from treereduce_py.engine.output import BestSoFar
from treereduce_py.judge.judge import Interesting, Judge


class Committer:
    """Commits interesting candidates as the best of one reduction; thread-safe."""

    def __init__(
        self,
        judge: Judge,
        best: BestSoFar,
        emit: events.EventSink,
        stats: Callable[[], events.Stats],
    ) -> None:
        self.best = best
        self._judge = judge
        self._emit = emit
        self._stats = stats
        self._lock = threading.Lock()

    def commit(self, verdict: Interesting, install: Callable[[], bool] | None = None) -> bool:
        """Make `verdict`'s candidate the best; True if it did.

        `install`, when given, runs first under the commit lock and may refuse (False: nothing
        is committed), so that the caller's state and the best change together and in order.
        """
        with self._lock:
            if install is not None and not install():
                return False
            self.best.offer(verdict.candidate)
            self._judge.committed(verdict)
        stats = self._stats()
        self._emit(events.Improvement(len(verdict.candidate), stats, elapsed=stats.elapsed))
        return True
