"""JavaScript relative imports between a tree's modules (lang/links.py), and how a module loaded
once is pasted into its importer.

A `require('./x')`, `import ... from './x.js'`, `import('./x')` or `export ... from './x'`
names a module file of the tree (the specifier as written, or with `.js`, `.mjs`, `.cjs`, or
`/index.js` added). Inlined, the module's text takes the place of a statement of its own at the
top level of a module in the same folder (its own relative imports still mean what they meant),
with `export` taken off its declarations and its `export { ... }` lists dropped:

- `const {a, b: c} = require('./x')`, `import {a, b as c} from './x.js'`: the names are
  defined by the pasted text itself, and `const c = b;` follows it;
- `const x = require('./x')`, `import * as x from './x.js'`: each `x.attr` becomes `attr`; a
  module used in any other way is not inlined;
- `require('./x');`, `import './x.js';`: the text alone.

A default import, a dynamic one, or one inside a function counts as a use that cannot be
inlined. A module whose `module.exports` is not made of names it defines, or whose names its
importer defines too, gives a candidate the test rejects.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator

import tree_sitter

from treereduce_py.lang.filetree import FileTree
from treereduce_py.lang.links import (
    Link,
    member_uses,
    own_line,
    parsed,
    spliced,
    text_of,
)

_SUFFIXES = ("", ".js", ".mjs", ".cjs", "/index.js")
_EXPORTED = re.compile(rb"^export[ \t]+(?=(?:async[ \t]+)?function|class|const|let|var)", re.M)
_EXPORT_LIST = re.compile(rb"^export[ \t]*\{[^}]*\}[ \t]*;?[ \t]*\n?", re.MULTILINE)
_DECLARATIONS = frozenset({"lexical_declaration", "variable_declaration"})


def links(tree: FileTree, name: str = "") -> Iterator[Link]:
    """Each relative import in the tree's JavaScript files of one of its modules (`name`:
    unused)."""
    modules = {f.path for f in tree.files if f.kind == "javascript"}
    for f, root in parsed(tree, "javascript"):
        for node, spec in _specifiers(root):
            target = _resolve(f.path, spec, modules)
            if target is None:
                continue
            inline = None
            if posixpath.dirname(target) == posixpath.dirname(f.path):
                inline = _inliner(f.data, root, node)
            yield Link(target, f.path, inline)


def _specifiers(root: tree_sitter.Node) -> Iterator[tuple[tree_sitter.Node, str]]:
    """(the import or `require` call, its specifier) for each under `root`."""
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.named_children))
        source = None
        if node.type in ("import_statement", "export_statement"):
            source = node.child_by_field_name("source")
        elif node.type == "call_expression" and text_of(node, "function") in (
            b"require",
            b"import",
        ):
            args = node.child_by_field_name("arguments")
            source = args.named_children[0] if args is not None and args.named_children else None
        if source is not None and source.type == "string" and source.text:
            yield node, source.text[1:-1].decode("utf-8", "surrogateescape")


def _resolve(path: str, spec: str, modules: set[str]) -> str | None:
    if not spec.startswith(("./", "../")):
        return None
    base = posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))
    return next((base + s for s in _SUFFIXES if base + s in modules), None)


def _inliner(
    data: bytes, root: tree_sitter.Node, node: tree_sitter.Node
) -> Callable[[bytes], bytes] | None:
    """The `inline` of the import `node`, when it is a statement of the forms the module
    docstring names, a line of its own at the top level; else None."""
    stmt, bound, pairs = _form(node)
    if stmt is None or stmt.parent != root or (end := own_line(data, stmt)) is None:
        return None
    uses = [] if bound is None else member_uses(root, stmt, bound, "member_expression", "property")
    if uses is None:
        return None
    after = b"".join(b"const " + alias + b" = " + name + b";\n" for name, alias in pairs)
    inline = spliced(data, stmt.start_byte, end, b"", after, uses)
    return lambda body: inline(_EXPORT_LIST.sub(b"", _EXPORTED.sub(b"", body)))


# (the statement to replace, the name bound to the module or None, the (name, alias) pairs to
# assign after the text); no statement for an import that does not inline.
_Form = tuple[tree_sitter.Node | None, bytes | None, list[tuple[bytes, bytes]]]
_NONE: _Form = (None, None, [])


def _form(node: tree_sitter.Node) -> _Form:
    if node.type == "import_statement":
        return _import_form(node)
    parent = node.parent
    if node.type != "call_expression" or text_of(node, "function") != b"require" or not parent:
        return _NONE
    if parent.type == "expression_statement":
        return parent, None, []
    stmt = parent.parent
    if parent.type != "variable_declarator" or stmt is None or stmt.type not in _DECLARATIONS:
        return _NONE
    pattern = parent.child_by_field_name("name")
    if len(stmt.named_children) != 1 or pattern is None:
        return _NONE
    if pattern.type == "identifier":
        return stmt, pattern.text, []
    parts = pattern.named_children if pattern.type == "object_pattern" else [pattern]
    if any(p.type not in ("pair_pattern", "shorthand_property_identifier_pattern") for p in parts):
        return _NONE
    pairs = [(text_of(p, "key"), text_of(p, "value")) for p in parts if p.type == "pair_pattern"]
    return stmt, None, pairs


def _import_form(node: tree_sitter.Node) -> _Form:
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    if clause is None:
        return node, None, []
    (part, *more) = clause.named_children
    if more or part.type == "identifier":
        return _NONE  # a default import
    if part.type == "namespace_import":
        return node, part.named_children[-1].text, []
    specs = [s for s in part.named_children if s.child_by_field_name("alias") is not None]
    return node, None, [(text_of(s, "name"), text_of(s, "alias")) for s in specs]
