"""The Scale section of docs/benchmarks.md, from bench/scale.py's results: every tool on the
same generated program at 100 KB, 1 MB and 10 MB, treereduce-py's wall time against C-Vise's,
its engine cost per candidate, the targets missed, and the log-log plot."""

from __future__ import annotations

from typing import Any

from report_commits import family_commits, mixed_note
from report_markdown import (
    IMG,
    PEER_ORDER,
    Run,
    handicap_note,
    markdown_table,
    tool_label,
    tool_order,
)

SCALE_SIZES = ("100k", "1m", "10m")
SCALE_WALL_RATIO = 0.5  # treereduce-py's wall <= this x C-Vise's, at every size
SCALE_PEAK_MIB = 1024.0  # peak memory at 10 MB below this
# 100 MB (bench/scale.py's HUGE): run with the fast test only, beside C-Vise; judged where run.
HUGE = "100m"
HUGE_PEAK_MIB = 2048.0  # peak memory at 100 MB below this


def _sizes(runs: list[Run]) -> tuple[str, ...]:
    """The sizes to show: SCALE_SIZES, and HUGE where some run has it."""
    return SCALE_SIZES + ((HUGE,) if any(r["size"] == HUGE for r in runs) else ())


def _scale_configs(runs: list[Run]) -> list[tuple[str, str]]:
    return sorted({(r["lang"], r["test"]) for r in runs})


def _language(runs: list[Run], lang: str) -> str:
    return str(next(r["language"] for r in runs if r["lang"] == lang))


def scale_unjudged(runs: list[Run]) -> list[str]:
    """Sentences for the (language, test) pairs whose sizes lack a treereduce-py or C-Vise run."""
    have = {(r["lang"], r["test"], r["size"], r["tool"]) for r in runs}
    out = []
    for lang, test in _scale_configs(runs):
        missing = [
            size
            for size in SCALE_SIZES
            if not {(lang, test, size, "treereduce-py"), (lang, test, size, "cvise")} <= have
        ]
        if missing:
            out.append(
                f"{_language(runs, lang)} {test}: no treereduce-py and C-Vise runs at "
                f"{', '.join(missing)}"
            )
    return out


def _finished(run: Run | None) -> bool:
    return run is not None and not run["hit_time_limit"] and run["still_interesting"]


def scale_misses(runs: list[Run]) -> list[str]:
    """Sentences for every scale target the stored runs miss (or cannot show)."""
    by_key = {(r["lang"], r["test"], r["size"], r["tool"]): r for r in runs}
    misses: list[str] = []
    for lang, test in _scale_configs(runs):
        for size in _sizes(runs):
            ours = by_key.get((lang, test, size, "treereduce-py"))
            peer = by_key.get((lang, test, size, "cvise"))
            if ours is None or peer is None:
                continue
            if not _finished(ours):
                misses.append(
                    f"{lang} {test} {size}: treereduce-py did not finish "
                    f"({ours['wall_time']:.0f} s, limit {ours['time_limit']:g} s; C-Vise "
                    f"{peer['wall_time']:.0f} s)"
                )
            elif _finished(peer) and ours["wall_time"] > SCALE_WALL_RATIO * peer["wall_time"]:
                misses.append(
                    f"{lang} {test} {size}: treereduce-py's wall is "
                    f"{ours['wall_time'] / peer['wall_time']:.2f}x C-Vise's, target "
                    f"{SCALE_WALL_RATIO}x"
                )
        small = by_key.get((lang, test, "100k", "treereduce-py"))
        for size, label, limit in (
            ("10m", "10 MB", SCALE_PEAK_MIB),
            (HUGE, "100 MB", HUGE_PEAK_MIB),
        ):
            large = by_key.get((lang, test, size, "treereduce-py"))
            if small and large and large["final_bytes"] > small["final_bytes"]:
                misses.append(
                    f"{lang} {test}: treereduce-py ends at {large['final_bytes']} bytes at "
                    f"{label}, more than its {small['final_bytes']} at 100 KB"
                )
            peak = large.get("peak_rss_mib") if large else None
            if peak is not None and peak >= limit:
                misses.append(
                    f"{lang} {test}: peak memory at {label} is {peak:.0f} MiB, target under "
                    f"{limit:.0f} MiB"
                )
    return misses


def _scale_tools(runs: list[Run]) -> str:
    """Which tools ran at which sizes, e.g. "treereduce-py and cvise at every size, shrinkray at
    100k"."""
    sizes: dict[str, list[str]] = {}
    for r in runs:
        if r["size"] not in sizes.setdefault(r["tool"], []):
            sizes[r["tool"]].append(r["size"])
    every = [t for t, got in sizes.items() if set(got) >= set(SCALE_SIZES)]
    parts = [f"{' and '.join(every)} at every size"] if every else []
    parts += [
        f"{t} at {', '.join(s for s in _sizes(runs) if s in got)} only"
        for t, got in sizes.items()
        if t not in every
    ]
    return ", ".join(parts)


def _mib(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}"


def scale_section(scale: dict[str, Any] | None, allow_mixed: bool = False) -> list[str]:
    """Markdown for bench/scale.py's results (the plot is written by plot_scale)."""
    out = ["## Scale", ""]
    runs: list[Run] = (scale or {}).get("runs", [])
    if not runs:
        return [
            *out,
            "Not yet run: `make bench-scale` (or `.venv/bin/python bench/scale.py` then "
            "`.venv/bin/python bench/report.py`) stores it in bench/results/scale.json.",
            "",
        ]
    commits = family_commits(runs, "scale", allow_mixed)
    machine = scale.get("machine", {}) if scale else {}
    limits = ", ".join(f"{t:g} s" for t in sorted({float(r["time_limit"]) for r in runs}))
    out += [
        "The same generated program (`bench/scale_gen.py`, seeded: filler with a definition at "
        "a third and a misbehaving use of it at two thirds) at about 100 KB, 1 MB and 10 MB (and "
        "100 MB with the fast test, treereduce-py and C-Vise only), in "
        f"C and JavaScript, reduced by {_scale_tools(runs)} one after another with `--jobs "
        f"{machine.get('jobs', '?')}` and a limit of {limits} per run, through the runner of "
        "the cases above (`bench/scale.py`). Test *fast*: two `grep -q` for the trigger lines, so "
        "the time is the reducer's; *real*: `gcc -fsyntax-only` must still report "
        "\"has no member named 'depth'\", `node` must still die with the TypeError. Peak MiB: "
        "the largest single process of the tool's tree (`wait4`'s ru_maxrss; on the real tests "
        "that can be the compiler or node), an upper bound: Linux carries a parent's high-water "
        "mark across fork and exec, so it is at least what the runner itself held when it "
        "started the tool (the 105.7 MiB and 836.3 MiB that recur below are the runner's); tree "
        "MiB: the largest sum over all of the tool's processes, sampled every 0.5 s, which that "
        "does not touch. Commits: "
        f"{', '.join(commits)}. Re-run: `make bench-scale`.",
        "",
    ]
    out += mixed_note(commits)
    out += _runs_table(runs)
    out += ["", *handicap_note(runs, "scale runs")] if any(r.get("handicap") for r in runs) else []
    out += _ratio_table(runs)
    out += _cost_table(runs)
    return out + _scale_targets(runs)


_SIZE_ORDER = [*SCALE_SIZES, HUGE]
RUN_COLUMNS = [
    "language",
    "test",
    "size",
    "tool",
    "wall s",
    "tests",
    "final bytes",
    "peak MiB",
    "tree MiB",
    "limit hit",
    "ok",
    "commit",
]


def _runs_table(runs: list[Run]) -> list[str]:
    """Every scale run's numbers (RUN_COLUMNS), by language, test, size and tool."""
    rows = [
        [
            r["language"],
            r["test"],
            r["size"],
            tool_label(r),
            f"{r['wall_time']:.1f}",
            str(r["tests_run"]),
            str(r["final_bytes"]),
            _mib(r.get("peak_rss_mib")),
            _mib(r.get("tree_rss_mib")),
            "**limit**" if r["hit_time_limit"] else "no",
            "ok" if r["still_interesting"] else "**FAILS**",
            r["commit"],
        ]
        for r in sorted(
            runs,
            key=lambda r: (
                r["lang"],
                r["test"],
                _SIZE_ORDER.index(r["size"]),
                _tool_rank(r["tool"]),
            ),
        )
    ]
    return markdown_table(RUN_COLUMNS, rows)


def _ratio_cell(ours: Run | None, peer: Run | None) -> str:
    """treereduce-py's wall / C-Vise's at one size, or why there is none."""
    if ours is None or peer is None:
        return "not run"
    if not _finished(ours):
        return "– (treereduce-py unfinished)"
    if not _finished(peer):
        # C-Vise's whole run would have taken longer: the ratio is at most this.
        return f"≤ {ours['wall_time'] / peer['wall_time']:.2f} (C-Vise at limit)"
    return f"{ours['wall_time'] / peer['wall_time']:.2f}"


def _ratio_table(runs: list[Run]) -> list[str]:
    """treereduce-py's wall time / C-Vise's per language, test and size."""
    by_key = {(r["lang"], r["test"], r["size"], r["tool"]): r for r in runs}
    ratio_rows = [
        [
            _language(runs, lang),
            test,
            *(
                _ratio_cell(
                    by_key.get((lang, test, size, "treereduce-py")),
                    by_key.get((lang, test, size, "cvise")),
                )
                for size in _sizes(runs)
            ),
        ]
        for lang, test in _scale_configs(runs)
    ]
    return [
        "",
        "treereduce-py's wall time / C-Vise's where both finished within the limit with an "
        "interesting result; where only C-Vise hit the limit its whole run would have been "
        "longer, so the ratio is at most the one shown (target: at most "
        f"{SCALE_WALL_RATIO} at every size):",
        "",
        *markdown_table(["language", "test", *_sizes(runs)], ratio_rows),
        "",
    ]


def _cost(run: Run) -> dict[str, Any] | None:
    """treereduce-py's engine cost of a run: `engine_cost`, or `engine` where older runs kept it
    there (before the stamp's engine digest took that name)."""
    cost = run.get("engine_cost") or run.get("engine")
    return cost if isinstance(cost, dict) else None


def _cost_table(runs: list[Run]) -> list[str]:
    """treereduce-py's engine CPU per candidate at each size (none before it was stored)."""
    costs = [
        (r, cost)
        for r in sorted(runs, key=lambda r: (r["lang"], r["test"], _SIZE_ORDER.index(r["size"])))
        if r["tool"] == "treereduce-py" and (cost := _cost(r)) is not None
    ]
    cost_rows = [
        [
            r["language"],
            r["test"],
            r["size"],
            f"{cost['cpu_seconds']:.1f}",
            str(cost["candidates"]),
            f"{cost['ms_per_candidate']:.1f}",
        ]
        for r, cost in costs
    ]
    if not cost_rows:
        return []
    return [
        "treereduce-py's engine cost per candidate, from its `--json` done event: its own "
        "process's CPU seconds (parsing, rendering, syntax checks, bookkeeping; not the "
        "tests') / candidates it built (tests + syntax rejections + cache hits). It includes "
        "the one-off first parse, so few candidates overstate the marginal cost.",
        "",
        *markdown_table(
            ["language", "test", "size", "engine CPU s", "candidates", "ms per candidate"],
            cost_rows,
        ),
        "",
    ]


def _scale_targets(runs: list[Run]) -> list[str]:
    """The targets, those missed and the configurations not judged, and the plot."""
    misses = scale_misses(runs)
    unjudged = scale_unjudged(runs)
    return [
        f"Targets: wall at most {SCALE_WALL_RATIO}x C-Vise's at every size; final bytes at 10 MB "
        f"no more than at 100 KB; peak memory under {SCALE_PEAK_MIB / 1024:.0f} GiB at 10 MB; at "
        f"100 MB (the fast test), the same wall and bytes targets and peak memory under "
        f"{HUGE_PEAK_MIB / 1024:.0f} GiB.",
        "",
        *(
            ["Targets missed:", "", *(f"- {m}." for m in misses)]
            if misses
            else ["No target is missed on the stored runs."]
        ),
        "",
        *(["Not judged:", "", *(f"- {m}." for m in unjudged), ""] if unjudged else []),
        "![wall time against input size](img/bench-scale.png)",
        "",
    ]


def _tool_rank(tool: str) -> int:
    order = tool_order({tool, "treereduce-py", *PEER_ORDER})
    return order.index(tool)


def plot_scale(scale: dict[str, Any]) -> None:
    """Wall time against input size, log-log: a colour per tool, a line style per language and
    test; hollow markers where the run hit its limit."""
    runs: list[Run] = scale.get("runs", [])
    if not runs:
        return
    import matplotlib  # here: the tables need no plotting library (the tests run without it)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    IMG.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    styles = ["-", "--", ":", "-."]
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    tools = tool_order({r["tool"] for r in runs})
    for t, tool in enumerate(tools):
        for c, (lang, test) in enumerate(_scale_configs(runs)):
            points = sorted(
                (r["size_bytes"], r["wall_time"], r["hit_time_limit"])
                for r in runs
                if (r["tool"], r["lang"], r["test"]) == (tool, lang, test)
            )
            if not points:
                continue
            colour = colours[t % len(colours)]
            xs = [p[0] for p in points]
            label = f"{tool} ({lang}, {test})"
            ax.plot(xs, [p[1] for p in points], styles[c % len(styles)], color=colour, label=label)
            for x, y, hit in points:
                ax.plot([x], [y], "o", color=colour, fillstyle="none" if hit else "full")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("input size (bytes)")
    ax.set_ylabel("wall time (s); hollow: hit the limit")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(IMG / "bench-scale.png")
    plt.close(fig)
