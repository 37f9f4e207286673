"""A huge input's coarse table, read in pieces (lang/pieces.py) or from its lines
(lang/lineitems.py), its items in blocks (lang/blocks.py): the same items as the top level of one
whole parse, without that parse; and the session's use of it above PIECES_MIN."""

from __future__ import annotations

import sys
import sysconfig
import time
from pathlib import Path

import pytest
import tree_sitter

import treereduce_py
from treereduce_py.lang import blocks, languages, lineitems, pieces
from treereduce_py.lang.syntax import BLOCK_KIND, NodeTable
from treereduce_py.run import reading
from treereduce_py.transform.hoists import Kinds, chi
from treereduce_py.transform.smtlib import SmtRules

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


def items(table: NodeTable) -> list[object]:
    """What a coarse table says of the items (its blocks looked through: lang/blocks.py): their
    rows, the root's kind, the errors, whether there are lists (separators among the items)."""
    rows = [(table.start[i], table.end[i], table.kind[i], table.named[i]) for i in table.items(0)]
    return [rows, table.kind[0], table.kind_names, table.errors, bool(table.lists)]


def well_blocked(table: NodeTable) -> bool:
    """No node has more than BLOCK children, and a block spans its first item to its last."""
    for i in range(len(table)):
        kids = list(table.children(i))
        if len(kids) > blocks.BLOCK:
            return False
        if table.kind[i] == BLOCK_KIND and not (
            kids and table.start[i] == table.start[kids[0]] and table.end[i] == table.end[kids[-1]]
        ):
            return False
    return True


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
    assert items(table) == items(top_level(text, lang))
    assert well_blocked(table)


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
    assert table is not None and items(table) == items(top_level(long, "c"))


def test_a_table_of_few_items_has_no_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    # At most BLOCK items: the table is the root and its items, as one whole parse reads them.
    monkeypatch.setattr(blocks, "BLOCK", 1000)
    text = generate("c", 10_000).encode()
    table = pieces.coarse_table(text, languages.get_language("c"), 700)
    assert table is not None and len(list(table.children(0))) <= blocks.BLOCK
    assert columns(table) == columns(top_level(text, "c"))


@pytest.mark.parametrize("count", [65, 64 * 64, 64 * 64 + 1, 300_000])
def test_blocks_hold_the_items_in_order_at_most_block_to_a_node(count: int) -> None:
    text = b"x;" * count
    rows = [(2 * k, 2 * k + 2, 7, True) for k in range(count)]
    table = blocks.table(text, rows, 1, ("a",))
    assert [table.start[i] for i in table.items(0)] == [r[0] for r in rows]
    assert well_blocked(table)
    depth = max(table.depth)
    assert 64 ** (depth - 1) < count <= 64**depth  # as few levels as will do


def test_line_items_start_where_the_whole_parse_reads_items() -> None:
    # The scale family's C and JavaScript put every top-level item at column 0 and nothing else
    # there: the items read from the lines start where the parse's named ones do (a struct's
    # `;` is another item to the parse), and run to the next.
    for lang, gen in (("c", "c"), ("javascript", "js")):
        text = generate(gen, 60_000).encode()
        table = lineitems.coarse_table(text, languages.get_language(lang))
        assert table is not None and well_blocked(table)
        whole = top_level(text, lang)
        starts = [table.start[i] for i in table.items(0)]
        assert starts == [whole.start[i] for i in whole.children(0) if whole.named[i]]
        ends = [table.end[i] for i in table.items(0)]
        assert ends == [*starts[1:], len(text)]  # the gaps go with the item before
        assert table.kind[0] == whole.kind[0]


def line_items(text: bytes, lang: str) -> list[bytes]:
    """The texts of the items `lineitems` reads in `text`."""
    table = lineitems.coarse_table(text, languages.get_language(lang))
    assert table is not None
    return [table.text(i) for i in table.items(0)]


def test_line_items_keep_continuations_with_their_item() -> None:
    # An Allman brace, a closing brace, a backslash-continued macro, Python's else and except,
    # a decorator: none of them starts an item.
    c = b"#define A(x) \\\n  (x)\nint f(void)\n{\n  return 1;\n}\n" * 40
    got = line_items(c, "c")
    assert got == [b"#define A(x) \\\n  (x)\n", b"int f(void)\n{\n  return 1;\n}\n"] * 40
    py = b"@dec\n@dec2\ndef f():\n    pass\nif a:\n    pass\nelse:\n    pass\nelsewhere = 1\n" * 30
    got = line_items(py, "python")
    one = [b"@dec\n@dec2\ndef f():\n    pass\n", b"if a:\n    pass\nelse:\n    pass\n"]
    assert got == [*one, b"elsewhere = 1\n"] * 30


def test_line_items_keep_attributes_and_chains_with_their_item() -> None:
    rust = b"#[derive(Debug)]\n#[allow(dead_code)]\nstruct S;\nfn f() {}\n" * 40
    got = line_items(rust, "rust")
    assert got == [b"#[derive(Debug)]\n#[allow(dead_code)]\nstruct S;\n", b"fn f() {}\n"] * 40
    js = b"const a = b\n.map(f)\n&& c\n|| d\n? e\n: g;\nlet x = [1\n, 2];\n" * 40
    got = line_items(js, "javascript")
    # `: g` starts an item: a colon at column 0 is as often a label or a key as a ternary's.
    assert (
        got == [b"const a = b\n.map(f)\n&& c\n|| d\n? e\n", b": g;\n", b"let x = [1\n, 2];\n"] * 40
    )


def test_text_whose_items_are_not_at_column_zero_gives_no_line_items() -> None:
    java = b"class A {\n" + b"    int f() { return 1; }\n" * 500 + b"}\n"
    assert lineitems.coarse_table(java, languages.get_language("java")) is None


@pytest.mark.parametrize(
    ("indent", "slow", "deterministic"),
    [(b"", False, False), (b" ", False, False), (b"", True, False), (b"", False, True)],
    ids=["lines", "indented", "slow-test", "deterministic"],
)
def test_a_huge_input_is_read_from_its_lines_or_in_pieces_never_in_one_whole_parse(
    monkeypatch: pytest.MonkeyPatch, indent: bytes, slow: bool, deterministic: bool
) -> None:
    # Its items at column 0 and a quick test, the start-up read takes them from the lines;
    # indented, or where a test costs more than a parse would (or the clock must not choose
    # what is read: --deterministic), in pieces.
    text = generate("c", 200_000).encode().replace(b"\n", b"\n" + indent)

    monkeypatch.setattr(reading, "PIECES_MIN", 100_000)
    read: list[str] = []
    from_lines, in_pieces = lineitems.coarse_table, pieces.coarse_table

    def lines(text: bytes, language: tree_sitter.Language) -> NodeTable | None:
        table = from_lines(text, language)
        read.append(f"lines {len(text)} {table is not None}")
        return table

    def spy(text: bytes, language: tree_sitter.Language, piece: int = 0) -> NodeTable | None:
        read.append(f"pieces {len(text)}")
        return in_pieces(text, language, 8192)

    monkeypatch.setattr(lineitems, "coarse_table", lines)
    monkeypatch.setattr(pieces, "coarse_table", spy)
    parsed: list[int] = []
    parse = languages.parse_in_chunks

    def whole(parser: tree_sitter.Parser, text: bytes) -> tree_sitter.Tree:
        parsed.append(len(text))
        return parse(parser, text)

    monkeypatch.setattr(languages, "parse_in_chunks", whole)

    def test(candidate: bytes) -> bool:
        if slow:  # 25 tests of 0.01 s take longer than parsing 200 KB would (0.08 s)
            time.sleep(0.01)
        return b"struct trigger_shape {" in candidate and b"return s->depth;" in candidate

    result = treereduce_py.reduce(
        text, language="c", test=test, jobs=2, deterministic=deterministic
    )
    assert test(result.reduced) and len(result.reduced) < 200
    n = len(text)
    start = [f"lines {n} True"] if not indent else [f"lines {n} False", f"pieces {n}"]
    if slow or deterministic:
        start = [f"pieces {n}"]
    assert read[: len(start)] == start  # how the start-up read went
    assert parsed == []  # and the whole input was never parsed at once


def test_a_block_is_neither_hoisted_nor_a_hoist() -> None:
    # Hoisting a block to one of its blocks kept that block's items whole: in parallel runs of
    # the scale family's 10 MB, two blocks of 64 items (27 KB) were left after the coarse pass.
    text = generate("c", 60_000).encode()
    table = lineitems.coarse_table(text, languages.get_language("c"))
    assert table is not None
    kinds = Kinds.of(languages.get_language("c"))
    nodes = range(len(table))
    assert [chi(table, kinds, i) for i in nodes if table.kind[i] == BLOCK_KIND] != []
    assert all(chi(table, kinds, i) == [] for i in nodes if table.kind[i] == BLOCK_KIND)
    assert all(table.kind[j] != BLOCK_KIND for i in nodes for j in chi(table, kinds, i))


def test_an_smt_script_in_blocks_may_lose_whole_blocks_and_each_command() -> None:
    script = b"(declare-const x Int)\n" + b"(assert (> x 0))\n" * 5000 + b"(check-sat)\n"
    table = lineitems.coarse_table(script, languages.get_language("smtlib"))
    assert table is not None and max(table.depth) == 3  # blocks of blocks of commands
    rules = SmtRules.build(table)
    assert rules.deletable == set(range(1, len(table)))
