"""What every section of docs/benchmarks.md shares: where the page and its plots go, the order
the tools are listed in, and markdown tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
RESULTS = BENCH / "results"
DOCS = REPO / "docs"
IMG = DOCS / "img"
PEER_ORDER = ("cvise", "creduce", "shrinkray")
Run = dict[str, Any]


def tool_order(tools: set[str]) -> list[str]:
    ours = sorted(t for t in tools if t.startswith("treereduce-py"))
    return (
        ours
        + [p for p in PEER_ORDER if p in tools]
        + sorted(t for t in tools if t not in ours and t not in PEER_ORDER)
    )


def markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out
