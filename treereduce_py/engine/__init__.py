"""Running tasks: the shared task heap, the worker pool with its one commit path and
merge-and-verify, and the one place that writes results. Imports `lang`, `edit` and `judge`."""
