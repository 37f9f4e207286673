"""A huge input's coarse table read in pieces (lang/pieces.py): the same rows as the top level of
one whole parse, without that parse; and the session's use of it above PIECES_MIN."""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

import pytest
import tree_sitter

import treereduce_py
from treereduce_py.lang import languages, pieces
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.run import session

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
from scale_gen import generate  # type: ignore[import-not-found]  # noqa: E402


def columns(table: NodeTable) -> list[object]:
    """Everything a table says, column by column."""
    return [
        list(table.start), list(table.end), list(table.kind), bytes(table.named),
        list(table.parent), list(table.first_child), list(table.next_sibling),
        list(table.last), list(table.depth), table.kind_names, table.errors, table.lists,
    ]  # fmt: skip


def top_level(text: bytes, lang: str) -> NodeTable:
    tree = languages.new_parser(lang).parse(text)
    return NodeTable.from_tree(text, tree, 1)


STDLIB = Path(sysconfig.get_paths()["stdlib"])
INPUTS = [
    ("c", generate("c", 120_000).encode()),
    ("javascript", generate("js", 120_000).encode()),
    ("python", (STDLIB / "argparse.py").read_bytes()),
    # Errors in the middle of the input are counted where the whole parse counts them.
    ("c", generate("c", 30_000).encode().replace(b"return x", b"return x +", 3)),
]


@pytest.mark.parametrize("piece", [700, 4096, 30_000])
@pytest.mark.parametrize(("lang", "text"), INPUTS, ids=["c", "js", "python", "c-errors"])
def test_pieces_give_the_top_level_of_the_whole_parse(lang: str, text: bytes, piece: int) -> None:
    # Cut anywhere: inside items, between `}` and `;`, inside a class whose truncation makes
    # the whole piece an ERROR; the rows are those of the whole parse's top level.
    table = pieces.coarse_table(text, languages.get_language(lang), piece)
    assert table is not None
    assert columns(table) == columns(top_level(text, lang))


def test_a_top_level_of_few_items_or_one_too_long_gives_no_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    c = languages.get_language("c")
    few = b"int a;\nint b;\n"
    assert pieces.coarse_table(few, c, 4) is None  # under MIN_ITEMS
    body = b"".join(b"    x = x + %d;\n" % i for i in range(400))
    long = b"int f(int x) {\n" + body + b"    return x;\n}\n" + b"int y;\n" * 100
    monkeypatch.setattr(pieces, "MAX_PIECE", 2048)
    assert pieces.coarse_table(long, c, 512) is None  # f is longer than MAX_PIECE
    monkeypatch.setattr(pieces, "MAX_PIECE", 1 << 20)
    table = pieces.coarse_table(long, c, 512)  # the piece grows to hold f
    assert table is not None and columns(table) == columns(top_level(long, "c"))


def test_a_huge_input_is_reduced_from_pieces_never_from_one_whole_parse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = generate("c", 200_000).encode()
    monkeypatch.setattr(session, "PIECES_MIN", 100_000)
    monkeypatch.setattr(pieces, "PIECE", 8192)
    read: list[int] = []
    coarse_table = pieces.coarse_table

    def spy(text: bytes, language: object, piece: int = pieces.PIECE) -> NodeTable | None:
        read.append(len(text))
        return coarse_table(text, language, 8192)  # type: ignore[arg-type]

    monkeypatch.setattr(pieces, "coarse_table", spy)
    parsed: list[int] = []
    parse = languages.parse_in_chunks

    def whole(parser: tree_sitter.Parser, text: bytes) -> tree_sitter.Tree:
        parsed.append(len(text))
        return parse(parser, text)

    monkeypatch.setattr(languages, "parse_in_chunks", whole)

    def test(candidate: bytes) -> bool:
        return b"struct trigger_shape {" in candidate and b"return s->depth;" in candidate

    result = treereduce_py.reduce(text, language="c", test=test, jobs=2)
    assert test(result.reduced) and len(result.reduced) < 200
    assert read and read[0] == len(text)  # the start-up read was in pieces
    assert parsed == []  # and the whole input was never parsed at once
