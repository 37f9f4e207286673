"""`--list-languages`: every language name -l accepts, with the file names that select it.

One line a language: its name, then its extensions and well-known file names (what detection
reads, lang/language_table.py), so a user can see at a glance what is reducible and how a file
is recognized.
"""

from __future__ import annotations

from treereduce_py.lang import languages
from treereduce_py.lang.language_table import CASED_EXTENSIONS, DIALECTS, EXTENSIONS, FILE_NAMES


def language_lines() -> list[str]:
    """`NAME  .ext .ext FILENAME` for every language, sorted by name: extensions first, then
    whole file names."""
    names = sorted(set(languages.available()) | set(DIALECTS))
    extensions: dict[str, list[str]] = {name: [] for name in names}
    for table in (EXTENSIONS, CASED_EXTENSIONS):
        for extension, name in table.items():
            if name in extensions:
                extensions[name].append(extension)
    file_names: dict[str, list[str]] = {name: [] for name in names}
    for file_name, name in FILE_NAMES.items():
        if name in file_names:
            file_names[name].append(file_name)
    width = max(len(name) for name in names)
    lines = []
    for name in names:
        found = " ".join(sorted(extensions[name]) + sorted(file_names[name]))
        via = f" (read with the {DIALECTS[name]} grammar)" if name in DIALECTS else ""
        lines.append(f"{name:<{width}}  {found or '-'}{via}".rstrip())
    return lines
