"""The command line of a directory: `treereduce-py DIR -- CMD @@`, its result in `DIR.reduced`.

cli.py hands a directory input here once the options are parsed, and several files
(`treereduce-py a.c b.h -o OUT -- CMD @@`), reduced as the tree of just those files under the
deepest directory holding them all, into the new directory OUT. The tree is read once
(lang/filetree.py; a directory that cannot be reduced faithfully is refused with one line and
exit 9, a file of several with exit 2 as a single file is), the output claimed (`-o OUTDIR`,
default `DIR.reduced` beside it; an existing one only with `--force`; the input itself only with
`--in-place`), and run/directory.py reduces it with the test run on a private copy (`@@` names
the copy's root). Options that do not work for a directory yet are refused, each with one line,
rather than ignored. In `--json` mode each event of a file's reduction carries the file; the
other displays say which file is being reduced as it starts.
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from pathlib import Path

from treereduce_py import events
from treereduce_py.engine.output import OutputError, OutputLock, write_record
from treereduce_py.engine.tree_output import TreeOutput
from treereduce_py.front import ui
from treereduce_py.front.cluster_options import cluster_oracle, open_cluster
from treereduce_py.front.exit_codes import UsageError, exit_code
from treereduce_py.front.run_record import check_record, run_record
from treereduce_py.front.view import not_interesting
from treereduce_py.judge import cluster
from treereduce_py.judge.errors import FlakyTest, NotInteresting, ReduceError
from treereduce_py.judge.oracle import CommandOracle, Criteria, OracleStartError
from treereduce_py.judge.tree_oracle import PlaceTree, tree_command
from treereduce_py.lang.filetree import BadTree, FileTree
from treereduce_py.run.directory import DirectorySession
from treereduce_py.run.options import ReduceOptions

# The exit code of a directory that cannot be reduced as given (exit_codes.EXIT_CODES).
BAD_TREE = 9
# Suffix of the default output directory, beside the input.
REDUCED = ".reduced"


def is_directory_input(args: argparse.Namespace) -> bool:
    return bool(args.input != "-" and os.path.isdir(args.input))


def refuse_unsupported(args: argparse.Namespace, command: list[str]) -> None:
    """One UsageError for the first option a directory cannot take yet, or a command that does
    not name the copy with a whole `@@` argument."""
    unsupported = (
        ("-o -", args.output == "-"),
        ("--format", bool(args.format)),
        ("-l/--lang (each file's language is told from its name and content)", args.lang),
        ("--report", args.report is not None),
        ("--show-best", args.show_best),
    )
    for name, given in unsupported:
        if given:
            raise UsageError(f"{name} does not work with a directory input yet")
    check_copy_argument(command)
    if args.in_place and args.output is not None:
        raise UsageError("--in-place and -o both say where the result goes: give one")
    if args.in_place and args.resume:
        raise UsageError("--in-place goes on from the directory as it is: drop --resume")


def _read_tree(args: argparse.Namespace) -> tuple[Path, FileTree]:
    """The input's root and its tree: a directory's, or several files' (rooted at the deepest
    directory holding them all). Raises BadTree for a directory that cannot be reduced as given,
    UsageError for several inputs that are not all readable files, or name one twice."""
    if len(args.inputs) == 1:
        root = Path(args.input)
        if root.name in ("", ".", ".."):
            root = root.resolve()
        return root, FileTree.read(root)
    for name in args.inputs:
        if name == "-":
            raise UsageError("- (standard input) is one input alone, not one of several")
        if os.path.isdir(name):
            raise UsageError(f"{name} is a directory: give one directory, or several files")
        if not os.path.lexists(name):
            raise UsageError(f"no such file: {name}")
    try:
        return FileTree.of_files([Path(name) for name in args.inputs])
    except BadTree as e:  # several files fail as one file does: a usage error
        raise UsageError(str(e)) from None


def check_copy_argument(command: list[str]) -> None:
    """A UsageError unless the command names the tree's copy with a whole `@@` argument."""
    if any(a.startswith("@@.") or "=@@." in a for a in command):
        raise UsageError("@@.EXT names a file: a directory's test takes its copy as @@")
    if not any(a == "@@" or a.endswith("=@@") for a in command):
        raise UsageError(
            "a directory's test must name its copy with @@ (the test runs on a private copy)"
        )


def output_dir(args: argparse.Namespace, root: Path) -> Path:
    """Where the result goes, checked: it exists only with --force, and it neither lies inside
    the input nor holds it (unless --in-place makes it the input). Several files' result goes
    where -o says, which may be beside them but not hold them."""
    several = len(args.inputs) > 1
    if several and args.in_place:
        raise UsageError("--in-place is for a directory input; several files' result goes to -o")
    if several and args.output is None:
        raise UsageError("several files are reduced into a new directory: name it with -o OUTDIR")
    if args.in_place:
        return root
    out = Path(args.output) if args.output is not None else root.with_name(root.name + REDUCED)
    real_out, real_root = out.resolve(), root.resolve()
    if real_out == real_root or real_root.is_relative_to(real_out):
        if several:
            raise UsageError(f"the output {out} would replace the inputs' directory {root}")
        raise UsageError(f"the output {out} would replace the input {root} (--in-place says so)")
    if real_out.is_relative_to(real_root) and not several:
        raise UsageError(f"the output {out} is inside the input {root}: put it elsewhere")
    if several and any(Path(f).resolve().is_relative_to(real_out) for f in args.inputs):
        raise UsageError(f"the output {out} would replace one of the inputs")
    if not real_out.parent.is_dir():
        raise UsageError(f"cannot write {out}: no such directory: {out.parent}")
    if args.resume and not out.is_dir():
        raise UsageError(f"--resume needs the output directory of an earlier run: no {out}")
    if os.path.lexists(out) and not (args.force or args.resume):
        raise UsageError(f"the output exists: {out} (--force replaces it, --resume goes on)")
    return out


def run_directory(
    args: argparse.Namespace,
    command: list[str],
    options: ReduceOptions,
    criteria: Criteria,
    reporter: ui.Reporter,
) -> tuple[int, str | None]:
    """Reduce the directory `args.input` (or the files `args.inputs`); the exit code and, on
    success, where the result is."""
    started = time.monotonic()  # --max-time counts from here (reading the tree too)
    refuse_unsupported(args, command)
    try:
        root, tree = _read_tree(args)
    except BadTree as e:
        reporter(events.Failure(str(e), BAD_TREE))
        return BAD_TREE, None
    out = output_dir(args, root)
    lock = OutputLock(out)
    lock.acquire()
    record = None if args.in_place else run_record(args, command, "directory", tree.encode())
    output = _Written(out, record)
    conn = None
    try:
        start = _resumed(out, record) if args.resume and record is not None else tree
        conn = open_cluster(args)
        with _tree_test(args, command, criteria, start, root.name, conn) as test:
            sink = _sink(reporter, args.json)
            session = DirectorySession(
                start,
                test,
                options,
                sink,
                keep=args.keep,
                output=output,
                name=root.name,
                started=started,
            )
            result = session.run()
    except NotInteresting as e:
        reporter(not_interesting(e, command, 40 if args.verbose else 5, "directory"))
        return e.exit_code, None
    except FlakyTest as e:
        reporter(events.Failure(output.flaky(), e.exit_code))
        return e.exit_code, None
    except (ReduceError, OracleStartError, OutputError) as e:
        code = exit_code(e)
        reporter(events.Failure(f"{e}{output.where()}", code))
        return code, None
    except KeyboardInterrupt:
        elapsed = time.monotonic() - started
        where = output.where() or "; no result was written yet"
        reporter(events.Failure(f"interrupted after {elapsed:.1f} s{where}", 130))
        return 130, None
    finally:
        if conn is not None:
            conn.close()
        lock.release()
    files = len(result.tree.files)
    return 0, (
        f"the result ({result.tree.size} bytes in {files} file{'s' * (files != 1)}, "
        f"from {tree.size} in {len(tree.files)}) is in {out}"
    )


def _tree_test(
    args: argparse.Namespace,
    command: list[str],
    criteria: Criteria,
    tree: FileTree,
    name: str,
    conn: cluster.Cluster | None,
) -> CommandOracle:
    """The test of `tree`'s candidates, each written as the directory `name`: here, or on the
    --cluster's workers."""
    if conn is None:
        return tree_command(command, criteria, tree, name=name, timeout=args.timeout)
    return cluster_oracle(args, command, criteria, conn, name=name, place=PlaceTree(tree))


def _resumed(out: Path, record: dict[str, object]) -> FileTree:
    """The tree an earlier run of the same reduction left in `out` (its record says so), to go
    on from; UsageError otherwise."""
    check_record(out, record)
    try:
        return FileTree.read(out)
    except BadTree as e:
        raise UsageError(f"--resume: {e}") from None


class _Written(TreeOutput):
    """The output, remembering whether a tree was written, with the run's record beside it
    (written after the first tree: a tree is never beside another run's record)."""

    def __init__(self, path: Path, record: dict[str, object] | None) -> None:
        super().__init__(path)
        self.record = record
        self.written = False

    def offer(self, tree: FileTree) -> None:
        super().offer(tree)
        if not self.written and self.record is not None:
            write_record(self.path, self.record)
        self.written = True

    def where(self) -> str:
        return f"; the best tree so far is in {self.path}" if self.written else ""

    def flaky(self) -> str:
        """What a FlakyTest means here: a part's message speaks of one file's result, but
        what passed and is kept is a whole tree, or nothing was written at all."""
        kept = (
            f"the last tree that passed is in {self.path}"
            if self.written
            else "no smaller tree passed, so nothing was written"
        )
        flaky = "a tree passed the test before but fails it now: is the test deterministic?"
        return f"{flaky} ({kept})"


def _sink(reporter: ui.Reporter, json: bool) -> events.EventSink:
    """--json gets each event with its file; the other displays the events themselves, with a
    notice as each file's reduction starts (`_Follow`)."""
    return reporter if json else _Follow(reporter)


class _Follow:
    """The events a display shows of a directory's run: those of one file's run at a time, as
    the display follows a single file, with a notice as each file starts. When files are
    reduced at once, it follows the first of those running; of the others it says only how
    each started and ended (and their warnings), and follows the next when its file is done."""

    def __init__(self, reporter: ui.Reporter) -> None:
        self.reporter = reporter
        self.starts: dict[str, events.Start] = {}  # the files running, in the order they began
        self.followed: str | None = None
        self.lock = threading.Lock()

    def __call__(self, event: events.Event) -> None:
        with self.lock:
            if not isinstance(event, events.InFile):
                self.reporter(event)
                return
            inner, name = event.event, event.file
            if isinstance(inner, events.Start):
                self.reporter(events.Notice(_start_note(event, inner), level="info"))
                self.starts[name] = inner
                if self.followed is None:
                    self.followed = name
                    self.reporter(inner)
                return
            if name == self.followed:
                self.reporter(inner)
            elif isinstance(inner, events.Done):
                size = f"{inner.stats.original_size} -> {inner.stats.size} bytes"
                self.reporter(events.Notice(f"{name}: {size} ({inner.reason})", level="info"))
            elif isinstance(inner, events.Notice | events.Failure):
                self.reporter(inner)
            if isinstance(inner, events.Done):
                self.starts.pop(name, None)
                if name == self.followed:
                    self.followed = next(iter(self.starts), None)
                    if self.followed is not None:  # the display follows the next file's run
                        note = f"showing {self.followed}, reduced at the same time"
                        self.reporter(events.Notice(note, level="info"))
                        self.reporter(self.starts[self.followed])


def _start_note(event: events.InFile, start: events.Start) -> str:
    """What is reduced next, its bytes and the whole tree's (a file list's own bytes are its
    records', not the tree's: only the tree's are said)."""
    sizes = [] if event.file == "." else [f"{start.original_size} bytes"]
    if event.tree_size is not None:
        sizes.append(f"the tree: {event.tree_size} bytes")
    what = "the file list" if event.file == "." else event.file
    return f"reducing {what}" + (f" ({'; '.join(sizes)})" if sizes else "")
