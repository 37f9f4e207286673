"""A directory reduced as a hierarchy: first whole files go, then each file is reduced in place.

A project's bug usually needs a few of its files, and of those a few lines. So a round is: the
file-deletion pass (the 'files' input kind, lang/filetree.py: CDD over the file list, largest
first; files matching a `keep` glob are never candidates and always in the tree), then each C
header, Rust, Python or JavaScript module named once inlined where it is named, one test each,
up to `jobs` at once (lang/link_finders.py), then every file left, largest first, through the
ordinary single-file `Session` with its own front end (its grammar, text or bytes), its test
placing the candidate into the rest of the current tree (judge/tree_oracle.py). Rounds repeat
until one changes nothing: a file that shrank may let another one go. (run/together.py's
`TogetherSession`, not the default, reduces a round's files at once instead of in turn.)
A part is not run again on the very tree it last ended on (it would start at its own fixed
point), so the last round ends when it comes back to the last change.

No file takes the whole budget before the others had their turn: a file's part runs for its
share of the round's time slice (SLICE_TESTS tests' time in the first round, twice as long each
round after): half a slice, and of the other half of the round a share by its bytes, so the
largest file gets the most time (`_shares`). One that used its share is taken up again next
round, from its best; the largest candidates come first in every part, so every file shrinks a
little before any is polished. The trees the test refused are remembered over the whole run
(judge/refusals.py), so a part that starts again goes past its earlier failures without running
them. With --deterministic (no clock), or in a tree of one file (no time to share), each part
runs to its fixed point.

Each part is a whole `Session`, so everything a single file gets holds here too: the original is
tested first, every accepted change passed the test, budgets and Ctrl-C stop with the best so far,
and each part ends with a re-test of its result, which is the whole tree as it then is: the last
part's is the final tree's re-test (files at once: a round that changed the tree re-tests it).
The tree after every improvement is offered to the `output` (engine/tree_output.py), so the
output directory always holds an interesting tree. When the test turns out flaky on a tree that
passed a part's re-test (the next part cannot pass its own start), the run steps back to the
newest earlier tree that passes steadily (`step_back`), written over the flaky one, and goes
on from there (after STEP_BACKS of them, it ends there).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import fnmatch
import hashlib
import itertools
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from treereduce_py import events
from treereduce_py.engine.tree_output import TreeOutput
from treereduce_py.judge.errors import FlakyTest, NotInteresting
from treereduce_py.judge.oracle import Criteria, Oracle
from treereduce_py.judge.refusals import Refusals
from treereduce_py.judge.timeouts import FIRST_RUN_TIMEOUT
from treereduce_py.judge.tree_oracle import TreeOracle, tree_command
from treereduce_py.lang.filetree import FileTree
from treereduce_py.lang.link_finders import inlinings
from treereduce_py.run.final import STEADY, newest_steady
from treereduce_py.run.options import ReduceOptions
from treereduce_py.run.session import Session
from treereduce_py.transform.strategies import DEFAULT_STRATEGY


class TreeSink(Protocol):
    """Where each better tree goes (engine/tree_output.py's `TreeOutput`, or an archive's
    packed output: run/archive.py)."""

    def offer(self, tree: FileTree) -> None: ...


# The `file` of the file-deletion pass's events: the whole tree.
WHOLE_TREE = "."
# A file's part in the first round runs for about this many tests' time (over the jobs), and at
# least SLICE_FLOOR seconds; each round's slice is twice the last.
SLICE_TESTS = 40
SLICE_FLOOR = 2.0
# The trees a run keeps to step back to when the test turns out flaky (`step_back`): the
# original and the last this many that passed a part's re-test or an inlining's test.
STEPS_KEPT = 32
# After this many steps back the run ends on the steady tree rather than go on from it.
STEP_BACKS = 3


@dataclass(frozen=True)
class TreeResult:
    """The reduced tree, the original, the tests run over every part, and why it stopped
    ("fixpoint", "max-time", "max-tests"; "flaky": trees that had passed failed STEP_BACKS
    times, and the run ended on an earlier one that passes steadily)."""

    tree: FileTree
    original: FileTree
    tests: int
    reason: str


class DirectorySession:
    """One directory's reduction; see the module docstring. Use `run` once.

    `command` is a `tree_command` over `tree`; `options` are a single file's (`max_time` and
    `max_tests` count over the whole run; `output` is not used: `output` is the tree's); `name`
    is the tree's folder, as the test's copy is named (a package may import itself by it);
    `started` is when the run began (`time.monotonic()`; by default now): --max-time counts
    from there, so the caller's reading of the tree and making of the test's copies count too."""

    def __init__(
        self,
        tree: FileTree,
        command: Oracle,
        options: ReduceOptions,
        emit: events.EventSink,
        *,
        keep: Sequence[str] = (),
        output: TreeSink | None = None,
        name: str = "",
        started: float | None = None,
    ) -> None:
        self.original = tree
        self.name = name
        self.tree = tree
        # Trees the test refused, answered again without a run (a part that starts again)
        self.command = Refusals(command)
        self.options = dataclasses.replace(options, output=None, original_size=None)
        self.emit = emit
        self.output = output
        self.pinned = tree.only(p for p in tree.paths if any(fnmatch.fnmatch(p, g) for g in keep))
        self.started = time.monotonic() if started is None else started
        self.tests = 0
        self.size = tree.size  # the best tree's bytes so far, as the events report it
        self.parts = 0  # sessions run so far: only the first tests the user's original
        # The tree each part last ended at a fixed point on: run again on that very tree, it
        # would start where it ended (a round ends when it comes back to the last change).
        self.settled: dict[str, bytes] = {}
        self.tried: set[bytes] = set()  # inlined trees tested and found not interesting
        # The limit of a test outside a part (an inlining): the last part's, else the user's.
        self.limit = options.timeout if options.timeout is not None else FIRST_RUN_TIMEOUT
        self.test_seconds = 0.0  # the parts' tests' time, for the slices' length
        # How long a file's part may run this round (None: to its fixed point): SLICE_TESTS
        # tests' time in the first round, twice as long each round after. Not with
        # --deterministic, whose result must not depend on the clock.
        self.slice: float | None = None
        # The tree the last part ended on and re-tested (its digest), and the slowest run that
        # passed so far: the next part on that very tree need not test it first (`passed_in`).
        self.verified: bytes | None = None
        self.passing: float | None = None
        # The trees to step back to if the test turns out flaky: the first and the newest.
        self.steps: list[FileTree] = [tree]

    def run(self) -> TreeResult:
        """Rounds of the file pass and each file's reduction until a round changes nothing or a
        budget ends, going on from an earlier tree when the test turns out flaky (`step_back`).
        Raises NotInteresting when the original tree fails the test, FlakyTest when a tree that
        passed fails later and no earlier one passes steadily, and what `Session.run` raises."""
        backs = 0
        while True:
            try:
                return self.rounds()
            except FlakyTest as e:
                backs += 1
                steady = self.step_back(e, last=backs == STEP_BACKS)
                if backs == STEP_BACKS:
                    return TreeResult(steady, self.original, self.tests, "flaky")

    def rounds(self) -> TreeResult:
        while True:
            size = self.tree.size
            cut = False  # a part stopped at its slice: this round is no fixed point
            reason = self.delete_files()
            if reason == "fixpoint":
                reason = self.inline_links()
            self.next_slice()
            paths = sorted(self.free_paths(), key=lambda p: -len(self.tree.get(p).data))
            if reason == "fixpoint":
                reason, cut = self.reduce_files(paths)
            if reason != "fixpoint" or (self.tree.size == size and not cut):
                return TreeResult(self.tree, self.original, self.tests, reason)

    def next_slice(self) -> None:
        """The slice of this round's file parts: the first is SLICE_TESTS tests' time over the
        jobs (the mean test so far), at least SLICE_FLOOR seconds; each later one twice the last."""
        o = self.options
        if o.deterministic or not self.tests:
            return
        if self.slice is not None:
            self.slice *= 2
            return
        self.slice = max(SLICE_FLOOR, SLICE_TESTS * self.test_seconds / self.tests / self.jobs)

    def free_paths(self) -> list[str]:
        """The files a pass may change: all but the pinned ones."""
        return [p for p in self.tree.paths if p not in self.pinned.paths]

    def delete_files(self) -> str:
        """The file-deletion pass over the files not pinned; its stop reason."""
        free = self.tree.only(self.free_paths())
        if not free.files:
            return "fixpoint"
        oracle = TreeOracle(self.command, self.tree, pinned=self.pinned)
        # Only the tree stage reads a file list, whatever the strategy of the files.
        options = dataclasses.replace(self.options, strategy=DEFAULT_STRATEGY, polish=False)
        return self.part(WHOLE_TREE, free.encode(), "files", oracle, options)

    def inline_links(self) -> str:
        """Each file that one other file names, inlined there (lang/link_finders.py), kept when
        the whole tree then passes the test; its stop reason. Up to `jobs` inlinings are tested
        at once, and the first of them (in the finders' order, largest first) that passes is
        kept, as if they had been tested in turn. Not with --same-crash: the same crash is
        judged inside each part (its golden run), not by the bare command."""
        o = self.options
        width = max(1, self.jobs)
        accepted = not (o.same_crash or o.signature or o.signature_regex)
        while accepted:
            accepted = False
            found = inlinings(self.tree, self.pinned.paths, self.name)
            fresh = (i for i in found if digest(i.tree) not in self.tried)
            while not accepted:
                _, stop = self.budgets(self.options)
                if stop is not None:
                    return stop
                left = width if o.max_tests is None else min(width, o.max_tests - self.tests)
                batch = list(itertools.islice(fresh, left))
                if not batch:
                    break
                passed = self.check_trees([i.tree for i in batch])
                self.tried.update(digest(i.tree) for i in batch)
                for inlining, ok in zip(batch, passed, strict=True):
                    if ok:
                        self.tree, accepted = inlining.tree, True
                        self.verified = digest(self.tree)  # the next parts need not test it
                        self.offer(inlining.tree)
                        self.passed(inlining.tree)
                        notice = events.Notice(f"inlined {inlining.target}", self.elapsed(), "info")
                        self.emit(self.in_file(inlining.user, notice, self.tests))
                        break
        return "fixpoint"

    def check_trees(self, trees: Sequence[FileTree]) -> list[bool]:
        """Whether each tree passes the test, the trees tested at once (one worker each)."""
        self.tests += len(trees)
        if len(trees) == 1:
            return [self.command.check(trees[0].encode(), 0, timeout=self.limit).interesting]
        with concurrent.futures.ThreadPoolExecutor(len(trees), "treereduce-inline") as pool:
            runs = [
                pool.submit(self.command.check, tree.encode(), k, timeout=self.limit)
                for k, tree in enumerate(trees)
            ]
            try:
                return [run.result().interesting for run in runs]
            except KeyboardInterrupt:
                self.command.cancel()  # the tests still running are killed, not waited for
                concurrent.futures.wait(runs)
                self.command.resume()
                raise

    def reduce_files(self, paths: Sequence[str]) -> tuple[str, bool]:
        """This round's files in turn, each for its share of the round (`_shares`); the round's
        stop reason, and whether a part stopped at its slice."""
        shares = _shares({p: len(self.tree.get(p).data) for p in paths})
        reason, cut = "fixpoint", False
        for path in paths:
            reason = self.reduce_file(path, shares[path])
            if reason == "slice":
                cut, reason = True, "fixpoint"
            if reason != "fixpoint":
                break
        return reason, cut

    def reduce_file(self, path: str, share: float = 1.0) -> str:
        """One file through its own front end, in the rest of the current tree, for `share`
        times the round's slice."""
        f = self.tree.get(path)
        if not f.data:
            return "fixpoint"
        oracle = TreeOracle(self.command, self.tree, focus=path)
        return self.part(path, f.data, f.kind, oracle, self.options, share)

    def part(
        self,
        name: str,
        source: bytes,
        lang: str,
        oracle: TreeOracle,
        options: ReduceOptions,
        share: float = 1.0,
    ) -> str:
        """Run one part's session (within what is left of the budgets); its stop reason. The
        tree follows its best, and the output with it."""
        options, stop = self.budgets(options)
        if stop is not None:
            return stop
        start = digest(self.tree)
        if self.settled.get(name) == start:
            return "fixpoint"
        # A tree of one file has no time to share (its restarts would be all the slices do).
        slicing = name != WHOLE_TREE and len(self.free_paths()) > 1
        options, sliced = self.part_options(options, start, slicing, share)
        holder: list[Session] = []

        def emit(event: events.Event) -> None:
            if isinstance(event, events.Improvement) and holder:
                self.offer(oracle.full_tree(holder[0].best.data))
            event = as_slice(event) if sliced else event
            stats = getattr(event, "stats", None)
            part_tests = stats.tests if isinstance(stats, events.Stats) else 0
            self.emit(self.in_file(name, event, self.tests + part_tests))

        session = Session(source, lang, oracle, options, emit)
        holder.append(session)
        first = self.parts == 0
        self.parts += 1
        reason = None
        try:
            reason = session.run().reason
        except NotInteresting as e:
            if first:
                raise
            raise FlakyTest(f"the tree passed the test before but fails it now ({e})") from e
        finally:
            self.count(session)
            patience = session.judge.timeouts.patience
            self.tree = oracle.full_tree(session.best.data)
            # Interrupted in the first part, the tree is the user's until it improved (then it
            # is on disk already): only a tree that passed is written.
            if reason is not None or not first:
                self.offer(self.tree)
        # Ended normally, the part re-tested its result (or it is the tree it was told passed).
        self.verified = end = digest(self.tree)
        self.passing = patience.slowest if patience is not None else None
        if end != start:
            self.passed(self.tree)
        if reason == "fixpoint":
            self.settled[name] = end
        return "slice" if reason == "max-time" and sliced else reason

    def passed(self, tree: FileTree) -> None:
        """`tree`, a change, passed a part's re-test (or an inlining's test): one to step back
        to."""
        self.steps.append(tree)
        del self.steps[1:-STEPS_KEPT]

    def step_back(self, error: FlakyTest, last: bool = False) -> FileTree:
        """A tree passed the test before and fails it now, as the tree of a reduced C program
        that reads memory it never wrote: the test is flaky there. Go back to the newest of
        `steps` that passes STEADY tests in a row, found by bisecting them (as a file's bests are,
        run/final.py; the newest, the failing part's start, is taken as failed), write it, say
        so, and return it: the rounds go on from it, with the budgets left, or with `last` the
        run ends there. Re-raises `error` when not even the original passes steadily, and with
        the same crash, which is judged in the parts (their golden runs), not by the command."""
        o = self.options
        if o.same_crash or o.signature or o.signature_regex:
            raise error
        command = self.command.oracle  # not the refusals: a flaky tree may pass this time
        timeout = 2 * self.limit  # as the final test's (run/final.py)

        def passes(tree: FileTree) -> bool:
            self.tests += 1
            return command.check(tree.encode(), 0, timeout=timeout).interesting

        found = newest_steady(self.steps, passes)
        if found < 0:
            raise error
        failed, tree = self.tree.size, self.steps[found]
        del self.steps[found + 1 :]  # the newer ones are suspect
        self.tree = tree
        self.verified = self.passing = None  # the next part tests it first
        self.offer(tree)
        goes = "ends on" if last else "goes on from"
        message = (
            f"a tree that had passed the test failed it ({failed} B): the test is flaky on it; "
            f"the run {goes} the newest earlier tree that passed {STEADY} tests in a row "
            f"({tree.size} B)"
        )
        self.emit(events.Notice(message, self.elapsed()))
        return tree

    def count(self, session: Session) -> None:
        """Add a part's tests and their time to the run's, and take its tests' limit."""
        counts = session.judge.counts()
        self.tests += counts.tests
        self.test_seconds += counts.test_seconds
        self.limit = session.judge.timeouts.limit or self.limit

    @property
    def jobs(self) -> int:
        """The tests in flight at most (--jobs, by default one a core)."""
        return self.options.jobs or os.cpu_count() or 1

    def part_options(
        self, options: ReduceOptions, start: bytes, slicing: bool, share: float = 1.0
    ) -> tuple[ReduceOptions, bool]:
        """A part's `options` (with the budgets left) on the tree `start`, and whether it stops
        at `share` times the round's slice (at least SLICE_FLOOR): with `slicing`, unless the
        time budget ends first. The tree it starts on, when the last part re-tested it, is not
        tested again (`passed_in`)."""
        sliced = slicing and self.slice is not None
        if self.slice is not None and sliced:  # (twice: for the type checker)
            length = max(SLICE_FLOOR, self.slice * share)
            if options.max_time is None or length < options.max_time:
                # The part's first test gets the tests' limit, not its slice (a short budget's
                # first-run limit): the tree passed, and must not seem to fail for want of time.
                timeout = self.limit if options.timeout is None else options.timeout
                options = dataclasses.replace(options, max_time=length, timeout=timeout)
            else:
                sliced = False
        if self.passing is not None and self.verified == start:
            options = dataclasses.replace(options, passed_in=self.passing)
        return options, sliced

    def in_file(self, name: str, event: events.Event, tests: int) -> events.InFile:
        """`event` of the part on `name`, with the whole tree's bytes and `tests` so far."""
        return events.InFile(
            name, event, elapsed=self.elapsed(), tree_size=self.size, tree_tests=tests
        )

    def offer(self, tree: FileTree) -> None:
        self.size = tree.size
        if self.output is not None:
            self.output.offer(tree)

    def budgets(self, options: ReduceOptions) -> tuple[ReduceOptions, str | None]:
        """`options` with what is left of --max-time and --max-tests, or the reason to stop."""
        o = self.options
        max_time = None if o.max_time is None else o.max_time - self.elapsed()
        max_tests = None if o.max_tests is None else o.max_tests - self.tests
        if max_time is not None and max_time <= 0:
            return options, "max-time"
        if max_tests is not None and max_tests <= 0:
            return options, "max-tests"
        return dataclasses.replace(options, max_time=max_time, max_tests=max_tests), None

    def elapsed(self) -> float:
        return time.monotonic() - self.started


def _shares(sizes: dict[str, int]) -> dict[str, float]:
    """Each file's share of a round in turn, in slices: half a slice each, and the other half
    of the round by bytes. The mean share is one slice, so the round lasts as long as with a
    slice each, but a file of most of the tree's bytes gets most of it (PyYAML's package,
    whose inlined __init__.py held 137 KB of 207 KB, had as much time for each 2 KB module as
    for it), and a small file still gets the time to finish a pass (shared by bytes alone, qs's
    74-byte index.js got 2 s a round and never did)."""
    total = sum(sizes.values())
    if not total:
        return dict.fromkeys(sizes, 1.0)
    return {p: (1 + len(sizes) * n / total) / 2 for p, n in sizes.items()}


def as_slice(event: events.Event) -> events.Event:
    """A sliced part's `event`: its end at the time budget is the end of its slice."""
    if isinstance(event, events.Done) and event.reason == "max-time":
        return dataclasses.replace(event, reason="slice")
    return event


def digest(tree: FileTree) -> bytes:
    return hashlib.blake2b(tree.encode(), digest_size=16).digest()


def reduce_directory(
    root: Path,
    command: Sequence[str],
    *,
    criteria: Criteria | None = None,
    options: ReduceOptions | None = None,
    progress: events.EventSink | None = None,
    keep: Sequence[str] = (),
    output: Path | None = None,
) -> TreeResult:
    """Reduce the directory `root` while `command` (argv; `@@` names a private copy of the
    tree) passes by `criteria` (default: exit code 0); the result is also written to `output`,
    when given, after every improvement. Raises BadTree for a directory that cannot be reduced
    as given, ValueError for a command without `@@`, and what `DirectorySession.run` raises."""
    tree = FileTree.read(root)
    sink = progress or (lambda _e: None)
    out = TreeOutput(output) if output is not None else None
    with tree_command(command, criteria or Criteria(), tree, name=root.resolve().name) as test:
        session = DirectorySession(
            tree,
            test,
            options or ReduceOptions(),
            sink,
            keep=keep,
            output=out,
            name=test.input_name,
        )
        return session.run()
