"""Rust `mod x;` links between a tree's files (lang/links.py), resolved as rustc does.

A `mod x;` declares the module whose text is the file `x.rs` or `x/mod.rs`: beside the
declaring file when that file owns its directory (a crate root, `main.rs`, `lib.rs`, or a
`mod.rs`), else in the folder named after it (`a.rs`'s `mod x;` is `a/x.rs`), and below the
inline modules (`mod m { mod x; }`) around the declaration. A module declared once can become
`mod x { <its text> }` in place of the declaration, its file gone: the paths of the `mod`s inside
it do not change, since an inline module names a folder as its file did. A crate root with another
name (`rustc crash.rs`) is found by the fallback: a declaration whose folder holds no such file
is read as the root's. A `#[path = ...]` declaration is not a link followed.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

import tree_sitter

from treereduce_py.lang.filetree import FileTree, TreeFile
from treereduce_py.lang.links import Link, parsed, spliced

# The files that own their directory, whatever the crate's layout.
_DIRECTORY_OWNERS = frozenset({"main.rs", "lib.rs", "mod.rs"})


def links(tree: FileTree, name: str = "") -> Iterator[Link]:
    """Each `mod x;` in the tree's Rust files whose file is in the tree (`name` is not used)."""
    paths = set(tree.paths)
    for f, root in parsed(tree, "rust"):
        for item, folders in _declarations(root, ()):
            ident = item.child_by_field_name("name")
            if ident is None or not (text := ident.text):
                continue
            target = _resolve(f, folders, text.decode().removeprefix("r#"), paths)
            if target is not None:
                end = item.end_byte - 1  # the `;` becomes the module's block
                yield Link(target, f.path, spliced(f.data, end, item.end_byte, b" {\n", b"}"))


def _declarations(
    node: tree_sitter.Node, folders: tuple[str, ...]
) -> Iterator[tuple[tree_sitter.Node, tuple[str, ...]]]:
    """The `mod x;` items among `node`'s children and inside its inline modules, each with the
    inline modules around it; not those with a `#[path]` attribute."""
    attributes = False
    for child in node.named_children:
        if child.type == "attribute_item":
            attributes = attributes or b"path" in (child.text or b"")
            continue
        with_path, attributes = attributes, False
        if child.type != "mod_item":
            continue
        body = child.child_by_field_name("body")
        name = child.child_by_field_name("name")
        if body is None:
            if not with_path and child.text and child.text.endswith(b";"):
                yield child, folders
        elif name is not None and name.text:
            yield from _declarations(body, (*folders, name.text.decode().removeprefix("r#")))


def _resolve(f: TreeFile, folders: tuple[str, ...], name: str, paths: set[str]) -> str | None:
    """The file of module `name` declared in `f` inside `folders`, if the tree holds it."""
    here = posixpath.dirname(f.path)
    base = posixpath.basename(f.path)
    owned = here if base in _DIRECTORY_OWNERS else posixpath.join(here, base.removesuffix(".rs"))
    for folder in dict.fromkeys((owned, here)):  # the fallback: a root named otherwise
        for candidate in (f"{name}.rs", f"{name}/mod.rs"):
            path = posixpath.normpath(posixpath.join(folder, *folders, candidate))
            if path in paths:
                return path
    return None
