"""bench/sleeping.py: the sleeping test keeps a candidate iff it holds the case's strings in
order, and each case's generated input holds them (else the family could not run), while the
input without its faulty rule does not.

bench/ is not a package; its modules import each other by name, so the test puts bench/ on the
path as its scripts do.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import sleeping  # type: ignore[import-not-found]  # noqa: E402
from prepare import load_cases, prepare_case  # type: ignore[import-not-found]  # noqa: E402


def test_keeps_wants_every_string_in_order_without_overlaps() -> None:
    assert sleeping.keeps(b"a(); b(); c();", ("a()", "c()"))
    assert not sleeping.keeps(b"c(); a();", ("a()", "c()"))
    assert not sleeping.keeps(b"ab", ("ab", "b"))  # the second may not reuse the first's bytes
    assert sleeping.keeps(b"", ())


@pytest.mark.parametrize("case", sleeping.CASES)
def test_each_generated_input_keeps_its_crash_path(case: str) -> None:
    source = prepare_case(load_cases([case])[0]).read_bytes()
    strings = sleeping.KEEPS[case]
    assert sleeping.keeps(source, strings)
    (faulty,) = (s.encode() for s in strings if "quantity - " in s)  # the faulty rule's call
    assert not sleeping.keeps(source.replace(faulty, b""), strings)
