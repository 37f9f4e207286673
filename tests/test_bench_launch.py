"""bench/launch.py: the tool's peak memory is its own, and it exits as the tool did."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

LAUNCHER = Path(__file__).resolve().parent.parent / "bench" / "launch.py"


def launch(tmp_path: Path, *command: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, str(LAUNCHER), str(tmp_path / "peak"), *command],
        start_new_session=True,
    )


def test_the_peak_is_the_tools_not_its_starters(tmp_path: Path) -> None:
    # This process holds 400 MiB; the tool touches 50 MiB. Started from here directly, Linux
    # would report at least this process's peak for it.
    held = bytearray(400 << 20)
    held[::4096] = b"x" * len(held[::4096])
    proc = launch(
        tmp_path, sys.executable, "-c", "x = bytearray(50 << 20); x[::4096] = b'y' * len(x[::4096])"
    )
    assert proc.wait() == 0
    peak_mib = int((tmp_path / "peak").read_text()) / 1024
    assert 50 <= peak_mib < 200, peak_mib
    del held


def test_the_launcher_exits_with_the_tools_code(tmp_path: Path) -> None:
    assert launch(tmp_path, sys.executable, "-c", "raise SystemExit(3)").wait() == 3
    assert (tmp_path / "peak").exists()
    assert launch(tmp_path, str(tmp_path / "no-such-tool")).wait() == 127


def test_a_group_sigterm_stops_the_tool_and_still_gives_its_peak(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    proc = launch(tmp_path, "sh", "-c", f"touch {ready}; exec sleep 30")
    deadline = time.monotonic() + 30
    while not ready.exists():  # the launcher has forked the tool (and ignores SIGTERM)
        assert time.monotonic() < deadline
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGTERM)
    assert proc.wait(timeout=10) == -signal.SIGTERM
    assert int((tmp_path / "peak").read_text()) > 0
