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
