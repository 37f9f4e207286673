"""The Dask cluster and batch section of docs/benchmarks.md, from bench/cluster.py's
results/cluster.json."""

from __future__ import annotations

from typing import Any

from report_markdown import markdown_table


def cluster_section(result: dict[str, Any]) -> list[str]:
    """Issue 12's two measurements (bench/cluster.py), as stored in results/cluster.json."""
    one, batch = result["one_reduction"], result["batch"]
    ok = {True: "met", False: "**missed**"}
    lines = [
        "## Tests on a Dask cluster, and batch mode",
        "",
        f"`make bench-cluster` (bench/cluster.py), commit {result['commit']}, {result['date']}; "
        "sleep-padded tests on a 2-core machine shared with other jobs; the scheduler and "
        "the 4 worker processes of `--cluster local:4` run on the same 2 cores.",
        "",
        "One reduction, a 1 s test, 8 tests in flight (wall seconds; `local:4` includes starting "
        "the cluster, the running cluster was started before the clock):",
        "",
    ]
    lines += markdown_table(
        ["run", "wall s"], [[name, f"{wall:.1f}"] for name, wall in one["walls"].items()]
    )
    lines += [
        "",
        f"Cluster / local: **{one['ratio']:.2f}x** (target at most {one['target']}x: "
        f"{ok[one['met']]})."
        + (
            f" On the cluster already running: {one['ratio_running']:.2f}x."
            if "ratio_running" in one
            else ""
        ),
        "",
        "A batch of crashing Python programs (0.3 s tests), `batch -j 1` against `-j 4`:",
        "",
    ]
    rows = [
        [jobs, str(r["crashing"]), str(r["clean"]), str(r["signatures"]), str(r["reductions"]),
         f"{r['wall']:.1f}"]
        for jobs, r in batch["runs"].items()
    ]  # fmt: skip
    lines += markdown_table(["-j", "crashing", "clean", "signatures", "reductions", "wall s"], rows)
    lines += [
        "",
        f"4 workers / 1 worker: **{batch['ratio']:.2f}x** (target at most {batch['target']}x, "
        f"and one reduction per signature: {ok[batch['met']]}).",
        "",
    ]
    return lines
