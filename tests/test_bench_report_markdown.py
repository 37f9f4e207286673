"""bench/report_markdown.py: what every section of the benchmark page shares, here the mark of a
stored run that went without its tree-sitter grammar.

bench/ is not a package; its modules import each other by name, so the test puts bench/ on the
path as its scripts do.
"""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import report_markdown  # type: ignore[import-not-found]  # noqa: E402


def test_only_a_handicapped_run_is_marked() -> None:
    assert report_markdown.tool_label({"tool": "shrinkray", "handicap": "c"}) == "shrinkray†"
    assert report_markdown.tool_label({"tool": "shrinkray", "handicap": None}) == "shrinkray"
    assert report_markdown.tool_label({"tool": "cvise"}) == "cvise"


def test_the_note_names_each_handicapped_run_and_its_grammar() -> None:
    runs = [
        {"case": "rust-ice", "tool": "shrinkray", "handicap": "rust"},
        {"case": "c-abort", "tool": "shrinkray", "handicap": "c"},
        {"case": "smt-x", "tool": "shrinkray", "handicap": None},
        {"case": "c-abort", "tool": "cvise"},
    ]
    [note, blank] = report_markdown.handicap_note(runs)
    assert note.startswith("† 2 stored runs were handicapped") and blank == ""
    assert note.endswith("c-abort (c), rust-ice (rust).")
    assert "smt-x" not in note


def test_no_note_when_every_run_had_its_grammar() -> None:
    assert report_markdown.handicap_note([{"case": "a", "tool": "shrinkray"}]) == []
