"""Trees a test refused, remembered across the parts of a directory's reduction.

A directory is reduced a part at a time, and a file's part may stop at its time slice and start
again in the next round (run/directory.py). Each part's session has a cache of its own, keyed by
the file's bytes alone, which is right only while the other files stay as they are, so it dies
with the part. `Refusals` remembers, over the whole run, each complete tree the test found not
interesting (by a digest of its encoding), and answers it again without a run: a part that starts
again on a tree it already worked on goes past the candidates that failed last time for free.

Only refusals are kept. A cached refusal can at worst cost a reduction (a flaky test that would
pass the next time); it can never make a tree that fails the test the best. Answers that said
nothing (a test cut off by its time limit, or cancelled) and checks whose output is wanted (a
golden run) are not cached.
"""

from __future__ import annotations

import hashlib
import threading

from treereduce_py.judge.oracle import Oracle, Verdict, Wrapped


class Refusals(Wrapped):
    """`oracle`, with the candidates it found not interesting answered again without a run."""

    def __init__(self, oracle: Oracle) -> None:
        super().__init__(oracle)
        self.refused: set[bytes] = set()
        self.hits = 0
        self._lock = threading.Lock()

    def check(
        self,
        candidate: bytes,
        worker: int = 0,
        *,
        timeout: float | None = None,
        capture: bool = False,
    ) -> Verdict:
        if capture:
            return self.oracle.check(candidate, worker, timeout=timeout, capture=capture)
        key = hashlib.blake2b(candidate, digest_size=16).digest()
        with self._lock:
            if key in self.refused:
                self.hits += 1
                return REFUSED
        verdict = self.oracle.check(candidate, worker, timeout=timeout)
        if not verdict.interesting and verdict.exit_code is not None and not verdict.timed_out:
            with self._lock:
                self.refused.add(key)
        return verdict

    def close(self) -> None:
        """The oracle is the caller's to close."""


# The answer to a tree refused before: not interesting, in no time.
REFUSED = Verdict(False, 1, timed_out=False, seconds=0.0, remembered=True)
