"""bench/stages.py: what each stage of a stored run removed, and the tests and seconds it took.

bench/ is not a package; its modules import each other by name, so the test puts bench/ on the
path as its scripts do.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import stages  # type: ignore[import-not-found]  # noqa: E402


def stats(tests: int, phase: str) -> dict[str, Any]:
    return {"tests": tests, "phase": phase}


EVENTS: list[dict[str, Any]] = [
    {"event": "start", "original_size": 1000, "elapsed": 0.0},
    {"event": "pass", "phase": "parse", "size": 1000, "elapsed": 0.1},
    {"event": "pass", "phase": "tree", "size": 1000, "elapsed": 0.2},
    {"event": "improvement", "size": 600, "stats": stats(5, "tree"), "elapsed": 1.2},
    {"event": "progress", "stats": stats(9, "tree"), "elapsed": 1.5},
    {"event": "improvement", "size": 100, "stats": stats(12, "tree"), "elapsed": 2.2},
    {"event": "pass", "phase": "merge", "size": 100, "elapsed": 2.4},
    {"event": "improvement", "size": 90, "stats": stats(14, "merge"), "elapsed": 2.9},
    {"event": "pass", "phase": "tokens-lenient", "size": 90, "elapsed": 3.0},
    {"event": "done", "stats": stats(20, "tokens-lenient"), "elapsed": 4.0},
]


def test_each_stage_gets_its_bytes_tests_and_seconds() -> None:
    costs = stages.stage_costs(EVENTS)
    assert costs["tree"][:2] == [900, 12]
    assert costs["merge"][:2] == [10, 2]
    assert costs["tokens-lenient"][:2] == [0, 6]
    assert round(costs["tree"][2], 6) == 2.2  # from its pass (0.2 s) to the next (2.4 s)
    total = sum(c[0] for c in costs.values())
    assert total == 1000 - 90 and sum(c[1] for c in costs.values()) == 20


def test_rows_come_from_the_stored_logs_in_round_order(tmp_path: Path) -> None:
    log = tmp_path / "bench" / "results" / "runs" / "x-treereduce-py.stderr.log.gz"
    log.parent.mkdir(parents=True)
    text = "not json\n" + "".join(json.dumps(e) + "\n" for e in EVENTS)
    log.write_bytes(gzip.compress(text.encode()))
    runs = [
        {"case": "x", "tool": "treereduce-py", "logs": [str(log.relative_to(tmp_path))]},
        {"case": "x", "tool": "cvise", "logs": []},
    ]
    phases, rows = stages.stage_rows(runs, tmp_path)
    assert phases == ["tree", "merge", "tokens-lenient"]
    assert rows == [["x", "900 B, 12", "10 B, 2", "0 B, 6"]]


def test_a_directory_run_follows_each_file_s_own_part() -> None:
    # Each part (a file's session, or the file pass on ".") counts its tests and its clock from
    # 0 and reports the file's own size; the parts of a round come one after another.
    def ev(file: str, kind: str, elapsed: float, **more: Any) -> dict[str, Any]:
        return {"file": file, "event": kind, "elapsed": elapsed, **more}

    events = [
        ev(".", "start", 0.0, original_size=900),
        ev(".", "pass", 0.1, phase="tree", size=900),
        ev(".", "improvement", 1.0, size=700, stats=stats(3, "tree")),
        ev(".", "done", 1.5, stats=stats(4, "tree")),
        ev("a.c", "start", 0.0, original_size=500),
        ev("a.c", "pass", 0.1, phase="tree", size=500),
        ev("a.c", "improvement", 2.1, size=200, stats=stats(6, "tree")),
        ev("a.c", "done", 3.1, stats=stats(7, "tree")),
        ev("b.h", "start", 0.0, original_size=200),
        ev("b.h", "pass", 0.1, phase="lines", size=200),
        ev("b.h", "improvement", 0.6, size=150, stats=stats(2, "lines")),
        ev("b.h", "done", 1.1, stats=stats(2, "lines")),
        ev("a.c", "start", 0.0, original_size=200),  # the next round: a new part of a.c
        ev("a.c", "pass", 0.1, phase="tokens", size=200),
        ev("a.c", "improvement", 0.5, size=190, stats=stats(1, "tokens")),
        ev("a.c", "done", 0.6, stats=stats(1, "tokens")),
    ]
    costs = stages.stage_costs(events)
    assert costs["files"][:2] == [200, 4]
    assert costs["tree"][:2] == [300, 7]
    assert costs["lines"][:2] == [50, 2]
    assert costs["tokens"][:2] == [10, 1]
    assert [round(c[2], 6) for c in (costs["files"], costs["tree"], costs["lines"])] == [
        1.4,
        3.0,
        1.0,
    ]
