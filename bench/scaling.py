"""Scaling benchmarks for treereduce-py: parallel speedup, input-size growth, candidate overhead.

- Parallel speed-up: the CLI reduces real cases from bench/cases (in different languages) with
  each case's own test padded by a 0.5 s sleep standing for a slow build (three generated
  programs of about 125 KB), or not padded where the test is slow by itself (a 27 KB Java
  program, javac and a JVM each test), at ``--jobs`` 1, 2, 4, 8, 16, in the default mode and
  with ``--deterministic``, with the same strategy everywhere.  Per run: wall time, tests, final
  size, worker utilization (busy test-seconds / (jobs x wall)) and the engine's CPU share (its
  own CPU seconds / wall), read from the last ``done`` event of ``--json``; the events are kept
  gzipped under results/parallel/.  Where the time went: the share of the workers busy in each
  quarter of the run and the tests wasted by cause (stale, moot, merge), from the same event.
  Speed-up = wall(jobs 1) / wall(jobs N); report.py compares the medians over the padded cases
  with the targets.  Each case's test cost (wall and CPU on its original input) is recorded with
  it: on a 2-core machine a CPU-heavy test, not the engine, limits 16 jobs.
- Input size: the same kind of generated module at 10 KB, 100 KB and 1 MB, reduced through the
  Python API with an in-process predicate that costs nothing, so the time measured is the engine's
  own.  Each size runs in a fresh process (``--one-size``) so its peak RSS is its own; CPU time is
  user+system of that process during the reduction.  The growth exponent b (time per candidate
  ~ size^b, from the log-log slope) shows whether the cost per candidate is linear (b near 1) or
  quadratic (b near 2).
- Overhead: the same in-process measurement on a real 29 KB program (this machine's stdlib
  fractions.py), giving the engine's CPU time per candidate.

Results go to bench/results/scaling.json; bench/report.py renders them.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import math
import random
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

from prepare import Case, load_cases, prepare_case, run_test, tools_on_path
from provenance import stamp
from report_markdown import PARALLEL_COLUMNS, markdown_table, parallel_rows

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"
LOGS = RESULTS / "parallel"
REPO = BENCH.parent
PAD = 0.5  # seconds of sleep before each test: a slow build
# The fourth case's test is slow by itself (javac, then a JVM: about a second of real work), so it
# is not padded; the targets' medians are over the padded three.
REAL_SLOW = ("java-ledger-exception",)
PARALLEL_CASES = "python-orders-exception,js-orders-exception,c-orders-abort,java-ledger-exception"
STRATEGY = ("--strategy", "priority", "--fast")  # the same at every --jobs and mode
# Tests a jobs-1 run took with the engine of 2026-11 (for the time estimate only; measured on the
# Python case, assumed for the others).
EXPECTED_TESTS = {
    "python-orders-exception": 340,
    "js-orders-exception": 340,
    "c-orders-abort": 340,
    "java-ledger-exception": 450,
}
ASSUMED_SPEEDUP = 2  # the engine of 2026-11 sped up about this much at 4-16 jobs


def generate_module(target_bytes: int, seed: int = 1) -> bytes:
    """A Python module of small independent functions, about ``target_bytes`` long, with one
    ``target`` function (returning 42) in the middle: the part a reduction must keep."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    i = 0
    while size < target_bytes:
        a, b, c = rng.randint(2, 9), rng.randint(1, 99), rng.randint(5, 50)
        text = (
            f"def f{i}(x, y={b}):\n"
            f"    z = x * {a} + y\n"
            f"    if z > {c}:\n"
            f"        return z - {a}\n"
            f"    return [z, y, {c}]\n\n\n"
        )
        parts.append(text)
        size += len(text)
        i += 1
    parts.insert(len(parts) // 2, "def target():\n    value = 6 * 7\n    return value\n\n\n")
    return "".join(parts).encode()


def _keeps_target(candidate: bytes) -> bool:
    return b"def target" in candidate and b"6 * 7" in candidate


def _treereduce() -> str:
    for exe in (Path(sys.executable).parent / "treereduce-py", REPO / ".venv/bin/treereduce-py"):
        if exe.exists():
            return str(exe)
    raise SystemExit("scaling: treereduce-py is not installed in this environment")


def pad(case: Case) -> float:
    """The sleep before each of the case's tests: none for a test that is slow by itself."""
    return 0.0 if case.name in REAL_SLOW else PAD


def padded_test(case: Case, directory: Path) -> Path:
    """A wrapper that sleeps the case's pad (a slow build) and then runs the case's own test."""
    script = directory / f"padded-{case.name}.sh"
    script.write_text(f'#!/bin/sh\nsleep {pad(case)}\nexec "{case.test}" "$1"\n')
    script.chmod(0o755)
    return script


def test_cost(case: Case, repeats: int = 3) -> dict[str, float]:
    """Median wall and CPU seconds (children's user+system) of the case's test on its input."""
    walls, cpus = [], []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        run_test(case, case.input_path)
        walls.append(time.monotonic() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return {
        "test_wall": round(statistics.median(walls), 3),
        "test_cpu": round(statistics.median(cpus), 3),
    }


def last_stats(events: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """The stats and reason of the last ``done`` event (else the newest stats seen, 'no-done')."""
    for event in reversed(events):
        if event.get("event") == "done":
            return event.get("stats", {}), str(event.get("reason"))
    stats = [e["stats"] for e in events if isinstance(e.get("stats"), dict)]
    return (max(stats, key=lambda s: s.get("elapsed", 0)) if stats else {}), "no-done"


def run_numbers(stats: dict[str, Any], wall: float, jobs: int) -> dict[str, Any]:
    """A parallel run's numbers from the stats of its `done` event (as in `--json`): wall time,
    tests, utilization, engine share, test and CPU seconds, busy quarters, wasted tests."""
    return {
        "wall_time": round(wall, 2),
        "tests": int(stats.get("tests", 0)),
        "utilization": round(stats.get("test_seconds", 0.0) / (jobs * wall), 3),
        "overhead_share": round(stats.get("cpu_seconds", 0.0) / wall, 3),
        "test_seconds": round(stats.get("test_seconds", 0.0), 2),
        "busy_quarters": list(stats.get("busy_quarters", [])),
        "wasted": dict(stats.get("wasted", {})),
        "cpu_seconds": round(stats.get("cpu_seconds", 0.0), 2),
    }


def reduce_once(case: Case, jobs: int, mode: str, max_time: float, tmp: Path) -> dict[str, Any]:
    """One CLI reduction of the case with the padded test; its numbers and its gzipped events."""
    out = tmp / f"out-{case.name}-{mode}-{jobs}{case.input_path.suffix}"
    argv = [_treereduce(), "-l", case.lang, "-j", str(jobs), *STRATEGY, "-o", str(out), "-f"]
    argv += ["--json", "--max-time", str(max_time)]
    argv += ["--deterministic"] if mode == "deterministic" else []
    argv += [str(case.input_path), "--", str(padded_test(case, tmp)), f"@@{case.input_path.suffix}"]
    stamped = stamp()
    start = time.monotonic()
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    wall = time.monotonic() - start
    log = LOGS / f"{case.name}-{mode}-j{jobs}.jsonl.gz"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_bytes(gzip.compress(proc.stderr))
    events = [json.loads(line) for line in proc.stderr.splitlines() if line.startswith(b"{")]
    stats, reason = last_stats(events)
    return {
        "case": case.name,
        "mode": mode,
        "jobs": jobs,
        **run_numbers(stats, wall, jobs),
        "final_bytes": out.stat().st_size if out.exists() else -1,
        "reason": reason,
        "exit_code": proc.returncode,
        "still_interesting": out.exists() and run_test(case, out),
        "log": str(log.relative_to(REPO)),
        **stamped,
    }


def estimate(cases: list[Case], jobs: list[int], modes: list[str], costs: dict[str, Any]) -> str:
    """Expected run time: jobs-1 wall = expected tests x (pad + test wall), scaled per jobs."""
    low = high = 0.0
    for case in cases:
        one = EXPECTED_TESTS.get(case.name, 340) * (pad(case) + costs[case.name]["test_wall"])
        for j in jobs:
            low += len(modes) * one / j
            high += len(modes) * one / min(j, ASSUMED_SPEEDUP)
    return (
        f"scaling: {len(cases) * len(jobs) * len(modes)} runs; expected {high / 60:.0f} min "
        f"with the current engine (speed-up capped at {ASSUMED_SPEEDUP}x), "
        f"{low / 60:.0f} min at ideal speed-up"
    )


def parallel(args: argparse.Namespace, previous: dict[str, Any] | None) -> dict[str, Any]:
    """Run the selected cases x jobs x modes; merge with the previous runs of other keys."""
    cases = load_cases(args.cases.split(","))
    jobs = [int(j) for j in args.jobs.split(",")]
    modes = args.modes.split(",")
    costs = {
        c.name: {**test_cost(c), "bytes": prepare_case(c).stat().st_size, "pad": pad(c)}
        for c in cases
    }
    for case in cases:
        print(f"scaling: {case.name}: {costs[case.name]}", flush=True)
    print(estimate(cases, jobs, modes, costs), flush=True)
    old = previous if previous and "runs" in previous else {"runs": [], "cases": {}}
    runs = {(r["case"], r["mode"], r["jobs"]): r for r in old["runs"]}
    with tempfile.TemporaryDirectory(prefix="bench-parallel-") as tmp:
        for case, mode, j in itertools.product(cases, modes, jobs):
            point = reduce_once(case, j, mode, args.max_time, Path(tmp))
            runs[(case.name, mode, j)] = point
            print(f"scaling: {case.name} {mode} jobs={j}: {point}", flush=True)
    info = {c.name: {"language": c.language, **costs[c.name]} for c in cases}
    return {
        "pad": PAD,
        "strategy": " ".join(STRATEGY),
        "max_time": args.max_time,
        "cases": {**old["cases"], **info},
        "runs": sorted(runs.values(), key=lambda r: (r["case"], r["mode"], r["jobs"])),
    }


def one_size(size: int, max_time: float, source: Path | None) -> dict[str, Any]:
    """Reduce in this process with an in-process predicate; CPU time, tests and peak RSS."""
    import treereduce_py

    data = source.read_bytes() if source else generate_module(size)

    def keep(candidate: bytes) -> bool:
        if source:
            return b"class Fraction" in candidate and b"def __new__" in candidate
        return _keeps_target(candidate)

    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.monotonic()
    result = treereduce_py.reduce(data, language="python", test=keep, jobs=1, max_time=max_time)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "bytes": len(data),
        "tests": result.stats.tests,
        "cache_hits": result.stats.cache_hits,
        "syntax_rejections": result.stats.syntax_rejections,
        "cpu_time": round(cpu, 3),
        "wall_time": round(wall, 3),
        "peak_mib": round(after.ru_maxrss / 1024, 1),
        "final_bytes": len(result.reduced),
        "reason": result.reason,
    }


def _in_subprocess(size: int, max_time: float, source: Path | None = None) -> dict[str, Any]:
    argv = [sys.executable, __file__, "--one-size", str(size), "--max-time", str(max_time)]
    if source:
        argv += ["--source", str(source)]
    proc = subprocess.run(argv, capture_output=True, text=True, check=True)
    point: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return point


def growth_text(points: list[dict[str, Any]]) -> str:
    """The log-log slopes of CPU time per candidate between consecutive sizes."""
    slopes = []
    for a, b in itertools.pairwise(points):
        pa = a["cpu_time"] / max(a["tests"], 1)
        pb = b["cpu_time"] / max(b["tests"], 1)
        if pa > 0 and pb > 0:
            slopes.append(math.log(pb / pa) / math.log(b["bytes"] / a["bytes"]))
    if not slopes:
        return ""
    shown = ", ".join(f"{s:.2f}" for s in slopes)
    return (
        f"Growth exponent of CPU time per candidate between consecutive sizes: {shown} "
        "(1 = linear in the input size, 2 = quadratic)."
    )


def size_family(args: argparse.Namespace) -> dict[str, Any]:
    """Engine CPU time, tests and peak RSS at each input size (one process per size)."""
    points = []
    for size in (int(s) for s in args.sizes.split(",")):
        point = _in_subprocess(size, args.max_time)
        print(f"scaling: size {size}: {point}", flush=True)
        points.append(point)
    return {
        "description": "generated Python modules of small functions (one of which the "
        "predicate keeps) at each size.",
        "points": points,
        "growth": growth_text(points),
    }


def overhead_family(args: argparse.Namespace) -> dict[str, Any]:
    """Engine CPU per candidate on this machine's stdlib fractions.py."""
    stdlib = Path(sysconfig.get_paths()["stdlib"]) / "fractions.py"
    point = _in_subprocess(0, args.max_time, stdlib)
    print(f"scaling: overhead: {point}", flush=True)
    return {
        "description": f"Python's stdlib fractions.py ({point['bytes']} bytes) reduced "
        "in-process to a file that keeps `class Fraction` and `def __new__`, jobs 1.",
        "tests": point["tests"],
        "cpu_time": point["cpu_time"],
        "wall_time": point["wall_time"],
        "ms_per_candidate": 1000 * point["cpu_time"] / max(point["tests"], 1),
    }


def stored_table(par: dict[str, Any], cases: list[str]) -> str:
    """The stored parallel runs of `cases` as a markdown table, with where their time went."""
    runs = [r for r in par.get("runs", []) if r["case"] in cases]
    return "\n".join(markdown_table(PARALLEL_COLUMNS, parallel_rows(runs)))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line: which families, cases, jobs and modes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["parallel", "size", "overhead"], action="append")
    parser.add_argument("--cases", default=PARALLEL_CASES, help="parallel: comma-separated")
    parser.add_argument("--jobs", default="1,2,4,8,16", help="parallel: comma-separated")
    parser.add_argument("--modes", default="default,deterministic", help="parallel")
    parser.add_argument("--estimate", action="store_true", help="parallel: print the estimate")
    parser.add_argument(
        "--table", action="store_true", help="parallel: print the stored runs' table (of --cases)"
    )
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--max-time", type=float, default=600.0, help="seconds per run")
    parser.add_argument("--one-size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--source", type=Path, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the selected scaling benchmarks and merge them into bench/results/scaling.json."""
    args = parse_args(argv)
    tools_on_path()
    if args.one_size is not None:
        print(json.dumps(one_size(args.one_size, args.max_time, args.source)))
        return 0
    if args.estimate:
        cases = load_cases(args.cases.split(","))
        costs = {c.name: test_cost(c) for c in cases if prepare_case(c)}
        jobs = [int(j) for j in args.jobs.split(",")]
        print(estimate(cases, jobs, args.modes.split(","), costs))
        return 0
    todo = args.only or ["parallel", "size", "overhead"]
    path = RESULTS / "scaling.json"
    results: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    if args.table:
        print(stored_table(results.get("parallel", {}), args.cases.split(",")))
        return 0
    if "parallel" in todo:
        results["parallel"] = parallel(args, results.get("parallel"))
    if "size" in todo:
        results["size"] = {**size_family(args), **stamp()}
    if "overhead" in todo:
        results["overhead"] = {**overhead_family(args), **stamp()}
    RESULTS.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
