"""What the tree planner offers, node by node, on real inputs: a fingerprint of every task.

For bundled examples and generated bench inputs in nine languages (SMT-LIB's rules included),
each node's alternatives, the tasks exploring it starts, the follow-ups of its first
alternative failing, and the first tasks of the breadth-first, rename and merge planners, under
each setting of the stage options, are rendered one line each; the digest of those lines is
pinned. It was taken before query captures became plug-ins (issue 27), so a refactoring of the
planners or the captures that changes any candidate, or its order, fails here.
`python tests/test_offers.py DUMP` writes the lines, to diff two versions of the code.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from treereduce_py.edit.edits import Edits
from treereduce_py.run.reading import prepare
from treereduce_py.transform.planners import BreadthFirstPlanner, TreePlanner
from treereduce_py.transform.strategies import Stage

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "bench" / "cases"
TREE = Stage("tree", "syntax", "tree")

# Input -> (language, where it comes from: a file, or a bench generator and its arguments).
INPUTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "inventory.py": ("python", ("examples/python/inventory.py",)),
    "crash.c": ("c", ("examples/c/crash.c",)),
    "wf.rs": ("rust", ("bench/cases/rust-ice-wf/input.rs",)),
    "hrtb.rs": ("rust", ("bench/cases/rust-ice-hrtb/input.rs",)),
    "sort.cpp": ("cpp", ("bench/cases/cpp-sort-diagnostic/program.cpp",)),
    "ledger.java": ("java", ("java-ledger-exception", "7", "3")),
    "orders.js": ("javascript", ("js-orders-exception", "5", "8")),
    "inventory.go": ("go", ("go-inventory-panic", "11", "5")),
    "orders.py": ("python", ("python-orders-exception", "5", "8")),
    "orders.c": ("c", ("c-orders-abort", "5", "6")),
    "qfbv.smt2": ("smtlib", ("smt-qfbv-sort-error", "1", "4")),
    "lia.smt2": ("smtlib", ("smt-lia-config-disagree", "1", "3", "4")),
}

# Taken at 283d634, before the change; retaken when integers were offered `1` beside `0` and
# replacements as long as their node, where smaller (edit/order.py): with every Replace taken
# out of both dumps (`python tests/test_offers.py DUMP`), the only difference is an `after`
# line (an empty list) for each node that had no alternative before and now has one.
# sort.cpp (191 nodes, at most hoists.ROOT_NODES) retaken
# when every named node below the root's children was offered in place of the document, which
# is the only difference (the lines with `Hoist(node=0, ...)` taken out, the dumps are equal).
# Nine retaken when string and number literals were offered their trims (@trim, tokens.py): the
# new dump holds the old one's tasks in order on every line, plus only `Replace` tasks, and the
# follow-up lines of 72 SMT-LIB nodes that now have an alternative.
# sort.cpp retaken again when root hoists were kept to documents of one item: its dump lost
# every `Hoist(node=0, ...)` and the follow-up lines of nodes left with no alternative.
# All retaken at their merge, where a node's alternatives became each task once
# (TreePlanner.alternatives: a hint's `1` and a trim's `1` are one task; lia.smt2's trims were
# all such duplicates, so its digest is the original one again).
# orders.c retaken for @global (a C function whose body is one expression statement made a
# file-scope variable): its 16 changed lines each add only such Replace tasks, after the old ones.
# Nine retaken when operator tokens were offered a shorter operator (`==` -> `<`, `+=` -> `=`; a
# hint on an anonymous token, captures._replacements): with the new `Substitute` tasks taken out,
# the dumps are the old ones plus 13 follow-up lines in all, of nodes that now have an alternative.
# Seven retaken when a call of a function defined once was offered the calls its body makes,
# arguments in place of parameters (calls._unfold): every changed line holds the old one's tasks
# in order plus only `Substitute` tasks (106 in all), and 4 follow-up lines are new, of nodes
# that now have an alternative.
EXPECTED = {
    "inventory.py": "5a529c233b34c5e0",
    "crash.c": "2d78f07ced24bc2c",
    "wf.rs": "788ec6cd61626864",
    "hrtb.rs": "b5bbc66da8a548d8",
    "sort.cpp": "562737a272553907",
    "ledger.java": "0a0306c279bd6f91",
    "orders.js": "9a9555583f7c6443",
    "inventory.go": "8afa379d1df1ff9f",
    "orders.py": "14e748d5b84f7b42",
    "orders.c": "040b661cbee89631",
    "qfbv.smt2": "ce943486e697a8f9",
    "lia.smt2": "1ffd6dc1d285f9ab",
}


def source(name: str) -> bytes:
    where = INPUTS[name][1]
    if len(where) == 1:
        return (ROOT / where[0]).read_bytes()
    gen = CASES / where[0] / "gen.py"
    done = subprocess.run([sys.executable, gen, *where[1:]], capture_output=True, check=True)
    return done.stdout


def offered(lang: str, src: bytes) -> list[str]:
    """One line for each question the planners answer about each node, in node order."""
    table, facts, _ = prepare(TREE, src, lang, ())
    out: list[str] = []
    for hoist, replace in ((True, True), (True, False), (False, True)):
        out.append(f"# hoist={hoist} replace={replace}")
        planner = TreePlanner(table, facts, hoist=hoist, replace=replace)
        out.append(f"initial {list(planner.initial())!r}")
        out += [f"alternatives {n} {planner.alternatives(n)!r}" for n in range(len(table))]
        for n in range(len(table)):
            fresh = TreePlanner(table, facts, hoist=hoist, replace=replace)
            out.append(f"explore {n} {fresh.explore(n)!r}")
        for n in range(len(table)):
            fresh = TreePlanner(table, facts, hoist=hoist, replace=replace)
            alternatives = fresh.alternatives(n)
            if alternatives:
                failed = fresh.after(alternatives[0], False, Edits())
                out.append(f"after {n} {list(failed)!r}")
    out.append(f"breadth-first {list(BreadthFirstPlanner(table, facts).initial())!r}")
    for kind in ("rename", "merge"):
        first = Stage(kind, "syntax", kind).planner(table, facts).initial()
        out.append(f"{kind} {list(first)!r}")
    return out


def digest(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_the_planners_offer_what_they_offered(name: str) -> None:
    lang = INPUTS[name][0]
    assert digest(offered(lang, source(name))) == EXPECTED[name]


if __name__ == "__main__":
    dump: list[str] = []
    for name, (lang, _) in INPUTS.items():
        lines = offered(lang, source(name))
        print(f"{name:14} {lang:11} {len(lines):6} lines  {digest(lines)}")
        dump += [f"== {name}", *lines]
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text("\n".join(dump) + "\n")
