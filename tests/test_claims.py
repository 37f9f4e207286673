"""engine/claims.py: which task a worker may take while others are tested and proposals wait.

A task that edits a node a running test or a held proposal edits is not taken while anything
independent is near the top of the heap; taken anyway (as the heap's best), it is still
refused while the test it overlaps is worth `DECLINE` times more; the whole text's deletion
blocks nothing.
"""

from __future__ import annotations

from treereduce_py.edit.tasks import Delete, DeleteChunk, footprint, gain
from treereduce_py.engine.claims import Claims, blocks_nothing
from treereduce_py.engine.passes import DECLINE
from treereduce_py.lang.syntax import NodeTable

# Line 00 is short and line 01 long, so that one's gain is over DECLINE times the other's.
TEXT = b"0\n" + b"1" * 40 + b"\n" + b"".join(b"line %02d\n" % i for i in range(2, 8))


def lines() -> tuple[NodeTable, list[int]]:
    table = NodeTable.from_lines(TEXT)
    return table, list(table.children(0))


def test_an_independent_task_is_claimed_and_an_overlapping_one_is_not() -> None:
    table, line = lines()
    claims = Claims(table)
    assert claims.claim(0, Delete(line[2]), taken=False)
    assert claims.claim(1, Delete(line[3]), taken=False)  # another line: independent
    assert not claims.claim(1, Delete(line[2]), taken=False)  # the node worker 0 edits
    claims.ended(0)
    assert claims.claim(1, Delete(line[2]), taken=False)  # free again once its test is over


def test_a_task_inside_a_running_deletion_waits_for_it() -> None:
    table, line = lines()
    claims = Claims(table)
    assert claims.claim(0, Delete(0), taken=False) and blocks_nothing(Delete(0))
    # The whole text's deletion blocks nothing: every task is inside it.
    assert claims.claim(1, Delete(line[4]), taken=False)


def test_the_heaps_best_is_taken_anyway_unless_the_test_it_overlaps_is_worth_far_more() -> None:
    table, line = lines()
    chunk = DeleteChunk((line[0], line[1]))  # the first two lines: worth over DECLINE x line 00
    small = Delete(line[0])
    assert gain(table, chunk) >= DECLINE * gain(table, small)
    claims = Claims(table)
    assert claims.claim(0, chunk, taken=False)
    # Inside the running chunk, the line is not independent; taken as the heap's best all the
    # same, it waits while the chunk (which usually passes, and then its test is lost) runs.
    assert not claims.claim(1, small, taken=False)
    assert not claims.claim(1, small, taken=True)
    claims.ended(0)
    # Beside a running test worth no more than itself, the heap's best is taken: speculation
    # rather than idling.
    assert claims.claim(0, small, taken=False)
    assert claims.claim(1, Delete(line[0]), taken=True)


def test_a_held_proposal_counts_as_a_running_test_until_released() -> None:
    table, line = lines()
    claims = Claims(table)
    held = Delete(line[6])
    claims.hold([held])
    assert not claims.claim(0, Delete(line[6]), taken=False)
    assert claims.claim(0, Delete(line[7]), taken=False)
    claims.release([held])
    assert claims.claim(1, Delete(line[6]), taken=False)


def test_a_task_overlapping_what_the_caller_names_is_not_independent() -> None:
    table, line = lines()
    claims = Claims(table)
    union = [footprint(table, Delete(line[2]))]  # a merge's union, as a rider must avoid it
    assert not claims.claim(0, Delete(line[2]), taken=False, also=union)
    assert claims.claim(0, Delete(line[3]), taken=False, also=union)
