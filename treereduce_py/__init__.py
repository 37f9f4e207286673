"""treereduce-py: a fast, parallel, syntax-aware test-case reducer for any language tree-sitter
can parse. The library entry point is `reduce`; the command line is `treereduce-py`."""

from treereduce_py.run.api import (
    BadOptions,
    FlakyTest,
    NotInteresting,
    ReduceError,
    ReduceOptions,
    Result,
    reduce,
)

__version__ = "0.1.0"

__all__ = [
    "BadOptions",
    "FlakyTest",
    "NotInteresting",
    "ReduceError",
    "ReduceOptions",
    "Result",
    "__version__",
    "reduce",
]
