"""Scaling benchmarks for treereduce-py: parallel speedup, input-size growth, candidate overhead.

- Parallel speedup: the CLI reduces a generated Python module with a test that sleeps 0.2 s
  before deciding, so wall time is dominated by tests and the ideal speedup of ``--jobs N`` is N.
  Reported for jobs 1, 2, 4, 8, 16.
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
import itertools
import json
import math
import random
import resource
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"
REPO = BENCH.parent
SLEEP = 0.2


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


def parallel(jobs_list: list[int], size: int, max_time: float) -> dict[str, Any]:
    """Reduce the same module with the sleeping test at each --jobs; wall time and tests."""
    points = []
    with tempfile.TemporaryDirectory(prefix="bench-parallel-") as tmp:
        src = Path(tmp) / "input.py"
        src.write_bytes(generate_module(size))
        test = Path(tmp) / "test.sh"
        test.write_text(
            f"#!/bin/sh\nsleep {SLEEP}\ngrep -q 'def target' \"$1\" && grep -q '6 \\* 7' \"$1\"\n"
        )
        test.chmod(0o755)
        for jobs in jobs_list:
            out = Path(tmp) / f"out-{jobs}.py"
            report = Path(tmp) / f"report-{jobs}.jsonl"
            argv = [
                _treereduce(),
                "-l",
                "python",
                "-j",
                str(jobs),
                "-o",
                str(out),
                "-f",
                "--json",
                "--max-time",
                str(max_time),
                str(src),
                "--",
                str(test),
                "@@.py",
            ]
            start = time.monotonic()
            with open(report, "wb") as err:
                subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=err, check=False)
            wall = time.monotonic() - start
            tests = _tests_from_events(report)
            points.append(
                {
                    "jobs": jobs,
                    "wall_time": round(wall, 2),
                    "tests": tests,
                    "final_bytes": out.stat().st_size if out.exists() else -1,
                }
            )
            print(f"scaling: parallel jobs={jobs}: {wall:.1f} s, {tests} tests", flush=True)
    return {
        "description": f"a generated {size // 1000} KB Python module of small functions, "
        "reduced to the one function the test looks for.",
        "sleep": SLEEP,
        "points": points,
    }


def _tests_from_events(path: Path) -> int:
    tests = 0
    for line in path.read_text().splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        stats = event.get("stats") if isinstance(event, dict) else None
        if isinstance(stats, dict):
            tests = max(tests, int(stats.get("tests", 0)))
    return tests


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


def main(argv: list[str] | None = None) -> int:
    """Run the selected scaling benchmarks and merge them into bench/results/scaling.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["parallel", "size", "overhead"], action="append")
    parser.add_argument("--jobs", default="1,2,4,8,16")
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--max-time", type=float, default=120.0)
    parser.add_argument("--one-size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--source", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one_size is not None:
        print(json.dumps(one_size(args.one_size, args.max_time, args.source)))
        return 0

    todo = args.only or ["parallel", "size", "overhead"]
    path = RESULTS / "scaling.json"
    results: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    if "parallel" in todo:
        jobs = [int(j) for j in args.jobs.split(",")]
        results["parallel"] = parallel(jobs, 3000, args.max_time)
    if "size" in todo:
        points = []
        for size in (int(s) for s in args.sizes.split(",")):
            point = _in_subprocess(size, args.max_time)
            print(f"scaling: size {size}: {point}", flush=True)
            points.append(point)
        results["size"] = {
            "description": "generated Python modules of small functions (one of which the "
            "predicate keeps) at each size.",
            "points": points,
            "growth": growth_text(points),
        }
    if "overhead" in todo:
        stdlib = Path(sysconfig.get_paths()["stdlib"]) / "fractions.py"
        point = _in_subprocess(0, args.max_time, stdlib)
        print(f"scaling: overhead: {point}", flush=True)
        results["overhead"] = {
            "description": f"Python's stdlib fractions.py ({point['bytes']} bytes) reduced "
            "in-process to a file that keeps `class Fraction` and `def __new__`, jobs 1.",
            "tests": point["tests"],
            "cpu_time": point["cpu_time"],
            "wall_time": point["wall_time"],
            "ms_per_candidate": 1000 * point["cpu_time"] / max(point["tests"], 1),
        }
    RESULTS.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
