"""`treereduce-py FILE FILE... -o OUT -- CMD @@`: several files reduced together, as the tree of
just those files under the deepest directory holding them all."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import PYTHON

from treereduce_py.front import cli
from treereduce_py.lang.filetree import FileTree

pytestmark = pytest.mark.e2e

# app/main.py calls lib/util.py's mean on an empty list; app/cli.py and the notes beside them
# are not named, so they are neither copied for the test nor part of the result.
_FILES = {
    "app/main.py": (
        "import sys\nsys.path.insert(0, '../lib')\nimport util\n\n\n"
        "def report(groups):\n    return [util.mean(g) for g in groups]\n\n\n"
        "print(report([[1, 2], []]))\n"
    ),
    "lib/util.py": (
        "def mean(xs):\n    return sum(xs) / len(xs)\n\n\n"
        "def spread(xs):\n    return max(xs) - min(xs)\n\n\n"
        "def median(xs):\n    s = sorted(xs)\n    return s[len(s) // 2]\n"
    ),
    "app/cli.py": "raise SystemExit('not named: never copied for the test')\n",
    "notes.txt": "the user's notes\n",
}


def _project(tmp_path: Path) -> tuple[Path, list[str]]:
    """The project and a test command: interesting while app/main.py (run from app/) dies of a
    ZeroDivisionError raised in util's mean, and app/cli.py is not in the copy."""
    root = tmp_path / "proj"
    for name, text in _FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    script = (
        'cd "$1/app" && test ! -e cli.py && '
        f'{PYTHON} -S -B main.py 2>&1 | grep -q "in mean" && '
        f"{PYTHON} -S -B main.py 2>&1 | grep -q ZeroDivisionError"
    )
    return root, ["sh", "-c", script, "test", "@@"]


def _main(args: Sequence[object], capfd: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main([str(a) for a in args])
    return code, capfd.readouterr().err


def test_several_files_are_reduced_into_a_new_directory(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, command = _project(tmp_path)
    monkeypatch.chdir(root)
    before = FileTree.read(root)
    args = ["app/main.py", "-j", "2", "lib/util.py", "-o", "../out", "--", *command]
    code, err = _main(args, capfd)
    assert code == 0, err
    assert FileTree.read(root) == before  # nothing of the user's changed
    out = tmp_path / "out"
    after = FileTree.read(out)
    assert set(after.paths) <= {"app/main.py", "lib/util.py"}  # paths kept under the common root
    assert "spread" not in after.get("lib/util.py").data.decode()
    assert after.size < (len(_FILES["app/main.py"]) + len(_FILES["lib/util.py"])) / 2
    check = subprocess.run([*command[:3], "test", str(out)], check=False)
    assert check.returncode == 0  # the result is interesting from a clean copy


def test_of_files_roots_the_tree_at_the_common_directory(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "x.c").write_text("int x;\n")
    (tmp_path / "a" / "b" / "y.h").write_text("int y;\n")
    os.symlink("x.c", tmp_path / "a" / "link.c")
    root, tree = FileTree.of_files([tmp_path / "a" / "b" / "y.h", tmp_path / "a" / "link.c"])
    assert root == tmp_path / "a"
    assert tree.paths == ("b/y.h", "link.c")  # a symlink is named as given, read as its target
    assert tree.get("link.c").data == b"int x;\n"


@pytest.mark.parametrize(
    ("inputs", "extra", "says"),
    [
        (["a.txt", "b.txt"], [], "name it with -o OUTDIR"),
        (["a.txt", "b.txt"], ["--in-place"], "--in-place is for a directory"),
        (["a.txt", "d"], ["-o", "out"], "d is a directory"),
        (["a.txt", "nope.txt"], ["-o", "out"], "no such file: nope.txt"),
        (["a.txt", "-"], ["-o", "out"], "- (standard input) is one input alone"),
        (["a.txt", "same.txt"], ["-o", "out"], "are the same file"),
        (["a.txt", "b.txt"], ["-o", ".", "--force"], "would replace the inputs' directory"),
        (["a.txt", "b.txt"], ["-o", "mine"], "the output exists"),
        (["a.txt", "b.txt"], ["-o", "b.txt", "--force"], "would replace one of the inputs"),
    ],
)
def test_what_several_files_cannot_take_is_refused(
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    inputs: list[str],
    extra: list[str],
    says: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.txt").write_text("a bug\n")
    (tmp_path / "b.txt").write_text("b\n")
    (tmp_path / "d").mkdir()
    (tmp_path / "mine").mkdir()
    os.symlink("a.txt", tmp_path / "same.txt")
    before = FileTree.read(tmp_path)
    code, err = _main([*inputs, *extra, "--", "grep", "-rq", "bug", "@@"], capfd)
    assert code == 2 and says in err, err
    assert len(err.strip().splitlines()) == 1
    assert FileTree.read(tmp_path) == before and not (tmp_path / "out").exists()


def test_a_command_given_without_dashes_is_named_in_the_error(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.txt").write_text("a bug\n")
    with pytest.raises(SystemExit) as stop:
        cli.main(["a.txt", "grep", "bug", "@@"])
    err = capfd.readouterr().err
    assert stop.value.code == 2 and "found 'grep bug @@' before it" in err, err
