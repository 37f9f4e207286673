"""Where a stored benchmark figure came from: the commit it ran on, and the raw logs it leaves.

Every stored run is stamped with the git commit of the checkout (``+dirty`` when `treereduce_py/`
or `queries/` has uncommitted changes: only the engine's code and its bundled query files decide
what a run measures), the engine (the git trees of those two folders) and the UTC date,
and keeps its raw logs gzipped under bench/results/ (the head and tail of a long one), so any
figure in docs/benchmarks.md can be traced to the run that produced it.

A run made in sittings (bench/sitting.sh) commits its results between chunks, so HEAD moves
under it; the sitting names the commit it began on in ``BENCH_PIN``, and every run is stamped
with that one commit after a check that HEAD still measures the same code (`same_measured`).
"""

from __future__ import annotations

import gzip
import os
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
LOG_CAP = 1 << 20  # raw bytes kept per log (its head and tail): the logs stay a few MB in all


def _git(*args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True)
    return proc.stdout.strip()


def stamp() -> dict[str, str]:
    """The git commit (``+dirty`` with uncommitted changes), the engine (the git trees of
    `treereduce_py/` and `queries/`, the same across commits that change only tests, docs or
    bench/) and the UTC date of a run."""
    dirty = "+dirty" if _git("status", "--porcelain", "--", "treereduce_py", "queries") else ""
    date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    trees = [
        _git("rev-parse", "--short", f"HEAD:{folder}") for folder in ("treereduce_py", "queries")
    ]
    engine = "-".join(trees) + dirty
    return {"commit": measured_commit() + dirty, "engine": engine, "date": date}


class PinMoved(SystemExit):
    """HEAD no longer measures the code of the commit a sitting pinned (``BENCH_PIN``)."""


def measured_commit() -> str:
    """HEAD's short hash, or the commit named by ``BENCH_PIN`` (a sitting's first) when HEAD
    measures the same code as it (see `same_measured`); raises PinMoved when it does not."""
    pin = os.environ.get("BENCH_PIN", "")
    if not pin:
        return _git("rev-parse", "--short", "HEAD")
    if not same_measured(pin, "HEAD"):
        raise PinMoved(
            f"BENCH_PIN={pin}: HEAD does not measure the same code as that commit"
            " (the engine, the harness or the cases changed); start a new sitting"
        )
    return _git("rev-parse", "--short", pin)


def sitting_pin(engine: str) -> str:
    """The commit a sitting of `engine` began on: the parent of the first of its chunks' commits
    (bench/sitting.sh's "sitting ENGINE: CHUNK") that measures HEAD's code, else HEAD (a sitting
    not yet begun, or one of an older harness)."""
    chunks = _git("log", "--reverse", "--format=%h", f"--grep=^sitting {engine}: ").split()
    for chunk in chunks:
        if same_measured(f"{chunk}^", "HEAD"):
            return _git("rev-parse", "--short", f"{chunk}^")
    return _git("rev-parse", "--short", "HEAD")


def run_dates(runs: list[dict[str, Any]]) -> str:
    """When the peer table's runs started, first to last (a long run is made in sittings, and
    meta.json keeps only the last one's date); empty when no run is dated."""
    dates = sorted(r["date"] for r in runs if r.get("date"))
    if not dates:
        return ""
    return dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]} (the runs' starts)"


# What a run measures: the engine, its query files, the harness and the cases (bench/ without
# the results it stores, its notes, and bench/sitting.sh, which only chooses the runs that
# bench/run.py makes and commits them) and the package metadata. Commits that differ elsewhere
# (docs, tests, stored results: a long run made in sittings commits its rows between them)
# measure the same.
MEASURED = (
    "treereduce_py",
    "queries",
    "bench",
    "pyproject.toml",
    ":(exclude)bench/results",
    ":(exclude)bench/*.md",
    ":(exclude)bench/sitting.sh",
)


def same_measured(a: str, b: str) -> bool:
    """Do commits `a` and `b` run the same measured code? False when git does not know one of
    them (a ``+dirty`` stamp, a commit of another clone)."""
    proc = subprocess.run(
        ["git", "diff", "--quiet", a, b, "--", *MEASURED], cwd=REPO, capture_output=True
    )
    return proc.returncode == 0


def versions(first: dict[str, str]) -> list[list[str]]:
    """Commits (each with the date and time of its first run, ISO 8601) grouped by the code
    they measure, each group in order of first run, the groups by their first commit's."""
    groups: list[list[str]] = []
    for commit in sorted(first, key=lambda c: (first[c], c)):
        group = next((g for g in groups if same_measured(g[0], commit)), None)
        if group is None:
            groups.append([commit])
        else:
            group.append(commit)
    return groups


def keep_logs(rundir: Path, names: Iterable[str], into: Path, prefix: str) -> list[str]:
    """Gzip the files `names` of `rundir` that exist into `into` as ``PREFIX.NAME.gz`` (the head
    and tail of one longer than LOG_CAP); their paths, relative to the repository."""
    into.mkdir(parents=True, exist_ok=True)
    kept = []
    for name in names:
        raw = rundir / name
        if not raw.exists():
            continue
        data = raw.read_bytes()
        if len(data) > LOG_CAP:
            cut = f"\n[... {len(data) - LOG_CAP} bytes left out ...]\n".encode()
            data = data[: LOG_CAP // 4] + cut + data[-(LOG_CAP * 3 // 4) :]
        target = into / f"{prefix}.{name}.gz"
        target.write_bytes(gzip.compress(data, mtime=0))
        kept.append(str(target.relative_to(REPO)))
    return kept
