"""The scale family: every reducer on the same program at 100 KB, 1 MB and 10 MB (and 100 MB).

Large inputs (fuzzer output, generated code, bundles) are where a reducer's own cost shows: when
every candidate costs time in proportion to the file, a reducer that is fast at 100 KB is slow at
10 MB however many workers it has.  So the same program (bench/scale_gen.py: seeded filler with a
definition at a third and a misbehaving use of it at two thirds) is generated at each size in C and
JavaScript, and each is reduced with two tests: a fast one (two ``grep -q`` for the trigger lines,
so the time is the reducer's) and a real one (``gcc -fsyntax-only`` must still say "has no member
named 'depth'"; ``node`` must still die with the TypeError), by every tool, one run after another,
through run.py's runner (same wrapper, same ``--jobs``, same limit, peak memory from ``wait4``).

Per run it records wall time, tests, final bytes, peak memory and whether the limit stopped it,
stamped with the commit and date, into bench/results/scale.json, and keeps the raw logs gzipped
under bench/results/scale/.  For treereduce-py it also records the engine's cost per candidate
from its ``--json`` done event: cpu_seconds / (tests + syntax_rejections + cache_hits), the
reducer process's own CPU time (parsing, rendering, syntax checks, bookkeeping; not the tests')
over every candidate it built, whether the test ran, the cache answered or the syntax check
rejected it.  It includes one-off work (the first parse), so with few candidates it overstates
the marginal cost.  bench/report.py renders the "Scale" section and its log-log plot.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

import provenance
from prepare import BENCH, Case, prepare_case, run_test, tools_on_path
from provenance import stamp
from run import (
    RunRecord,
    Tool,
    handicapped,
    last_stats,
    machine_info,
    run_dir,
    run_one,
    select_tools,
)
from scale_gen import SIZES
from scaling import test_cost

REPO = BENCH.parent
RESULTS = BENCH / "results"
LOGS = RESULTS / "scale"
TESTS = BENCH / "scale_tests"
# lang -> (display name, treereduce-py -l name, input file name)
LANGS = {"c": ("C", "c", "input.c"), "js": ("JavaScript", "javascript", "input.js")}
TEST_KINDS = {
    "fast": "two grep -q checks for the trigger lines",
    "real": "the real tool's diagnostic (gcc -fsyntax-only for C, node for JavaScript)",
}
# Wall seconds with the fast test measured in issue 15 (a Rust input of the same shape, engine of
# 2026-11, --jobs 2; 100 MB: issue 28's for C-Vise, 07ec7c2's C for treereduce-py), for
# --estimate only; Shrink Ray is assumed to run to the limit.
FAST_WALL = {
    "treereduce-py": {"100k": 2.2, "1m": 11.3, "10m": 110.0, "100m": 17.0},
    "cvise": {"100k": 18.7, "1m": 19.6, "10m": 18.5, "100m": 48.5},
}
# 100 MB (``--sizes 100m``, not run by default): treereduce-py beside C-Vise only, the reducer
# people use at that size; the others are skipped.
HUGE = "100m"
HUGE_TOOLS = ("treereduce-py", "cvise")
DEFAULT_SIZES = ("100k", "1m", "10m")
FULL_SIZE_TESTS = 20  # the estimate's guess: a run's tests cost about this many full-size ones


def scale_case(lang: str, test: str, size: str) -> Case:
    """The benchmark case for one language, test kind and size (its input built by prepare)."""
    language, ts_lang, file = LANGS[lang]
    return Case(
        name=f"scale-{lang}-{test}-{size}",
        directory=TESTS / f"{lang}-{test}",
        language=language,
        lang=ts_lang,
        file=file,
        prepare=f'python3 "$CASE_DIR/../../scale_gen.py" {lang} {size} > {file}',
        description=f"bench/scale_gen.py {lang} {size}: seeded filler with the trigger at 1/3 "
        "and 2/3.",
        misbehaviour=TEST_KINDS[test],
        tool="grep" if test == "fast" else ("gcc" if lang == "c" else "node"),
        not_c=lang != "c",
    )


def tools_at(size: str, tools: list[Tool]) -> list[Tool]:
    """The tools run at `size`: all of them, but at HUGE only those of HUGE_TOOLS."""
    return [t for t in tools if size != HUGE or t.name in HUGE_TOOLS]


def engine_cost(stats: dict[str, Any]) -> dict[str, Any] | None:
    """treereduce-py's CPU per candidate from its last stats (None without stats)."""
    if "cpu_seconds" not in stats:
        return None
    candidates = sum(int(stats.get(k, 0)) for k in ("tests", "syntax_rejections", "cache_hits"))
    keys = ("cpu_seconds", "tests", "syntax_rejections", "cache_hits", "test_seconds")
    return {
        **{k: stats.get(k) for k in keys},
        "candidates": candidates,
        "ms_per_candidate": round(1000 * stats["cpu_seconds"] / max(candidates, 1), 2),
    }


def keep_logs(case: Case, tool: Tool) -> list[str]:
    """Gzip the run's logs into results/scale/ (head and tail of long ones); their paths."""
    names = ("command.json", "stdout.log", "stderr.log", "tests.log")
    return provenance.keep_logs(
        run_dir(case, tool), names, LOGS, f"{case.name}-{tool.name.replace(':', '-')}"
    )


def record(
    lang: str, test: str, size: str, rec: RunRecord, extra: dict[str, Any]
) -> dict[str, Any]:
    """The stored form of one run: run.py's record without its trace, plus the scale keys."""
    fields = asdict(rec)
    fields.pop("trace")
    return {"lang": lang, "test": test, "size": size, "size_bytes": SIZES[size], **fields, **extra}


def save(runs: list[dict[str, Any]], meta: dict[str, Any]) -> None:
    """Merge ``runs`` into results/scale.json by (case, tool)."""
    path = RESULTS / "scale.json"
    old: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    merged = {(r["case"], r["tool"]): r for r in old.get("runs", [])}
    merged.update({(r["case"], r["tool"]): r for r in runs})
    order = list(SIZES)
    rows = sorted(
        merged.values(), key=lambda r: (r["lang"], r["test"], order.index(r["size"]), r["tool"])
    )
    meta = {**old.get("machine", {}), **meta}
    meta["reducers"] = {**old.get("machine", {}).get("reducers", {}), **meta["reducers"]}
    RESULTS.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"machine": meta, "runs": rows}, indent=1) + "\n")


def estimate(
    configs: list[tuple[str, str, str]], tools: list[Tool], limit: float, jobs: int
) -> str:
    """Expected wall time of the selected runs: the fast-test walls of issue 15 (Shrink Ray at
    the limit), plus for the real test FULL_SIZE_TESTS of its cost on the original / jobs; each
    run capped at the limit (+10 s to stop a peer)."""
    total = bound = 0.0
    lines = []
    for lang, test, size in configs:
        case = scale_case(lang, test, size)
        cost = 0.0
        if test == "real":
            prepare_case(case)
            cost = test_cost(case, repeats=1)["test_wall"]
        for tool in tools_at(size, tools):
            base = FAST_WALL.get(tool.name, {}).get(size, limit)
            run = min(limit, base + FULL_SIZE_TESTS * cost / jobs) + (10 if base >= limit else 0)
            total += run
            bound += limit + 10
            lines.append(f"  {case.name:24} {tool.name:14} ~{run:5.0f} s (test {cost:.2f} s)")
    lines.append(
        f"scale: {len(lines)} runs; expected about {total / 60:.0f} min, at most "
        f"{bound / 60:.0f} min (every run to its {limit:g} s limit)"
    )
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line: which sizes, languages, tests and tools, and the limit per run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", default=",".join(DEFAULT_SIZES), help=f"comma-separated: %(default)s ({HUGE})"
    )
    parser.add_argument("--langs", default=",".join(LANGS), help="comma-separated: %(default)s")
    parser.add_argument("--tests", default=",".join(TEST_KINDS), help="comma-separated")
    parser.add_argument("--tools", default="treereduce-py,cvise,shrinkray", help="comma-separated")
    parser.add_argument("--jobs", type=int, default=2, help="parallel tests for every tool")
    parser.add_argument("--time-limit", type=float, default=300.0, help="seconds per run")
    parser.add_argument("--estimate", action="store_true", help="print the expected time only")
    args = parser.parse_args(argv)
    for option, known in (("sizes", SIZES), ("langs", LANGS), ("tests", TEST_KINDS)):
        values = getattr(args, option).split(",")
        unknown = [v for v in values if v not in known]
        if unknown:
            parser.error(f"--{option}: unknown {', '.join(unknown)}; known: {', '.join(known)}")
        setattr(args, option, values)
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the selected scale runs, one after another, and merge them into scale.json."""
    args = parse_args(argv)
    tools_on_path()
    tools = select_tools(args.tools.split(","), ["default"])
    configs = [(lang, t, size) for lang in args.langs for t in args.tests for size in args.sizes]
    print(estimate(configs, tools, args.time_limit, args.jobs), flush=True)
    if args.estimate:
        return 0
    meta = {**machine_info(tools), "jobs": args.jobs, "time_limit": args.time_limit}
    for lang, test, size in configs:
        case = scale_case(lang, test, size)
        if not run_test(case, prepare_case(case)):
            print(f"scale: {case.name}: the input is not interesting here; skipped", flush=True)
            continue
        for tool in tools_at(size, tools):
            print(f"scale: {case.name} with {tool.name} ...", end=" ", flush=True)
            stamped = stamp()
            rec = run_one(case, tool, args.jobs, args.time_limit)
            if (why := handicapped(case, tool)) is not None:
                print(why, flush=True)
                continue
            stats = last_stats(run_dir(case, tool) / "stderr.log") if tool.graceful else {}
            # "engine" is the stamp's engine digest; the cost goes beside it.
            extra = {"engine_cost": engine_cost(stats), "logs": keep_logs(case, tool), **stamped}
            save([record(lang, test, size, rec, extra)], meta)
            print(
                f"{rec.original_bytes} -> {rec.final_bytes} B in {rec.wall_time:.1f} s"
                f"{' (limit)' if rec.hit_time_limit else ''}, {rec.tests_run} tests, "
                f"peak {rec.peak_rss_mib} MiB, still interesting: {rec.still_interesting}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
