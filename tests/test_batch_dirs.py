"""`treereduce-py batch --dirs`: a folder of crashing projects, grouped by crash, the smallest of
each group reduced as a directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import PYTHON, run_cli, run_tool

from treereduce_py import events
from treereduce_py.front import batch_view
from treereduce_py.judge import signature
from treereduce_py.judge.errors import BadOptions
from treereduce_py.lang.filetree import FileTree
from treereduce_py.run import batch

pytestmark = pytest.mark.e2e

# What each project's lib.py does when main.py calls lib.run(); the padding modules and
# functions are there to be deleted.
BUGS = {
    "keyerror": "def run():\n    d = {}\n    return d['E500']\n",
    "zero": "def run():\n    x = 0\n    return 1 / x\n",
    "clean": "def run():\n    return 'fine'\n",
}
# The program under test, run in the project's copy (crash mode: a traceback is the crash).
COMMAND = ["sh", "-c", f'cd "$1" && exec {PYTHON} -S -B main.py', "run", "@@"]


def project(root: Path, bug: str, pad: int) -> Path:
    """A project whose main.py calls lib.run(), with `pad` unused modules and helpers."""
    root.mkdir(parents=True)
    (root / "main.py").write_text("import lib\n\nprint(lib.run())\n")
    helpers = "".join(f"def helper{j}(x):\n    return x * {j}\n\n\n" for j in range(pad))
    (root / "lib.py").write_text(helpers + BUGS[bug])
    for j in range(pad):
        (root / f"extra{j}.py").write_text(f"VALUE = {j}\n" * (j + 2))
    return root


def test_a_folder_of_crashing_projects_is_grouped_and_each_group_reduced(
    tmp_path: Path,
) -> None:
    crashes = tmp_path / "crashes"
    project(crashes / "k1", "keyerror", 3)
    project(crashes / "k2", "keyerror", 1)  # the smaller of its group: the one reduced
    project(crashes / "z1", "zero", 2)
    project(crashes / "ok", "clean", 1)
    (crashes / "NOTES.txt").write_text("not a project\n")
    out = tmp_path / "out"
    args = ["batch", "--dirs", "-o", out, "-j", 2, "--json", crashes, "--", *COMMAND]
    proc = run_cli(args, tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["clean"] == [str(crashes / "ok")]
    assert [s["path"] for s in summary["skipped"]] == [str(crashes / "NOTES.txt")]
    groups = {Path(g["members"][0]).name: g for g in summary["groups"]}
    assert sorted(groups) == ["k2", "z1"] and len(groups["k2"]["members"]) == 2
    for name, g in groups.items():
        assert g["status"] == "done", g
        reduced = out / g["output"]
        tree = FileTree.read(reduced)
        original = FileTree.read(crashes / name).size
        assert tree.size == g["final_size"] < g["original_size"] == original
        assert not [p for p in tree.paths if p.startswith("extra")]  # unused modules went
        # The reduced project still crashes the same way as its group: same signature.
        again = run_tool([*COMMAND[:4], reduced], tmp_path)
        names = [reduced.name]
        sig = signature.extract(again.returncode, b"", again.stderr, input_names=names)
        assert again.returncode != 0 and sig.describe() == g["signature"]
    assert FileTree.read(crashes / "k1").size > FileTree.read(crashes / "k2").size  # untouched
    # Each event of a group's files carries the whole tree's bytes and tests so far (threads
    # may interleave their lines); the last is the group's result.
    lines = [json.loads(line) for line in proc.stderr.decode().splitlines()]
    for name, g in groups.items():
        mine = [e for e in lines if e.get("group") == g["slug"] and "file" in e]
        assert mine and mine[-1]["tree_size"] == g["final_size"], name
        assert min(e["tree_size"] for e in mine) == g["final_size"]
        assert max(e["tree_size"] for e in mine) <= g["original_size"]
        assert 0 < mine[-1]["tree_tests"] <= g["tests"]


def test_a_directory_groups_row_follows_the_whole_tree() -> None:
    """The live table's row of a `--dirs` group shows the tree's bytes and tests, not those of
    the file being reduced (each file's run has its own stats)."""
    start = events.GroupUpdate("g", "KeyError", 1, "reducing", 900, None)
    rows, _ = batch_view.fold_groups({}, start)
    file_stats = events.Stats(original_size=120, size=40, tests=7)
    progress = events.InFile("lib.py", events.Progress(file_stats), tree_size=610, tree_tests=31)
    rows, changed = batch_view.fold_groups(rows, events.Grouped("g", progress))
    assert changed is None and (rows["g"].size, rows["g"].tests) == (610, 31)
    assert "900 -> 610 B  31 tests" in batch_view.group_line(rows["g"])


def test_dirs_inputs_are_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("a", "b", ".hidden"):
        (tmp_path / "c" / name).mkdir(parents=True)
    (tmp_path / "c" / "file").write_text("x\n")
    inputs, skipped = batch.expand_inputs(["c"], dirs=True)
    assert inputs == [Path("c/a"), Path("c/b")]
    assert sorted(s.path.name for s in skipped) == [".hidden", "file"]
    assert batch.expand_inputs(["c/?"], dirs=True)[0] == [Path("c/a"), Path("c/b")]
    # as in a shell, a wildcard takes no hidden name unless its part starts with a dot
    assert batch.expand_inputs(["c/*"], dirs=True)[0] == [Path("c/a"), Path("c/b")]
    assert batch.expand_inputs(["c/.h*"], dirs=True)[0] == [Path("c/.hidden")]
    (tmp_path / "c" / ".hidden" / "x").write_text("crash\n")
    (tmp_path / "c" / "a" / "y").write_text("crash\n")
    assert batch.expand_inputs(["c/**/*"])[0] == [Path("c/a/y"), Path("c/file")]
    assert batch.expand_inputs(["c/.*/*"])[0] == [Path("c/.hidden/x")]
    with pytest.raises(BadOptions, match="is a file"):
        batch.expand_inputs(["c/file"], dirs=True)
    with pytest.raises(BadOptions, match="--recursive"):
        batch.expand_inputs(["c"], dirs=True, recursive=True)


@pytest.mark.parametrize(
    ("extra", "command", "says"),
    [
        (["-l", "python"], COMMAND, "-l/--lang does not work with --dirs"),
        ([], ["true"], "must name its copy with @@"),
        ([], ["cat", "@@.py"], "@@.EXT names a file"),
    ],
)
def test_what_dirs_cannot_take_is_refused(
    tmp_path: Path, extra: list[str], command: list[str], says: str
) -> None:
    project(tmp_path / "crashes" / "k1", "keyerror", 0)
    proc = run_cli(["batch", "--dirs", *extra, "crashes", "--", *command], tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and says in err, err
    assert not (tmp_path / "reduced").exists()
