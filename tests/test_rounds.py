"""List reductions in rounds (transform/rounds.py): the next CDD round started while the
current one runs, kept when its assumption holds and dropped, untested, when it does not."""

from __future__ import annotations

from collections.abc import Iterable

from test_engine import Run, keeps

from treereduce_py.edit.edits import Edits
from treereduce_py.edit.tasks import DeleteChunk, Task, task_edits
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.transform.planners import FlatPlanner
from treereduce_py.transform.rounds import AHEAD_OUT

TEXT = b"".join(b"line %02d\n" % i for i in range(40))


def chunks(tasks: Iterable[Task]) -> list[DeleteChunk]:
    """`tasks`, every one of them a chunk."""
    out = list(tasks)
    assert all(isinstance(t, DeleteChunk) for t in out)
    return [t for t in out if isinstance(t, DeleteChunk)]


def fail_all(planner: FlatPlanner, tasks: list[DeleteChunk], edits: Edits) -> list[Task]:
    """Answer every task as failed; what the planner queues after them."""
    return [t for task in tasks for t in planner.after(task, False, edits)]


def two_out(plain: FlatPlanner, eager: FlatPlanner) -> list[DeleteChunk]:
    """The first round of both planners, all but its last two chunks answered as failed."""
    first = chunks(plain.initial())
    assert chunks(eager.initial()) == first and len(first) > AHEAD_OUT + 1
    assert fail_all(plain, first[:-2], Edits()) == fail_all(eager, first[:-3], Edits()) == []
    assert eager.speculate(first[-1]) == []  # three out: all three failing is less likely
    assert fail_all(eager, [first[-3]], Edits()) == []
    return first


def test_a_round_started_early_on_failures_is_the_round_when_they_fail() -> None:
    table = NodeTable.from_lines(TEXT)
    plain, eager = FlatPlanner(table), FlatPlanner(table)
    first = two_out(plain, eager)
    ahead = chunks(eager.speculate(first[-2]))
    assert ahead and eager.speculate(first[-1]) == []  # once a round
    assert ahead == fail_all(plain, first[-2:], Edits())  # the round the schedule gives next
    assert fail_all(eager, first[-2:], Edits()) == []  # already queued: nothing more
    assert all(eager.wanted(t) for t in ahead)
    # Its answers count: the round after it comes when the last of them is answered.
    assert fail_all(eager, ahead, Edits()) == fail_all(plain, ahead, Edits())


def test_a_round_started_early_is_dropped_untested_when_a_chunk_succeeds_after_all() -> None:
    table = NodeTable.from_lines(TEXT)
    plain, eager = FlatPlanner(table), FlatPlanner(table)
    first = two_out(plain, eager)
    ahead = chunks(eager.speculate(first[-2]))
    edits = task_edits(table, Edits(), first[-1])
    assert edits is not None
    answers = [(first[-2], False), (first[-1], True)]
    assert eager.after(ahead[0], False, Edits()) == []  # an early answer waits for its round
    got = [t for task, ok in answers for t in eager.after(task, ok, edits)]
    want = [t for task, ok in answers for t in plain.after(task, ok, edits)]
    assert got == want and got != ahead  # the next round on what is left, as without it
    dropped = [t for t in ahead[1:] if t not in got]
    assert dropped and not any(eager.wanted(t) for t in dropped)  # the engine skips them
    assert all(eager.wanted(t) for t in got)
    assert eager.after(dropped[0], True, edits) == []  # settled without a test: no follow-ups


def test_rounds_started_early_reach_the_same_result_in_parallel_and_cost_no_more_tests() -> None:
    one = Run(keeps(b"line 03", b"line 31"), jobs=1, text=TEXT)
    assert one.run(FlatPlanner(one.table))
    four = Run(keeps(b"line 03", b"line 31", sleep=0.005), jobs=4, text=TEXT)
    assert four.run(FlatPlanner(four.table))
    assert four.best.data == one.best.data == b"line 03\nline 31\n"
    assert sum(four.counters.wasted.values()) <= four.counters.tests


def passed_but_last(eager: FlatPlanner, first: list[DeleteChunk]) -> list[DeleteChunk]:
    """Report every chunk of the first round but the last as passed and waiting for a merge,
    then the last as failed (settled, then speculated on, as the engine does); the round the
    planner starts early: only then, when no chunk is out."""
    assert all(chunks(eager.speculate(task, passed=True)) == [] for task in first[:-1])
    assert eager.after(first[-1], False, Edits()) == []
    return chunks(eager.speculate(first[-1]))


def test_a_round_started_early_on_passed_chunks_is_the_round_when_their_merge_passes() -> None:
    """Chunks that passed on an overtaken state wait for their merge, which nearly always
    passes: the next round starts then, as if they were deleted, not after the merge."""
    table = NodeTable.from_lines(TEXT)
    plain, eager = FlatPlanner(table), FlatPlanner(table)
    first = chunks(plain.initial())
    assert chunks(eager.initial()) == first and len(first) > AHEAD_OUT + 1
    ahead = passed_but_last(eager, first)
    edits = Edits()
    for task in first[:-1]:
        more = task_edits(table, edits, task)
        assert more is not None
        edits = more
    answers = [(first[-1], False), *((task, True) for task in first[:-1])]
    want = [t for task, ok in answers for t in plain.after(task, ok, edits)]
    assert ahead and ahead == want  # the round the schedule gives once the merge is in
    assert [t for task, _ in answers[1:] for t in eager.after(task, True, edits)] == []
    assert all(eager.wanted(t) for t in ahead)


def test_a_round_started_early_on_passed_chunks_is_dropped_when_their_merge_fails() -> None:
    table = NodeTable.from_lines(TEXT)
    plain, eager = FlatPlanner(table), FlatPlanner(table)
    first = chunks(plain.initial())
    assert chunks(eager.initial()) == first
    ahead = passed_but_last(eager, first)
    # The merge failed: the passed chunks are settled as failed on the newer state.
    got = fail_all(eager, first[:-1], Edits())
    assert got == fail_all(plain, first, Edits()) and ahead and got != ahead
    dropped = [t for t in ahead if t not in got]
    assert dropped and not any(eager.wanted(t) for t in dropped)


def test_a_chunk_that_passed_speculates_no_exploration_of_its_nodes() -> None:
    """A single-node chunk that failed would have its node explored; one that passed will be
    deleted: only its list's next round may start (none here: the chunk is of no list)."""
    from treereduce_py.lang import languages
    from treereduce_py.transform.facts import SyntaxFacts
    from treereduce_py.transform.planners import TreePlanner

    text = b"def f():\n    a = 1\n    b = 2\n    return a + b\n"
    table = NodeTable.from_tree(text, languages.new_parser("python").parse(text))
    function = next(iter(table.children(0)))
    chunk = DeleteChunk((function,), 99, 0, 0, False)
    assert list(TreePlanner(table, SyntaxFacts()).speculate(chunk))  # a failure explores it
    assert list(TreePlanner(table, SyntaxFacts()).speculate(chunk, passed=True)) == []
