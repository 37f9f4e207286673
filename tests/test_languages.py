"""Tests for treereduce_py.lang.languages and its tables (language_table): names, detection and
grammar loading."""

from __future__ import annotations

import pickle
import threading
import typing
from pathlib import Path

import pytest
import tree_sitter
import tree_sitter_language_pack

from treereduce_py.lang import language_table, languages
from treereduce_py.lang.inputs import BY_NAME
from treereduce_py.lang.language_table import GRAMMARLESS
from treereduce_py.lang.languages import (
    NoGrammar,
    UnknownLanguage,
    available,
    canonical,
    detect,
    detect_kind,
    get_language,
    has_grammar,
    new_parser,
)
from treereduce_py.lang.syntax import count_errors

# --- names -------------------------------------------------------------------------------------


def test_available_is_the_packs_list_sorted() -> None:
    names = available()
    assert list(names) == sorted(set(typing.get_args(tree_sitter_language_pack.SupportedLanguage)))
    assert len(names) > 150
    assert {"c", "cpp", "python", "javascript", "typescript", "tsx", "rust", "go"} <= set(names)


def test_every_available_name_is_its_own_canonical_name() -> None:
    for name in available():
        assert canonical(name) == name


@pytest.mark.parametrize(
    ("alias", "expected"),
    [
        ("js", "javascript"),
        ("ts", "typescript"),
        ("tsx", "tsx"),
        ("py", "python"),
        ("python3", "python"),
        ("smt2", "smtlib"),
        ("SMT-LIB", "smtlib"),
        ("rs", "rust"),
        ("c++", "cpp"),
        ("cxx", "cpp"),
        ("cc", "cpp"),
        ("golang", "go"),
        ("sh", "bash"),
        ("shell", "bash"),
        ("zsh", "bash"),
        ("c#", "csharp"),
        ("cs", "csharp"),
        ("c_sharp", "csharp"),
        ("yml", "yaml"),
        ("md", "markdown"),
        ("objective-c", "objc"),
        ("ocaml-interface", "ocaml_interface"),
        ("embedded_template", "embeddedtemplate"),
        ("kts", "kotlin"),  # an extension without its dot
    ],
)
def test_aliases(alias: str, expected: str) -> None:
    assert canonical(alias) == expected


@pytest.mark.parametrize(
    ("spelling", "expected"),
    [
        ("Python", "python"),
        ("JS", "javascript"),
        ("C++", "cpp"),
        ("GoLang", "go"),
        ("  Rust ", "rust"),
        ("C#", "csharp"),
    ],
)
def test_names_are_case_insensitive(spelling: str, expected: str) -> None:
    assert canonical(spelling) == expected


@pytest.mark.parametrize(
    ("typo", "suggestion"),
    [
        ("pyhton", "python"),
        ("javscript", "javascript"),
        ("typscript", "typescript"),
        ("golnag", "go"),
        ("rusr", "rust"),
    ],
)
def test_unknown_language_suggests_close_names(typo: str, suggestion: str) -> None:
    with pytest.raises(UnknownLanguage) as info:
        canonical(typo)
    message = str(info.value)
    assert "\n" not in message
    assert repr(typo) in message
    assert suggestion in info.value.suggestions
    assert f"did you mean: {suggestion}" in message


def test_unknown_language_without_close_names() -> None:
    with pytest.raises(ValueError, match=r"^unknown language 'qqqqzz'$") as info:
        get_language("qqqqzz")
    assert isinstance(info.value, UnknownLanguage)
    assert info.value.suggestions == ()


def test_unknown_language_survives_pickling() -> None:
    error = UnknownLanguage("pyhton", ("python",))
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.name, copy.suggestions, str(copy)) == (error.name, error.suggestions, str(error))


@pytest.mark.parametrize("name", ["", "   ", ".py", "prose", "brainfuck"])
def test_non_languages_are_rejected(name: str) -> None:
    with pytest.raises(UnknownLanguage):
        canonical(name)


# --- the tables can never point at a grammar the pack lacks -----------------------------------


def _all_table_entries() -> list[tuple[str, str]]:
    tables: list[typing.Mapping[str, str]] = [
        language_table.ALIASES,
        language_table.EXTENSIONS,
        language_table.CASED_EXTENSIONS,
        language_table.FILE_NAMES,
        language_table.INTERPRETERS,
        language_table.RUNNERS,
        dict(language_table.FILE_PATTERNS),
    ]
    return [(key, target) for table in tables for key, target in table.items()]


def test_every_table_target_is_an_available_language() -> None:
    names = set(available()) | set(language_table.DIALECTS) | set(language_table.GRAMMARLESS)
    missing = [(key, target) for key, target in _all_table_entries() if target not in names]
    assert missing == []


def test_every_dialect_reads_through_a_pack_grammar() -> None:
    for dialect, grammar in language_table.DIALECTS.items():
        assert grammar in available()
        assert dialect not in available()
        assert canonical(dialect) == dialect


def test_every_table_target_loads() -> None:
    for target in {target for _, target in _all_table_entries()} - set(GRAMMARLESS):
        assert isinstance(get_language(target), tree_sitter.Language)


def test_extension_keys_are_dotted_and_lower_case() -> None:
    for extension in language_table.EXTENSIONS:
        assert extension.startswith(".")
        assert extension == extension.lower()
    for extension in language_table.CASED_EXTENSIONS:
        assert extension != extension.lower()


def test_every_extension_entry_is_what_detect_returns() -> None:
    for extension, target in language_table.EXTENSIONS.items():
        assert detect(f"src/file{extension}", b"") == target, extension
        assert detect(f"FILE{extension.upper()}", b"") == language_table.CASED_EXTENSIONS.get(
            extension.upper(), target
        ), extension
    for name, target in language_table.FILE_NAMES.items():
        assert detect(Path("some/dir") / name, b"") == target, name


def test_most_languages_with_files_of_their_own_are_reachable_by_name() -> None:
    reachable = (
        set(language_table.EXTENSIONS.values())
        | set(language_table.FILE_NAMES.values())
        | {target for _, target in language_table.FILE_PATTERNS}
    )
    # Embedded-only grammars (comment, jsdoc, printf, ...) have no files; nearly all others do.
    assert len(reachable) >= len(available()) - 15


# --- detection ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("a.c", "c"),
        ("a.h", "c"),
        ("a.C", "cpp"),
        ("a.H", "cpp"),
        ("a.cc", "cpp"),
        ("a.CPP", "cpp"),
        ("a.hpp", "cpp"),
        ("a.rs", "rust"),
        ("a.py", "python"),
        ("a.PY", "python"),
        ("a.pyi", "python"),
        ("a.js", "javascript"),
        ("a.mjs", "javascript"),
        ("a.jsx", "javascript"),
        ("a.ts", "typescript"),
        ("a.d.ts", "typescript"),
        ("a.tsx", "tsx"),
        ("a.go", "go"),
        ("a.ml", "ocaml"),
        ("a.mli", "ocaml_interface"),
        ("a.cs", "csharp"),
        ("a.m", "objc"),
        ("a.f90", "fortran"),
        ("a.F90", "fortran"),
        ("a.v", "verilog"),
        ("a.sv", "verilog"),
        ("a.tf", "terraform"),
        ("a.yml", "yaml"),
        ("a.md", "markdown"),
        ("a.tex", "latex"),
        ("a.sol", "solidity"),
        ("problem.smt2", "smtlib"),
        ("/deep/dir.with.dots/main.kt", "kotlin"),
        (Path("x") / "y.zig", "zig"),
    ],
)
def test_detect_by_extension(path: str | Path, expected: str) -> None:
    assert detect(path, b"") == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("Makefile", "make"),
        ("src/GNUmakefile", "make"),
        ("Makefile.am", "make"),
        ("Dockerfile", "dockerfile"),
        ("docker/Dockerfile.dev", "dockerfile"),
        ("CMakeLists.txt", "cmake"),
        ("go.mod", "gomod"),
        ("go.sum", "gosum"),
        ("BUILD", "starlark"),
        ("BUILD.bazel", "starlark"),
        ("defs.bzl", "starlark"),
        ("requirements-dev.txt", "requirements"),
        ("Gemfile", "ruby"),
        ("Kconfig.debug", "kconfig"),
        ("/home/u/.bashrc", "bash"),
        (".gitignore", "gitignore"),
        ("meson.build", "meson"),
    ],
)
def test_detect_by_file_name(path: str, expected: str) -> None:
    assert detect(path, b"") == expected


@pytest.mark.parametrize(
    ("first_line", "expected"),
    [
        (b"#!/usr/bin/env python3", "python"),
        (b"#!/usr/bin/python3.11 -u", "python"),
        (b"#!/bin/sh", "bash"),
        (b"#! /bin/bash -e", "bash"),
        (b"#!/usr/bin/env zsh", "bash"),
        (b"#!/usr/bin/env -S node --experimental-vm-modules", "javascript"),
        (b"#!/usr/bin/env -Snode --flag", "javascript"),
        (b"#!/usr/bin/env -S deno run --allow-read", "javascript"),
        (b"#!/usr/bin/env bun", "javascript"),
        (b"#!/usr/bin/env -i PATH=/bin perl", "perl"),
        (b"#!/usr/bin/env -u HOME ruby", "ruby"),
        (b"#!/usr/bin/perl -w", "perl"),
        (b"#!/usr/local/bin/ruby", "ruby"),
        (b"#!/usr/bin/lua5.1", "lua"),
        (b"#!/usr/bin/tclsh", "tcl"),
        (b"#!/usr/bin/env Rscript", "r"),
        (b"#!/usr/bin/php", "php"),
        (b"#!/usr/bin/make -f", "make"),
        (b"#!/usr/bin/env -S uv run --script", "python"),
    ],
)
def test_detect_by_shebang(first_line: bytes, expected: str) -> None:
    body = first_line + b"\nrest of the script\n"
    assert detect("script", body) == expected
    assert detect(None, body) == expected
    assert detect("tool.unknownext", body) == expected
    assert detect("script", first_line + b"\r\nmore\r\n") == expected
    assert detect("script", first_line) == expected  # no newline at all


def test_shebang_after_a_byte_order_mark() -> None:
    assert detect(None, b"\xef\xbb\xbf#!/usr/bin/env python3\n") == "python"


def test_extension_wins_over_shebang() -> None:
    assert detect("x.py", b"#!/bin/sh\necho\n") == "python"
    assert detect("Makefile", b"#!/usr/bin/env python3\n") == "make"


def test_detect_by_opening_tag() -> None:
    assert detect("page", b"<?php echo 1;\n") == "php"
    assert detect(None, b'<?xml version="1.0"?>\n<a/>') == "xml"


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("notes.txt", b"hello\n"),
        ("app.conf", b"[server]\nport = 80\n"),
        ("data.unknownext", b""),
        (None, b""),
        (None, "naïve\n".encode()),
        ("script", b"#!\n"),
        ("script", b"#!/usr/bin/env\n"),
        ("script", b"#!/usr/bin/env -S\n"),
        ("script", b"#!/usr/bin/awk -f\n"),
        ("script", b"\n#!/usr/bin/env python3\n"),  # a shebang only counts on line one
        ("", b""),
        ("dir/", b""),
    ],
)
def test_utf8_text_nothing_else_names_is_text(path: str | None, data: bytes) -> None:
    assert detect(path, data) is None  # no grammar points to it
    assert detect_kind(path, data) == "text"


@pytest.mark.parametrize(
    ("path", "data"),
    [
        (None, b"\x00\xff\xfe binary"),
        ("crash-5b2f0a", b"\xff\xd8\xff\xe0"),  # not UTF-8
        ("id:000003,sig:06", b"plain ascii but a \x00 NUL"),
        ("archive.zip", b"PK\x03\x04\x14\x00"),
    ],
)
def test_binary_data_nothing_else_names_is_bytes(path: str | None, data: bytes) -> None:
    assert detect(path, data) is None
    assert detect_kind(path, data) == "bytes"


def test_a_known_name_wins_over_binary_content() -> None:
    assert detect_kind("crash.js", b"\x00\xff") == "javascript"
    assert detect_kind(None, b"#!/usr/bin/env python3\n\x00") == "python"


@pytest.mark.parametrize(
    ("name", "expected"),
    [("text", "text"), ("TXT", "text"), ("plain", "text"), ("bytes", "bytes"), ("binary", "bytes")],
)
def test_input_read_without_a_grammar_is_named_like_a_language(name: str, expected: str) -> None:
    assert canonical(name) == expected
    assert not has_grammar(expected)
    with pytest.raises(NoGrammar, match="has no grammar"):
        get_language(name)


def test_each_grammarless_name_has_an_input_kind() -> None:
    assert set(BY_NAME) == set(GRAMMARLESS)
    assert all(has_grammar(name) for name in available())
    error = pickle.loads(pickle.dumps(NoGrammar("text")))
    assert (error.name, str(error)) == ("text", str(NoGrammar("text")))


# --- grammars and parsers ----------------------------------------------------------------------


def test_concurrent_first_loads_share_one_language() -> None:
    results: list[tree_sitter.Language] = []
    barrier = threading.Barrier(8)

    def load() -> None:
        barrier.wait()
        results.append(get_language("uxntal"))

    threads = [threading.Thread(target=load) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(results) == 8
    assert all(result is results[0] for result in results)


def test_get_language_is_cached_across_spellings() -> None:
    first = get_language("python")
    assert get_language("python") is first
    assert get_language("py") is first
    assert get_language("Python3") is first
    assert get_language("rust") is not first


def test_get_language_rejects_unknown_names() -> None:
    with pytest.raises(UnknownLanguage, match="did you mean: python"):
        get_language("pyton")


def test_new_parser_returns_distinct_working_parsers() -> None:
    first, second = new_parser("c"), new_parser("C")
    assert first is not second
    assert first.language is get_language("c")
    for parser in (first, second):
        tree = parser.parse(b"int main(void) { return 0; }\n")
        assert tree.root_node.type == "translation_unit"
        assert not tree.root_node.has_error


def test_new_parser_rejects_unknown_names() -> None:
    with pytest.raises(UnknownLanguage):
        new_parser("klingon")


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("app.jsx", b"const a = <div className='x'>{1}</div>;\n"),
        ("a.h", b"#ifndef A_H\n#define A_H\nint f(int x);\n#endif\n"),
        ("a.mli", b"val f : int -> int\n"),
        ("a.tsx", b"const a = <T,>(x: T) => <b>{x}</b>;\n"),
        ("a.ts", b"let x: number = <number>y;\n"),
    ],
)
def test_detected_grammar_parses_typical_files(path: str, source: bytes) -> None:
    language = detect(path, source)
    assert language is not None
    tree = new_parser(language).parse(source)
    assert count_errors(tree) == 0


@pytest.mark.parametrize("chunk", [1, 7, 1 << 16])
def test_a_parse_in_chunks_is_the_parse_of_the_bytes(
    chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read through the callback, a chunk at a time, the tree is the one the bytes give."""
    monkeypatch.setattr(languages, "PARSE_CHUNK", chunk)
    text = b"int f(int x) { return x + 1; }\nstruct s { int a; char b[4]; };\n" * 30
    parser = languages.new_parser("c")
    chunked = languages.parse_in_chunks(parser, text)
    assert str(chunked.root_node) == str(parser.parse(text).root_node)
    assert chunked.root_node.end_byte == len(text)
