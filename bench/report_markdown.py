"""What every section of docs/benchmarks.md shares: where the page and its plots go, the order
the tools are listed in, the † of a run made without its tree-sitter grammar, and markdown
tables."""

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


def tool_label(run: Run) -> str:
    """A run's tool as the tables show it: marked † when it ran without its tree-sitter grammar
    (a Shrink Ray run stored before bench/grammars.py; see report.py's `handicap` key)."""
    return str(run["tool"]) + ("†" if run.get("handicap") else "")


def handicap_note(runs: list[Run], what: str = "runs") -> list[str]:
    """Which stored rows ran without their tree-sitter grammar (marked † in every table)."""
    marked = sorted((r["case"], r["tool"], r["handicap"]) for r in runs if r.get("handicap"))
    if not marked:
        return []
    rows = ", ".join(f"{case} ({grammar})" for case, _, grammar in marked)
    return [
        f"† {len(marked)} stored {what} were handicapped: Shrink Ray's log says \"could not "
        'download the tree-sitter grammar" and it reduced without its syntax-aware passes '
        "(delete_children, lift_nodes, substitute_nodes, delete_orphaned_declarations). Its "
        "grammars are downloaded at run time, which this offline machine cannot do; "
        "`bench/setup.sh` now builds them (bench/grammars.py) and `bench/run.py` refuses to store "
        "such a run, but these are from before and stay until they are re-run. Every "
        "comparison with them is against a weaker Shrink Ray: " + rows + ".",
        "",
    ]


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
