"""The progress order: which of two interesting texts is smaller, so which one a reduction keeps.

A candidate is progress over the best when it is shorter, or as long and smaller byte by byte at
the first byte where they differ (shortlex, as Shrink Ray orders its candidates). Length first
keeps the reducer a reducer; the tie-break lets moves that keep the length count too: a `6`
that becomes a `1`, a name that becomes `a`, a run of bytes that becomes zeros. In byte order
digits run toward `0`, letters toward `A` and `a`, and any printable text toward spaces and
newlines, which later passes delete.

Moves that keep the length can also lose information a later deletion needed (a call's `6`
made `0` before the guard that turned it into a zero could go), so the engine asks for strict
shortening in every pass, and the session runs a round that takes as-long progress only once
the deletions have reached their fixed point; when that round changes anything, the deletions
run again.

The order is total and well-founded (finitely many texts are shorter than or as long as any
text), so a reduction that only commits progress ends; and it depends on nothing but the two
texts, so `--deterministic` keeps its output at any `--jobs`.
"""

from __future__ import annotations


def shorter(candidate: bytes, best: bytes) -> bool:
    """Is `candidate` strictly shorter than `best` (the order of every pass but the last)?"""
    return len(candidate) < len(best)


def smaller(candidate: bytes, best: bytes) -> bool:
    """Is `candidate` progress over `best` (shorter, or as long and lexicographically smaller)?"""
    if len(candidate) != len(best):
        return len(candidate) < len(best)
    return candidate < best
