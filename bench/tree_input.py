"""A case whose input is a directory: its size over all files, and how each reducer is given it.

A directory case's figures are over its regular files: bytes summed, files counted, tokens over
their contents. treereduce-py takes the directory (``DIR -- TEST @@``, ``@@`` naming a private
copy) and Shrink Ray takes it in its directory mode (``--input-type arg``: the test gets a copy
of the directory). C-Vise 2.7 and C-Reduce 2.11 take several files, but only files in their
current directory (C-Vise refuses a name with a folder in it), and run the test there without
arguments. So for them the runner lays the tree out flat, each relative path with ``/`` written
as ``__`` (a top-level file keeps its name, so ``#include "buf.h"`` still names it), and the
wrapper rebuilds the tree from the flat files in a private directory before it calls the test
with that directory. They cannot delete a file: one they emptied stays in the result, empty.
"""

from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

SEP = "__"  # a folder separator in a flat name
FLATMAP = "flat.map"  # the flat layout in a run directory: "FLAT<TAB>RELATIVE PATH" lines


def tree_files(root: Path) -> list[str]:
    """The tree's regular files (symbolic links not followed), as sorted relative paths."""
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink()
    )


def measure(path: Path) -> tuple[int, int]:
    """(bytes, files) of a file (one) or of a directory (over its regular files).

    Raises OSError when ``path`` cannot be read (a tool replacing it at that moment)."""
    if not path.is_dir():
        return path.stat().st_size, 1
    sizes = [(path / rel).stat().st_size for rel in tree_files(path)]
    return sum(sizes), len(sizes)


def contents(path: Path) -> bytes:
    """A file's bytes, or a directory's files' bytes one after another, in path order (what
    its tokens are counted over)."""
    if not path.is_dir():
        return path.read_bytes()
    return b"\n".join((path / rel).read_bytes() for rel in tree_files(path))


def copy_input(source: Path, target: Path) -> None:
    """Copy a file or a whole directory to ``target`` (replaced if it exists)."""
    if target.is_dir():
        shutil.rmtree(target)
    elif target.exists():
        target.unlink()
    if source.is_dir():
        shutil.copytree(source, target, symlinks=True)
    else:
        shutil.copyfile(source, target)


def flat_layout(root: Path) -> list[tuple[str, str]]:
    """(flat name, relative path) of each file of the tree, for C-Vise and C-Reduce.

    Raises ValueError when two paths would get the same flat name (``a/b`` and ``a__b``)."""
    pairs = [(rel.replace("/", SEP), rel) for rel in tree_files(root)]
    names = [flat for flat, _ in pairs]
    if len(set(names)) != len(names):
        raise ValueError(f"{root}: two files would share a flat name (a path holding {SEP!r})")
    return pairs


def lay_flat(root: Path, into: Path) -> list[str]:
    """Write the tree's files flat into ``into`` with the layout in ``into/FLATMAP``; their
    flat names."""
    pairs = flat_layout(root)
    for flat, rel in pairs:
        shutil.copyfile(root / rel, into / flat)
    (into / FLATMAP).write_text("".join(f"{flat}\t{rel}\n" for flat, rel in pairs))
    return [flat for flat, _ in pairs]


def rebuild(flat_dir: Path, into: Path) -> Path:
    """The tree laid out flat in ``flat_dir`` (its FLATMAP) rebuilt at ``into``; ``into``."""
    into.mkdir(parents=True)
    for line in (flat_dir / FLATMAP).read_text().splitlines():
        flat, rel = line.split("\t")
        (into / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(flat_dir / flat, into / rel)
    return into


def archive(root: Path, target: Path) -> None:
    """A tar of the tree (its files in path order, named under the tree's own name), so a
    run's final directory is kept like a final file."""
    with tarfile.open(target, "w") as tar:
        for rel in tree_files(root):
            tar.add(root / rel, arcname=f"{root.name}/{rel}", recursive=False)


WRAPPER = """#!/usr/bin/env bash
# Counts the tests a reducer runs on a directory, runs the case's real test with the directory,
# and keeps the smallest interesting one seen (its bytes over all files), should it be killed.
# Its log is bench/run.py's wrapper's: "s TIME PID", "e TIME PID RC", "b TIME BYTES".
printf 's %s %s\\n' "$EPOCHREALTIME" "$$" >> {counter}
tmp=""
if [ $# -gt 0 ]; then
    cand="$1"
else
    # C-Vise and C-Reduce test the files flat in the current directory: rebuild the tree.
    tmp="$(mktemp -d)"
    cand="$tmp/{name}"
    mkdir -p "$cand"
    while IFS=$'\\t' read -r flat rel; do
        mkdir -p "$(dirname "$cand/$rel")" && cp "$flat" "$cand/$rel"
    done < {flatmap}
fi
size=$(find "$cand" -type f -printf '%s\\n' | awk '{{s += $1}} END {{print s + 0}}')
{test} "$cand"
rc=$?
printf 'e %s %s %s\\n' "$EPOCHREALTIME" "$$" "$rc" >> {counter}
# After the time limit (the runner creates {stopped}) tests still running no longer count.
if [ "$rc" -eq 0 ] && [ ! -e {stopped} ]; then
    (
        flock 9
        best=$(cat {best}.size 2>/dev/null || echo 999999999999)
        if [ "$size" -lt "$best" ]; then
            rm -rf {best}.tmp && cp -r "$cand" {best}.tmp && rm -rf {best} &&
                mv {best}.tmp {best} && echo "$size" > {best}.size
            printf 'b %s %s\\n' "$EPOCHREALTIME" "$size" >> {counter}
        fi
    ) 9>>{best}.lock
fi
[ -z "$tmp" ] || rm -rf "$tmp"
exit $rc
"""
