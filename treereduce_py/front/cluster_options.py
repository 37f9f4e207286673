"""`--cluster` and `--cluster-upload` at the command line: the options, and the connection they
ask for (docs/cluster.md), shared by a single run and `batch`."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from treereduce_py.front.exit_codes import UsageError
from treereduce_py.front.validate import cluster_address
from treereduce_py.judge import cluster
from treereduce_py.judge.oracle import Criteria
from treereduce_py.judge.process import Place


def add_cluster_options(p: argparse.ArgumentParser) -> None:
    """--cluster and --cluster-upload (docs/cluster.md)."""
    p.add_argument(
        "--cluster",
        type=cluster_address,
        metavar="ADDR",
        help="run the tests on a Dask cluster: tcp://HOST:PORT of a scheduler, or local:N to "
        "start N worker processes here (-j: tests in flight; default: the workers' threads)",
    )
    p.add_argument(
        "--cluster-upload",
        type=Path,
        action="append",
        default=[],
        metavar="PATH",
        help="a file the test needs, shipped to every worker (repeatable; see docs/cluster.md)",
    )


def cluster_oracle(
    args: argparse.Namespace,
    command: list[str],
    criteria: Criteria,
    conn: cluster.Cluster,
    *,
    name: str,
    place: Place | None = None,
) -> cluster.ClusterOracle:
    """The test on `conn`'s workers, its input named `name` (or the directory `place` writes),
    with --cluster-upload's files and --timeout."""
    return cluster.ClusterOracle(
        command,
        criteria,
        cluster=conn,
        uploads=args.cluster_upload,
        timeout=args.timeout,
        input_name=name,
        place=place,
    )


def open_cluster(args: argparse.Namespace) -> cluster.Cluster | None:
    """Connect to --cluster (None without it); --cluster-upload alone is a usage error."""
    if args.cluster is None:
        if args.cluster_upload:
            raise UsageError("--cluster-upload needs --cluster")
        return None
    conn = cluster.connect(args.cluster, jobs=args.jobs)
    # Our own one-line messages say what went wrong; distributed's log lines would bury them.
    for name in list(logging.root.manager.loggerDict):
        if name.split(".")[0] == "distributed":
            logging.getLogger(name).setLevel(logging.CRITICAL)
    if args.jobs is None:
        args.jobs = conn.threads()
    return conn
