"""An archive reduced as its members first, then as bytes.

A zip (lang/ziptree.py) is a directory packed into one file, so its first reduction is a
directory's (run/directory.py): whole members go, then each member left through its own front
end, the archive packed again around the candidate for every test (`Packing`). What that stage
ends with is an ordinary interesting file, which the byte front end then reduces as any binary
input (a member kept raw, the archive's own structure). Each improvement is written to the
output packed, so the output always holds an interesting archive.

The packed archive differs from the original (no extra fields, comments or data descriptors), so
the stage starts by testing it: when it is not interesting, a notice says so and the input is
reduced as bytes alone, as it would have been without this stage.
"""

from __future__ import annotations

import dataclasses
import time

from treereduce_py import events
from treereduce_py.engine.output import BestSoFar
from treereduce_py.judge.errors import NotInteresting
from treereduce_py.judge.oracle import Oracle, Verdict, Wrapped
from treereduce_py.lang import ziptree
from treereduce_py.lang.filetree import FileTree
from treereduce_py.run.directory import DirectorySession
from treereduce_py.run.options import ReduceOptions


class Packing(Wrapped):
    """`oracle` (a test of one file) asked about the archive a candidate tree packs into; the
    candidate is the records of some of `tree`'s members (FileTree.encode)."""

    def __init__(self, oracle: Oracle, tree: FileTree, layout: ziptree.Layout) -> None:
        super().__init__(oracle)
        self.tree = tree
        self.layout = layout

    def check(
        self,
        candidate: bytes,
        worker: int = 0,
        *,
        timeout: float | None = None,
        capture: bool = False,
    ) -> Verdict:
        packed = ziptree.pack(self.tree.decode(candidate), self.layout)
        return self.oracle.check(packed, worker, timeout=timeout, capture=capture)

    def close(self) -> None:
        """The file's oracle is the caller's to close."""


@dataclasses.dataclass(frozen=True)
class _PackedOutput:
    """The run's output file kept in step with the best tree, packed (a `TreeSink`)."""

    best: BestSoFar
    layout: ziptree.Layout

    def offer(self, tree: FileTree) -> None:
        self.best.offer(ziptree.pack(tree, self.layout))


def reduce_members(
    source: bytes, oracle: Oracle, options: ReduceOptions, emit: events.EventSink
) -> tuple[bytes, ReduceOptions] | None:
    """`source` reduced member by member and packed, with `options` for the bytes stage after
    it (what is left of the budgets; the original's size); None when `source` is not an archive
    lang/ziptree.py reads, or its packed original is not interesting (said in a notice). Raises
    what `DirectorySession.run` raises, but for the first test's NotInteresting."""
    found = ziptree.read(source)
    if found is None:
        return None
    tree, layout = found
    started = time.monotonic()
    emit(events.Notice(f"a zip archive of {len(tree.files)} members: reducing its members first"))
    best = BestSoFar(options.output, source)
    session = DirectorySession(
        tree,
        Packing(oracle, tree, layout),
        options,
        emit,
        output=_PackedOutput(best, layout),
        started=started,
    )
    try:
        result = session.run()
    except NotInteresting as e:  # only the first test says so (later ones: FlakyTest)
        notice = f"the archive packed from its members is not interesting ({e}): reducing bytes"
        emit(events.Notice(notice))
        return None
    o = options
    spent = time.monotonic() - started
    rest = dataclasses.replace(
        o,
        max_time=None if o.max_time is None else max(0.0, o.max_time - spent),
        max_tests=None if o.max_tests is None else max(1, o.max_tests - result.tests),
        original_size=o.original_size or len(source),
        tests_before=o.tests_before + result.tests,
    )
    return ziptree.pack(result.tree, layout), rest
