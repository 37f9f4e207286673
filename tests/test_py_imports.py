"""lang/py_imports.py: Python imports of a tree's modules, and a module imported once pasted
into its importer (its names kept defined, `x.attr` made `attr`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from treereduce_py.lang.filetree import FileTree, TreeFile
from treereduce_py.lang.link_finders import inlinings
from treereduce_py.lang.py_imports import links


def _py(path: str, text: str) -> TreeFile:
    return TreeFile(path, text.encode(), kind="python")


def _offers(tree: FileTree, name: str = "") -> dict[str, FileTree]:
    return {i.target: i.tree for i in inlinings(tree, name=name)}


def _runs(tree: FileTree, where: Path, argv: list[str]) -> str:
    """The output of `argv` run in a copy of `tree` written at `where` (a new directory); fails
    the test on a non-zero exit."""
    tree.write_to(where)
    done = subprocess.run(argv, cwd=where, capture_output=True, text=True, check=True)
    return done.stdout


def test_imports_resolve_relatively_beside_and_through_the_package_name() -> None:
    tree = FileTree(
        (
            _py("main.py", "from . import a\nfrom .b import f\nimport c\nfrom pkg.d import g\n"),
            _py("a.py", ""),
            _py("b.py", ""),
            _py("c.py", ""),
            _py("d.py", ""),
            _py("sub/e.py", "from .. import a\nfrom ..b import f\nimport c\n"),  # c: the root's
        )
    )
    found = sorted((link.user, link.target, link.inline is not None) for link in links(tree, "pkg"))
    assert found == [
        ("main.py", "a.py", True),
        ("main.py", "b.py", True),
        ("main.py", "c.py", True),
        ("main.py", "d.py", True),
        ("sub/e.py", "a.py", False),  # another folder: its relative imports would change
        ("sub/e.py", "b.py", False),
        ("sub/e.py", "c.py", False),
    ]
    assert "d.py" not in {link.target for link in links(tree)}  # no name: pkg.d is no module


def test_from_imports_keep_their_names_defined(tmp_path: Path) -> None:
    tree = FileTree(
        (
            _py("main.py", "from util import twice, half as h\n\nprint(twice(h(8)))\n"),
            _py(
                "util.py",
                "from __future__ import annotations\n\n"
                "def twice(x: int) -> int:\n    return 2 * x\n\n"
                "def half(x: int) -> int:\n    return x // 2\n",
            ),
        )
    )
    inlined = _offers(tree)["util.py"]
    assert inlined.paths == ("main.py",)
    assert b"__future__" not in inlined.get("main.py").data
    assert _runs(inlined, tmp_path / "run", [sys.executable, "main.py"]) == "8\n"


def test_module_imports_become_their_attributes(tmp_path: Path) -> None:
    tree = FileTree(
        (
            _py("app/__init__.py", ""),
            _py(
                "app/__main__.py",
                "from app import calc, other\nfrom . import text\n\n"
                "print(calc.add(1, calc.add(2, 3)), text.shout(sep='!'), other.x)\n",
            ),
            _py("app/calc.py", "def add(a, b):\n    return a + b\n"),
            _py("app/text.py", "def shout(sep):\n    return 'hi' + sep\n"),
            _py("app/other.py", "x = 1\n"),
        )
    )
    offers = _offers(tree)  # the tree holds the package: `app` names its folder
    calc = offers["app/calc.py"]
    assert b"from app import other\n" in calc.get("app/__main__.py").data
    assert b"print(add(1, add(2, 3))" in calc.get("app/__main__.py").data
    assert sorted(offers) == ["app/calc.py", "app/other.py", "app/text.py"]
    for i, inlined in enumerate([tree, *offers.values()]):
        assert _runs(inlined, tmp_path / str(i), [sys.executable, "-m", "app"]) == "6 hi! 1\n"


def test_a_module_used_as_a_value_or_imported_twice_is_not_offered() -> None:
    tree = FileTree(
        (
            _py("main.py", "import a\nimport b\nprint(a)\nimport pkg.d\ndef f():\n    import c\n"),
            _py("other.py", "from b import y\n"),
            _py("a.py", "x = 1\n"),
            _py("b.py", "y = 1\n"),
            _py("c.py", "z = 1\n"),  # imported inside a function
            _py("d.py", ""),  # bound to pkg: used as pkg.d.attr
        )
    )
    assert _offers(tree, "pkg") == {}
