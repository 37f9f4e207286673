"""run/directory.py's links, end to end: a project's files named once are inlined into the file
that names them, under the real compiler or interpreter, and the result passes from a clean copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from treereduce_py import events
from treereduce_py.judge.oracle import Criteria
from treereduce_py.judge.tree_oracle import tree_command
from treereduce_py.lang.filetree import FileTree
from treereduce_py.run.directory import DirectorySession, TreeResult
from treereduce_py.run.options import ReduceOptions

_OPTIONS = ReduceOptions(jobs=2, polish=False)


def _write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def _reduce(
    tmp_path: Path, name: str, files: dict[str, str], test: str
) -> tuple[TreeResult, list[str]]:
    """`files` reduced as the directory `name` under the shell `test` ($1: the copy); the
    result and the files inlined, in order."""
    root = tmp_path / name
    _write(root, files)
    script = tmp_path / "check.sh"
    script.write_text(f"#!/bin/sh\n{test}\n")
    script.chmod(0o755)
    tree = FileTree.read(root)
    with tree_command([str(script), "@@"], Criteria(), tree, name=name) as command:
        got: list[events.Event] = []
        result = DirectorySession(tree, command, _OPTIONS, got.append, name=name).run()
        assert command.check(result.tree.encode()).interesting  # re-tested from a new copy
    assert FileTree.read(root) == tree  # the user's tree untouched
    notices = [e.event for e in got if isinstance(e, events.InFile)]
    inlined = [n.message for n in notices if isinstance(n, events.Notice)]
    return result, [m.removeprefix("inlined ") for m in inlined if m.startswith("inlined ")]


@pytest.mark.skipif(shutil.which("rustc") is None, reason="rustc is not installed")
def test_a_rust_crate_with_mod_files_ends_in_its_root(tmp_path: Path) -> None:
    crate = {
        "main.rs": "mod shapes;\nmod util;\n\nfn main() {\n"
        "    let s = shapes::Square { side: 2 };\n"
        '    println!("{}", util::twice(s.area()));\n}\n',
        "shapes.rs": "mod color;\n\npub struct Square {\n    pub side: u32,\n}\n\n"
        "impl Square {\n    pub fn area(&self) -> u32 {\n        self.side * self.side\n"
        "    }\n}\n\n"
        "pub fn paint() -> u32 {\n    color::Color::Red as u32 + color::shade()\n}\n",
        "shapes/color.rs": "pub enum Color {\n    Red,\n    Green,\n}\n\n"
        "pub fn shade() -> u32 {\n    Color::Green.glow()\n}\n",
        "util.rs": "pub fn twice(x: u32) -> u32 {\n    x * 2\n}\n",
    }
    rustc = "rustc --edition 2021 --emit=metadata main.rs"
    test = f'cd "$1" && {rustc} 2>&1 | grep -q "method named .glow"'
    result, inlined = _reduce(tmp_path, "crate", crate, test)
    # color.rs is reachable only through shapes.rs: without inlining, three files stay
    assert sorted(inlined) == ["shapes.rs", "shapes/color.rs"]
    assert result.tree.paths == ("main.rs",)  # from 520 bytes in 4 files
    assert b".glow()" in result.tree.get("main.rs").data and result.tree.size < 100


def test_a_python_package_ends_in_its_main_module(tmp_path: Path) -> None:
    package = {
        "__init__.py": '"""A calculator."""\n',
        "__main__.py": "from calc import ops\nfrom .fmt import show\n\n"
        "print(show(ops.total([1, 2, 3])))\nprint(show(ops.ratio(1, ops.total([]))))\n",
        "ops.py": "def total(xs):\n    return sum(xs)\n\n\n"
        "def ratio(a, b):\n    return a / b\n\n\ndef unused():\n    return 0\n",
        "fmt.py": "def show(x):\n    return f'= {x}'\n",
    }
    test = 'cd "$1/.." && python3 -B -m calc 2>&1 | grep -q "in ratio"'
    result, inlined = _reduce(tmp_path, "calc", package, test)
    # ratio is in ops.py, which python -m calc reaches only from __main__.py: two files without
    assert "ops.py" in inlined
    assert result.tree.paths == ("__main__.py",)
    assert b"/" in result.tree.get("__main__.py").data and result.tree.size < 80


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_node_program_ends_in_its_main_script(tmp_path: Path) -> None:
    program = {
        "main.js": "const cart = require('./cart');\n\n"
        "console.log(cart.total([{ sku: 'a', n: 2 }]));\n",
        "cart.js": "const { unitPrice } = require('./price.js');\n\n"
        "function total(items) {\n  let t = 0;\n"
        "  for (const i of items) t += unitPrice(i.sku) * i.n;\n  return t;\n}\n\n"
        "module.exports = { total };\n",
        "price.js": "const prices = { b: { amount: 3 } };\n\n"
        "function unitPrice(sku) {\n  return prices[sku].amount;\n}\n\n"
        "module.exports = { unitPrice };\n",
        "util.js": "module.exports = { id: (x) => x };\n",
    }
    test = 'cd "$1" && node main.js 2>&1 | grep -q "at unitPrice"'
    result, inlined = _reduce(tmp_path, "prog", program, test)
    # unitPrice is in price.js, which main.js reaches only through cart.js
    assert sorted(inlined) == ["cart.js", "price.js"]
    assert result.tree.paths == ("main.js",)
    assert b"unitPrice" in result.tree.get("main.js").data and result.tree.size < 120
