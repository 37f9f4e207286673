"""Running tasks: the shared task heap, the worker pool with merge-and-verify, the one commit
service every change of the best goes through, and the one place that writes results. Imports
`lang`, `edit` and `judge`."""
