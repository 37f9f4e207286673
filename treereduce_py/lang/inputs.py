"""What a reduction reads: a program through its grammar, any other text, or any bytes.

Every kind of input is reduced by the same engine, so a kind only has to say three things: the
`NodeTable` a stage's pass works on (for each table kind a stage asks for: the tree, lines,
tokens), which stages make sense on it, and whether candidates are syntax-checked. Rendering
needs nothing from it (a candidate is the input's own bytes with node spans replaced), and nor
do the cache, the commit path, `--same-crash` or the event stream. Each kind is one room:

- `GRAMMAR`: a tree-sitter parse (`languages.py`); the session builds its tables itself (coarse
  tables of huge trees, query hints) and checks each candidate by reparsing incrementally.
- `TEXT`: any text without a grammar: the tree inferred from brackets and layout
  (`texttree.py`), lines and tokens; every stage but renaming and merging names (they need a
  grammar's identifiers), the text tidiers but not the whitespace minimization (it needs a
  parse); no syntax check, the test alone decides.
- `BYTES`: binary input: aligned chunks (`bytetree.py`) for the tree stages only, each chunk that
  cannot go then offered as zeros (same length, smaller: edit/order.py); no polish and no
  check. Nothing is decoded, so a result is byte for byte what its test saw.
- `FILES`: a directory's files, one record each (`filetree.py`): the tree stage deletes whole
  files; each file that is left is then reduced as its own kind (run/directory.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from treereduce_py.lang.bytetree import byte_table, chunk_table
from treereduce_py.lang.filetree import file_table
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.lang.texttree import text_table


@dataclass(frozen=True)
class InputKind:
    """How one kind of input becomes tables for the planners.

    `tables` maps a table kind a stage asks for ("syntax", "lines", "tokens", "bytes") to its
    builder; empty for the grammar kind, whose tables come from its parse. `planners` are the
    planner kinds that apply to those tables (for the grammar kind, every one but LISTED_ONLY).
    `hoists`: a node of its tree may become its nearest descendant of the same kind (a group an
    inner group, a block an inner block), the one guess that needs no grammar. (Not the smallest
    node of a kind in its place: a token owns the spaces after it, so a word put where one with
    spaces stood would fuse with the next.) `tidy`: the text tidiers (blank lines, trailing
    spaces, dedent) may be offered as candidates. `zeroes`: a node of its tree that cannot be
    deleted may become as many zero bytes (transform/zeroes.py)."""

    name: str
    tables: Mapping[str, Callable[[bytes], NodeTable]]
    planners: frozenset[str] = frozenset()
    hoists: bool = True
    tidy: bool = True
    zeroes: bool = False

    @property
    def parsed(self) -> bool:
        """Read through a tree-sitter grammar: parsed, and candidates syntax-checked."""
        return not self.tables

    def reads(self, table: str, planner: str) -> bool:
        """Does a stage over `table` with `planner` apply to this kind of input? A grammar's
        input takes every stage but those only a kind that lists them takes (LISTED_ONLY)."""
        if self.parsed:
            return planner not in LISTED_ONLY
        return table in self.tables and planner in self.planners

    def table(self, table: str, text: bytes) -> NodeTable:
        """The table of `text` for a stage over `table` (one `reads` accepts). Raises KeyError
        for a table kind this input does not have, and ValueError for the grammar kind (the
        session parses it)."""
        if self.parsed:
            raise ValueError("a grammar's tables come from its parse")
        return self.tables[table](text)


# Planners for one kind of input only: the runs of bytes (transform/spans.py), for binary input.
LISTED_ONLY = frozenset({"spans"})

GRAMMAR = InputKind("grammar", {})
TEXT = InputKind(
    "text",
    {"syntax": text_table, "lines": NodeTable.from_lines, "tokens": NodeTable.from_tokens},
    frozenset({"tree", "flat", "levels", "breadth-first", "pairs"}),
)
# Chunks are named by their size, and none holds one of its size: deletions only.
BYTES = InputKind(
    "bytes",
    {"syntax": chunk_table, "bytes": byte_table},
    frozenset({"tree", "flat", "levels", "breadth-first", "spans"}),
    hoists=False,
    tidy=False,
    zeroes=True,
)

# A directory's files as records (filetree.py): the file-deletion pass deletes whole files.
FILES = InputKind("files", {"syntax": file_table}, frozenset({"tree"}), hoists=False, tidy=False)

# The kinds named like languages (`-l text`, `-l bytes`); every other language is a grammar's.
BY_NAME: dict[str, InputKind] = {TEXT.name: TEXT, BYTES.name: BYTES}


def input_kind(language: str) -> InputKind:
    """The kind of input a canonical language name (languages.canonical) stands for."""
    return FILES if language == FILES.name else BY_NAME.get(language, GRAMMAR)
