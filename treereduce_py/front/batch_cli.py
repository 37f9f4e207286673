"""`treereduce-py batch INPUT... -- COMMAND`: the command line of run/batch.py.

It turns arguments into one oracle per group, the reduction options every group shares and a
batch reporter, runs the batch, and maps every failure to a one-line message and an exit code.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from treereduce_py import events
from treereduce_py.engine.output import OutputError
from treereduce_py.front import ui
from treereduce_py.front.cluster_options import cluster_oracle, open_cluster
from treereduce_py.front.directory_cli import check_copy_argument
from treereduce_py.front.exit_codes import UsageError, exit_code
from treereduce_py.front.inputs import language
from treereduce_py.front.internal_error import INTERNAL_ERROR, ThreadFailures, describe
from treereduce_py.front.options_parser import build_batch_parser
from treereduce_py.front.validate import capped_jobs
from treereduce_py.judge import cluster
from treereduce_py.judge.oracle import CommandOracle, Criteria, OracleStartError
from treereduce_py.judge.tree_oracle import PlaceTree, tree_command
from treereduce_py.lang.filetree import FileTree
from treereduce_py.run import api, batch
from treereduce_py.run.options import ReduceOptions


def batch_main(args_list: list[str], threads: ThreadFailures | None = None) -> int:
    """`treereduce-py batch`: see batch.py. `threads` holds a failure of another thread
    (which interrupts this one) to tell it from Ctrl-C."""
    args, command = _parse(args_list)
    mode: ui.Mode = "json" if args.json else "quiet" if args.quiet else "auto"
    reporter = ui.make_batch_reporter(mode, sys.stderr)
    conn = None
    try:
        check_outdir(args.outdir, force=args.force or args.resume)
        if args.dirs:
            _refuse_with_dirs(args, command)
        inputs, skipped = batch.expand_inputs(args.inputs, recursive=args.recursive, dirs=args.dirs)
        lang = None if args.lang is None else language(args.lang, None, b"")
        conn = open_cluster(args)
        jobs, note = capped_jobs(args.jobs or os.cpu_count() or 1, on_cluster=conn is not None)
        if note is not None:
            reporter(events.Notice(note))
        run = batch.Batch(
            inputs,
            args.outdir,
            _oracle_for_each_group(args, command, conn),
            jobs=jobs or 1,
            options=_options(args, command),
            emit=reporter,
            resume=args.resume,
            command=command,
            mode=args.test_mode,
            language=lang,
            same_crash=args.same_crash,
            skipped=skipped,
        )
        groups, _ = run.run()
        code = 8 if any(g.status in ("failed", "skipped") for g in groups) else 0
    except (UsageError, OutputError) as e:
        code = 2
        reporter(events.Failure(str(e), code))
    except (api.ReduceError, OracleStartError) as e:
        code = exit_code(e)
        reporter(events.Failure(str(e), code))
    except KeyboardInterrupt:
        failure = threads.failure if threads is not None else None
        code = 130 if failure is None else INTERNAL_ERROR
        what = "interrupted" if failure is None else describe(failure)
        reporter(events.Failure(f"{what}; finished groups are in {args.outdir}", code))
    except Exception as e:
        code = INTERNAL_ERROR
        reporter(events.Failure(f"{describe(e)}; finished groups are in {args.outdir}", code))
    finally:
        if conn is not None:
            conn.close()
    reporter.close()
    return code


def _parse(args_list: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """The options and the test command (after `--`); a usage error (exit 2) for either."""
    parser = build_batch_parser()
    cut = args_list.index("--") if "--" in args_list else len(args_list)
    args = parser.parse_args(args_list[:cut])  # first, so that -h works without a command
    command = args_list[cut + 1 :]
    if not command:
        parser.error("missing the test command: put it after '--' (INPUT... -- COMMAND [ARG...])")
    return args, command


def _refuse_with_dirs(args: argparse.Namespace, command: list[str]) -> None:
    """One UsageError for what a batch of folders cannot take."""
    if args.lang is not None:
        raise UsageError("-l/--lang does not work with --dirs (each file's language is told)")
    check_copy_argument(command)


def check_outdir(outdir: Path, *, force: bool) -> None:
    """OUTDIR is a directory to create, or an empty one, or (with `force`: write into it, or
    --resume) any directory; raises UsageError otherwise."""
    if outdir.exists() and not outdir.is_dir():
        raise UsageError(f"-o {outdir} is a file: batch writes a directory of results")
    if outdir.is_dir() and not force and any(outdir.iterdir()):
        raise UsageError(
            f"-o {outdir} is not empty: pass --force to write the results among its files, "
            "--resume to continue a batch, or -o a new directory"
        )


def _oracle_for_each_group(
    args: argparse.Namespace, command: list[str], conn: cluster.Cluster | None
) -> batch.OracleFactory:
    """A new oracle per group (its input named like the group's input, judged by the group's
    criteria; a folder's test gets its tree's copy), on the cluster when there is one."""

    def make_oracle(name: str, criteria: Criteria, tree: FileTree | None) -> CommandOracle:
        if tree is not None and conn is None:
            return tree_command(command, criteria, tree, name=name, timeout=args.timeout)
        if conn is None:
            return CommandOracle(command, criteria, timeout=args.timeout, input_name=name)
        place = None if tree is None else PlaceTree(tree)  # the tree travels to the worker
        return cluster_oracle(args, command, criteria, conn, name=name, place=place)

    return make_oracle


def _options(args: argparse.Namespace, command: list[str]) -> ReduceOptions:
    """The options every group's reduction shares."""
    return ReduceOptions(
        strategy=args.strategy,
        passes=1 if args.fast else None,
        polish=not args.fast,
        timeout=args.timeout,
        max_time=args.max_time,
        command=tuple(command),
        signature_frames=args.signature_frames,
        signature_regex=args.signature_regex,
    )
