"""Which tree-sitter grammar reads a file.

Every grammar comes from `tree-sitter-language-pack` (0.13 bundles ~170 of them in the wheel, so
nothing is downloaded). A language is named by the pack's own name; users may also write the
names people actually type (`js`, `c++`, `golang`, `C#`), in any case. A few languages without a
grammar of their own (SMT-LIB) are read through a pack grammar whose syntax covers theirs
(`language_table.DIALECTS`) and keep their own name. Two names stand for input read without a
grammar (`language_table.GRAMMARLESS`, see `inputs.py`): `text` and `bytes`. A file's language is
detected from its name (well-known file names, then its extension, then name patterns such as
`Dockerfile.dev`) and, for scripts without a known extension, from the `#!` line (`detect`);
`detect_kind` reads a file nothing points to as `text` when it is UTF-8 without NUL bytes, else
`bytes`. The tables (names, aliases, extensions, interpreters) live in `language_table.py`; this
module is the logic that reads them.
"""

from __future__ import annotations

import difflib
import fnmatch
import functools
import os
import re
import threading
import typing

import tree_sitter
import tree_sitter_language_pack as _pack

from treereduce_py.lang.language_table import (
    ALIASES,
    CASED_EXTENSIONS,
    DIALECTS,
    EXTENSIONS,
    FILE_NAMES,
    FILE_PATTERNS,
    GRAMMARLESS,
    INTERPRETERS,
    RUNNERS,
)

__all__ = [
    "NoGrammar",
    "UnknownLanguage",
    "available",
    "canonical",
    "detect",
    "detect_kind",
    "get_language",
    "has_grammar",
    "new_parser",
]


class UnknownLanguage(ValueError):
    """A language name that no bundled grammar answers to; the message suggests close names."""

    def __init__(self, name: str, suggestions: tuple[str, ...] = ()) -> None:
        self.name = name
        self.suggestions = suggestions
        hint = f" (did you mean: {', '.join(suggestions)}?)" if suggestions else ""
        super().__init__(f"unknown language {name!r}{hint}")

    def __reduce__(self) -> tuple[type[UnknownLanguage], tuple[str, tuple[str, ...]]]:
        # Rebuild from the fields, not the message, so the exception survives pickling.
        return (UnknownLanguage, (self.name, self.suggestions))


class NoGrammar(ValueError):
    """A grammar asked of a kind of input read without one (`text`, `bytes`)."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"{name} input has no grammar: it is not parsed")

    def __reduce__(self) -> tuple[type[NoGrammar], tuple[str]]:
        return (NoGrammar, (self.name,))


_AVAILABLE: tuple[str, ...] = tuple(sorted(set(typing.get_args(_pack.SupportedLanguage))))


def available() -> tuple[str, ...]:
    """Sorted names of every grammar bundled in tree-sitter-language-pack."""
    return _AVAILABLE


_SQUASH_RE = re.compile(r"[\s_\-]+")
_VERSION_SUFFIX_RE = re.compile(r"[\d.]+$")
# env options that take a separate argument (`env -u NAME python`).
_ENV_OPTIONS_WITH_ARG = frozenset({"-u", "--unset", "-C", "--chdir"})


def _squash(name: str) -> str:
    return _SQUASH_RE.sub("", name.lower())


# Pack grammars, the dialects read through one of them (language_table.DIALECTS), and the kinds
# of input read without a grammar.
_NAMES = frozenset(_AVAILABLE) | frozenset(DIALECTS) | frozenset(GRAMMARLESS)
_BY_SQUASHED: dict[str, str] = {_squash(name): name for name in sorted(_NAMES)}


def _lookup(name: str) -> str | None:
    key = name.strip().lower()
    if key in _NAMES:
        return key
    found = ALIASES.get(key) or _BY_SQUASHED.get(_squash(key))
    if found is None and key and not key.startswith("."):
        # A language named by its usual extension: "rs", "cxx", "kts".
        found = EXTENSIONS.get("." + key)
    return found if found in _NAMES else None


def _suggestions(name: str) -> tuple[str, ...]:
    key = name.strip().lower()
    close = difflib.get_close_matches(key, sorted(_NAMES), n=3, cutoff=0.75)
    if close:
        return tuple(close)
    # Only when no real name is close, since aliases like "rscript" crowd out "javascript".
    close = difflib.get_close_matches(key, ALIASES, n=3, cutoff=0.75)
    return tuple(dict.fromkeys(ALIASES[c] for c in close))


def canonical(name: str) -> str:
    """The pack's name for the language `name`.

    Accepts the pack's names, the dialects read through one of its grammars (`smtlib`), the
    kinds of input read without a grammar (`text`, `bytes`; `txt`, `binary`), common
    aliases (`js`, `c++`, `golang`, `C#`, `yml`, ...), usual
    extensions without the dot (`rs`, `kts`), in any case, with `-`, `_` or spaces interchangeable.
    Raises UnknownLanguage (a ValueError) otherwise, suggesting close names when there are some.
    """
    found = _lookup(name)
    if found is None:
        raise UnknownLanguage(name, _suggestions(name))
    return found


def has_grammar(name: str) -> bool:
    """Is the language `name` (a canonical name) read through a tree-sitter grammar?"""
    return name not in GRAMMARLESS


_LOAD_LOCK = threading.Lock()


@functools.cache
def _load(name: str) -> tree_sitter.Language:
    # `name` is one of _NAMES; a dialect's grammar is a member of the pack's SupportedLanguage.
    grammar = DIALECTS.get(name, name)
    return _pack.get_language(typing.cast("_pack.SupportedLanguage", grammar))


def get_language(name: str) -> tree_sitter.Language:
    """The grammar for `name` (any form `canonical` accepts), loaded once per process.

    Every call for the same language returns the same object, from any thread.
    Raises UnknownLanguage when `name` names no bundled grammar, NoGrammar for `text`/`bytes`.
    """
    language = canonical(name)
    if not has_grammar(language):
        raise NoGrammar(language)
    # One lock so two threads loading the same grammar at once cannot get two objects.
    with _LOAD_LOCK:
        return _load(language)


def new_parser(name: str) -> tree_sitter.Parser:
    """A fresh parser for `name`; each call returns a new one (parsers are not thread-safe).

    Raises UnknownLanguage when `name` names no bundled grammar, NoGrammar for `text`/`bytes`.
    """
    return tree_sitter.Parser(get_language(name))


# Bytes handed to tree-sitter per read callback in `parse_in_chunks`.
PARSE_CHUNK = 1 << 16


def parse_in_chunks(parser: tree_sitter.Parser, text: bytes) -> tree_sitter.Tree:
    """`parser.parse(text)`, read through a callback PARSE_CHUNK bytes at a time.

    A parse of bytes holds the GIL to the end (1.6 s at 10 MB, the live panel frozen); between
    the callback's calls other threads run, at no measurable cost to the parse.
    """
    view = memoryview(text)

    def read(offset: int, _point: tuple[int, int]) -> bytes:
        return bytes(view[offset : offset + PARSE_CHUNK])

    return parser.parse(read)


def _from_file_name(path: str | os.PathLike[str]) -> str | None:
    base = os.path.basename(os.fspath(path))
    if not base:
        return None
    if base in FILE_NAMES:
        return FILE_NAMES[base]
    _, extension = os.path.splitext(base)
    if extension:
        found = CASED_EXTENSIONS.get(extension) or EXTENSIONS.get(extension.lower())
        if found is not None:
            return found
    for pattern, language in FILE_PATTERNS:
        if fnmatch.fnmatchcase(base, pattern):
            return language
    return None


def _first_line(data: bytes) -> str:
    head = data[:1024]
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    return head.split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8", errors="replace")


def _interpreter_words(line: str) -> list[str]:
    """The words of a `#!` line from the interpreter on, with `env` and its options removed."""
    words = line[2:].split()
    if not words:
        return []
    if os.path.basename(words[0]) != "env":
        return [os.path.basename(words[0]), *words[1:]]
    rest = words[1:]
    while rest:
        word = rest[0]
        if word in ("-S", "--split-string"):
            rest = rest[1:]
        elif word.startswith("--split-string="):
            rest = [word.removeprefix("--split-string="), *rest[1:]]
        elif word.startswith("-S"):
            rest = [word[2:], *rest[1:]]
        elif word in _ENV_OPTIONS_WITH_ARG:
            rest = rest[2:]
        elif word.startswith("-") or ("=" in word and not word.startswith("/")):
            rest = rest[1:]  # other env flags and VAR=value assignments
        else:
            break
    return [os.path.basename(rest[0]), *rest[1:]] if rest else []


def _from_shebang(data: bytes) -> str | None:
    line = _first_line(data)
    if not line.startswith("#!"):
        return None
    words = _interpreter_words(line)
    if not words:
        return None
    program = words[0].strip("\"'").lower().removesuffix(".exe")
    if program in RUNNERS:
        return RUNNERS[program]
    found = INTERPRETERS.get(program)
    if found is None:
        found = INTERPRETERS.get(_VERSION_SUFFIX_RE.sub("", program).rstrip("-"))
    return found


def _from_content(data: bytes) -> str | None:
    line = _first_line(data).lstrip()
    if line.startswith("<?php"):
        return "php"
    if line.startswith("<?xml"):
        return "xml"
    return None


def detect_kind(path: str | os.PathLike[str] | None, data: bytes) -> str:
    """`detect`'s grammar, or else the kind of input read without one: `text` for UTF-8 without
    NUL bytes, `bytes` for anything else. Never raises."""
    return detect(path, data) or ("bytes" if _binary(data) else "text")


def detect(path: str | os.PathLike[str] | None, data: bytes) -> str | None:
    """Guess the pack's name for the language of a file, or None when nothing points to one.

    In order: a well-known file name (`Makefile`, `go.mod`, `CMakeLists.txt`, `BUILD`, ...),
    the extension (case-insensitive, except `.C`/`.H` for C++), a name pattern
    (`Dockerfile.dev`), then the first line of `data`: a `#!` line (`/usr/bin/env python3`,
    `env -S node --flag`, `/usr/bin/perl -w`) or a `<?php` / `<?xml` opening. Never raises.
    """
    if path is not None:
        found = _from_file_name(path)
        if found is not None:
            return found
    return _from_shebang(data) or _from_content(data)


def _binary(data: bytes) -> bool:
    """Not valid UTF-8, or holding a NUL byte."""
    if b"\x00" in data:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False
