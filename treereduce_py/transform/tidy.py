"""Whitespace tidying of a finished result: pure text functions, each tried as one candidate."""

from __future__ import annotations

import re
import textwrap

_BLANK_RUNS = re.compile(rb"\n[ \t]*\n(?:[ \t]*\n)+")
_TRAILING = re.compile(rb"[ \t]+(?=\r?\n|$)")
# Spaces right inside brackets: `( (a) )` -> `((a))` (what deletions leave in S-expressions).
_INSIDE_BRACKETS = re.compile(rb"(?<=[(\[{])[ \t]+|(?<=\S)[ \t]+(?=[)\]}])")


def tidy_whitespace(text: bytes) -> bytes:
    """Trailing spaces removed, runs of blank lines collapsed to one, leading blank lines gone."""
    text = _TRAILING.sub(b"", text)
    text = _BLANK_RUNS.sub(b"\n\n", text)
    return text.lstrip(b"\r\n")


def dedent(text: bytes) -> bytes:
    """The common indentation of all lines removed (text that is not UTF-8 is left as is)."""
    try:
        return textwrap.dedent(text.decode()).encode()
    except UnicodeDecodeError:
        return text


def squeeze_brackets(text: bytes) -> bytes:
    """Spaces and tabs after an opening or before a closing bracket removed (not indentation)."""
    return _INSIDE_BRACKETS.sub(b"", text)


def unix_lines(text: bytes) -> bytes:
    """Each CRLF line ending as LF: a file from Windows spends a byte a line on them, which the
    whitespace stage keeps (it keeps the text's own line endings). Tried first, once."""
    return text.replace(b"\r\n", b"\n")


TIDIERS = (unix_lines, tidy_whitespace, dedent, squeeze_brackets)


def strip_ends(text: bytes) -> bytes:
    """Leading and trailing whitespace removed (a final newline too)."""
    return text.strip()


def single_spaces(text: bytes) -> bytes:
    """Runs of spaces and tabs after a non-space byte (not indentation) made one space."""
    return _SPACE_RUNS.sub(b" ", text)


_SPACE_RUNS = re.compile(rb"(?<=\S)[ \t]{2,}")

# For input without a grammar, after TIDIERS: the cuts whitespace.minimize would otherwise make.
TEXT_TIDIERS = (strip_ends, single_spaces)
