"""treereduce-py: a fast, parallel, syntax-aware test-case reducer for any language tree-sitter
can parse. The library entry points are `reduce` (a file's bytes) and `reduce_directory` (a
directory); the command line is `treereduce-py`."""

from treereduce_py.run.api import (
    BadOptions,
    FlakyTest,
    NotInteresting,
    ReduceError,
    ReduceOptions,
    Result,
    reduce,
)
from treereduce_py.run.directory import reduce_directory

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
    "reduce_directory",
]
