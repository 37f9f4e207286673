"""What the end-to-end test files share: the installed CLI and how to run it, the Python under
test, a slow Python test with a needle in it, sending a signal mid-run, and running a tool
ourselves to re-check a result; and the invariants every node table built without a parser
(texttree, bytetree) must keep; and a stored benchmark run for the bench/ report tests. Every
property test runs without hypothesis's timing checks (the "shared-machine" profile)."""

from __future__ import annotations

import itertools
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from treereduce_py.lang.syntax import NodeTable

# These machines are shared and loaded: a property is checked on its examples, never on how fast
# they run (hypothesis's 200 ms deadline and its too-slow health check failed runs under load).
settings.register_profile(
    "shared-machine", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("shared-machine")

CLI = Path(sys.executable).parent / "treereduce-py"
PYTHON = sys.executable
# How tests run a candidate program: -S skips site (and this venv's .pth files), which makes each
# of the hundreds of test runs start about three times faster; the programs use only the stdlib.
RUN_PY = [PYTHON, "-S"]
# A generous limit that only catches a hang of something quick.
QUICK = 60.0
# A generous limit that only catches a hang of a reduction on a loaded 2-core machine.
HANG = 300.0


def gcc_warns_test(tmp_path: Path, warning: str) -> Path:
    """A test script: interesting while gcc -Wall compiles the file and reports `warning`."""
    gcc = which("gcc")
    test = tmp_path / "warns.sh"
    test.write_text(
        f'#!/bin/sh\n{gcc} -Wall -c "$1" -o /dev/null 2>err || exit 1\ngrep -q -- {warning} err\n'
    )
    test.chmod(0o755)
    return test


def which(*names: str) -> str:
    """The first of `names` found on PATH; skips the test when none is installed."""
    for name in names:
        found = shutil.which(name)
        if found is not None:
            return found
    pytest.skip(f"{' or '.join(names)} not found")


def run_tool(args: Sequence[str | Path], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """Run a tool ourselves, to re-check a result with the same test the reducer used."""
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        capture_output=True,
        timeout=QUICK,
        stdin=subprocess.DEVNULL,
    )


# ---------------------------------------------------------------------------------------------
# The CLI


def cli_args(args: Sequence[object]) -> list[str]:
    """The argv that runs the installed CLI with `args`."""
    assert CLI.exists(), f"the CLI is not installed next to {sys.executable}"
    return [str(CLI), *map(str, args)]


def run_cli(
    args: Sequence[object], cwd: Path, *, stdin: bytes = b"", timeout: float = HANG
) -> subprocess.CompletedProcess[bytes]:
    """Run the installed CLI in `cwd` with pipes (so not a terminal); fails the test (rather than
    hangs) if it runs past `timeout`."""
    return subprocess.run(
        cli_args(args), cwd=cwd, input=stdin, capture_output=True, timeout=timeout
    )


def succeeded(proc: subprocess.CompletedProcess[bytes]) -> str:
    """Assert a clean success, showing stderr when it was not; return stderr."""
    err = proc.stderr.decode(errors="replace")
    assert proc.returncode == 0, f"exit {proc.returncode}:\n{err}"
    assert "Traceback" not in err, err
    return err


def signal_when(
    proc: subprocess.Popen[bytes],
    ready: Callable[[], bool],
    sig: signal.Signals = signal.SIGINT,
    *,
    within: float = HANG,
    waiting_for: str = "the run to get there",
) -> tuple[bytes, bytes]:
    """Send `sig` to `proc` once `ready()` holds, wait for it to exit and return its stdout and
    stderr. Fails rather than hangs: if `proc` exits first, if `ready()` does not hold within
    `within` seconds, or if `proc` does not exit soon after; `proc` never outlives the call."""
    deadline = time.monotonic() + within
    try:
        while not ready():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, f"timed out waiting for {waiting_for}"
            time.sleep(0.05)
        proc.send_signal(sig)
        return proc.communicate(timeout=QUICK)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# ---------------------------------------------------------------------------------------------
# A Python test that wants a needle, and can be slowed down

# Interesting while the file compiles as Python and still holds `needle`. A second argument names a
# directory where each run records its pid (to check that none outlives the CLI). Files next to
# the script slow it down: `slow.flag` holds seconds to sleep in every test; `hold` holds the path
# of the run's output file, and once that is smaller than prog.py every test sleeps a minute (a run
# caught mid-way, for an interrupt); `slow_at` holds "N SECONDS" pairs: the N-th call sleeps that
# long, the others 0.05 s (calls are counted with O_EXCL files, so parallel workers never share a
# number).
NEEDLE_CHECK = """\
import os, sys, time
here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) > 2:
    open(os.path.join(sys.argv[2], str(os.getpid())), "w").close()
if os.path.exists(os.path.join(here, "slow.flag")):
    time.sleep(float(open(os.path.join(here, "slow.flag")).read() or "0.1"))
hold = os.path.join(here, "hold")
if os.path.exists(hold):
    out = open(hold).read()
    original = os.path.getsize(os.path.join(here, "prog.py"))
    if os.path.exists(out) and os.path.getsize(out) < original:
        time.sleep(60)
slow_at = os.path.join(here, "slow_at")
if os.path.exists(slow_at):
    words = open(slow_at).read().split()
    sleeps = dict(zip(words[::2], words[1::2]))
    calls = os.path.join(here, "calls")
    os.makedirs(calls, exist_ok=True)
    n = 1
    while True:
        try:
            os.close(os.open(os.path.join(calls, str(n)), os.O_CREAT | os.O_EXCL))
            break
        except FileExistsError:
            n += 1
    time.sleep(float(sleeps.get(str(n), 0.05)))
data = open(sys.argv[1], "rb").read()
try:
    compile(data, "candidate", "exec")
except SyntaxError:
    sys.exit(1)
sys.exit(0 if b"needle" in data else 1)
"""


def needle_program(functions: int) -> bytes:
    """A Python module of `functions` small helpers; only `needle` is needed by the test."""
    body = "".join(
        f"def helper_{i}(x):\n    y = x * {i}\n    return y + {i}\n\n\n"
        f"value_{i} = helper_{i}({i})\n\n"
        for i in range(functions)
    )
    return (body + "needle = value_7\n").encode()


def needle_setup(tmp_path: Path, functions: int) -> tuple[Path, list[str]]:
    """Write the needle test (`check.py`) and an input (`prog.py`) into `tmp_path`; return the
    input and the test command (what follows `--`)."""
    check = tmp_path / "check.py"
    check.write_text(NEEDLE_CHECK)
    source = tmp_path / "prog.py"
    source.write_bytes(needle_program(functions))
    return source, [*RUN_PY, str(check), "@@"]


def needle_ok(path: Path, tmp_path: Path) -> bool:
    """Whether the needle test says `path` is interesting (with the slowdowns switched off)."""
    for name in ("slow.flag", "slow_at"):
        (tmp_path / name).unlink(missing_ok=True)
    return run_tool([*RUN_PY, tmp_path / "check.py", path], tmp_path).returncode == 0


def assert_tiles(table: NodeTable, source: bytes) -> None:
    """The invariants of a parse's table, and tiling: row 0 is the root spanning `source`; rows
    are in pre-order (a node's first child right after it, a child's next sibling right after
    its subtree, `last` the end of the subtree); depths follow parents; every node but an empty
    root spans bytes, and its children tile it in order, so the leaves spell `source`."""
    n = len(table)
    assert (table.start[0], table.end[0], table.parent[0], table.depth[0]) == (
        0,
        len(source),
        -1,
        0,
    )
    assert table.source == source
    leaves = []
    for i in range(n):
        kids = list(table.children(i))
        if i:
            p = table.parent[i]
            assert p < i and i in list(table.children(p))
            assert table.depth[i] == table.depth[p] + 1
            assert table.size(i) > 0
        if not kids:
            assert table.first_child[i] == -1 and table.last[i] == i
            leaves.append(table.text(i))
            continue
        assert kids[0] == i + 1
        assert table.start[kids[0]] == table.start[i] and table.end[kids[-1]] == table.end[i]
        for a, b in itertools.pairwise(kids):
            assert table.end[a] == table.start[b]
            assert b == table.last[a] + 1
        assert table.last[i] == table.last[kids[-1]]
        assert all(table.parent[k] == i for k in kids)
    assert b"".join(leaves) == source
    assert table.last[0] == n - 1


def stored_run(case: str, tool: str, size: int, wall: float, **extra: Any) -> dict[str, Any]:
    """A bench/results run record that shrank linearly from 10x `size` to `size` by `wall`
    seconds (unless `trace` is given), finished and passed its re-check."""
    record = {
        "case": case,
        "tool": tool,
        "final_bytes": size,
        "wall_time": wall,
        "hit_time_limit": False,
        "still_interesting": True,
        "trace": [[0.0, 10 * size], [wall, size]],
    }
    return record | extra


def cut_or_lowered(small: bytes, big: bytes) -> bool:
    """Is `small` some of `big`'s bytes in order, each kept or made smaller (zero, or a lower
    value: what the bytes front end may do to a binary, transform/zeroes.py)? Taking the first
    byte that fits is never worse: a later one fits no more bytes."""
    it = iter(big)
    return all(any(b <= c for c in it) for b in small)
