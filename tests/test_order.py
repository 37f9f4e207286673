"""The progress order (edit/order.py) and the round that uses it: as-long candidates that are
smaller byte by byte count as progress once the deletions reach their fixed point, so a `7`
becomes a `1` and a binary's bytes that cannot go become zeros; the order is well-founded, so a
reduction still ends, and `--deterministic` keeps its output at any `--jobs`."""

from __future__ import annotations

import random
from pathlib import Path

from conftest import PYTHON, run_cli, run_tool, succeeded
from hypothesis import given
from hypothesis import strategies as st

from treereduce_py.edit.order import shorter, smaller


def test_shorter_first_then_bytes() -> None:
    assert smaller(b"9", b"10") and not smaller(b"10", b"9")
    assert smaller(b"1", b"6") and smaller(b"\0\0", b"\0\1")
    assert not smaller(b"ab", b"ab")
    assert shorter(b"9", b"10") and not shorter(b"1", b"6")


@given(st.binary(max_size=6), st.binary(max_size=6), st.binary(max_size=6))
def test_a_strict_total_order_that_extends_shorter(a: bytes, b: bytes, c: bytes) -> None:
    assert not smaller(a, a)
    assert not (smaller(a, b) and smaller(b, a))
    assert a == b or smaller(a, b) or smaller(b, a)
    if smaller(a, b) and smaller(b, c):
        assert smaller(a, c)
    if shorter(a, b):
        assert smaller(a, b)


POSITIVE = "import subprocess, sys\n" + (
    "out = subprocess.run([sys.executable, '-S', sys.argv[1]], capture_output=True).stdout\n"
    "sys.exit(0 if out.strip().isdigit() and int(out) > 0 else 1)\n"
)


def test_a_number_that_cannot_go_becomes_one(tmp_path: Path) -> None:
    """Interesting while the program prints a positive integer: the deletions stop at a
    number of one digit (`0` prints nothing positive), and only a move that keeps the length
    makes it 1."""
    # No call in count's body: unfolding count(3) has nothing to unfold to.
    (tmp_path / "count.py").write_text(
        "def count(items):\n    return items + 4\n\n\nprint(count(3))\n"
    )
    (tmp_path / "check.py").write_text(POSITIVE)
    proc = run_cli(["count.py", "-o", "out.py", "--", PYTHON, "check.py", "@@"], tmp_path)
    succeeded(proc)
    out = (tmp_path / "out.py").read_bytes()
    assert run_tool([PYTHON, "check.py", tmp_path / "out.py"], tmp_path).returncode == 0
    digits = [c for c in out if chr(c).isdigit()]
    assert digits == [ord("1")], out


CHECK_FIELDS = "import sys\n" + (
    "b = open(sys.argv[1], 'rb').read()\n"
    "sys.exit(0 if len(b) == 64 and b[10] == 0x7F and b[40] == 0x55 else 1)\n"
)


def binary_with_fields() -> bytes:
    """64 bytes, none zero, with two values at fixed offsets that a reader checks."""
    rng = random.Random(1)
    data = bytearray(rng.randrange(1, 256) for _ in range(64))
    data[10], data[40] = 0x7F, 0x55
    return bytes(data)


def test_bytes_that_cannot_go_become_zeros_the_same_at_any_jobs(tmp_path: Path) -> None:
    """The file's length is checked, so no byte can be deleted; every byte but the two checked
    ones becomes zero, and --deterministic gives the same bytes with one job or two."""
    (tmp_path / "crash-fields").write_bytes(binary_with_fields())
    (tmp_path / "check.py").write_text(CHECK_FIELDS)
    results = []
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}.bin"
        args = ["crash-fields", "--deterministic", "-j", jobs, "-o", out.name]
        succeeded(run_cli([*args, "--", PYTHON, "check.py", "@@"], tmp_path))
        results.append(out.read_bytes())
    expected = bytearray(64)
    expected[10], expected[40] = 0x7F, 0x55
    assert results == [bytes(expected)] * 2
