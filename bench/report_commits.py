"""Which commits a family's stored runs measured: one label per measured version, an error for
several unless the page may mix them, and the page's warning when it does."""

from __future__ import annotations

from typing import Any

import provenance
from report_markdown import Run


class MixedCommits(Exception):
    """Stored parallel or scale runs come from more than one commit (render them with
    --allow-mixed)."""


def _commit_of(run: Run) -> str:
    """A run's commit stamp, or for runs stored before stamps, its version's "+<commit>"."""
    return str(run.get("commit") or str(run["version"]).rpartition("+")[2])


def family_commits(runs: list[Run], family: str, allow_mixed: bool) -> list[str]:
    """The runs' measured versions (see _versions); raises MixedCommits for several unless
    allowed."""
    first: dict[str, str] = {}  # commit -> the date and time of its first run
    for r in sorted(runs, key=lambda r: r["date"]):
        first.setdefault(_commit_of(r), r["date"])
    labels = _versions(first)
    if len(labels) > 1 and not allow_mixed:
        raise MixedCommits(f"the {family} runs mix commits: " + ", ".join(labels))
    return labels


def _versions(first: dict[str, str]) -> list[str]:
    """One label per measured version: its first commit and date, and the later commits whose
    runs measured the same code (they differ only in stored results, docs or tests)."""
    labels = []
    for group in provenance.versions(first):
        label = f"{group[0]} ({first[group[0]][:10]})"
        if len(group) > 1:
            label += (
                f" and {', '.join(group[1:])}, which change only what a run does not measure"
                " (stored results, docs, tests, the driver of a sitting)"
            )
        labels.append(label)
    return labels


def mixed_note(
    commits: list[str], how: str = "rendered with `--allow-mixed`; see the commit column"
) -> list[str]:
    """The page's warning when the runs of one table come from several commits."""
    if len({c.split()[0] for c in commits}) <= 1:
        return []
    return [
        f"**These runs come from {len(commits)} commits, not one run of one commit** ({how}).",
        "",
    ]


def stamp_note(result: dict[str, Any]) -> str:
    """ " Commit X, DATE." for a stamped result; results stored before stamps say so."""
    if "commit" not in result:
        return " Stored before runs were stamped with their commit."
    return f" Commit {result['commit']}, {result['date']}."
