"""Tests for lang.bytetree: the chunk tree of any bytes keeps a parse's invariants and tiles
them; chunks are aligned powers of 16, largest first, never a single child spanning its parent;
leaves get coarser only for large inputs; and the tree planner's first list reduction is over
the largest chunks, with nothing to hoist."""

from __future__ import annotations

from conftest import assert_tiles
from hypothesis import given, settings
from hypothesis import strategies as st

from treereduce_py.edit.edits import Edits
from treereduce_py.edit.tasks import DeleteChunk, Hoist
from treereduce_py.lang.bytetree import FAN_OUT, MAX_LEAVES, chunk_table, leaf_size
from treereduce_py.transform.facts import SyntaxFacts
from treereduce_py.transform.planners import TreePlanner


@settings(deadline=None)
@given(st.binary(max_size=5000))
def test_any_bytes_are_tiled(data: bytes) -> None:
    assert_tiles(chunk_table(data), data)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 70_000))
def test_chunks_are_aligned_and_no_node_has_one_child(n: int) -> None:
    table = chunk_table(bytes(n))
    for i in range(1, len(table)):
        size = int(table.kind_name(i).removeprefix("chunk-"))
        assert table.start[i] % size == 0 and table.size(i) <= size
    for i in range(len(table)):
        kids = list(table.children(i))
        assert len(kids) != 1
        assert len(kids) <= FAN_OUT or i == 0


def test_a_file_of_29_kb_has_4_kb_chunks_down_to_single_bytes() -> None:
    table = chunk_table(bytes(29_000))
    top = list(table.children(0))
    assert [table.size(c) for c in top] == [4096] * 7 + [29_000 - 7 * 4096]
    assert {table.kind_name(i) for i in range(len(table))} == {
        "bytes", "chunk-4096", "chunk-256", "chunk-16", "chunk-1",
    }  # fmt: skip
    assert sum(table.first_child[i] == -1 for i in range(len(table))) == 29_000


def test_leaves_are_coarser_only_when_there_would_be_too_many() -> None:
    assert leaf_size(MAX_LEAVES) == 1
    assert leaf_size(MAX_LEAVES + 1) == FAN_OUT
    table = chunk_table(bytes(MAX_LEAVES * 4))
    leaves = [i for i in range(len(table)) if table.first_child[i] == -1]
    assert len(leaves) == MAX_LEAVES // 4 and all(table.size(i) == 16 for i in leaves)


def test_empty_and_single_byte_inputs_are_a_lone_root() -> None:
    for data in (b"", b"\x00"):
        table = chunk_table(data)
        assert len(table) == 1 and table.size(0) == len(data)


def test_the_planner_reduces_the_largest_chunks_first_and_hoists_nothing() -> None:
    table = chunk_table(bytes(range(256)) * 160)
    planner = TreePlanner(table, SyntaxFacts.build(table, None))
    (root,) = planner.initial()
    tasks = list(planner.after(root, False, Edits()))
    chunks = [t for t in tasks if isinstance(t, DeleteChunk)]
    first = [t for t in chunks if t.group == 1]
    assert first and all(table.size(n) == 4096 for t in first for n in t.nodes)
    # The elements' own lists start at once, one level deeper (eager exploration).
    assert {table.size(n) for t in chunks if t.group != 1 for n in t.nodes} == {256}
    assert not any(isinstance(t, Hoist) for t in tasks)
