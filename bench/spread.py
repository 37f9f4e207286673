"""Run-to-run spread: the same tool on the same case several times, to show how far one stored
run can be from another.

Every figure of the peer table comes from one run per (case, tool), and none of the tools is
deterministic under ``--jobs 2`` (which candidate finishes first decides what is kept), so a
difference between two tools smaller than the spread of either says nothing. This family runs
each tool ``--repeats`` times (default 3) on a subset of cases, through run.py's runner with the
peer table's test, jobs, timeout and limit, and stores every run in results/spread.json (keyed by
case, tool and repeat; logs gzipped in results/spread/). ``spread_rows`` sums them up per (case,
tool): the smallest, median and largest final bytes, wall time and tests.

    python bench/spread.py [--cases A,B] [--tools T,U] [--repeats 3] [--time-limit 300]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import asdict
from typing import Any

import provenance
from prepare import BENCH, load_cases, prepare_case, run_test, tools_on_path
from report_markdown import tool_order
from run import handicapped, machine_info, run_dir, run_one, select_tools

RESULTS = BENCH / "results"
LOGS = RESULTS / "spread"
# Small cases in four languages on which every tool usually finishes well before 300 s.
CASES = "js-minimist-pollution,rust-ice-wf,smt-qfbv-sort-error,go-inventory-panic"
# The peer cases whose treereduce-py rows moved most from one sitting to the next, all runs
# stopped by the limit: run by treereduce-py alone (bench/sitting.sh's noise phase), they show
# how far one of its rows there can be from another of the same engine.
NOISE_CASES = "c-csmith-checksum,smt-unsat-conflicts,c-program-asan,python-pyyaml-package"
TOOLS = "treereduce-py,cvise,creduce,shrinkray"
Run = dict[str, Any]


def _spread(values: list[float], fmt: str) -> str:
    """ "min–max (median M)" of ``values``, or the one value."""
    lo, mid, hi = min(values), statistics.median(values), max(values)
    if lo == hi:
        return format(lo, fmt)
    return f"{lo:{fmt}}–{hi:{fmt}} (median {mid:{fmt}})"


def spread_rows(runs: list[Run]) -> list[list[str]]:
    """Per (case, tool), by case, then in the tables' tool order: runs that passed their
    re-check of all runs, then final bytes, wall seconds and tests as min–max (median), and
    max/min of the bytes."""
    groups: dict[tuple[str, str], list[Run]] = {}
    for r in runs:
        groups.setdefault((r["case"], r["tool"]), []).append(r)
    order = tool_order({tool for _, tool in groups})
    rows = []
    for (case, tool), group in sorted(
        groups.items(), key=lambda g: (g[0][0], order.index(g[0][1]))
    ):
        sizes = [float(r["final_bytes"]) for r in group]
        rows.append(
            [
                case,
                tool + ("†" if any(r.get("handicap") for r in group) else ""),
                f"{sum(r['still_interesting'] for r in group)}/{len(group)}",
                _spread(sizes, ".0f"),
                f"{max(sizes) / max(min(sizes), 1.0):.2f}",
                _spread([float(r["wall_time"]) for r in group], ".1f"),
                _spread([float(r["tests_run"]) for r in group], ".0f"),
                "yes" if any(r["hit_time_limit"] for r in group) else "no",
            ]
        )
    return rows


def save(run: Run, meta: dict[str, Any]) -> None:
    """Merge one run into results/spread.json by (case, tool, repeat)."""
    path = RESULTS / "spread.json"
    old: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    merged = {(r["case"], r["tool"], r["repeat"]): r for r in old.get("runs", [])}
    merged[(run["case"], run["tool"], run["repeat"])] = run
    rows = [merged[k] for k in sorted(merged)]
    meta["reducers"] = {**old.get("machine", {}).get("reducers", {}), **meta["reducers"]}
    path.write_text(json.dumps({"machine": meta, "runs": rows}, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Run every selected tool --repeats times on every selected case; store each run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=CASES, help="comma-separated (default: %(default)s)")
    parser.add_argument("--tools", default=TOOLS, help="comma-separated (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=300.0, help="seconds per run")
    args = parser.parse_args(argv)
    tools_on_path()
    tools = select_tools(args.tools.split(","), ["default"])
    meta = {**machine_info(tools), "jobs": args.jobs, "time_limit": args.time_limit}
    refused = 0
    for case in load_cases(args.cases.split(",")):
        if not run_test(case, prepare_case(case)):
            # A failure, not a skip: a sitting must stop here rather than commit no runs.
            print(f"spread: {case.name}: the input is not interesting here; skipped", flush=True)
            refused += 1
            continue
        for tool in (t for t in tools if not t.languages or case.lang in t.languages):
            for repeat in range(1, args.repeats + 1):
                print(
                    f"spread: {case.name} with {tool.name}, run {repeat} ...", end=" ", flush=True
                )
                stamped = provenance.stamp()
                rec = run_one(case, tool, args.jobs, args.time_limit)
                if (why := handicapped(case, tool)) is not None:
                    print(why, flush=True)
                    refused += 1
                    continue
                names = ["command.json", "stdout.log", "stderr.log", "tests.log"]
                prefix = f"{case.name}-{tool.name}-{repeat}"
                logs = provenance.keep_logs(run_dir(case, tool), names, LOGS, prefix)
                fields = {k: v for k, v in asdict(rec).items() if k != "trace"}
                save({**fields, "repeat": repeat, **stamped, "logs": logs}, dict(meta))
                print(f"{rec.final_bytes} B in {rec.wall_time:.1f} s, {rec.tests_run} tests")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
