"""Whether a candidate is interesting: the oracle that runs the user's test, the cache, the
incremental syntax check, crash signatures and the golden run, budgets, and the errors that end a
run without a result. Imports `lang` and `edit`."""
