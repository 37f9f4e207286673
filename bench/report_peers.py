"""The peer comparison of docs/benchmarks.md: the summary of ratios against C-Vise, C-Reduce and
Shrink Ray, the losses, the targets, a section per case with its size-over-time plot, and what
each stage of treereduce-py's runs bought."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prepare import Case
from ratios import SUMMARY_COLUMNS, per_case_rows, summary_rows
from report_commits import family_commits, mixed_note
from report_markdown import (
    IMG,
    REPO,
    Run,
    handicap_note,
    markdown_table,
    tool_label,
    tool_order,
)
from stages import stage_rows
from targets import own_final_time, target_rows, time_to_reach


def _reach_line(case_runs: list[Run]) -> list[str]:
    """When treereduce-py reached each peer's final size, against when the peer did."""
    ours = next((r for r in case_runs if r["tool"] == "treereduce-py"), None)
    peers = [r for r in case_runs if not r["tool"].startswith("treereduce-py")]
    if ours is None or not peers:
        return []
    parts = []
    for peer in sorted(peers, key=lambda r: r["tool"]):
        reach = time_to_reach(ours.get("trace") or [], peer["final_bytes"])
        when = "never" if reach is None else f"at {reach:.1f} s"
        parts.append(
            f"{peer['tool']}'s {peer['final_bytes']} B {when} ({peer['tool']}: "
            f"{own_final_time(peer):.1f} s)"
        )
    return ["", "treereduce-py reached " + "; ".join(parts) + "."]


def losses(runs: list[Run]) -> list[str]:
    """A sentence per case where a peer ended smaller than treereduce-py (default preset)."""
    out: list[str] = []
    for case in sorted({r["case"] for r in runs}):
        mine = [r for r in runs if r["case"] == case and r["tool"] == "treereduce-py"]
        peers = [
            r
            for r in runs
            if r["case"] == case
            and not r["tool"].startswith("treereduce-py")
            and r["still_interesting"]
        ]
        if not mine or not peers:
            continue
        best = min(peers, key=lambda r: r["final_bytes"])
        if best["final_bytes"] < mine[0]["final_bytes"]:
            out.append(
                f"- {case}: {best['tool']} ended at {best['final_bytes']} bytes, treereduce-py at "
                f"{mine[0]['final_bytes']} ({mine[0]['final_bytes'] / best['final_bytes']:.1f}x)."
            )
    if out:
        out.insert(0, "Cases where a peer's result is smaller than treereduce-py's:")
        out.insert(1, "")
    return out


def target_section(runs: list[Run]) -> list[str]:
    """The targets table (docs/benchmarks.md#targets)."""
    rows = target_rows(runs)
    if not rows:
        return []
    met = sum(r[4] == "met" for r in rows)
    smt = [r for r in rows if r[5]]
    smt_met = sum(r[5].endswith(": met") for r in smt)
    lines = [
        "## Targets",
        "",
        "Per case, treereduce-py's final size must be at most the smallest of C-Vise's, "
        "C-Reduce's and Shrink Ray's, at a wall time at most half the fastest one's (where every "
        "peer was stopped by the limit: the earliest time one reached its own final size; a peer "
        "that crashed before the limit finished no reduction and sets no time, unless every one "
        "did); on the SMT-LIB cases, size and wall time at most ddSMT's. Only results that pass "
        "their re-check count.",
        "",
        f"Program reducers: met on {met} of {len(rows)} cases."
        + (f" ddSMT: met on {smt_met} of {len(smt)}." if smt else ""),
        "",
    ]
    return lines + markdown_table(
        [
            "case",
            "treereduce-py",
            "smallest peer",
            "fastest peer",
            "against the program reducers",
            "ddSMT (SMT-LIB)",
        ],
        rows,
    )


def _pyplot() -> Any:
    """matplotlib's pyplot, headless (the bench extra): imported only to draw, so the tables
    render, and are tested, without it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_case(case: str, runs: list[Run], path: Path) -> None:
    """Best size so far over time, one step line per tool, log-scaled bytes."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for tool in tool_order({r["tool"] for r in runs}):
        run = next(r for r in runs if r["tool"] == tool)
        xs = [p[0] for p in run["trace"]] + [run["wall_time"]]
        ys = [p[1] for p in run["trace"]] + [run["trace"][-1][1]]
        style = "-" if tool.startswith("treereduce-py") else "--"
        ax.step(xs, ys, where="post", linestyle=style, label=tool)
    ax.set_yscale("log")
    ax.set_xlabel("wall time (s)")
    ax.set_ylabel("best size (bytes)")
    ax.set_title(case)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_bars(runs: list[Run], key: str, ylabel: str, path: Path, relative: bool) -> None:
    """Grouped bars per case and tool: final size relative to the original, or wall time."""
    cases = sorted({r["case"] for r in runs})
    tools = tool_order({r["tool"] for r in runs})
    by_key = {(r["case"], r["tool"]): r for r in runs}
    width = 0.8 / max(len(tools), 1)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(7.0, len(cases) * 1.1), 4))
    for i, tool in enumerate(tools):
        xs, ys = [], []
        for j, case in enumerate(cases):
            run = by_key.get((case, tool))
            if run is None:
                continue
            value = float(run[key])
            if relative:
                value = 100.0 * max(value, 1.0) / run["original_bytes"]
            xs.append(j + i * width - 0.4 + width / 2)
            ys.append(value)
        ax.bar(xs, ys, width=width, label=tool)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(cases, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    if relative:
        ax.set_yscale("log")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _peer_run_commits(runs: list[Run], allow_mixed: bool = True) -> list[str]:
    """The measured versions of the treereduce-py rows of the peer table (their `commit` stamp,
    or for runs stored before stamps, their `version`, "0.1.0+<commit>"); raises MixedCommits
    for several unless allowed. `make bench` re-runs them at one commit."""
    ours = [r for r in runs if r["tool"].startswith("treereduce-py")]
    return family_commits(ours, "peer", allow_mixed)


def _maybe(value: object) -> str:
    """A count only treereduce-py reports (its cache and syntax check); "–" for the peers."""
    return "–" if value is None else str(value)


def stage_section(runs: list[Run]) -> list[str]:
    """What each stage of treereduce-py's runs above bought (bench/stages.py)."""
    phases, rows = stage_rows(runs, REPO)
    if not rows:
        return []
    return [
        "## Stage by stage",
        "",
        "What each stage of the treereduce-py runs above removed, and the tests it spent, summed "
        "over the rounds (from each run's stored `--json` events; bench/stages.py). `tree` "
        "includes the query files' replacements, drops and inlinings; `merge` is merging names; "
        "`tokens-lenient` and `pairs-lenient` are the endgame, without the syntax check. A dash: "
        "the stage never ran (the limit came first, or the round ended before it).",
        "",
        *markdown_table(["case", *phases], rows),
        "",
    ]


def summary_section(
    runs: list[Run], allow_mixed: bool = False, held_out: frozenset[str] = frozenset()
) -> list[str]:
    """The Summary: treereduce-py's commits, the ratio tables (all cases, the held-out ones,
    case by case), the losses, the targets and the two bar plots (written into docs/img/)."""
    ran = {r["case"] for r in runs}
    older = sorted(ran - held_out)
    lines = [
        "## Summary",
        "",
        "Every ratio is treereduce-py's figure over the peer's (below 1.00: treereduce-py's "
        "result is smaller, or its run shorter), given as the geometric mean and the median over "
        "the cases both tools ran and passed their re-check; the per-case ratios are in the table "
        "after it. *Size ratio*: final bytes over the peer's final bytes, on every such case. "
        "*Time ratio*: wall time over the peer's wall time, only on the cases where both runs "
        "finished before the limit and without an error (a run stopped by the limit measures "
        "the limit, not the tool; a crash measures no reduction); *k/n* says on how many. "
        "*Reached*: on the k cases where treereduce-py got down to the peer's final size at "
        "all, the time it took to get there over the time the peer "
        "took to reach that size (its own final one, from its size trace), so a peer stopped by "
        "the limit is timed by when it stopped shrinking.",
        "",
        f"The engine was developed against the {len(older)} older cases ({', '.join(older)}): "
        "every transformation was tried and tuned on them, so they flatter it. "
        + (
            f"The {len(ran & held_out)} held-out cases ({', '.join(sorted(ran & held_out))}) "
            "were written by others and added after; their own rows below measure it on input "
            "it was not tuned on."
            if ran & held_out
            else "No held-out case (written by others, added after the engine: "
            "`held_out` in case.json) has been run yet: `make bench` runs them."
        ),
        "",
    ]
    peer_commits = _peer_run_commits(runs, allow_mixed)
    lines += [f"treereduce-py's runs: commit {'; '.join(peer_commits)}.", ""]
    lines += mixed_note(
        peer_commits, "rendered with `--allow-mixed`; `make bench` re-runs every case at one commit"
    )
    lines += markdown_table(SUMMARY_COLUMNS, summary_rows(runs))
    if ran & held_out:
        lines += ["", "Held-out cases only:", ""]
        lines += markdown_table(SUMMARY_COLUMNS, summary_rows(runs, set(held_out)))
    header, rows = per_case_rows(runs, set(held_out))
    lines += ["", "Case by case: treereduce-py's final bytes / the peer's = the size ratio.", ""]
    lines += markdown_table(header, rows)
    lines += ["", *handicap_note(runs), *losses(runs)]
    lines += ["", *target_section(runs)]
    plot_bars(
        runs,
        "final_bytes",
        "final size (% of original, log)",
        IMG / "bench-final-size.png",
        relative=True,
    )
    plot_bars(runs, "wall_time", "wall time (s)", IMG / "bench-wall-time.png", relative=False)
    return [
        *lines,
        "",
        "![final size per case](img/bench-final-size.png)",
        "",
        "![wall time per case](img/bench-wall-time.png)",
        "",
    ]


def case_sections(runs: list[Run], cases: dict[str, Case]) -> list[str]:
    """## Cases: per case, what it is, every tool's numbers and the size-over-time plot."""
    lines = ["## Cases", ""]
    for name in sorted({r["case"] for r in runs}):
        case_runs = [r for r in runs if r["case"] == name]
        case = cases.get(name)
        first = case_runs[0]
        tree = is_tree(first)
        lines += [f"### {name}", ""]
        if case is not None:
            size = f"{first['original_bytes']} bytes"
            if tree:
                size += f" in {first['original_files']} files (a directory)"
            lines += [
                f"{case.language}, {size}, {first['original_tokens']} tokens. {case.description}",
                "",
                f"*Misbehaviour:* {case.misbehaviour} Test: `bench/cases/{name}/test.sh`.",
                "",
            ]
        if tree:
            lines += [TREE_NOTE, ""]
        rows = [_case_row(r, tree) for r in _in_tool_order(case_runs)]
        lines += markdown_table(case_columns(tree), rows)
        lines += _reach_line(case_runs)
        img = IMG / f"bench-{name}.png"
        plot_case(name, case_runs, img)
        lines += ["", f"![{name}: size over time](img/{img.name})", ""]
    return lines


# Said under a directory case's table: what its figures are over, and how each tool got it.
TREE_NOTE = (
    "Bytes and tokens are over all the directory's files; *files* counts them. treereduce-py "
    "and Shrink Ray (its directory mode) were given the directory; C-Vise and C-Reduce its files, "
    "laid out flat in their working directory (they cannot delete a file: one they emptied "
    "stays, and is counted)."
)

CASE_COLUMNS = [
    "tool",
    "version",
    "bytes",
    "tokens",
    "of original",
    "wall s",
    "final size at s",
    "tests",
    "tests/s",
    "cache hits",
    "syntax rejections",
    "ok",
]


def is_tree(run: Run) -> bool:
    """Whether the run's case was a directory (its record counts files)."""
    return run.get("original_files") is not None


def case_columns(tree: bool) -> list[str]:
    """A case table's columns: a directory case's also count its files, after the bytes."""
    if not tree:
        return CASE_COLUMNS
    at = CASE_COLUMNS.index("bytes") + 1
    return [*CASE_COLUMNS[:at], "files", *CASE_COLUMNS[at:]]


def _in_tool_order(case_runs: list[Run]) -> list[Run]:
    return [
        next(x for x in case_runs if x["tool"] == tool)
        for tool in tool_order({r["tool"] for r in case_runs})
    ]


def _case_row(r: Run, tree: bool = False) -> list[str]:
    """A tool's row in a case's table (``case_columns(tree)``)."""
    rate = r["tests_run"] / max(r["wall_time"], 0.01)
    files = [f"{r['final_files']} of {r['original_files']}"] if tree else []
    return [
        tool_label(r),
        r["version"],
        str(r["final_bytes"]),
        *files,
        str(r["final_tokens"]),
        f"{100 * r['final_bytes'] / max(r['original_bytes'], 1):.1f}%",
        f"{r['wall_time']:.1f}" + (" (limit)" if r["hit_time_limit"] else ""),
        f"{own_final_time(r):.1f}",
        str(r["tests_run"]),
        f"{rate:.1f}",
        _maybe(r.get("cache_hits")),
        _maybe(r.get("syntax_rejections")),
        "ok" if r["still_interesting"] else "**FAILS**",
    ]
