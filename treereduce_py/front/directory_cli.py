"""The command line of a directory: `treereduce-py DIR -- CMD @@`, its result in `DIR.reduced`.

cli.py hands a directory input here once the options are parsed. The tree is read once
(lang/filetree.py; a tree that cannot be reduced faithfully is refused with one line and exit 9),
the output claimed (`-o OUTDIR`, default `DIR.reduced` beside it; an existing one only with
`--force`; the input itself only with `--in-place`), and run/directory.py reduces it with the
test run on a private copy (`@@` names the copy's root). Options that do not work for a directory
yet are refused, each with one line, rather than ignored. In `--json` mode each event of a file's
reduction carries the file; the other displays say which file is being reduced as it starts.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from treereduce_py import events
from treereduce_py.engine.output import OutputError, OutputLock
from treereduce_py.engine.tree_output import TreeOutput
from treereduce_py.front import ui
from treereduce_py.front.exit_codes import UsageError, exit_code
from treereduce_py.front.view import not_interesting
from treereduce_py.judge.errors import NotInteresting, ReduceError
from treereduce_py.judge.oracle import Criteria, OracleStartError
from treereduce_py.judge.tree_oracle import tree_command
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
        ("--resume", args.resume),
        ("--cluster", args.cluster is not None),
        ("-o -", args.output == "-"),
        ("--format", bool(args.format)),
        ("-l/--lang (each file's language is told from its name and content)", args.lang),
        ("--report", args.report is not None),
        ("--show-best", args.show_best),
    )
    for name, given in unsupported:
        if given:
            raise UsageError(f"{name} does not work with a directory input yet")
    if any(a.startswith("@@.") or "=@@." in a for a in command):
        raise UsageError("@@.EXT names a file: a directory's test takes its copy as @@")
    if not any(a == "@@" or a.endswith("=@@") for a in command):
        raise UsageError(
            "a directory's test must name its copy with @@ (the test runs on a private copy)"
        )
    if args.in_place and args.output is not None:
        raise UsageError("--in-place and -o both say where the result goes: give one")


def output_dir(args: argparse.Namespace, root: Path) -> Path:
    """Where the result goes, checked: it exists only with --force, and it neither lies inside
    the input nor holds it (unless --in-place makes it the input)."""
    if args.in_place:
        return root
    out = Path(args.output) if args.output is not None else root.with_name(root.name + REDUCED)
    real_out, real_root = out.resolve(), root.resolve()
    if real_out == real_root or real_root.is_relative_to(real_out):
        raise UsageError(f"the output {out} would replace the input {root} (--in-place says so)")
    if real_out.is_relative_to(real_root):
        raise UsageError(f"the output {out} is inside the input {root}: put it elsewhere")
    if not real_out.parent.is_dir():
        raise UsageError(f"cannot write {out}: no such directory: {out.parent}")
    if os.path.lexists(out) and not args.force:
        raise UsageError(f"the output exists: {out} (--force replaces it)")
    return out


def run_directory(
    args: argparse.Namespace,
    command: list[str],
    options: ReduceOptions,
    criteria: Criteria,
    reporter: ui.Reporter,
) -> tuple[int, str | None]:
    """Reduce the directory `args.input`; the exit code and, on success, where the result is."""
    started = time.monotonic()  # --max-time counts from here (reading the tree too)
    refuse_unsupported(args, command)
    root = Path(args.input)
    if root.name in ("", ".", ".."):
        root = root.resolve()
    try:
        tree = FileTree.read(root)
    except BadTree as e:
        reporter(events.Failure(str(e), BAD_TREE))
        return BAD_TREE, None
    out = output_dir(args, root)
    lock = OutputLock(out)
    lock.acquire()
    output = _Written(out)
    try:
        with tree_command(command, criteria, tree, name=root.name, timeout=args.timeout) as test:
            sink = _sink(reporter, args.json)
            session = DirectorySession(
                tree,
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
        lock.release()
    files = len(result.tree.files)
    return 0, (
        f"the result ({result.tree.size} bytes in {files} file{'s' * (files != 1)}, "
        f"from {tree.size} in {len(tree.files)}) is in {out}"
    )


class _Written(TreeOutput):
    """The output, remembering whether a tree was written."""

    written = False

    def offer(self, tree: FileTree) -> None:
        super().offer(tree)
        self.written = True

    def where(self) -> str:
        return f"; the best tree so far is in {self.path}" if self.written else ""


def _sink(reporter: ui.Reporter, json: bool) -> events.EventSink:
    """--json gets each event with its file; the other displays the events themselves, with a
    notice as each file's reduction starts."""
    if json:
        return reporter

    def sink(event: events.Event) -> None:
        if isinstance(event, events.InFile):
            inner = event.event
            if isinstance(inner, events.Start):
                what = "the file list" if event.file == "." else event.file
                note = f"reducing {what} ({inner.original_size} bytes)"
                reporter(events.Notice(note, level="info"))
            event = inner
        reporter(event)

    return sink
