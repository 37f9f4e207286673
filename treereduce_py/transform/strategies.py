"""Strategies: which tasks to try, in which order; the engine decides nothing about that.

A strategy is a named list of *stages*; a stage says which table a pass works on (the syntax tree,
or lines/tokens for the final text polishing) and builds a `Planner` for each pass (planners.py)
from a registry of planner kinds, each stating which stage options it honours. List schedules
(CDD, ddmin) are chosen by name, and the presets (`priority`, `hdd`, `hierarchical`, `ddmin`,
`hybrid`) and the polish stages are registered here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from treereduce_py.edit.cdd import CDD, DEFAULT_P0, ListSchedule, cdd, ddmin, with_subsets
from treereduce_py.edit.tasks import Planner
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.transform.facts import SyntaxFacts
from treereduce_py.transform.names import MergePlanner, RenamePlanner
from treereduce_py.transform.planners import (
    BreadthFirstPlanner,
    FlatPlanner,
    LevelPlanner,
    PairPlanner,
    TreePlanner,
)
from treereduce_py.transform.spans import SpanPlanner

TableKind = Literal["syntax", "lines", "tokens", "bytes"]

PlannerKind = Literal[
    "tree", "flat", "levels", "breadth-first", "rename", "merge", "pairs", "spans"
]
ScheduleName = Literal["cdd", "ddmin", "wdd"]
StageOption = Literal["schedule", "hoist", "replace"]

SCHEDULES: dict[ScheduleName, Callable[[float], ListSchedule]] = {
    "cdd": lambda p0: cdd(p0, adaptive=True),
    "ddmin": lambda p0: ddmin(),
    # CDD with each round's chunks cut by bytes (WDD): off by default until it pays.
    "wdd": lambda p0: cdd(p0, adaptive=True, by_bytes=True),
}


@dataclass(frozen=True)
class PlannerKindSpec:
    """How to build one kind of planner, and which stage options it honours."""

    build: Callable[[NodeTable, SyntaxFacts, ListSchedule, bool, bool], Planner]
    honours: frozenset[StageOption]


# Arguments of each builder: table, facts, list schedule, hoist, replace.
PLANNERS: dict[PlannerKind, PlannerKindSpec] = {
    "tree": PlannerKindSpec(
        lambda t, f, s, h, r: TreePlanner(t, f, s, hoist=h, replace=r),
        frozenset({"schedule", "hoist", "replace"}),
    ),
    # A flat list's CDD also tries each chunk alone (cdd.CDD.subsets).
    "flat": PlannerKindSpec(
        lambda t, f, s, h, r: FlatPlanner(t, with_subsets(s)), frozenset({"schedule"})
    ),
    "levels": PlannerKindSpec(lambda t, f, s, h, r: LevelPlanner(t, s), frozenset({"schedule"})),
    "breadth-first": PlannerKindSpec(
        lambda t, f, s, h, r: BreadthFirstPlanner(t, f, hoist=h, replace=r),
        frozenset({"hoist", "replace"}),
    ),
    "rename": PlannerKindSpec(
        lambda t, f, s, h, r: RenamePlanner(t, f.names),
        frozenset(),
    ),
    "merge": PlannerKindSpec(lambda t, f, s, h, r: MergePlanner(t), frozenset()),
    "pairs": PlannerKindSpec(lambda t, f, s, h, r: PairPlanner(t), frozenset()),
    "spans": PlannerKindSpec(lambda t, f, s, h, r: SpanPlanner(t), frozenset()),
}


@dataclass(frozen=True)
class Stage:
    """One stage of a strategy: passes of one planner over one kind of table, repeated on the
    re-parsed result until a pass changes nothing.

    `schedule`, `hoist` and `replace` left as None take the planner's defaults (CDD, on, on);
    setting one the planner kind does not honour is a ValueError, never silently ignored.
    """

    name: str
    table: TableKind
    planner_kind: PlannerKind
    schedule: ScheduleName | None = None
    hoist: bool | None = None
    replace: bool | None = None

    def __post_init__(self) -> None:
        given = {"schedule": self.schedule, "hoist": self.hoist, "replace": self.replace}
        ignored = sorted(k for k, v in given.items() if v is not None and k not in self.honours)
        if ignored:
            raise ValueError(
                f"stage {self.name!r}: the {self.planner_kind} planner does not honour "
                + ", ".join(ignored)
            )

    @property
    def honours(self) -> frozenset[StageOption]:
        return PLANNERS[self.planner_kind].honours

    def planner(
        self, table: NodeTable, facts: SyntaxFacts, p0: float = DEFAULT_P0, width: int = 1
    ) -> Planner:
        """The stage's planner over `table`; a CDD schedule's rounds have at least `width`
        chunks (cdd.CDD.width)."""
        schedule = SCHEDULES[self.schedule or "cdd"](p0)
        if isinstance(schedule, CDD) and width > 1:
            schedule = dataclasses.replace(schedule, width=width)
        hoist = self.hoist if self.hoist is not None else True
        replace = self.replace if self.replace is not None else True
        return PLANNERS[self.planner_kind].build(table, facts, schedule, hoist, replace)


@dataclass(frozen=True)
class Strategy:
    name: str
    description: str
    stages: tuple[Stage, ...]


STRATEGIES: dict[str, Strategy] = {}


def register(strategy: Strategy) -> Strategy:
    STRATEGIES[strategy.name] = strategy
    return strategy


_DDMIN_STAGES = (
    Stage("ddmin-lines", "lines", "flat", "ddmin"),
    Stage("ddmin-tokens", "tokens", "flat", "ddmin"),
)
_HIERARCHICAL = Stage("hierarchical", "syntax", "breadth-first")

register(
    Strategy(
        "priority",
        "treereduce (seed 001): largest subtree first over the whole tree; child lists with CDD; "
        "hoisting and minimal replacements",
        (Stage("tree", "syntax", "tree"),),
    )
)
register(
    Strategy(
        "hdd",
        "HDD: level by level, ddmin over the nodes of each level (deletion only)",
        (Stage("hdd", "syntax", "levels", "ddmin"),),
    )
)
register(
    Strategy(
        "hierarchical",
        "ddSMT's hierarchical: breadth-first, every mutation of one node at a time",
        (_HIERARCHICAL,),
    )
)
register(Strategy("ddmin", "classic ddmin over lines, then tokens (syntax-unaware)", _DDMIN_STAGES))
register(
    Strategy(
        "hybrid",
        "ddSMT's default: ddmin to a fixed point, then hierarchical",
        (*_DDMIN_STAGES, _HIERARCHICAL),
    )
)

DEFAULT_STRATEGY = "priority"
# DDMIN* after the tree passes (seed 002, ch. 5): lines, then tokens, each to a fixed point;
# then token pairs, which neither finds one at a time.
POLISH_STAGES = (
    Stage("lines", "lines", "flat"),
    Stage("tokens", "tokens", "flat"),
    Stage("pairs", "tokens", "pairs"),
)
# Binary input has no lines or tokens: at the fixed point of its chunks, the runs of bytes that
# no aligned chunk holds (spans.py; Session.spans_round).
SPANS_STAGE = Stage("spans", "bytes", "spans")
RENAME_STAGE = Stage("rename", "syntax", "rename")
MERGE_STAGE = Stage("merge", "syntax", "merge")
