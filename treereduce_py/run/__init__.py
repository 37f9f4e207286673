"""One reduction and the ways to start it: options, the session (golden run, stages, polish,
final re-test), the library facade `reduce` and batch mode. Imports everything below it."""
