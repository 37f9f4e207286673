"""The CLI with a directory's files at once (DirectorySession(at_once=True)), for A/B runs."""

import sys
from typing import Any

from treereduce_py.run import directory

_init = directory.DirectorySession.__init__


def _at_once(self: Any, *args: Any, **kwargs: Any) -> None:
    kwargs["at_once"] = True
    _init(self, *args, **kwargs)


directory.DirectorySession.__init__ = _at_once  # type: ignore[method-assign]
from treereduce_py.front.cli import main  # noqa: E402

sys.exit(main())
