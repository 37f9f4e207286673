"""Python imports between a tree's modules (lang/links.py), and how a module imported once is
pasted into its importer.

An import names a module file of the tree: relatively (`from . import x`, `from .x import a`),
as a sibling (`import x`, `from x import a`: the importer's folder is on the path when a script
runs from it), or through the package itself when the tree is one (`from shop import x`,
`from shop.x import a`, with `shop` the tree's folder). Inlined, the module's text takes the
import's place, at the top level of a module in the same folder (its own relative imports
still mean what they meant):

- `from .x import a, b as c` (or `*`): the names are defined by the pasted text itself, and
  `c = b` follows it;
- `from . import x` or `import x`: each use of the module, `x.attr`, becomes `attr`; a module
  used in any other way (passed as a value, assigned) is not inlined.

Every other import of a module (inside a function, of a dotted name, from another folder)
counts as a use that cannot be inlined, so that module is not offered. Names the module and its
importer both define collide: such a candidate is the test's to reject. A `from __future__`
import of the module is left out (it may only open a file).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator

import tree_sitter

from treereduce_py.lang.filetree import FileTree, TreeFile
from treereduce_py.lang.links import (
    Link,
    member_uses,
    own_line,
    parsed,
    spliced,
    text_of,
)

_FUTURE = re.compile(rb"^from[ \t]+__future__[ \t]+import[^\n]*\n?", re.MULTILINE)
_IMPORTS = frozenset({"import_statement", "import_from_statement"})
# Where the module's name is some other name: `o.x`, `f(x=...)`.
_NOT_USES = frozenset({"attribute", "keyword_argument"})


def links(tree: FileTree, name: str = "") -> Iterator[Link]:
    """Each import in the tree's Python files of one of its modules; `name` is the tree's
    folder (a package importing itself by name)."""
    modules = {f.path for f in tree.files if f.kind == "python"}
    for f, root in parsed(tree, "python"):
        for stmt in _statements(root):
            for target, bound, plain in _targets(stmt, f.path, modules, name):
                inline = None
                here = posixpath.dirname(target) == posixpath.dirname(f.path)
                if plain and here and stmt.parent == root:
                    inline = _inliner(f, root, stmt, bound)
                yield Link(target, f.path, inline)


def _statements(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """The import statements anywhere under `node`."""
    for child in node.named_children:
        if child.type in _IMPORTS:
            yield child
        else:
            yield from _statements(child)


def _text(node: tree_sitter.Node | None) -> str:
    return (node.text or b"").decode("utf-8", "surrogateescape") if node is not None else ""


def _targets(
    stmt: tree_sitter.Node, path: str, modules: set[str], name: str
) -> Iterator[tuple[str, tree_sitter.Node | None, bool]]:
    """(module file, the name node bound to the module, or None when the import binds the
    module's own names, and False for `import a.b`, bound to `a`) for each module of the tree
    that `stmt` imports."""
    names = stmt.children_by_field_name("name")
    if stmt.type == "import_statement":
        for node in names:
            dotted = node.child_by_field_name("name") or node
            target = _resolve(path, 0, _text(dotted).split("."), modules, name)
            if target is not None:
                yield target, node, "." not in _text(dotted)
        return
    module = stmt.child_by_field_name("module_name")
    level, parts = _module_path(_text(module))
    whole = True
    for node in names:
        dotted = node.child_by_field_name("name") or node
        target = _resolve(path, level, [*parts, _text(dotted)], modules, name)
        if target is not None:
            whole = False
            yield target, node, True
    target = _resolve(path, level, parts, modules, name) if whole else None
    if target is not None:
        yield target, None, True


def _module_path(text: str) -> tuple[int, list[str]]:
    """The dots and the names of a `from` statement's module (`..a.b` → 2, [a, b])."""
    dotted = text.lstrip(".")
    return len(text) - len(dotted), [p for p in dotted.split(".") if p]


def _resolve(path: str, level: int, parts: list[str], modules: set[str], name: str) -> str | None:
    """The module file of the tree that `parts` names from the module at `path`, if any."""
    here = posixpath.dirname(path)
    if level:
        bases = [posixpath.normpath(posixpath.join(here, *[".."] * (level - 1)))]
    elif name and parts[:1] == [name]:
        bases, parts = [""], parts[1:]
    else:
        bases = [here, ""]
    for base in bases:
        target = posixpath.normpath(posixpath.join(base, *parts) + ".py") if parts else None
        if target in modules:
            return target
    return None


def _inliner(
    f: TreeFile, root: tree_sitter.Node, stmt: tree_sitter.Node, bound: tree_sitter.Node | None
) -> Callable[[bytes], bytes] | None:
    """The `inline` of the import `stmt`, a line at the top level of `f`: of the module's own
    names (`bound` None), or of the module bound to the name node `bound`; None if it cannot."""
    data = f.data
    end = own_line(data, stmt)
    if end is None:
        return None
    names = stmt.children_by_field_name("name")
    if bound is None:
        aliases = [n for n in names if n.type == "aliased_import"]
        after = b"".join(text_of(n, "alias") + b" = " + text_of(n, "name") + b"\n" for n in aliases)
        return _without_future(spliced(data, stmt.start_byte, end, b"", after))
    name = text_of(bound, "alias") or bound.text or b""
    uses = member_uses(root, stmt, name, "attribute", "attribute", _NOT_USES)
    if uses is None:
        return None
    others = [n.text or b"" for n in names if n != bound]
    before = b""
    if others:  # the statement stays for the other names
        before = data[stmt.start_byte : names[0].start_byte] + b", ".join(others)
        before += data[names[-1].end_byte : stmt.end_byte] + b"\n"
    return _without_future(spliced(data, stmt.start_byte, end, before, b"", uses))


def _without_future(inline: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    return lambda body: inline(_FUTURE.sub(b"", body))
