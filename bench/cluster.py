"""Cluster and batch benchmarks (issue 12), short enough for a 2-core machine.

1. One reduction whose test sleeps 1 s (the needle test of a generated Python program), 8 tests
   in flight: on `--cluster local:4` against the local thread pool at `-j 8`. The wall ratio
   should be at most 1.2 (the cluster's own overhead, worker start-up included, is small). The
   same reduction on a cluster already running (`dask scheduler` and `dask worker`, started
   before the clock, as a team's cluster would be) separates start-up from per-test overhead.
2. A batch of crashing Python programs with 4 distinct crashes (and some clean ones), every test
   padded by a sleep: `batch -j 1` against `batch -j 4`. The number of reductions must equal the
   number of signatures, and the 4-worker wall time should be at most 0.35x the 1-worker one.

3. A fuzzer's crash folder (issue 32): bench/fuzz/make_crashes.py runs a seeded mutation fuzzer
   against bench/fuzz/records.c built with AddressSanitizer and keeps its crashes as AFL++ and
   libFuzzer name them (extensionless binary files, several per crash with other bytes, beside
   AFL++'s README.txt and .state). `batch -j 2` and `batch --cluster local:4` reduce the folder
   with the target itself as the command; recorded: the groups against the fuzzer's ground truth
   (ASan's bug kind and top frame of each file), each output re-run (same kind and frame, and
   smaller than its group's smallest input), and the wall time. `--only fuzz` runs this alone
   and keeps the other results in cluster.json.

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


FUZZ = Path(__file__).resolve().parent / "fuzz"


def fuzz_folder(work: Path) -> dict[str, Any]:
    """Batch on a fuzzer's crash folder of an ASan-built target, locally and on a cluster."""
    sys.path.insert(0, str(FUZZ))
    from make_crashes import run_records  # the fuzzer's own crash reader: the ground truth

    os.environ["ASAN_OPTIONS"] = "detect_leaks=0"
    target = work / "records"
    subprocess.run(
        ["gcc", "-g", "-O0", "-fsanitize=address", "-fno-omit-frame-pointer",
         str(FUZZ / "records.c"), "-o", str(target)],
        check=True,
    )  # fmt: skip
    subprocess.run(
        [sys.executable, str(FUZZ / "make_crashes.py"), str(work / "findings"), "--target",
         "records", "--binary", str(target), "--execs", "1000", "--expect", str(work / "truth")],
        check=True, capture_output=True,
    )  # fmt: skip
    truth = json.loads((work / "truth").read_text())
    runs = {}
    for name, where in (("-j 2", ["-j", "2"]), ("--cluster local:4", ["--cluster", "local:4"])):
        out = work / name.replace(" ", "").replace(":", "").replace("-", "")
        args = ["batch", "-o", str(out), *where, "-q", str(work / "findings" / "crashes")]
        wall = timed([*args, "--", str(target), "@@"], work)
        summary = json.loads((out / "summary.json").read_text())
        groups = []
        for g in summary["groups"]:
            kinds = sorted({truth[Path(m).name] for m in g["members"]})
            smallest = min(Path(m).stat().st_size for m in g["members"])
            again = run_records(target, (out / g["output"]).read_bytes())
            groups.append(
                {
                    "signature": g["signature"], "members": len(g["members"]), "kinds": kinds,
                    "smallest_input": smallest, "reduced": g["final_size"], "tests": g["tests"],
                    "seconds": g["seconds"], "status": g["status"],
                    "still_crashes": again is not None and ":".join(again) == kinds[0],
                }
            )  # fmt: skip
        runs[name] = {
            "wall": round(wall, 2),
            "files": len(truth),
            "distinct_crashes": len(set(truth.values())),
            "skipped": len(summary["skipped"]),
            "groups": groups,
        }
    met = all(
        r["distinct_crashes"] == len(r["groups"])
        and all(len(g["kinds"]) == 1 and g["still_crashes"] for g in r["groups"])
        and all(
            g["reduced"] is not None and g["reduced"] < g["smallest_input"] for g in r["groups"]
        )
        for r in runs.values()
    )
    return {"runs": runs, "met": met}


def main() -> int:
    only_fuzz = sys.argv[1:] == ["--only", "fuzz"]
    work = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    stored = RESULTS / "cluster.json"
    try:
        (work / "one").mkdir()
        (work / "batch").mkdir()
        (work / "fuzz").mkdir()
        if only_fuzz and stored.exists():
            result = {**json.loads(stored.read_text()), "fuzz_folder_stamp": stamp()}
        else:
            result = {
                **stamp(),
                "one_reduction": one_reduction(work / "one"),
                "batch": batch(work / "batch", 36),
            }
        result["fuzz_folder"] = fuzz_folder(work / "fuzz")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    RESULTS.mkdir(exist_ok=True)
    stored.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
