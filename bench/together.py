"""Files at once against files in turn (issue 29): a directory's reduction with the test padded.

Nine files of this machine's standard library (json's five modules and four of email's, about
65 KB), each of which the test needs to keep one named function and parse (`ast.parse`), are
reduced as a directory through `DirectorySession` with an in-process test padded by a sleep, so
the time measured is the tool's use of its workers, not the machine's CPU. Each of `--jobs`
runs once with the files' parts at once (run/together.py) and once in turn (the default),
alternating. Per run: wall time, tests, final bytes, workers busy (padded test-seconds over
jobs x wall) and the seconds spent with k tests in flight. Results go to
bench/results/together.json, stamped with the commit.
"""

from __future__ import annotations

import argparse
import ast
import email
import json
import shutil
import tempfile
import threading
import time
from pathlib import Path

import provenance

from treereduce_py.judge.oracle import CallableOracle
from treereduce_py.lang.filetree import FileTree
from treereduce_py.run.directory import DirectorySession
from treereduce_py.run.options import ReduceOptions
from treereduce_py.run.together import TogetherSession

RESULTS = Path(__file__).resolve().parent / "results" / "together.json"
# Each file and the function it must keep.
NEEDED = {
    "json/__init__.py": b"def loads(",
    "json/decoder.py": b"def py_scanstring(",
    "json/encoder.py": b"def _make_iterencode(",
    "json/scanner.py": b"def py_make_scanner(",
    "json/tool.py": b"def main(",
    "email/base64mime.py": b"def body_encode(",
    "email/quoprimime.py": b"def header_encode(",
    "email/encoders.py": b"def encode_base64(",
    "email/iterators.py": b"def typed_subpart_iterator(",
}


def read_tree(into: Path) -> FileTree:
    """The nine files, copied from the standard library into `into`."""
    lib = Path(email.__file__).parent.parent
    for name in NEEDED:
        (into / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(lib / name, into / name)
    return FileTree.read(into)


def run(tree: FileTree, jobs: int, pad: float, at_once: bool) -> dict[str, object]:
    """One reduction; its figures."""
    marks: list[tuple[float, int]] = []
    lock = threading.Lock()

    def test(candidate: bytes) -> bool:
        with lock:
            marks.append((time.monotonic(), 1))
        try:
            time.sleep(pad)
            files = {f.path: f.data for f in tree.decode(candidate).files}
            return all(
                name in files and need in files[name] and parses(files[name])
                for name, need in NEEDED.items()
            )
        finally:
            with lock:
                marks.append((time.monotonic(), -1))

    began = time.monotonic()
    options = ReduceOptions(jobs=jobs)
    kind = TogetherSession if at_once else DirectorySession
    session = kind(tree, CallableOracle(test), options, lambda _e: None)
    result = session.run()
    wall = time.monotonic() - began
    return {
        "jobs": jobs,
        "at_once": at_once,
        "pad": pad,
        "wall": round(wall, 1),
        "tests": result.tests,
        "bytes": result.tree.size,
        "reason": result.reason,
        "busy": round(sum(pad for m in marks if m[1] > 0) / (jobs * wall), 3),
        "in_flight": in_flight(marks, began, began + wall, jobs),
    }


def parses(data: bytes) -> bool:
    try:
        ast.parse(data)
    except (SyntaxError, ValueError):
        return False
    return True


def in_flight(marks: list[tuple[float, int]], began: float, ended: float, jobs: int) -> list[float]:
    """Seconds with 0, 1, ... `jobs` tests running."""
    seconds = [0.0] * (jobs + 1)
    level, last = 0, began
    for when, step in sorted(marks):
        seconds[min(level, jobs)] += when - last
        level, last = level + step, when
    seconds[min(level, jobs)] += ended - last
    return [round(s, 1) for s in seconds]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", default="2,8", help="comma-separated (default 2,8)")
    parser.add_argument("--pad", type=float, default=0.4, help="seconds of sleep per test")
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        tree = read_tree(Path(tmp))
        for jobs in (int(j) for j in args.jobs.split(",")):
            for at_once in (True, False):
                runs.append(run(tree, jobs, args.pad, at_once))
                print(json.dumps(runs[-1]), flush=True)
    record = {**provenance.stamp(), "files": len(NEEDED), "bytes": tree.size, "runs": runs}
    RESULTS.write_text(json.dumps(record, indent=1) + "\n")
    print(f"together: {RESULTS}")


if __name__ == "__main__":
    main()
