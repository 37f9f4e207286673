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


PARALLEL_COLUMNS = [
    "case",
    "mode",
    "jobs",
    "wall s",
    "tests",
    "final bytes",
    "utilization",
    "engine share",
    "busy by quarter",
    "wasted stale/moot/merge",
    "stopped",
    "ok",
    "commit",
]


def parallel_rows(runs: list[Run]) -> list[list[str]]:
    """One row per stored run of the parallel family (PARALLEL_COLUMNS): its raw numbers."""
    return [
        [
            r["case"],
            r["mode"],
            str(r["jobs"]),
            f"{r['wall_time']:.1f}",
            str(r["tests"]),
            str(r["final_bytes"]),
            f"{100 * r['utilization']:.0f}%",
            f"{100 * r['overhead_share']:.0f}%",
            _quarters(r),
            _wasted(r),
            r["reason"],
            "ok" if r["still_interesting"] else "**FAILS**",
            f"{r['commit']} {r['date'][:10]}",
        ]
        for r in runs
    ]


def _quarters(run: Run) -> str:
    """The share of workers busy in each quarter of the run (stored since events schema 4)."""
    shares = run.get("busy_quarters") or []
    return " ".join(f"{100 * s:.0f}%" for s in shares) if shares else "–"


def _wasted(run: Run) -> str:
    """Wasted tests by cause (stored since events schema 4)."""
    wasted = run.get("wasted") or {}
    return "/".join(str(wasted.get(c, 0)) for c in ("stale", "moot", "merge")) if wasted else "–"
