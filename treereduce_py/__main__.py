"""`python -m treereduce_py` runs the command line."""

import sys

from treereduce_py.front.cli import main

sys.exit(main())
