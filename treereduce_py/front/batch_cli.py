"""`treereduce-py batch INPUT... -- COMMAND`: the command line of run/batch.py.

It turns arguments into one oracle per group, the reduction options every group shares and a
batch reporter, runs the batch, and maps every failure to a one-line message and an exit code.
"""

from __future__ import annotations

import argparse
import os

from treereduce_py import events
from treereduce_py.engine.output import OutputError
from treereduce_py.front import ui
from treereduce_py.front.cluster_options import open_cluster
from treereduce_py.front.exit_codes import UsageError, exit_code
from treereduce_py.front.inputs import language
from treereduce_py.front.options_parser import build_batch_parser
from treereduce_py.judge import cluster
from treereduce_py.judge.oracle import CommandOracle, Criteria, OracleStartError
from treereduce_py.run import api, batch
from treereduce_py.run.options import ReduceOptions


def batch_main(args_list: list[str]) -> int:
    """`treereduce-py batch`: see batch.py."""
    if "--" not in args_list:
        if {"-h", "--help"} & set(args_list):
            build_batch_parser().parse_args(["-h"])
        build_batch_parser().error("missing the test command: put it after '--'")
    cut = args_list.index("--")
    args = build_batch_parser().parse_args(args_list[:cut])
    command = args_list[cut + 1 :]
    mode: ui.Mode = "json" if args.json else "quiet" if args.quiet else "auto"
    reporter = ui.make_batch_reporter(mode)
    conn = None
    try:
        inputs, skipped = batch.expand_inputs(args.inputs, recursive=args.recursive)
        if not command:
            raise UsageError("missing the test command after '--'")
        lang = None if args.lang is None else language(args.lang, None, b"")
        conn = open_cluster(args)
        run = batch.Batch(
            inputs,
            args.outdir,
            _oracle_for_each_group(args, command, conn),
            jobs=args.jobs or os.cpu_count() or 1,
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
        code = 130
        reporter(events.Failure(f"interrupted; finished groups are in {args.outdir}", code))
    finally:
        if conn is not None:
            conn.close()
    reporter.close()
    return code


def _oracle_for_each_group(
    args: argparse.Namespace, command: list[str], conn: cluster.Cluster | None
) -> batch.OracleFactory:
    """A new oracle per group (its input file named like the group's input, judged by the
    group's criteria), on the cluster when there is one."""

    def make_oracle(name: str, criteria: Criteria) -> CommandOracle:
        if conn is None:
            return CommandOracle(command, criteria, timeout=args.timeout, input_name=name)
        return cluster.ClusterOracle(
            command,
            criteria,
            cluster=conn,
            uploads=args.cluster_upload,
            timeout=args.timeout,
            input_name=name,
        )

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
