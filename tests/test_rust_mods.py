"""lang/rust_mods.py: `mod x;` declarations resolved as rustc does, and a module declared once
inlined as `mod x { ... }`."""

from __future__ import annotations

from treereduce_py.lang.filetree import FileTree, TreeFile
from treereduce_py.lang.link_finders import inlinings
from treereduce_py.lang.rust_mods import links


def _rs(path: str, text: bytes) -> TreeFile:
    return TreeFile(path, text, kind="rust")


def _crate() -> FileTree:
    return FileTree(
        (
            _rs(
                "src/main.rs", b"mod a;\npub(crate) mod b;\nmod m {\n    mod c;\n}\nfn main() {}\n"
            ),
            _rs("src/a.rs", b"mod d;\npub fn a() {}"),
            _rs("src/a/d.rs", b"pub fn d() {}\n"),
            _rs("src/b/mod.rs", b"mod e;\n"),
            _rs("src/b/e.rs", b"mod a;\n"),  # another module named a: src/b/e/a.rs, absent
            _rs("src/m/c.rs", b"// c\n"),
            _rs("src/p.rs", b"// declared with a path only\n"),
            _rs("src/q.rs", b'#[path = "p.rs"]\nmod p;\n'),
            TreeFile("src/notes.txt", b"mod a;\n"),
        )
    )


def test_mod_declarations_resolve_as_rustc_does() -> None:
    found = sorted((link.user, link.target) for link in links(_crate()))
    assert found == [
        ("src/a.rs", "src/a/d.rs"),  # a non-root file's modules are in its own folder
        ("src/b/mod.rs", "src/b/e.rs"),  # a mod.rs owns its folder
        ("src/main.rs", "src/a.rs"),
        ("src/main.rs", "src/b/mod.rs"),
        ("src/main.rs", "src/m/c.rs"),  # below the inline module m
    ]


def test_a_module_declared_once_becomes_an_inline_module_and_its_file_goes() -> None:
    crate = _crate()
    offers = {i.target: i for i in inlinings(crate)}
    assert sorted(offers) == ["src/a.rs", "src/a/d.rs", "src/b/e.rs", "src/b/mod.rs", "src/m/c.rs"]
    b = offers["src/b/mod.rs"]
    assert b.user == "src/main.rs" and "src/b/mod.rs" not in b.tree.paths
    assert b.tree.get("src/main.rs").data.startswith(
        b"mod a;\npub(crate) mod b {\nmod e;\n}\nmod m"
    )
    assert b.tree.get("src/b/e.rs") == crate.get("src/b/e.rs")  # still its folder's module
    a = offers["src/a.rs"].tree.get("src/main.rs").data
    assert a.startswith(b"mod a {\nmod d;\npub fn a() {}\n}\n")  # the newline a.rs lacked
    assert not list(inlinings(crate, pinned=list(offers)))


def test_a_crate_root_of_another_name_declares_the_modules_beside_it() -> None:
    tree = FileTree((_rs("crash.rs", b"mod x;\nmod x;\n"), _rs("x.rs", b"")))
    assert [(link.user, link.target) for link in links(tree)] == [("crash.rs", "x.rs")] * 2
    assert not list(inlinings(tree))  # declared twice
