"""Run every benchmark case through treereduce-py and each installed peer reducer, fairly.

Fairness rules, the same for every tool: the same interestingness test (the case's test.sh), the
same ``--jobs``, the same per-test timeout and the same wall-clock limit per run.  Every tool calls
the test through a wrapper that appends one line per test start and end to a counter file, so
"tests run" is counted by us, not taken from the tool's own statistics.  While a tool runs, the
runner samples the size of the file the tool keeps its best result in (peers rewrite the input in
place; treereduce-py writes its output atomically) every half second, which gives the
size-over-time curves.  At the limit the tool's process group gets SIGTERM, then SIGKILL; whatever
it left in that file is its result.  The result is then re-checked with the test
(``still_interesting``) and measured in bytes and regex tokens (see prepare.count_tokens).
A directory case is measured over all its files (bytes, tokens, and the file count) and handed to
each tool as bench/tree_input.py says: the directory to treereduce-py and to Shrink Ray's
directory mode, its files laid out flat to C-Vise and C-Reduce; its result is re-checked from a
fresh copy of the tree.
A peer that ran handicapped (Shrink Ray without the tree-sitter grammar of the case's language,
which its log says: bench/grammars.py) is not stored, and the runner exits non-zero.

Memory: the tool is started by a small launcher (launch.py) that reaps it with ``wait4``, whose
``ru_maxrss`` is the peak resident set of the largest single process in the tool's tree (the tool
or any test it waited for: what ``/usr/bin/time -f %M`` reports). Started by the runner itself,
the tool would inherit the runner's own high-water mark (Linux keeps it across fork and exec).
While sampling, the runner adds up the resident sets of every process in the tool's session (a
sampled peak of the whole tree, which counts C-Vise's worker processes together).

Results accumulate in bench/results/runs.json (a new run of the same case and tool replaces the
old record) and runs.csv; bench/results/meta.json holds the machine, versions and date.  Then
bench/report.py renders docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import math
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import grammars
import provenance
import tree_input
from prepare import (
    BENCH,
    WORK,
    Case,
    count_tokens,
    load_cases,
    prepare_case,
    run_test,
    tools_on_path,
)

REPO = BENCH.parent
RESULTS = BENCH / "results"
RUN_LOGS = RESULTS / "runs"  # each run's logs and final file, gzipped (provenance.keep_logs)
RUNS = WORK / "runs"
PEERS = BENCH / ".peers"
SAMPLE_EVERY = 0.5
LAUNCHER = BENCH / "launch.py"  # starts the tool from a small process: its own peak memory
PEAK_FILE = "peak-kib.txt"  # where the launcher writes it, in the run directory
TEST_TIMEOUT = 30
PRESETS = ("priority", "hdd", "hierarchical", "ddmin", "hybrid")


@dataclass(frozen=True)
class Tool:
    """A reducer as the runner drives it: a name, a version and how to build its command line."""

    name: str
    version: str
    # (case, input file name in the run dir, wrapper path, jobs, limit) -> (argv, result file name)
    command: Callable[[Case, str, Path, int, float], tuple[list[str], str]]
    # Whether the tool stops by itself at the limit (treereduce-py --max-time) or must be killed.
    graceful: bool = False
    # The case languages (case.json "lang") the tool reduces; empty: every language.
    languages: tuple[str, ...] = ()
    # Whether a directory case is given as its files laid out flat in the tool's current
    # directory (C-Vise, C-Reduce: bench/tree_input.py), not as the directory.
    flat: bool = False


@dataclass(frozen=True)
class RunRecord:
    """What one reduction of one case by one tool measured."""

    case: str
    language: str
    tool: str
    version: str
    jobs: int
    time_limit: float
    original_bytes: int
    original_tokens: int
    final_bytes: int
    final_tokens: int
    wall_time: float
    tests_run: int
    tests_interesting: int
    still_interesting: bool
    hit_time_limit: bool
    exit_code: int | None
    date: str
    trace: list[tuple[float, int]] = field(default_factory=list)
    # treereduce-py only (from its final --json statistics): answers its cache and its syntax
    # check gave without running the test.
    cache_hits: int | None = None
    syntax_rejections: int | None = None
    # Peak RSS in MiB of the largest single process of the tool's tree (wait4's ru_maxrss), and
    # the largest sampled sum over all processes of its session.
    peak_rss_mib: float | None = None
    tree_rss_mib: float | None = None
    # A directory case's file counts (bytes and tokens are over all its files); None for a file.
    original_files: int | None = None
    final_files: int | None = None
    # True when the tool's own result was not interesting after a stop at the limit (a peer
    # killed while rewriting its file) and the wrapper's best candidate was measured instead.
    from_best: bool = False


def _run_quiet(argv: list[str]) -> str:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return (proc.stdout + proc.stderr).strip()


def _treereduce_exe() -> Path | None:
    for local in (Path(sys.executable).parent / "treereduce-py", REPO / ".venv/bin/treereduce-py"):
        if local.exists():
            return local
    found = shutil.which("treereduce-py")
    return Path(found) if found else None


def available_presets() -> list[str]:
    """Presets the installed treereduce-py accepts (parsed from its --help)."""
    exe = _treereduce_exe()
    if exe is None:
        return []
    text = _run_quiet([str(exe), "--help"])
    match = re.search(r"--strategy \{([^}]*)\}", text)
    return match.group(1).split(",") if match else ["priority"]


def treereduce_tool(preset: str | None) -> Tool | None:
    """treereduce-py with a preset (None: its default), or None when it is not installed."""
    exe = _treereduce_exe()
    if exe is None:
        return None
    found = re.search(r"\d+\.\d+\S*", _run_quiet([str(exe), "--version"]))
    version = [found.group(0) if found else "?"]
    git = provenance.measured_commit()
    if git and " " not in git:
        version = [f"{version[0]}+{git}"]

    def command(
        case: Case, name: str, wrapper: Path, jobs: int, limit: float
    ) -> tuple[list[str], str]:
        # A directory: each file's language is told from its name and content (no -l), and
        # @@ names the private copy of the tree.
        out = "reduced" + ("" if case.tree else Path(name).suffix)
        argv = [str(exe)] + ([] if case.tree else ["-l", case.lang])
        argv += ["-j", str(jobs), "-o", out, "-f", "--json"]
        argv += ["--timeout", str(TEST_TIMEOUT), "--max-time", str(max(1.0, limit - 2.0))]
        if preset is not None:
            argv += ["--strategy", preset]
        argv += [name, "--", str(wrapper), "@@" + ("" if case.tree else Path(name).suffix)]
        return argv, out

    label = "treereduce-py" if preset is None else f"treereduce-py:{preset}"
    return Tool(label, version[0], command, graceful=True)


def cvise_tool() -> Tool | None:
    """C-Vise, or None when it is not installed."""
    return _creduce_family("cvise")


def creduce_tool() -> Tool | None:
    """C-Reduce, or None when it is not installed."""
    return _creduce_family("creduce")


def _creduce_family(program: str) -> Tool | None:
    """C-Vise and C-Reduce share their command line and test convention."""
    exe = shutil.which(program)
    if exe is None:
        return None
    version = _run_quiet([exe, "--version"]).split()[1:2] or ["?"]

    def command(
        case: Case, name: str, wrapper: Path, jobs: int, limit: float
    ) -> tuple[list[str], str]:
        argv = [exe, "--n", str(jobs), "--timeout", str(TEST_TIMEOUT), "--tidy"]
        if case.not_c:
            argv.append("--not-c")
        if case.tree:
            # Several files, each in the current directory (bench/tree_input.py).
            names = [flat for flat, _ in tree_input.flat_layout(case.input_path)]
            return [*argv, str(wrapper), *names], "."
        return [*argv, str(wrapper), name], name

    return Tool(program, version[0], command, flat=True)


def shrinkray_tool() -> Tool | None:
    """Shrink Ray from bench/.peers/shrinkray (bench/setup.sh), or None when it is missing."""
    exe = PEERS / "shrinkray" / "bin" / "shrinkray"
    if not exe.exists():
        return None
    pip_show = _run_quiet([str(exe.parent / "pip"), "show", "shrinkray"])
    match = re.search(r"^Version: (\S+)", pip_show, re.MULTILINE)
    version = match.group(1) if match else "?"

    def command(
        case: Case, name: str, wrapper: Path, jobs: int, limit: float
    ) -> tuple[list[str], str]:
        # Its grammars come from the cache bench/grammars.py builds (it cannot download them).
        # A directory case's NAME is the directory: its directory mode.
        argv = ["env", f"{grammars.CACHE_ENV}={grammars.CACHE}", str(exe)]
        argv += ["--ui", "basic", "--no-llm", "--formatter", "none", "--no-history"]
        argv += ["--input-type", "arg", "--parallelism", str(jobs)]
        argv += ["--timeout", str(TEST_TIMEOUT), str(wrapper), name]
        return argv, name

    return Tool("shrinkray", version, command)


def ddsmt_tool() -> Tool | None:
    """ddSMT from bench/.peers/ddsmt (bench/setup.sh), or None when it is missing. It reduces
    SMT-LIB only, so it runs on the cases whose language is smtlib, with its default (hybrid)
    strategy; it calls the test with the candidate's path as the last argument."""
    exe = PEERS / "ddsmt" / "bin" / "ddsmt"
    if not exe.exists():
        return None
    found = re.search(r"\d+\.\d+\S*", _run_quiet([str(exe), "--version"]))

    def command(
        case: Case, name: str, wrapper: Path, jobs: int, limit: float
    ) -> tuple[list[str], str]:
        out = "reduced" + Path(name).suffix
        argv = [str(exe), "-j", str(jobs), "--timeout", str(TEST_TIMEOUT), name, out, str(wrapper)]
        return argv, out

    return Tool("ddsmt", found.group(0) if found else "?", command, languages=("smtlib",))


def select_tools(names: list[str], presets: list[str]) -> list[Tool]:
    """Resolve tool names (treereduce-py, cvise, creduce, shrinkray, ddsmt); skip and report
    missing ones."""
    tools: list[Tool] = []
    for name in names:
        if name == "treereduce-py":
            for preset in presets:
                tool = treereduce_tool(None if preset == "default" else preset)
                if tool is not None:
                    tools.append(tool)
                else:
                    print("run: treereduce-py is not installed; skipped", file=sys.stderr)
                    break
            continue
        factory = {
            "cvise": cvise_tool,
            "creduce": creduce_tool,
            "shrinkray": shrinkray_tool,
            "ddsmt": ddsmt_tool,
        }
        if name not in factory:
            raise SystemExit(f"run: unknown tool {name!r}")
        tool = factory[name]()
        if tool is None:
            print(f"run: {name} is not installed (see bench/setup.sh); skipped", file=sys.stderr)
        else:
            tools.append(tool)
    return tools


WRAPPER = """#!/usr/bin/env bash
# Counts the tests a reducer runs, runs the case's real test with the same arguments, and keeps
# the smallest interesting candidate seen (the tool's progress, should it be killed at the limit).
# Its log: "s TIME PID" as a test starts, "e TIME PID RC" as it ends (a test the tool killed has
# none: the PID pairs them), "b TIME BYTES" at each new best.
printf 's %s %s\\n' "$EPOCHREALTIME" "$$" >> {counter}
{test} "$@"
rc=$?
printf 'e %s %s %s\\n' "$EPOCHREALTIME" "$$" "$rc" >> {counter}
# After the time limit (the runner creates {stopped}) tests still running no longer count.
if [ "$rc" -eq 0 ] && [ ! -e {stopped} ]; then
    cand="${{1:-{name}}}"
    (
        flock 9
        size=$(stat -c %s "$cand")
        best=$(stat -c %s {best} 2>/dev/null || echo 999999999999)
        if [ "$size" -lt "$best" ]; then
            cp "$cand" {best}.tmp && mv {best}.tmp {best}
            printf 'b %s %s\\n' "$EPOCHREALTIME" "$size" >> {counter}
        fi
    ) 9>>{best}.lock
fi
exit $rc
"""


def _count(
    counter: Path, t0: float, cutoff: float = math.inf
) -> tuple[int, int, list[tuple[float, int]]]:
    """Tests started, tests interesting, and (elapsed, size) of each new best, from the log;
    events later than ``cutoff`` seconds after ``t0`` (tests the tool left running) are ignored."""
    if not counter.exists():
        return 0, 0, []
    started = interesting = 0
    bests: list[tuple[float, int]] = []
    for line in counter.read_text().splitlines():
        parts = line.split()
        if len(parts) < 2 or float(parts[1]) - t0 > cutoff:
            continue
        if parts[:1] == ["s"]:
            started += 1
        elif parts[:1] == ["e"] and parts[-1] == "0":
            interesting += 1
        elif parts[:1] == ["b"] and len(parts) == 3:
            bests.append((round(float(parts[1]) - t0, 2), int(parts[2])))
    return started, interesting, bests


def _reap(proc: subprocess.Popen[bytes], timeout: float = 0.0) -> bool:
    """Wait up to ``timeout`` s for ``proc`` (the launcher) to exit and reap it, setting its
    returncode; whether it has exited. Its own resource usage is of no use: it carries the
    runner's high-water mark (the tool's peak comes from launch.py)."""
    deadline = time.monotonic() + timeout
    while True:
        pid, status = os.waitpid(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


def _session_rss(sid: int) -> int:
    """Bytes resident in all processes of session ``sid`` now (a snapshot of /proc)."""
    page = os.sysconf("SC_PAGE_SIZE")
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
            # Fields after the parenthesized command: state ppid pgrp session ...
            if int(stat.rsplit(")", 1)[1].split()[3]) != sid:
                continue
            total += int(Path(entry.path, "statm").read_text().split()[1]) * page
        except (OSError, ValueError, IndexError):
            continue
    return total


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL, the tool's process group, until it is reaped."""
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 10.0)):
        if proc.returncode is not None:
            return
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        if _reap(proc, wait):
            return


def _merge_trace(
    points: list[tuple[float, int]], original: int, wall: float, final: int
) -> list[tuple[float, int]]:
    """Best-so-far size over time: a running minimum over all samples, ending at the result."""
    trace = [(0.0, original)]
    for t, size in sorted(points):
        if size < trace[-1][1]:
            trace.append((t, size))
    if trace[-1][1] != final:
        trace.append((round(wall, 2), final))
    return trace


def run_dir(case: Case, tool: Tool) -> Path:
    """Where :func:`run_one` runs ``tool`` on ``case`` and leaves its logs."""
    return RUNS / case.name / tool.name.replace(":", "-")


@dataclass(frozen=True)
class _RunFiles:
    """The files of one run in its run directory: the wrapper's test log, its best candidate
    and the marker the runner creates at the limit."""

    rundir: Path

    @property
    def counter(self) -> Path:
        return self.rundir / "tests.log"

    @property
    def best(self) -> Path:
        return self.rundir / "best"

    @property
    def stopped(self) -> Path:
        return self.rundir / "stopped"


@dataclass(frozen=True)
class _Watched:
    """What watching the tool's process measured (see _watch)."""

    t0: float  # time.time() at the start, the wrapper log's clock
    wall: float
    hit_limit: bool
    peak_kib: int | None  # the launcher's wait4 figure for the tool (launch.py)
    tree_peak: int
    trace: list[tuple[float, int]]  # sampled sizes of the result file, from the original's
    returncode: int | None


def run_one(case: Case, tool: Tool, jobs: int, limit: float) -> RunRecord:
    """Reduce one case with one tool in a fresh run directory and measure the outcome."""
    source = prepare_case(case)
    original_bytes, original_files = tree_input.measure(source)
    files, argv, result = _set_up(case, tool, source, jobs, limit)
    watched = _watch(argv, files, result, tool.graceful, limit, original_bytes)
    # A graceful tool that used its whole budget hit the limit too.
    hit_limit = watched.hit_limit or watched.wall >= limit - 2.5
    started, interesting, bests = _count(files.counter, watched.t0, cutoff=watched.wall)
    checked = _final(case, tool, files, result, hit_limit)
    still_interesting = run_test(case, checked)
    from_best = False
    if not still_interesting and hit_limit and files.best.exists():
        # Killed mid-write: what the tool left is torn; its best tested candidate stands.
        checked = _final(case, tool, files, result, hit_limit, take_best=True)
        still_interesting = run_test(case, checked)
        from_best = True
    final_bytes, final_files = tree_input.measure(checked)
    final_tokens = count_tokens(tree_input.contents(checked))
    trace = _merge_trace(watched.trace + bests, original_bytes, watched.wall, final_bytes)
    stats = last_stats(files.rundir / "stderr.log") if tool.graceful else {}
    peak_kib, tree_peak = watched.peak_kib, watched.tree_peak
    return RunRecord(
        case=case.name,
        language=case.language,
        tool=tool.name,
        version=tool.version,
        jobs=jobs,
        time_limit=limit,
        original_bytes=original_bytes,
        original_tokens=count_tokens(tree_input.contents(source)),
        final_bytes=final_bytes,
        final_tokens=final_tokens,
        wall_time=round(watched.wall, 2),
        tests_run=started,
        tests_interesting=interesting,
        still_interesting=still_interesting,
        hit_time_limit=hit_limit,
        exit_code=watched.returncode,
        date=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        trace=trace,
        cache_hits=stats.get("cache_hits"),
        syntax_rejections=stats.get("syntax_rejections"),
        peak_rss_mib=round(peak_kib / 1024, 1) if peak_kib else None,
        tree_rss_mib=round(tree_peak / 2**20, 1) if tree_peak else None,
        original_files=original_files if case.tree else None,
        final_files=final_files if case.tree else None,
        from_best=from_best,
    )


def _final(
    case: Case, tool: Tool, files: _RunFiles, result: Path, hit_limit: bool, take_best: bool = False
) -> Path:
    """The tool's result, copied where the re-check runs it (``final.EXT``, or for a directory
    case a fresh copy of the tree, ``final/NAME``): what the tool left, or, when it was stopped at
    the limit, the wrapper's best candidate if that is smaller (a peer may not have written its
    progress back yet: C-Vise writes the file between passes; Shrink Ray rewrites a directory in
    place); the original input when the tool left nothing. ``take_best`` takes the wrapper's
    best candidate whatever the tool left."""
    original = case.input_path
    rundir = files.rundir
    if case.tree and tool.flat and (rundir / tree_input.FLATMAP).exists():
        result = tree_input.rebuild(rundir, rundir / "result" / case.file)
    left = result if result.exists() and result.is_dir() == case.tree else original
    if take_best or (
        hit_limit
        and files.best.exists()
        and (tree_input.measure(files.best)[0] < tree_input.measure(left)[0])
    ):
        left = files.best
    if not case.tree:
        checked = rundir / ("final" + Path(case.file).suffix)
    else:
        checked = rundir / "final" / case.file
        checked.parent.mkdir(exist_ok=True)
    tree_input.copy_input(left, checked)
    return checked


def _set_up(
    case: Case, tool: Tool, source: Path, jobs: int, limit: float
) -> tuple[_RunFiles, list[str], Path]:
    """A fresh run directory holding the input (a directory case's files laid out flat for a
    tool that takes them so) and the counting wrapper; the tool's command and the path it
    keeps its result at."""
    rundir = run_dir(case, tool)
    shutil.rmtree(rundir, ignore_errors=True)
    rundir.mkdir(parents=True)
    if case.tree and tool.flat:
        tree_input.lay_flat(source, rundir)
    else:
        tree_input.copy_input(source, rundir / case.file)
    files = _RunFiles(rundir)
    wrapper = rundir / "wrap.sh"
    wrapper.write_text(
        (tree_input.WRAPPER if case.tree else WRAPPER).format(
            counter=files.counter,
            test=case.test,
            name=case.file,
            best=files.best,
            stopped=files.stopped,
            flatmap=rundir / tree_input.FLATMAP,
        )
    )
    wrapper.chmod(0o755)
    argv, result_name = tool.command(case, case.file, wrapper, jobs, limit)
    (rundir / "command.json").write_text(json.dumps(argv))
    return files, argv, rundir / result_name


def _watch(
    argv: list[str], files: _RunFiles, result: Path, graceful: bool, limit: float, original: int
) -> _Watched:
    """Run the tool to its end or the limit (plus a grace for a tool that stops by itself),
    sampling its tree's memory and, for an atomic writer, its result's size."""
    trace: list[tuple[float, int]] = [(0.0, original)]
    hit_limit = False
    tree_peak = 0
    rundir = files.rundir
    peak_file = rundir / PEAK_FILE
    with open(rundir / "stdout.log", "wb") as out, open(rundir / "stderr.log", "wb") as err:
        t0 = time.time()
        start = time.monotonic()
        peak_file.unlink(missing_ok=True)
        proc = subprocess.Popen(
            [sys.executable, str(LAUNCHER), str(peak_file), *argv],
            cwd=rundir,
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        grace = 15.0 if graceful else 0.0
        while not _reap(proc):
            elapsed = time.monotonic() - start
            if elapsed > limit + grace:
                hit_limit = True
                files.stopped.touch()
                _stop(proc)
                break
            tree_peak = max(tree_peak, _session_rss(proc.pid))
            try:
                size = tree_input.measure(result)[0] if graceful else -1
            except OSError:  # not written yet, or being replaced
                size = -1
            # Only an atomic writer's file is sampled: peers truncate and rewrite theirs in
            # place, so a sample can catch it empty; their progress comes from the wrapper.
            if graceful and size > 0 and size != trace[-1][1]:
                trace.append((round(elapsed, 2), size))
            time.sleep(SAMPLE_EVERY)
        wall = time.monotonic() - start
        files.stopped.touch()
    try:
        peak_kib: int | None = int(peak_file.read_text())
    except (OSError, ValueError):  # killed before the launcher could write it
        peak_kib = None
    return _Watched(t0, wall, hit_limit, peak_kib, tree_peak, trace, proc.returncode)


def last_stats(events_log: Path) -> dict[str, Any]:
    """The last `stats` object in a treereduce-py --json event log ({} if there is none)."""
    stats: dict[str, Any] = {}
    try:
        lines = events_log.read_text(errors="replace").splitlines()
    except OSError:
        return stats
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and isinstance(event.get("stats"), dict):
            stats = event["stats"]
    return stats


def machine_info(tools: list[Tool]) -> dict[str, Any]:
    """The machine, the tools' versions and the real tools the cases use."""
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f"{kib / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    real_tools = {
        "gcc": ["gcc", "--version"],
        "clang": ["clang-14", "--version"],
        "rustc": ["rustc", "--version"],
        "python3": ["python3", "--version"],
        "node": ["node", "--version"],
        "java": ["java", "-version"],
        "go": ["go", "version"],
        "csmith": ["csmith", "--version"],
        "z3": ["z3", "--version"],
    }
    return {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory": mem,
        "os": platform.platform(),
        "python": platform.python_version(),
        "reducers": {t.name: t.version for t in tools},
        "tools": {k: (_run_quiet(v).splitlines() or ["missing"])[0] for k, v in real_tools.items()},
    }


def stored_runs(stamped: dict[str, str], jobs: int, limit: float) -> set[tuple[str, str]]:
    """The (case, tool) pairs runs.json holds from the engine of `stamped` (its `treereduce_py/`
    tree; never a dirty one), with these `jobs` and `limit`: a run continued after commits that
    change only docs, tests or bench/ still measures one engine."""
    path = RESULTS / "runs.json"
    if stamped["engine"].endswith("+dirty") or not path.exists():
        return set()
    return {
        (r["case"], r["tool"])
        for r in json.loads(path.read_text())
        if r.get("engine") == stamped["engine"] and r["jobs"] == jobs and r["time_limit"] == limit
    }


def save(
    records: list[RunRecord], meta: dict[str, Any], extra: dict[str, Any] | None = None
) -> None:
    """Merge ``records`` (each with the keys of ``extra``: its stamp and kept logs) into
    bench/results/runs.json and rewrite runs.csv and meta.json."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / "runs.json"
    old: list[dict[str, Any]] = json.loads(path.read_text()) if path.exists() else []
    fresh = [{**asdict(r), **(extra or {})} for r in records]
    keys = {(r["case"], r["tool"]) for r in fresh}
    merged = [r for r in old if (r["case"], r["tool"]) not in keys] + fresh
    merged.sort(key=lambda r: (r["case"], r["tool"]))
    path.write_text(json.dumps(merged, indent=1) + "\n")
    columns = [k for k in fresh[0] if k != "trace"] if fresh else []
    if columns:
        with open(RESULTS / "runs.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(merged)
    meta_path = RESULTS / "meta.json"
    old_meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    meta["reducers"] = {**old_meta.get("reducers", {}), **meta["reducers"]}
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the selected cases and tools, save results, render the report."""
    args = _parser().parse_args(argv)
    tools_on_path()
    presets = args.presets.split(",")
    if presets == ["all"]:
        presets = [p for p in PRESETS if p in available_presets()] or ["default"]
    cases = load_cases(args.cases.split(",") if args.cases else None)
    limit = args.time_limit
    if args.quick:
        # Small committed inputs only: nothing to generate or fetch.
        cases = [c for c in cases if c.prepare is None]
        cases = [c for c in cases if tree_input.measure(c.directory / c.file)[0] < 5000]
        limit = min(limit, 30.0)
    tools = select_tools(args.tools.split(","), presets)
    meta = machine_info(tools)
    meta["jobs"], meta["time_limit"], meta["test_timeout"] = args.jobs, limit, TEST_TIMEOUT
    refused = _run_cases(cases, tools, meta, args.jobs, limit, args.resume)
    if not (args.no_scaling or args.cases or args.quick) and any(
        t.name.startswith("treereduce-py") for t in tools
    ):
        subprocess.run([sys.executable, str(BENCH / "scaling.py")], check=False)
    if not args.no_report:
        subprocess.run([sys.executable, str(BENCH / "report.py")], check=False)
    if refused:
        print(f"run: not stored (a handicapped peer): {', '.join(refused)}", file=sys.stderr)
    return 1 if refused else 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    parser.add_argument(
        "--tools",
        default="treereduce-py,cvise,creduce,shrinkray,ddsmt",
        help="comma-separated tools (default: %(default)s)",
    )
    parser.add_argument(
        "--presets",
        default="default",
        help="treereduce-py presets: comma-separated, 'default' or 'all'",
    )
    parser.add_argument("--jobs", type=int, default=2, help="parallel tests for every tool")
    parser.add_argument("--time-limit", type=float, default=300.0, help="seconds per run")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="skip the (case, tool) runs already stored from this engine (treereduce_py/ and "
        "queries/ as committed) with the same limit and --jobs (a run of every case at 300 s "
        "takes hours: it may be made in sittings)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small cases only, 30 s per run (a smoke test of the harness)",
    )
    parser.add_argument("--no-report", action="store_true", help="do not run bench/report.py")
    parser.add_argument(
        "--no-scaling",
        action="store_true",
        help="skip bench/scaling.py (it runs only with the full suite: no --cases, no --quick)",
    )
    return parser


def _run_cases(
    cases: list[Case],
    tools: list[Tool],
    meta: dict[str, Any],
    jobs: int,
    limit: float,
    resume: bool,
) -> list[str]:
    """Run every tool on every case whose input is interesting here, saving each run at once;
    the runs refused as handicapped ("case with tool")."""
    # What --resume skips: runs stored from this engine (the engine cannot change mid-run).
    at_start = provenance.stamp()
    engine = at_start["engine"]
    done = stored_runs(at_start, jobs, limit) if resume else set()
    refused: list[str] = []
    for case in cases:
        try:
            prepared = prepare_case(case)
        except RuntimeError as err:
            print(f"run: {err}; skipped (is bench/setup.sh done?)", file=sys.stderr)
            continue
        if not run_test(case, prepared):
            print(f"run: {case.name}: the input is not interesting here; skipped", file=sys.stderr)
            continue
        for tool in tools:
            if tool.languages and case.lang not in tool.languages:
                continue
            if (case.name, tool.name) in done:
                print(f"run: {case.name} with {tool.name}: stored from engine {engine}")
                continue
            if not _run_and_save(case, tool, meta, jobs, limit):
                refused.append(f"{case.name} with {tool.name}")
    return refused


def handicapped(case: Case, tool: Tool) -> str | None:
    """Why the finished run of ``tool`` on ``case`` must not be stored (None: it was fair):
    Shrink Ray said it reduced without its tree-sitter grammar."""
    rundir = run_dir(case, tool)
    if tool.name != "shrinkray":
        return None
    missing = grammars.handicap((rundir / "stderr.log").read_text(errors="replace"))
    if missing is None:
        return None
    return (
        f"REFUSED: Shrink Ray could not load the tree-sitter grammar {missing!r} and reduced "
        f"without its passes; run bench/setup.sh (logs: {rundir.relative_to(REPO)})"
    )


def _run_and_save(case: Case, tool: Tool, meta: dict[str, Any], jobs: int, limit: float) -> bool:
    """One run, stamped with the engine it measured, its logs kept gzipped; False (nothing
    stored) when the tool ran handicapped: Shrink Ray without its grammar."""
    stamped = provenance.stamp()
    print(f"run: {case.name} with {tool.name} ...", end=" ", flush=True)
    rec = run_one(case, tool, jobs, limit)
    why = handicapped(case, tool)
    if why is not None:
        print(why, flush=True)
        return False
    names = ["command.json", "stdout.log", "stderr.log", "tests.log"]
    if case.tree:
        rundir = run_dir(case, tool)
        tree_input.archive(rundir / "final" / case.file, rundir / "final.tar")
        names.append("final.tar")
    else:
        names.append("final" + Path(case.file).suffix)
    logs = provenance.keep_logs(
        run_dir(case, tool), names, RUN_LOGS, f"{case.name}-{tool.name.replace(':', '-')}"
    )
    counts = f" ({rec.original_files} -> {rec.final_files} files)" if case.tree else ""
    print(
        f"{rec.original_bytes} -> {rec.final_bytes} B{counts} in {rec.wall_time:.1f} s,"
        f" {rec.tests_run} tests, still interesting: {rec.still_interesting}",
        flush=True,
    )
    save([rec], dict(meta), {**stamped, "logs": logs})
    return True


if __name__ == "__main__":
    sys.exit(main())
