"""The library entry point: `reduce(source, language=..., test=...) -> Result`.

A facade over `session.Session`: it resolves the language and the test, and gathers the
options into one frozen `ReduceOptions`. The CLI is a thin layer over this function.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from treereduce_py import events
from treereduce_py.judge.errors import (
    BadOptions,
    ClusterLost,
    ClusterUnreachable,
    FlakyTest,
    NotInteresting,
    ReduceError,
)
from treereduce_py.judge.oracle import Oracle, as_oracle
from treereduce_py.lang import languages
from treereduce_py.run import archive
from treereduce_py.run.options import ReduceOptions
from treereduce_py.run.session import Result, Session

__all__ = [
    "BadOptions",
    "ClusterLost",
    "ClusterUnreachable",
    "FlakyTest",
    "NotInteresting",
    "ReduceError",
    "ReduceOptions",
    "Result",
    "Test",
    "reduce",
]

Test = Callable[[bytes], bool] | Oracle


def reduce(
    source: bytes,
    *,
    language: str | None = None,
    test: Test,
    options: ReduceOptions | None = None,
    progress: events.EventSink | None = None,
    original: bytes | None = None,
    **overrides: Any,
) -> Result:
    """Reduce `source` while `test` stays true.

    `language` names its grammar, or `text` or `bytes` for input read without one (inputs.py);
    when None, it is told from the content (a `#!` line; else text or bytes, as
    `languages.detect_kind` does).
    `test` is a predicate on candidate bytes or an `Oracle` (see oracle.py: a class with one
    `check` method on top of `OracleBase` is one). `options` (default
    `ReduceOptions()`) says how; keyword `overrides` replace single fields of it, so
    `reduce(src, language="c", test=t, jobs=4)` works. `progress` receives every event.
    `original`: when `source` is an earlier result being resumed, the input it came from; a
    same-crash run takes its golden run on it (and checks that `source` still shows that crash).
    A zip archive read as bytes is first reduced member by member (run/archive.py; not when
    resuming, nor with `members=False`); the result's stats count both stages' tests.

    Raises NotInteresting when the original fails the test (or times out), FlakyTest when the
    final result fails its re-test and so does every earlier one tried (the input too: see
    run/final.py), BadOptions for options that cannot work together,
    languages.UnknownLanguage for an unknown language, KeyError for an unknown strategy,
    TypeError for an unknown option or a `test` that is neither, and oracle.OracleStartError
    when the test command cannot be started. A KeyboardInterrupt stops every test and
    propagates after the best is on disk.
    """
    opts = dataclasses.replace(options or ReduceOptions(), **overrides)
    lang = languages.canonical(language) if language else languages.detect_kind(None, source)
    oracle = as_oracle(test)
    sink = progress or (lambda _e: None)
    if lang == "bytes" and opts.members and original is None:
        unpacked = archive.reduce_members(source, oracle, opts, sink)
        if unpacked is not None:  # the bytes stage goes on from it, within what is left
            source, opts = unpacked
    return Session(source, lang, oracle, opts, sink, original).run()
