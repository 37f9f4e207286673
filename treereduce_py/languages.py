"""Which tree-sitter grammar reads a file.

Every grammar comes from `tree-sitter-language-pack` (0.13 bundles ~170 of them in the wheel, so
nothing is downloaded). A language is named by the pack's own name; users may also write the
names people actually type (`js`, `c++`, `golang`, `C#`), in any case. A file's language is
detected from its name (well-known file names, then its extension, then name patterns such as
`Dockerfile.dev`) and, for scripts without a known extension, from the `#!` line. The tables here
only point at names the pack really has; the tests check that, so they cannot drift.
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

__all__ = [
    "UnknownLanguage",
    "available",
    "canonical",
    "detect",
    "get_language",
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


_AVAILABLE: tuple[str, ...] = tuple(sorted(set(typing.get_args(_pack.SupportedLanguage))))


def available() -> tuple[str, ...]:
    """Sorted names of every grammar bundled in tree-sitter-language-pack."""
    return _AVAILABLE


# Names people type for a language, lower case. Keys are tried after the pack's own names.
ALIASES: dict[str, str] = {
    "js": "javascript",
    "jsx": "javascript",
    "node": "javascript",
    "nodejs": "javascript",
    "ecmascript": "javascript",
    "ts": "typescript",
    "py": "python",
    "py3": "python",
    "python2": "python",
    "python3": "python",
    "rs": "rust",
    "c++": "cpp",
    "cxx": "cpp",
    "cc": "cpp",
    "cplusplus": "cpp",
    "golang": "go",
    "sh": "bash",
    "shell": "bash",
    "zsh": "bash",
    "ksh": "bash",
    "dash": "bash",
    "posix": "bash",
    "c#": "csharp",
    "cs": "csharp",
    "f#": "fsharp",
    "yml": "yaml",
    "md": "markdown",
    "rb": "ruby",
    "pl": "perl",
    "kt": "kotlin",
    "hs": "haskell",
    "ml": "ocaml",
    "ex": "elixir",
    "erl": "erlang",
    "tex": "latex",
    "tf": "terraform",
    "docker": "dockerfile",
    "makefile": "make",
    "gnumake": "make",
    "objective-c": "objc",
    "objectivec": "objc",
    "obj-c": "objc",
    "viml": "vim",
    "vimscript": "vim",
    "emacs-lisp": "elisp",
    "emacslisp": "elisp",
    "lisp": "commonlisp",
    "cl": "commonlisp",
    "protobuf": "proto",
    "gql": "graphql",
    "sol": "solidity",
    "systemverilog": "verilog",
    "sv": "verilog",
    "jl": "julia",
    "pwsh": "powershell",
    "ps1": "powershell",
    "rscript": "r",
    "bazel": "starlark",
    "bzl": "starlark",
    "erb": "embeddedtemplate",
    "ejs": "embeddedtemplate",
    "htm": "html",
    "xhtml": "html",
    "svg": "xml",
    "asciidoc": "rst",
    "restructuredtext": "rst",
    "wasm": "wat",
    "webassembly": "wat",
    "arm": "asm",
    "assembly": "asm",
    "llvm-ir": "llvm",
}

# Extensions (lower case, with the dot) of the pack's languages. Lookup is case-insensitive
# except for the entries in CASED_EXTENSIONS, which are tried first.
EXTENSIONS: dict[str, str] = {
    ".as": "actionscript",
    ".ada": "ada",
    ".adb": "ada",
    ".ads": "ada",
    ".agda": "agda",
    ".apex": "apex",
    ".cls": "apex",
    ".trigger": "apex",
    ".ino": "arduino",
    ".asm": "asm",
    ".s": "asm",
    ".nasm": "asm",
    ".astro": "astro",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "bash",
    ".ksh": "bash",
    ".ebuild": "bash",
    ".eclass": "bash",
    ".beancount": "beancount",
    ".bean": "beancount",
    ".bib": "bibtex",
    ".bicep": "bicep",
    ".bb": "bitbake",
    ".bbappend": "bitbake",
    ".bbclass": "bitbake",
    ".bsl": "bsl",
    ".os": "bsl",
    ".c": "c",
    ".h": "c",  # C or C++; C is the safer guess (a C++ header rarely parses as C, and vice versa)
    ".cairo": "cairo",
    ".capnp": "capnp",
    ".chatito": "chatito",
    ".clar": "clarity",
    ".clj": "clojure",
    ".cljs": "clojure",
    ".cljc": "clojure",
    ".edn": "clojure",
    ".cmake": "cmake",
    ".cob": "cobol",
    ".cbl": "cobol",
    ".cpy": "cobol",
    ".lisp": "commonlisp",
    ".lsp": "commonlisp",
    ".cl": "commonlisp",
    ".asd": "commonlisp",
    ".cpon": "cpon",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".cp": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".ipp": "cpp",
    ".tpp": "cpp",
    ".inl": "cpp",
    ".ixx": "cpp",
    ".cppm": "cpp",
    ".cs": "csharp",
    ".csx": "csharp",
    ".css": "css",
    ".csv": "csv",
    ".cu": "cuda",
    ".cuh": "cuda",
    ".d": "d",
    ".di": "d",
    ".dart": "dart",
    ".dockerfile": "dockerfile",
    ".containerfile": "dockerfile",
    ".dtd": "dtd",
    ".el": "elisp",
    ".ex": "elixir",
    ".exs": "elixir",
    ".elm": "elm",
    ".erb": "embeddedtemplate",
    ".ejs": "embeddedtemplate",
    ".erl": "erlang",
    ".hrl": "erlang",
    ".escript": "erlang",
    ".fnl": "fennel",
    ".fir": "firrtl",
    ".fish": "fish",
    ".f": "fortran",
    ".for": "fortran",
    ".ftn": "fortran",
    ".f77": "fortran",
    ".f90": "fortran",
    ".f95": "fortran",
    ".f03": "fortran",
    ".f08": "fortran",
    ".fs": "fsharp",
    ".fsx": "fsharp",
    ".fsi": "fsharp_signature",
    ".fc": "func",
    ".gd": "gdscript",
    ".gleam": "gleam",
    ".glsl": "glsl",
    ".vert": "glsl",
    ".frag": "glsl",
    ".geom": "glsl",
    ".comp": "glsl",
    ".tesc": "glsl",
    ".tese": "glsl",
    ".gn": "gn",
    ".gni": "gn",
    ".go": "go",
    ".graphql": "graphql",
    ".graphqls": "graphql",
    ".gql": "graphql",
    ".groovy": "groovy",
    ".gvy": "groovy",
    ".gradle": "groovy",
    ".hack": "hack",
    ".ha": "hare",
    ".hs": "haskell",
    ".hx": "haxe",
    ".hcl": "hcl",
    ".nomad": "hcl",
    ".heex": "heex",
    ".hlsl": "hlsl",
    ".hlsli": "hlsl",
    ".fx": "hlsl",
    ".fxh": "hlsl",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".ini": "ini",
    ".cfg": "ini",
    ".ispc": "ispc",
    ".isph": "ispc",
    ".janet": "janet",
    ".java": "java",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",  # the pack's javascript grammar parses JSX
    ".json": "json",
    ".jsonc": "json",
    ".geojson": "json",
    ".ipynb": "json",
    ".webmanifest": "json",
    ".jsonnet": "jsonnet",
    ".libsonnet": "jsonnet",
    ".jl": "julia",
    ".kdl": "kdl",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".tex": "latex",
    ".ltx": "latex",
    ".sty": "latex",
    ".ld": "linkerscript",
    ".lds": "linkerscript",
    ".ll": "llvm",
    ".lua": "lua",
    ".rockspec": "lua",
    ".luau": "luau",
    ".magik": "magik",
    ".mk": "make",
    ".mak": "make",
    ".make": "make",
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdown": "markdown",
    ".mkd": "markdown",
    ".mmd": "mermaid",
    ".mermaid": "mermaid",
    ".axs": "netlinx",
    ".axi": "netlinx",
    ".nim": "nim",
    ".nims": "nim",
    ".nimble": "nim",
    ".ninja": "ninja",
    ".nix": "nix",
    ".nqc": "nqc",
    ".m": "objc",  # Objective-C or MATLAB; Objective-C is the likelier compiler test case
    ".mm": "objc",
    ".ml": "ocaml",
    ".mli": "ocaml_interface",
    ".odin": "odin",
    ".org": "org",
    ".pas": "pascal",
    ".dpr": "pascal",
    ".lpr": "pascal",
    ".pem": "pem",
    ".crt": "pem",
    ".pl": "perl",
    ".pm": "perl",
    ".t": "perl",
    ".pgn": "pgn",
    ".php": "php",
    ".phtml": "php",
    ".php3": "php",
    ".php4": "php",
    ".php5": "php",
    ".php7": "php",
    ".po": "po",
    ".pot": "po",
    ".pony": "pony",
    ".ps1": "powershell",
    ".psm1": "powershell",
    ".psd1": "powershell",
    ".prisma": "prisma",
    ".properties": "properties",
    ".proto": "proto",
    ".psv": "psv",
    ".pp": "puppet",  # also Free Pascal; Puppet manifests are far more common
    ".purs": "purescript",
    ".py": "python",
    ".pyi": "python",
    ".pyw": "python",
    ".qml": "qmljs",
    ".r": "r",
    ".rkt": "racket",
    ".rktl": "racket",
    ".rktd": "racket",
    ".re": "re2c",
    ".rego": "rego",
    ".ron": "ron",
    ".rst": "rst",
    ".rb": "ruby",
    ".rbw": "ruby",
    ".rake": "ruby",
    ".gemspec": "ruby",
    ".ru": "ruby",
    ".rs": "rust",
    ".scala": "scala",
    ".sc": "scala",
    ".sbt": "scala",
    ".scm": "scheme",
    ".ss": "scheme",
    ".sld": "scheme",
    ".sls": "scheme",
    ".scss": "scss",
    ".smali": "smali",
    ".smithy": "smithy",
    ".sol": "solidity",
    ".rq": "sparql",
    ".sparql": "sparql",
    ".sql": "sql",
    ".nut": "squirrel",
    ".bzl": "starlark",
    ".bazel": "starlark",
    ".star": "starlark",
    ".svelte": "svelte",
    ".swift": "swift",
    ".td": "tablegen",
    ".tcl": "tcl",
    ".tm": "tcl",
    ".tk": "tcl",
    ".tf": "terraform",
    ".tfvars": "terraform",
    ".thrift": "thrift",
    ".toml": "toml",
    ".tsv": "tsv",
    ".tsx": "tsx",
    ".twig": "twig",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".typ": "typst",
    ".rules": "udev",
    ".ungram": "ungrammar",
    ".tal": "uxntal",
    ".vsh": "v",
    ".vv": "v",
    ".v": "verilog",  # also V and Coq; Verilog is the common one
    ".vh": "verilog",
    ".sv": "verilog",
    ".svh": "verilog",
    ".vhd": "vhdl",
    ".vhdl": "vhdl",
    ".vim": "vim",
    ".vue": "vue",
    ".wast": "wast",
    ".wat": "wat",
    ".wgsl": "wgsl",
    ".xml": "xml",
    ".xsd": "xml",
    ".xsl": "xml",
    ".xslt": "xml",
    ".svg": "xml",
    ".plist": "xml",
    ".rss": "xml",
    ".atom": "xml",
    ".xaml": "xml",
    ".csproj": "xml",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".yuck": "yuck",
    ".zig": "zig",
    ".zon": "zig",
}

# Extensions whose meaning depends on case (the rest match case-insensitively).
CASED_EXTENSIONS: dict[str, str] = {
    ".C": "cpp",
    ".H": "cpp",
}

# Whole file names, matched exactly (names without a usable extension, or dotfiles).
FILE_NAMES: dict[str, str] = {
    ".bashrc": "bash",
    ".bash_profile": "bash",
    ".bash_login": "bash",
    ".bash_logout": "bash",
    ".bash_aliases": "bash",
    ".profile": "bash",
    ".zshrc": "bash",
    ".zshenv": "bash",
    ".zprofile": "bash",
    ".zlogin": "bash",
    ".kshrc": "bash",
    "PKGBUILD": "bash",
    "APKBUILD": "bash",
    "CMakeLists.txt": "cmake",
    "Dockerfile": "dockerfile",
    "dockerfile": "dockerfile",
    "Containerfile": "dockerfile",
    ".emacs": "elisp",
    "rebar.config": "erlang",
    ".gitattributes": "gitattributes",
    "COMMIT_EDITMSG": "gitcommit",
    "MERGE_MSG": "gitcommit",
    "TAG_EDITMSG": "gitcommit",
    ".gitignore": "gitignore",
    ".dockerignore": "gitignore",
    ".npmignore": "gitignore",
    ".prettierignore": "gitignore",
    ".eslintignore": "gitignore",
    ".hgignore": "gitignore",
    "go.mod": "gomod",
    "go.sum": "gosum",
    "Jenkinsfile": "groovy",
    "hyprland.conf": "hyprlang",
    ".editorconfig": "ini",
    ".gitconfig": "ini",
    ".gitmodules": "ini",
    "setup.cfg": "ini",
    "tox.ini": "ini",
    "Kconfig": "kconfig",
    "Makefile": "make",
    "makefile": "make",
    "GNUmakefile": "make",
    "BSDmakefile": "make",
    "meson.build": "meson",
    "meson_options.txt": "meson",
    "meson.options": "meson",
    "MANIFEST.in": "pymanifest",
    "SConstruct": "python",
    "SConscript": "python",
    "qmldir": "qmldir",
    ".inputrc": "readline",
    "inputrc": "readline",
    ".Rprofile": "r",
    "Rakefile": "ruby",
    "Gemfile": "ruby",
    "Guardfile": "ruby",
    "Vagrantfile": "ruby",
    "Podfile": "ruby",
    "Brewfile": "ruby",
    "Fastfile": "ruby",
    "BUILD": "starlark",
    "WORKSPACE": "starlark",
    "Tiltfile": "starlark",
    "Cargo.lock": "toml",
    "Pipfile": "toml",
    "poetry.lock": "toml",
    "uv.lock": "toml",
    ".vimrc": "vim",
    "_vimrc": "vim",
    ".gvimrc": "vim",
    ".XCompose": "xcompose",
    "XCompose": "xcompose",
}

# Name patterns (fnmatch, case-sensitive), tried only when the extension says nothing.
FILE_PATTERNS: tuple[tuple[str, str], ...] = (
    ("Dockerfile.*", "dockerfile"),
    ("Containerfile.*", "dockerfile"),
    ("Makefile.*", "make"),
    ("makefile.*", "make"),
    ("Kconfig.*", "kconfig"),
    ("requirements*.txt", "requirements"),
    ("constraints*.txt", "requirements"),
)

# Interpreters named on a `#!` line, after version suffixes are stripped (python3.11 -> python).
INTERPRETERS: dict[str, str] = {
    "sh": "bash",
    "bash": "bash",
    "dash": "bash",
    "ash": "bash",
    "ksh": "bash",
    "mksh": "bash",
    "zsh": "bash",
    "busybox": "bash",
    "fish": "fish",
    "python": "python",
    "pypy": "python",
    "node": "javascript",
    "nodejs": "javascript",
    "deno": "javascript",
    "bun": "javascript",
    "qjs": "javascript",
    "ts-node": "typescript",
    "tsx": "typescript",
    "perl": "perl",
    "ruby": "ruby",
    "jruby": "ruby",
    "lua": "lua",
    "luajit": "lua",
    "luau": "luau",
    "tclsh": "tcl",
    "wish": "tcl",
    "expect": "tcl",
    "rscript": "r",
    "r": "r",
    "php": "php",
    "php-cgi": "php",
    "julia": "julia",
    "elixir": "elixir",
    "escript": "erlang",
    "runghc": "haskell",
    "runhaskell": "haskell",
    "ocaml": "ocaml",
    "racket": "racket",
    "guile": "scheme",
    "csi": "scheme",
    "chibi-scheme": "scheme",
    "sbcl": "commonlisp",
    "clisp": "commonlisp",
    "emacs": "elisp",
    "clojure": "clojure",
    "bb": "clojure",
    "scala": "scala",
    "groovy": "groovy",
    "kotlin": "kotlin",
    "kscript": "kotlin",
    "swift": "swift",
    "dart": "dart",
    "pwsh": "powershell",
    "powershell": "powershell",
    "make": "make",
    "gmake": "make",
    "janet": "janet",
    "fennel": "fennel",
    "nim": "nim",
    "v": "v",
    "gdscript": "gdscript",
    "godot": "gdscript",
}

# `#!/usr/bin/env -S uv run --script` and the like: a runner whose script language is fixed.
RUNNERS: dict[str, str] = {"uv": "python", "pipx": "python", "cargo": "rust"}

_SQUASH_RE = re.compile(r"[\s_\-]+")
_VERSION_SUFFIX_RE = re.compile(r"[\d.]+$")
# env options that take a separate argument (`env -u NAME python`).
_ENV_OPTIONS_WITH_ARG = frozenset({"-u", "--unset", "-C", "--chdir"})


def _squash(name: str) -> str:
    return _SQUASH_RE.sub("", name.lower())


_NAMES = frozenset(_AVAILABLE)
_BY_SQUASHED: dict[str, str] = {_squash(name): name for name in _AVAILABLE}


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
    close = difflib.get_close_matches(key, _AVAILABLE, n=3, cutoff=0.75)
    if close:
        return tuple(close)
    # Only when no real name is close, since aliases like "rscript" crowd out "javascript".
    close = difflib.get_close_matches(key, ALIASES, n=3, cutoff=0.75)
    return tuple(dict.fromkeys(ALIASES[c] for c in close))


def canonical(name: str) -> str:
    """The pack's name for the language `name`.

    Accepts the pack's names, common aliases (`js`, `c++`, `golang`, `C#`, `yml`, ...), usual
    extensions without the dot (`rs`, `kts`), in any case, with `-`, `_` or spaces interchangeable.
    Raises UnknownLanguage (a ValueError) otherwise, suggesting close names when there are some.
    """
    found = _lookup(name)
    if found is None:
        raise UnknownLanguage(name, _suggestions(name))
    return found


_LOAD_LOCK = threading.Lock()


@functools.cache
def _load(name: str) -> tree_sitter.Language:
    # `name` is one of _AVAILABLE, i.e. a member of the pack's SupportedLanguage Literal.
    return _pack.get_language(typing.cast("_pack.SupportedLanguage", name))


def get_language(name: str) -> tree_sitter.Language:
    """The grammar for `name` (any form `canonical` accepts), loaded once per process.

    Every call for the same language returns the same object, from any thread.
    Raises UnknownLanguage when `name` names no bundled grammar.
    """
    language = canonical(name)
    # One lock so two threads loading the same grammar at once cannot get two objects.
    with _LOAD_LOCK:
        return _load(language)


def new_parser(name: str) -> tree_sitter.Parser:
    """A fresh parser for `name`; each call returns a new one (parsers are not thread-safe).

    Raises UnknownLanguage when `name` names no bundled grammar.
    """
    return tree_sitter.Parser(get_language(name))


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
