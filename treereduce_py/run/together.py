"""A directory's files reduced at once rather than in turn (not the default).

With several jobs, a round's files can share them: every file's part runs at once, their tests
sharing the jobs' slots, each free slot given to the waiting task worth the most bytes in any
file (judge/slots.py); each file is tested in the tree as the others have made it, and its
success installed there only when no other file changed while its test ran (`LiveTree`), so the
heaps of all files act as one. Everything else of a round (the file-deletion pass, the
inlining, slices, budgets, the output) is run/directory.py's. Faster at 8 jobs with a padded
test, but on the real cases at 2 jobs smaller only on one, by 1% (docs/design.md), so a
directory is reduced in turn unless this session is asked for (bench/together.py compares both).
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections.abc import Sequence

from treereduce_py import events
from treereduce_py.judge.errors import FlakyTest, NotInteresting
from treereduce_py.judge.slots import Ranked, RankedSlots
from treereduce_py.judge.tree_oracle import LiveTree, TreeOracle
from treereduce_py.run.directory import DirectorySession, as_slice, digest
from treereduce_py.run.session import Session

# Files reduced at once are at most this many times the jobs (the largest first; each part has
# its own workers, waiting for a slot).
TOGETHER = 4
# ... and pass on one progress event (of any of them) a quarter second: the engine's own rate.
PROGRESS_GAP = 0.25


class TogetherSession(DirectorySession):
    """A directory's reduction whose rounds reduce the files at once where they can
    (`together`), else in turn as `DirectorySession`'s do."""

    # A round's state, fresh each round (`reduce_together`): the parts' sessions running, a
    # lock for those and for what the parts update here, and when a part's progress was last
    # passed on.
    running: dict[str, Session]
    lock: threading.Lock
    progressed: float

    def reduce_files(self, paths: Sequence[str]) -> tuple[str, bool]:
        if self.together(paths):
            return self.reduce_together(paths)
        return super().reduce_files(paths)

    def together(self, paths: Sequence[str]) -> bool:
        """Whether this round's files are reduced at once (`reduce_together`): several files,
        several jobs, and none of what needs them in turn: --deterministic (the same tests at
        any --jobs), --max-tests (counted over every part) and the same crash (judged above
        the tree's test, which installs what passed in it)."""
        o = self.options
        return (
            len(paths) > 1
            and self.jobs > 1
            and not (o.deterministic or o.crash_judged)
            and o.max_tests is None
        )

    def reduce_together(self, paths: Sequence[str]) -> tuple[str, bool]:
        """Every file's part at once, their tests sharing the jobs' slots, each free slot given
        to the waiting task worth the most bytes in any file (judge/slots.py), each file tested
        in the tree as the others have made it (`LiveTree`); the round's stop reason, and
        whether a part stopped at its slice."""
        self.running, self.lock, self.progressed = {}, threading.Lock(), 0.0
        slots = RankedSlots(self.jobs)
        live = LiveTree(self.tree, self.offer)
        start = digest(self.tree)
        # Only the files with a part to run share the round (not the empty ones, nor those at
        # their fixed point on this very tree).
        paths = [p for p in paths if self.tree.get(p).data and self.settled.get(p) != start]
        if not paths:
            return "fixpoint", False
        width = min(len(paths), TOGETHER * self.jobs)
        workers = concurrent.futures.ThreadPoolExecutor(width, "treereduce-file")
        runs = [workers.submit(self.live_part, path, live, slots, start, width) for path in paths]
        try:
            concurrent.futures.wait(runs)
        except KeyboardInterrupt:
            slots.close()
            self.command.cancel()  # every part's running tests, now
            for session in list(self.running.values()):
                session.judge.stop("interrupted")
            concurrent.futures.wait(runs)
            self.command.resume()
            raise
        finally:
            workers.shutdown(wait=True)
            self.tree = live.tree
            self.verified = digest(self.tree) if live.version or self.verified == start else None
        reasons = [run.result() for run in runs]  # (a part's error is raised here)
        if live.version and not self.check_trees([self.tree])[0]:
            raise FlakyTest("the tree passed the test before but fails it now")
        stop = next((r for r in reasons if r not in ("fixpoint", "slice")), "fixpoint")
        return stop, "slice" in reasons

    def live_part(
        self, path: str, live: LiveTree, slots: RankedSlots, start: bytes, width: int
    ) -> str:
        """One file's part in a round of `width` parts run at once; its stop reason ("slice"
        when it used its slice). Its slice is `width` times the round's: the parts share the
        slots, so the round lasts about as long as in turn (one slice each, one after another),
        not one slice for all. A final re-test that fails in the tree the others have made since
        keeps the file as the tree last took it."""
        f = live.tree.get(path)
        oracle = TreeOracle(Ranked(self.command, slots), live.tree, focus=path, live=live)
        options, stop = self.budgets(self.options)
        if stop is not None:
            return stop
        options, sliced = self.part_options(options, start, slicing=True, share=width)

        def emit(event: events.Event) -> None:
            event = as_slice(event) if sliced else event
            stats = getattr(event, "stats", None)
            part_tests = stats.tests if isinstance(stats, events.Stats) else 0
            with self.lock:
                if isinstance(event, events.Progress):  # one a progress interval, of any file
                    if time.monotonic() - self.progressed < PROGRESS_GAP:
                        return
                    self.progressed = time.monotonic()
                self.emit(self.in_file(path, event, self.tests + part_tests))

        session = Session(f.data, f.kind, oracle, options, emit)
        with self.lock:
            self.running[path] = session
            self.parts += 1
        reason = None
        try:
            reason = session.run().reason
        except (NotInteresting, FlakyTest):
            reason = "fixpoint"  # the others changed the tree under its result: it keeps the last
        finally:
            with self.lock:
                del self.running[path]
                self.count(session)
        if reason == "fixpoint" and live.tree.get(path).data != session.best.data:
            # Its last successes reached the tree too late (another file changed during each
            # test, the final re-test's too): the file is not at its fixed point in the tree, so
            # it goes on next round, as a part that used its slice does.
            return "slice"
        if reason == "fixpoint":
            with self.lock:
                self.settled[path] = digest(live.tree)
        return "slice" if reason == "max-time" and sliced else reason
