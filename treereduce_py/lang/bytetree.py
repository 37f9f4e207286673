"""A tree of byte chunks for binary input, so that binary files are reduced by the same engine.

A binary file has no lines or tokens to trust, but it has locality: a header, records, a payload
that goes as a whole. `chunk_table` cuts the bytes into aligned chunks at sizes that are powers
of 16 (4 KB, 256 B, 16 B, 1 B, ...), each chunk the parent of the sixteen below it, and flattens
that into the same `NodeTable` a parse gives. The tree stage's CDD over a node's children is then
ddmin over chunks from large to small: whole kilobytes go first, single bytes last.

Nothing is decoded: a candidate is the input's own bytes with chunks cut out, so a result is
byte for byte what its test saw. Chunks of one size are all one kind, and no chunk holds another
of its size, so nothing is hoisted; a chunk is only ever deleted.
"""

from __future__ import annotations

from treereduce_py.lang.syntax import NodeTable

# Children of a chunk: the chunk sizes are powers of this.
FAN_OUT = 16
# Leaves are as fine as this many of them allow: single bytes up to 64 KB, 16 bytes up to 1 MB.
# A finer table would hold more deletions than a run could test; passes repeat on the shrunk
# result, whose table is finer.
MAX_LEAVES = 1 << 16


def leaf_size(length: int) -> int:
    """The smallest chunk size (a power of FAN_OUT) that cuts `length` bytes into at most
    MAX_LEAVES leaves."""
    size = 1
    while length > size * MAX_LEAVES:
        size *= FAN_OUT
    return size


def chunk_table(data: bytes) -> NodeTable:
    """`data` as a tree of aligned chunks: the children of the root, and of each chunk, are the
    chunks of the largest size (a power of FAN_OUT) smaller than it, so at least two of them,
    down to `leaf_size(len(data))`; chunks of the finest size are leaves. Chunk kinds are named
    by their size (`chunk-256`, a partial chunk at the end included); the root's kind is `bytes`.
    All nodes are named."""
    n = len(data)
    sizes = [leaf_size(n)]  # chunk sizes, finest first
    while sizes[-1] * FAN_OUT < n:
        sizes.append(sizes[-1] * FAN_OUT)
    start, end, kind, parent, depth = [0], [n], [0], [-1], [0]
    stack = _chunks(sizes, 0, n, 0, 1)  # chunks still to write, the next one last
    while stack:
        offset, stop, level, p, d = stack.pop()
        i = len(start)
        start.append(offset)
        end.append(stop)
        kind.append(level + 1)
        parent.append(p)
        depth.append(d)
        stack.extend(_chunks(sizes, offset, stop, i, d + 1))
    kind_names = ("bytes", *(f"chunk-{s}" for s in sizes))
    named = b"\x01" * len(start)
    return NodeTable.from_preorder(data, start, end, kind, named, parent, depth, kind_names)


def _chunks(
    sizes: list[int], offset: int, stop: int, p: int, d: int
) -> list[tuple[int, int, int, int, int]]:
    """The children of the node spanning offset..stop (row `p`, at depth `d - 1`), the last
    first: chunks of the largest size below its length (none below the finest), so no node has
    one child spanning all of it. Each is (offset, stop, level, parent row, depth)."""
    level = len(sizes) - 1
    while level >= 0 and sizes[level] >= stop - offset:
        level -= 1
    if level < 0:
        return []
    size = sizes[level]
    return [(o, min(o + size, stop), level, p, d) for o in reversed(range(offset, stop, size))]


def byte_table(data: bytes) -> NodeTable:
    """`data` as a flat list: the root and one leaf per byte (kind `byte`), for the stage that
    deletes runs of bytes across chunk boundaries (transform/spans.py)."""
    n = len(data)
    start = [0, *range(n)]
    end = [n, *range(1, n + 1)]
    kind = [0] + [1] * n
    parent = [-1] + [0] * n
    depth = [0] + [1] * n
    named = b"\x01" * (n + 1)
    return NodeTable.from_preorder(data, start, end, kind, named, parent, depth, ("bytes", "byte"))
