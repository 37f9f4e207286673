"""Batch mode (batch.py): grouping by crash signature, one reduction per group, summaries, and
--resume, with real Python programs as the crashing inputs."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from conftest import PYTHON, run_cli, run_tool

from treereduce_py.events import SCHEMA_VERSION
from treereduce_py.judge import signature
from treereduce_py.judge.oracle import CommandOracle
from treereduce_py.judge.slots import Slotted
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
    assert all(e["schema"] == SCHEMA_VERSION for e in events)
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
    with CommandOracle(["sh", "-c", 'grep -q keep "$1"', "sh", "@@"]) as oracle:
        one_slot = Slotted(oracle, threading.Semaphore(1))
        result = api.reduce(source.encode(), language="python", test=one_slot, jobs=4, rename=False)
    assert result.reduced.strip() in (b"keep", b"keep = 1")
    assert result.stats.interesting > 3 and result.stats.commit_retries == 0, result.stats


# ---------------------------------------------------------------------------------------------
# The command's contract, fuzzers' folders, and a batch that has nothing to reduce


def test_a_crash_folder_is_read_as_a_fuzzer_leaves_it(tmp_path: Path) -> None:
    crashes = tmp_path / "crashes"
    crashes.mkdir()
    for name in ("id:000000,sig:06,src:000001,op:havoc,rep:2", "crash-0123abcd", "README.txt"):
        (crashes / name).write_bytes(b"\x00PK\x03\x04")
    (crashes / ".state").mkdir()
    (crashes / ".state" / "auto_extras").write_bytes(b"")
    (crashes / "deeper").mkdir()
    (crashes / "deeper" / "crash-feed").write_bytes(b"x")
    inputs, skipped = batch.expand_inputs([str(crashes)])
    assert [p.name for p in inputs] == [
        "crash-0123abcd",
        "id:000000,sig:06,src:000001,op:havoc,rep:2",
    ]
    assert {s.path.name: s.reason.split()[0] for s in skipped} == {
        ".state": "hidden",
        "README.txt": "AFL++'s",
        "deeper": "a",
    }
    inputs, skipped = batch.expand_inputs([str(crashes)], recursive=True)
    assert "crash-feed" in [p.name for p in inputs]
    assert [s.path.name for s in skipped] == [".state", "README.txt"]
    # README.txt is an input where no AFL++ file stands beside it.
    (crashes / "id:000000,sig:06,src:000001,op:havoc,rep:2").unlink()
    assert "README.txt" in [p.name for p in batch.expand_inputs([str(crashes)])[0]]


def test_a_batch_where_nothing_crashes_says_which_contract_the_command_follows(
    tmp_path: Path,
) -> None:
    made = corpus(tmp_path / "crashes", 1)
    # The user's "still crashes" test: exit 0 while the program raises KeyError, as for one file.
    test = tmp_path / "still.sh"
    test.write_text(f'#!/bin/sh\n{PYTHON} -S "$1" 2>&1 | grep -q KeyError\n')
    test.chmod(0o755)
    only_clean = tmp_path / "clean"
    only_clean.mkdir()
    made["clean"][0].rename(only_clean / "ok.py")
    proc = run_cli(["batch", "-o", "out", "clean", "--", PYTHON, "-S", "@@"], tmp_path)
    assert proc.returncode == 3, proc.stderr.decode()
    assert b"no input crashed" in proc.stderr and b"--test-mode interesting" in proc.stderr
    assert not (tmp_path / "out").exists()
    # The crashing program run as if it were a test: nothing is interesting, and it says why.
    args = ["batch", "-o", "out", "--test-mode", "interesting", "crashes", "--"]
    proc = run_cli([*args, PYTHON, "-S", "@@"], tmp_path)
    assert proc.returncode == 3 and b"leave out --test-mode interesting" in proc.stderr
    # The test as a test: one group (its output is swallowed, so nothing tells crashes apart),
    # reduced to a program that still passes it.
    proc = run_cli([*args, str(test), "@@"], tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["mode"] == "interesting" and len(summary["groups"]) == 1
    (g,) = summary["groups"]
    assert g["status"] == "done" and g["members"] == [
        str(made["keyerror"][0].relative_to(tmp_path))
    ]
    assert run_tool([test, tmp_path / "out" / g["output"]], tmp_path).returncode == 0


def test_interesting_mode_groups_by_the_crash_the_test_lets_through(tmp_path: Path) -> None:
    made = corpus(tmp_path / "crashes", 2)
    test = tmp_path / "crashes.sh"  # exit 0 on any crash; the traceback goes through
    test.write_text(f'#!/bin/sh\n! {PYTHON} -S "$1"\n')
    test.chmod(0o755)
    args = ["batch", "-o", "out", "-j", 2, "--test-mode", "interesting", "--same-crash", "-q"]
    proc = run_cli([*args, "crashes", "--", test, "@@"], tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert len(summary["groups"]) == 3 and len(summary["clean"]) == 2
    for g in summary["groups"]:
        assert g["status"] == "done" and g["final_size"] < g["original_size"]
        reduced = tmp_path / "out" / g["output"]
        smallest = tmp_path / g["members"][0]
        again = run_tool([PYTHON, "-S", reduced], tmp_path)
        original = run_tool([PYTHON, "-S", smallest], tmp_path)
        # The same crash: the group's signature (its type; values in the message may change).
        kind = original.stderr.splitlines()[-1].split(b":")[0]
        assert again.stderr.splitlines()[-1].split(b":")[0] == kind
        assert kind.decode() in g["signature"]
    accounted = sum(len(g["members"]) for g in summary["groups"]) + len(summary["clean"])
    assert accounted == summary["inputs"] == sum(len(v) for v in made.values())


def test_inputs_that_all_fail_as_an_empty_file_does_blame_the_command(tmp_path: Path) -> None:
    corpus(tmp_path / "crashes", 1)
    # A misspelt script: python exits 2 "can't open file" whatever the input.
    proc = run_cli(["batch", "-o", "out", "crashes", "--", PYTHON, "tagret.py", "@@"], tmp_path)
    assert proc.returncode == 3, proc.stderr.decode()
    assert b"fail exactly as an empty file does" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_an_interpreters_script_without_dot_slash_is_found(tmp_path: Path) -> None:
    corpus(tmp_path / "crashes", 1)
    (tmp_path / "target.py").write_text("import runpy, sys\nrunpy.run_path(sys.argv[1])\n")
    # `python3 target.py @@`, as users write it: the script is read from the user's directory.
    proc = run_cli(["batch", "-o", "out", "-q", "crashes", "--", PYTHON, "target.py", "@@"],
                   tmp_path)  # fmt: skip
    assert b"fail exactly as an empty file does" not in proc.stderr, proc.stderr.decode()
    assert (tmp_path / "out" / "summary.json").exists(), proc.stderr.decode()


def test_skipped_groups_are_said_and_do_not_exit_zero(tmp_path: Path) -> None:
    folder = tmp_path / "crashes"
    folder.mkdir()
    (folder / "crash-1").write_bytes(b"\xff\xfe boom")  # no extension, no grammar to detect
    (folder / "crash-2").write_bytes(b"\xff boom")
    (folder / "fine").write_bytes(b"\xff quiet")
    test = ["sh", "-c", 'grep -q boom "$1" && echo "fatal: boom" >&2 && exit 1; exit 0', "sh"]
    proc = run_cli(["batch", "-o", "out", "-q", "crashes", "--", *test, "@@"], tmp_path)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    (g,) = summary["groups"]
    if g["status"] == "skipped":  # no front end reads this input: said, counted, not exit 0
        assert proc.returncode == 8 and b"skipped" in proc.stderr
        assert g["message"]
    else:
        assert g["status"] == "done" and proc.returncode == 0
    assert summary["clean"] == ["crashes/fine"] and len(g["members"]) == 2


def test_batch_help_and_its_options(tmp_path: Path) -> None:
    proc = run_cli(["batch", "-h"], tmp_path)
    assert (
        proc.returncode == 0
        and b"--test-mode" in proc.stdout
        and b"program under test" in proc.stdout
    )
