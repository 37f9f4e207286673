"""Batch mode (batch.py): grouping by crash signature, one reduction per group, summaries, and
--resume, with real Python programs as the crashing inputs."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from conftest import PYTHON, run_cli, run_tool

from treereduce_py.judge import signature
from treereduce_py.judge.oracle import CommandOracle
from treereduce_py.run import api, batch

BUGS = {
    "keyerror": "d = {}\nd['E500']\n",
    "zero": "x = 0\nprint(1 / x)\n",
    "config": "import sys\nsys.stderr.write('error: bad config\\n')\nsys.exit(3)\n",
    "clean": "print('fine')\n",
}


def corpus(folder: Path, per_bug: int) -> dict[str, list[Path]]:
    """`per_bug` padded programs for each bug; returns the paths by bug."""
    folder.mkdir()
    made: dict[str, list[Path]] = {}
    for bug, text in BUGS.items():
        for i in range(per_bug):
            pad = "".join(
                f"def f{j}(x):\n    return x + {j}\n\n\nv{j} = f{j}({j})\n" for j in range(i + 1)
            )
            path = folder / f"{bug}{i}.py"
            path.write_text(pad + text)
            made.setdefault(bug, []).append(path)
    return made


def test_grouping_is_by_signature_and_smallest_first(tmp_path: Path) -> None:
    a, b, c = (tmp_path / n for n in ("a.py", "b.py", "c.py"))
    crashes = [
        batch.Crash(a, 30, "1\nKeyError: 'x'", "exit 1 and 'KeyError'"),
        batch.Crash(b, 10, "1\nKeyError: 'x'", "exit 1 and 'KeyError'"),
        batch.Crash(c, 5, None),
    ]
    groups, clean = batch.group(crashes)
    assert clean == [c]
    assert len(groups) == 1 and groups[0].members == [b, a] and groups[0].original_size == 10
    assert groups[0].slug.startswith("keyerror-x-")
    other = batch.slug(batch.Crash(a, 1, "2\nKeyError: 'x'", "exit 2 and 'KeyError'"))
    assert other != groups[0].slug  # same words, other exit status: another file
    assert "| 2 | " in batch.summary_markdown(groups, clean)


def test_batch_reduces_one_input_per_signature_and_resumes(tmp_path: Path) -> None:
    made = corpus(tmp_path / "crashes", 3)
    out = tmp_path / "out"
    args = ["batch", "-o", out, "-j", 2, "--json", "crashes", "--", PYTHON, "-S", "@@"]
    proc = run_cli(args, tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    summary = json.loads((out / "summary.json").read_text())
    groups = summary["groups"]
    assert len(groups) == 3  # three distinct crashes, one reduction each
    assert sorted(summary["clean"]) == sorted(str(p.relative_to(tmp_path)) for p in made["clean"])
    for g in groups:
        assert g["status"] == "done" and len(g["members"]) == 3
        reduced = out / g["output"]
        assert reduced.stat().st_size == g["final_size"] < g["original_size"]
        smallest = min(made_for(made, g["members"][0]), key=lambda p: p.stat().st_size)
        assert g["members"][0] == str(smallest.relative_to(tmp_path))
        # The reduced file still crashes the same way as its group's inputs: same signature.
        again = run_tool([PYTHON, "-S", reduced], tmp_path)
        sig = signature.extract(again.returncode, b"", again.stderr, input_names=[reduced.name])
        assert again.returncode != 0 and sig.describe() == g["signature"]
    events = [json.loads(line) for line in proc.stderr.decode().splitlines()]
    group_names = {g["slug"] for g in groups}
    assert {e["group"] for e in events if e["event"] == "group"} == group_names
    assert {e["group"] for e in events if e["event"] == "improvement"} <= group_names
    assert all(e["schema"] == 3 for e in events)
    assert "| 3 |" in (out / "summary.md").read_text()

    # --resume: every group is finished, so nothing is reduced again.
    proc = run_cli([*args[:1], "--resume", *args[1:]], tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    events = [json.loads(line) for line in proc.stderr.decode().splitlines()]
    assert not [e for e in events if e["event"] == "group" and e["status"] == "reducing"]
    assert json.loads((out / "summary.json").read_text())["groups"] == groups


def made_for(made: dict[str, list[Path]], member: str) -> list[Path]:
    return next(
        paths for bug, paths in made.items() if Path(member).stem.rstrip("0123456789") == bug
    )


def test_batch_usage_errors(tmp_path: Path) -> None:
    proc = run_cli(["batch", "nothing-here/*.py", "--", "true"], tmp_path)
    assert proc.returncode == 2 and b"no input matches" in proc.stderr


def test_shared_slots_are_taken_before_a_candidate_is_built(tmp_path: Path) -> None:
    # Batch mode's reductions share `jobs` test slots. A worker that built its candidate and
    # then waited for a slot would test it on a state that other commits had replaced, and its
    # success would need a merge. Taken before the candidate is built, one slot among four
    # workers means every candidate is built on the current state: no success is ever stale.
    source = "".join(f"def f{j}(x):\n    return x + {j}\n\n\n" for j in range(30)) + "keep = 1\n"
    oracle = CommandOracle(["sh", "-c", 'grep -q keep "$1"', "sh", "@@"])
    oracle.slots = threading.Semaphore(1)
    with oracle:
        result = api.reduce(source.encode(), language="python", test=oracle, jobs=4, rename=False)
    assert result.reduced.strip() in (b"keep", b"keep = 1")
    assert result.stats.interesting > 3 and result.stats.commit_retries == 0, result.stats
