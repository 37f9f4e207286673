"""Cluster and batch benchmarks (issue 12), short enough for a 2-core machine.

1. One reduction whose test sleeps 1 s (the needle test of a generated Python program), 8 tests
   in flight: on `--cluster local:4` against the local thread pool at `-j 8`. The wall ratio
   should be at most 1.2 (the cluster's own overhead, worker start-up included, is small). The
   same reduction on a cluster already running (`dask scheduler` and `dask worker`, started
   before the clock, as a team's cluster would be) separates start-up from per-test overhead.
2. A batch of crashing Python programs with 4 distinct crashes (and some clean ones), every test
   padded by a sleep: `batch -j 1` against `batch -j 4`. The number of reductions must equal the
   number of signatures, and the 4-worker wall time should be at most 0.35x the 1-worker one.

Sleep-padded tests need no CPU, so the ratios measure the tool's parallelism, not the machine.
Results go to bench/results/cluster.json, stamped with the commit; bench/report.py renders them.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from provenance import stamp
from scaling import RESULTS

CLI = str(Path(sys.executable).parent / "treereduce-py")
SLEEPY = """\
import sys, time
time.sleep({nap})
data = open(sys.argv[1], "rb").read()
exec(compile(data, "candidate", "exec"))
"""
BUGS = [
    "d = {}\nd['E500']\n",
    "x = 0\nprint(1 / x)\n",
    "assert len('ab') == 3, 'length check'\n",
    "import sys\nsys.stderr.write('error: bad config\\n')\nsys.exit(3)\n",
]


def program(functions: int, tail: str) -> str:
    body = "def helper_{0}(x):\n    y = x * {0}\n    return y + {0}\n\n\n"
    body += "value_{0} = helper_{0}({0})\n\n"
    return "".join(body.format(j) for j in range(functions)) + tail


def timed(args: list[str], cwd: Path) -> float:
    started = time.monotonic()
    done = subprocess.run([CLI, *args], cwd=cwd, capture_output=True)
    if done.returncode != 0:
        raise SystemExit(f"bench/cluster.py: {args} failed:\n{done.stderr.decode()[-2000:]}")
    return time.monotonic() - started


def one_reduction(work: Path) -> dict[str, Any]:
    (work / "check.py").write_text(SLEEPY.format(nap=1.0))
    (work / "prog.py").write_text(program(12, "raise KeyError('needle')\n"))
    walls = {}
    with running_cluster(work, workers=4) as address:
        for name, where in (
            ("local -j 8", []),
            ("--cluster local:4", ["--cluster", "local:4"]),
            ("--cluster (running, 4 workers)", ["--cluster", address]),
        ):
            args = ["prog.py", "-o", "out.py", "--force", "-j", "8", "--fast", "--same-crash"]
            argv = [*args, *where, "--", sys.executable, "-S", "./check.py", "@@"]
            walls[name] = round(timed(argv, work), 2)
    ratio = walls["--cluster local:4"] / walls["local -j 8"]
    running = walls["--cluster (running, 4 workers)"] / walls["local -j 8"]
    return {
        "walls": walls,
        "ratio": round(ratio, 3),
        "ratio_running": round(running, 3),
        "target": 1.2,
        "met": ratio <= 1.2,
    }


@contextlib.contextmanager
def running_cluster(work: Path, workers: int) -> Iterator[str]:
    """A `dask scheduler` and `dask worker` (2 threads each) on localhost, for the block."""
    dask = str(Path(sys.executable).parent / "dask")
    port = 8786 + os.getpid() % 1000
    address = f"tcp://127.0.0.1:{port}"
    log = open(work / "dask.log", "wb")  # noqa: SIM115 (closed below)
    procs = [
        subprocess.Popen(
            [dask, "scheduler", "--port", str(port), "--dashboard-address", ":0"],
            stdout=log, stderr=log, cwd=work,
        )
    ]  # fmt: skip
    time.sleep(2)
    procs.append(
        subprocess.Popen(
            [dask, "worker", address, "--nworkers", str(workers), "--nthreads", "2"],
            stdout=log, stderr=log, cwd=work,
        )
    )  # fmt: skip
    time.sleep(6)  # the workers register before the clock starts
    try:
        yield address
    finally:
        for proc in reversed(procs):
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        log.close()


def batch(work: Path, inputs: int) -> dict[str, Any]:
    (work / "check.py").write_text(SLEEPY.format(nap=0.3))
    corpus = work / "corpus"
    corpus.mkdir()
    for i in range(inputs):
        tail = BUGS[i % len(BUGS)] if i % 8 != 7 else "print('fine')\n"
        (corpus / f"case{i:03d}.py").write_text(program(2 + i % 5, tail))
    runs = {}
    for jobs in (1, 4):
        out = work / f"out{jobs}"
        args = ["batch", "-o", str(out), "-j", str(jobs), "--fast", "-q", "corpus"]
        wall = timed([*args, "--", sys.executable, "-S", "./check.py", "@@"], work)
        summary = json.loads((out / "summary.json").read_text())
        runs[jobs] = {
            "wall": round(wall, 2),
            "reductions": sum(g["status"] == "done" for g in summary["groups"]),
            "signatures": len(summary["groups"]),
            "clean": len(summary["clean"]),
            "crashing": sum(len(g["members"]) for g in summary["groups"]),
        }
    ratio = runs[4]["wall"] / runs[1]["wall"]
    return {
        "runs": {str(k): v for k, v in runs.items()},
        "ratio": round(ratio, 3),
        "target": 0.35,
        "met": ratio <= 0.35 and all(r["reductions"] == r["signatures"] for r in runs.values()),
    }


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    try:
        (work / "one").mkdir()
        (work / "batch").mkdir()
        result = {
            **stamp(),
            "one_reduction": one_reduction(work / "one"),
            "batch": batch(work / "batch", 36),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "cluster.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
