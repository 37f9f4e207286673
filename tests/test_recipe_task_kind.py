"""The recipe "Adding a task kind" (docs/design.md), checked: a toy kind defined here, outside
edit/tasks.py, in a few lines, and one planner line that offers it, run through a real reduction."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import treereduce_py
from treereduce_py.edit.edits import Edits
from treereduce_py.edit.tasks import Pairs, Task
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.transform.planners import TreePlanner
from treereduce_py.transform.strategies import PLANNERS, PlannerKindSpec


@dataclass(frozen=True)
class Stub(Task):
    """Replace a node by `...` (a toy: Python's shortest body)."""

    node: int

    def replacements(self, table: NodeTable, edits: Edits) -> Pairs | None:
        return [(self.node, b"...")] if edits.is_live(table, self.node) else None

    def edited(self) -> tuple[int, ...]:
        return (self.node,)

    def gain(self, table: NodeTable) -> int:
        return table.size(self.node) - 3


class StubbingPlanner(TreePlanner):
    """The tree planner, offering a Python block its stub where a deletion of it failed."""

    def alternatives(self, c: int) -> list[Task]:
        stub = [Stub(c)] if self.table.kind_name(c) == "block" else []  # the planner line
        return [*super().alternatives(c), *stub]


SOURCE = b"""def f(a, b):
    total = a + b
    return total * 2


class C:
    def g(self):
        for i in range(3):
            print(i)
"""


def defines_f_and_g(candidate: bytes) -> bool:
    """Interesting: still a module defining `f` and `g`, so the bodies cannot simply go."""
    try:
        compile(candidate, "<candidate>", "exec")
    except SyntaxError:
        return False
    return b"def f(" in candidate and b"def g(" in candidate


def reduce_python() -> bytes:
    options = treereduce_py.ReduceOptions(jobs=1, deterministic=True, polish=False, rename=False)
    return treereduce_py.reduce(
        SOURCE, language="python", test=defines_f_and_g, options=options
    ).reduced


def test_a_toy_task_kind_runs_through_a_real_reduction(monkeypatch: pytest.MonkeyPatch) -> None:
    # Without the toy kind, the bodies become `pass` (replacements.scm); with it, `...`, which
    # is shorter: the heap tries it first, the engine applies it, the test accepts it.
    assert reduce_python() == b"def f():\n    pass\n\n\ndef g():\n        pass\n"
    tree = PLANNERS["tree"]
    toy = PlannerKindSpec(lambda t, f, s, h, r: StubbingPlanner(t, f, s, h, r), tree.honours)
    monkeypatch.setitem(PLANNERS, "tree", toy)
    assert reduce_python() == b"def f():\n    ...\n\n\ndef g():\n        ...\n"
