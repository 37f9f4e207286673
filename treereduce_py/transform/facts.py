"""What the planners know about one parse: the plug-ins' offers, and the language's rules.

The tree planner knows how to delete; everything else it may try on a node comes from a
plug-in. Each query capture (captures.py) offers the tasks it extracted from the query
matches; a language with rules of its own (SMT-LIB's sorts, smtlib.py) plugs in the same way,
offering its mutations and its first tasks, and also says which nodes may be deleted at all.
Rules replace the generic guesses (the smallest node of a kind, hoisting by kind, and every
capture but those they keep). `SyntaxFacts.build` runs the queries once over the tree, reads
the table once, and asks each plug-in; the planners ask the result, never a capture by name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import tree_sitter

from treereduce_py.lang.hints import QueryMatches, load_hints
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.transform.captures import (
    CAPTURES,
    Captured,
    Found,
    Offer,
    Parse,
    Switch,
    vocabulary,
)
from treereduce_py.transform.hoists import Kinds
from treereduce_py.transform.smtlib import SmtRules


class LanguageRules(Offer, Protocol):
    """A language's own knowledge of one parse (smtlib.SmtRules): an `Offer` (what a node may
    become instead, tasks to try first) that also says which nodes may be deleted."""

    def can_delete(self, node: int) -> bool: ...

    @property
    def names(self) -> frozenset[bytes]:
        """The names the script declares, whatever their leaves' kind (for renaming)."""
        ...

    @property
    def keeps(self) -> frozenset[str]:
        """The captures whose offers stay beside the rules' (`replace`: the query hints)."""
        ...


# Languages with rules of their own: a builder per language name.
LANGUAGE_RULES: dict[str, Callable[[NodeTable], LanguageRules]] = {"smtlib": SmtRules.build}


@dataclass(frozen=True)
class SyntaxFacts:
    """What the planners know about one parse beyond the table: the plug-ins' offers in the
    order they are asked, each with the stage option that switches it off (None: always on),
    and, where the language has rules, which nodes may be deleted and the names it declares."""

    offers: tuple[tuple[Switch | None, Offer], ...] = ()
    deletable: Callable[[int], bool] | None = None
    names: frozenset[bytes] = frozenset()

    @classmethod
    def build(
        cls,
        table: NodeTable,
        language: tree_sitter.Language | None,
        *,
        lang: str = "",
        tree: tree_sitter.Tree | None = None,
        queries: Sequence[Path] = (),
        replacements: bool = True,
    ) -> SyntaxFacts:
        """Run `lang`'s query files (bundled, then `queries`) over `tree` when it is given,
        read `table` once, and ask each registered capture and the language's rules
        (LANGUAGE_RULES) what they offer.

        Without `replacements`, no query runs and the table is not read: a huge text gets only
        the grammar's hoists and the rules. Raises hints.QueryFileError for a query file that
        cannot be used."""
        build_rules = LANGUAGE_RULES.get(lang)
        rules = build_rules(table) if build_rules is not None else None
        kinds = Kinds.of(language)
        parse = Parse(table, kinds)
        if replacements:
            matches = QueryMatches()
            if tree is not None and language is not None:
                hints = load_hints(lang, language, tuple(queries), vocabulary())
                matches = hints.matches(tree)
            parse = Parse.read(table, kinds, matches, smallest=rules is None)
        if rules is None:
            return cls(tuple((c.switch, c.run(parse)) for c in CAPTURES.values()))
        # Where a language has rules, they decide: no stage option switches an offer off.
        kept = [c.run(parse) for c in CAPTURES.values() if c.name in rules.keeps]
        return cls((*((None, c) for c in kept), (None, rules)), rules.can_delete, rules.names)

    def captured(self, name: str) -> Found:
        """What the capture `name` extracted from this parse (empty if it did not run)."""
        for _, offer in self.offers:
            if isinstance(offer, Captured) and offer.capture.name == name:
                return offer.found
        return {}
