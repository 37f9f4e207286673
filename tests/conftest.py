"""What the end-to-end test files share: the installed CLI, the Python under test, and running
a tool ourselves to re-check a result."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

CLI = Path(sys.executable).parent / "treereduce-py"
PYTHON = sys.executable
# How tests run a candidate program: -S skips site (and this venv's .pth files), which makes each
# of the hundreds of test runs start about three times faster; the programs use only the stdlib.
RUN_PY = [PYTHON, "-S"]
# A generous limit that only catches a hang of something quick.
QUICK = 60.0


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
