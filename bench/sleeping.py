"""The engine's own parallel speed-up: a test that sleeps and costs no CPU.

The parallel family (scaling.py) runs each case's real test, padded by a sleep; on this 2-core
machine those tests alone need 4 to 9 cores at 16 jobs, so beyond 4 jobs it measures the cores.
Here the same three generated inputs (python-orders-exception, js-orders-exception,
c-orders-abort) are reduced in-process through the Python API with a predicate that sleeps
`SLEEP` seconds (a slow build, which holds no core and no lock) and then keeps the candidate iff
it still holds, in order, the strings of the case's crash path (`KEEPS`: the faulty rule and the
function that raises, the registry that finds the rule, the loop in main that calls it). The
engine's syntax check still turns away candidates with more parse errors than the best, as for
a real test. What is left to limit the speed-up is the engine: how many tasks it has ready, the
tests it wastes, and its own CPU under the interpreter's lock.

Each run is a fresh process (`--one`), `--strategy priority --fast` as in the parallel family, at
`--jobs` 1, 2, 4, 8, 16 in the default and `--deterministic` modes. Per run: wall time, tests,
final size, utilization (busy test-seconds / (jobs x wall)), engine share (its CPU seconds /
wall), busy workers by quarter and wasted tests by cause, read from the run's `done` event.
Results go to bench/results/scaling.json under "sleeping"; bench/report.py renders them.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from prepare import load_cases, prepare_case, tools_on_path
from provenance import stamp
from scaling import run_numbers

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"
SLEEP = 0.5  # seconds each test sleeps
# The strings a candidate must keep, in this order (each case's crash path in its gen.py output).
KEEPS: dict[str, tuple[str, ...]] = {
    "python-orders-exception": (
        "def check_quantity(order, quantity):",
        "raise ValueError(",
        "def rules():",
        "globals()",
        "def rule_179(order):",
        "check_quantity(order, order.quantity - 181)",
        "def main():",
        "Order(1, ",
        "for apply in rules():",
        "apply(order)",
        "main()",
    ),
    "js-orders-exception": (
        "function checkQuantity(order, quantity)",
        "throw new RangeError(",
        "function rule179(order)",
        "checkQuantity(order, order.quantity - 181)",
        "function main()",
        "new Order(1, ",
        "for (const apply of RULES)",
        "apply(order)",
        "main();",
    ),
    "c-orders-abort": (
        "check_quantity(const struct order *order, int quantity)",
        "abort();",
        "static double rule_97(",
        "check_quantity(order, order->quantity - 175)",
        "register_rule(rule_97);",
        "int main(void)",
        '{1, "SKU-980"',
        "rules[r](&orders[o])",
    ),
}
CASES = tuple(KEEPS)


def keeps(candidate: bytes, strings: tuple[str, ...]) -> bool:
    """Whether `candidate` holds every one of `strings`, in order, without overlaps."""
    at = 0
    for s in strings:
        found = candidate.find(s.encode(), at)
        if found < 0:
            return False
        at = found + len(s)
    return True


def one(case: str, jobs: int, mode: str, sleep: float) -> dict[str, Any]:
    """One reduction of `case` in this process; its numbers from the `done` event."""
    import treereduce_py
    from treereduce_py import events

    (spec,) = load_cases([case])
    source = prepare_case(spec).read_bytes()
    strings = KEEPS[case]

    def test(candidate: bytes) -> bool:
        time.sleep(sleep)
        return keeps(candidate, strings)

    done: list[events.Done] = []

    def sink(event: events.Event) -> None:
        if isinstance(event, events.Done):
            done.append(event)

    start = time.monotonic()
    result = treereduce_py.reduce(
        source,
        language=spec.lang,
        test=test,
        jobs=jobs,
        strategy="priority",
        passes=1,
        polish=False,
        deterministic=mode == "deterministic",
        progress=sink,
    )
    wall = time.monotonic() - start
    stats = done[-1].stats if done else result.stats
    return {
        "case": case,
        "mode": mode,
        "jobs": jobs,
        **run_numbers(dataclasses.asdict(stats), wall, jobs),
        "final_bytes": len(result.reduced),
        "reason": result.reason,
        "still_interesting": keeps(result.reduced, strings),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every (case, mode, jobs) in a fresh process; merged with the stored runs of other keys."""
    path = RESULTS / "scaling.json"
    results: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    old = results.get("sleeping", {}).get("runs", [])
    runs = {(r["case"], r["mode"], r["jobs"]): r for r in old}
    for case in args.cases.split(","):
        prepare_case(load_cases([case])[0])
    jobs = [int(j) for j in args.jobs.split(",")]
    for case, mode, j in itertools.product(args.cases.split(","), args.modes.split(","), jobs):
        argv = [sys.executable, __file__, "--one", case, "--jobs", str(j), "--modes", mode]
        argv += ["--sleep", str(args.sleep)]
        proc = subprocess.run(argv, capture_output=True, text=True, check=True)
        point = {**json.loads(proc.stdout.strip().splitlines()[-1]), **stamp()}
        runs[(case, mode, j)] = point
        print(f"sleeping: {case} {mode} jobs={j}: {point}", flush=True)
    results["sleeping"] = {
        "sleep": args.sleep,
        "strategy": "--strategy priority --fast",
        "keeps": {c: list(KEEPS[c]) for c in CASES},
        "runs": sorted(runs.values(), key=lambda r: (r["case"], r["mode"], r["jobs"])),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1) + "\n")
    return results["sleeping"]  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--jobs", default="1,2,4,8,16")
    parser.add_argument("--modes", default="default,deterministic")
    parser.add_argument("--sleep", type=float, default=SLEEP, help="seconds each test sleeps")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    tools_on_path()
    if args.one:
        print(json.dumps(one(args.one, int(args.jobs), args.modes, args.sleep)))
        return 0
    run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
