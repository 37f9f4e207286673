"""Claims only from stored data: the README's benchmark figures appear in the generated page.

docs/benchmarks.md is rendered by bench/report.py from bench/results/ only; the README summarizes
it by hand. Every ratio the README's comparison section states (a figure followed by `x`, alone or
as the ends of a range like `0.06–0.26x`) must appear on the generated page, so a summary cannot
drift from the stored results it cites.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RATIO = re.compile(r"(\d+\.\d+)(?:[–-](\d+\.\d+))?x")


def comparison_section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("## How it compares")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def test_the_readme_states_ratios() -> None:
    assert len(RATIO.findall(comparison_section())) >= 5


def test_every_ratio_in_the_readme_summary_is_on_the_generated_page() -> None:
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    figures = {f for pair in RATIO.findall(comparison_section()) for f in pair if f}
    missing = sorted(f for f in figures if not re.search(rf"(?<![\d.]){re.escape(f)}(?!\d)", page))
    assert not missing, f"README figures not in docs/benchmarks.md: {missing}"


def test_no_merge_conflict_markers_in_the_text_files() -> None:
    """A merge left `<<<<<<< HEAD` in docs/strategies.md once; no tracked text may keep one."""
    suffixes = {".md", ".py", ".scm", ".toml", ".sh", ".txt", ".cfg", ".yml", ".yaml"}
    marker = re.compile(r"^(<{7}|>{7}) ", re.MULTILINE)
    found = []
    for path in ROOT.rglob("*"):
        parts = set(path.relative_to(ROOT).parts)
        if parts & {".git", ".venv", "node_modules", "work", ".peers"} or not path.is_file():
            continue
        if path.suffix in suffixes or path.name in {"Makefile", "run"}:
            text = path.read_text(errors="replace")
            found += [
                f"{path.relative_to(ROOT)}:{text[: m.start()].count(chr(10)) + 1}"
                for m in marker.finditer(text)
            ]
    assert not found, f"merge conflict markers left in: {found}"
