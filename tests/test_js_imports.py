"""lang/js_imports.py: relative imports of a tree's JavaScript modules, and a module loaded once
pasted into its importer, checked with node."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from treereduce_py.lang.filetree import FileTree, TreeFile
from treereduce_py.lang.js_imports import links
from treereduce_py.lang.link_finders import inlinings

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def _js(path: str, text: str) -> TreeFile:
    return TreeFile(path, text.encode(), kind="javascript")


def _node(tree: FileTree, where: Path, main: str) -> str:
    tree.write_to(where)
    done = subprocess.run(["node", main], cwd=where, capture_output=True, text=True, check=True)
    return done.stdout


def test_relative_specifiers_resolve_with_the_suffixes_node_tries() -> None:
    tree = FileTree(
        (
            _js(
                "main.js",
                "const a = require('./a');\nconst {f} = require('./lib/b.js');\n"
                "require('fs');\nfunction g() { return require('./c'); }\n",
            ),
            _js("a.js", ""),
            _js("lib/b.js", ""),
            _js("c/index.js", ""),
        )
    )
    found = sorted((link.user, link.target, link.inline is not None) for link in links(tree))
    assert found == [
        ("main.js", "a.js", True),
        ("main.js", "c/index.js", False),  # inside a function, and another folder
        ("main.js", "lib/b.js", False),  # another folder
    ]


@needs_node
def test_commonjs_modules_are_pasted_in_with_their_names(tmp_path: Path) -> None:
    tree = FileTree(
        (
            _js(
                "main.js",
                "const m = require('./math');\nconst {shout, pad: p} = require('./text.js');\n"
                "require('./hello');\n"
                "console.log(m.add(1, m.add(2, 3)), shout('a'), p('b'));\n",
            ),
            _js("math.js", "function add(a, b) { return a + b; }\nmodule.exports = {add};\n"),
            _js(
                "text.js",
                "function shout(s) { return s.toUpperCase(); }\n"
                "function pad(s) { return ' ' + s; }\nmodule.exports = {shout, pad};\n",
            ),
            _js("hello.js", "console.log('hello');"),
        )
    )
    offers = {i.target: i.tree for i in inlinings(tree)}
    assert sorted(offers) == ["hello.js", "math.js", "text.js"]
    assert b"console.log(add(1, add(2, 3))" in offers["math.js"].get("main.js").data
    for i, inlined in enumerate([tree, *offers.values()]):
        assert _node(inlined, tmp_path / str(i), "main.js") == "hello\n6 A  b\n"


@needs_node
def test_es_modules_are_pasted_in_without_their_exports(tmp_path: Path) -> None:
    tree = FileTree(
        (
            _js(
                "main.mjs",
                "import * as m from './math.mjs';\nimport {shout as s} from './text.mjs';\n"
                "console.log(m.add(1, 2), s('a'));\n",
            ),
            _js("math.mjs", "export function add(a, b) { return a + b; }\n"),
            _js("text.mjs", "function shout(x) { return x + '!'; }\nexport { shout };\n"),
        )
    )
    offers = {i.target: i.tree for i in inlinings(tree)}
    assert sorted(offers) == ["math.mjs", "text.mjs"]
    for i, inlined in enumerate([tree, *offers.values()]):
        assert _node(inlined, tmp_path / str(i), "main.mjs") == "3 a!\n"


def test_a_module_used_as_a_value_or_a_default_import_is_not_offered() -> None:
    tree = FileTree(
        (
            _js("main.mjs", "import * as m from './m.mjs';\nimport d from './d.mjs';\nf({m});\n"),
            _js("m.mjs", "export const x = 1;\n"),
            _js("d.mjs", "export default 1;\n"),
        )
    )
    assert not list(inlinings(tree))
