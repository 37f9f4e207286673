"""Whether a candidate is interesting: the oracle protocol and its executors (a command through
the process runner, a predicate, a Dask cluster, shared test slots), the cache, the incremental
syntax check, crash signatures and the golden run, budgets and timeouts, and the errors that end
a run without a result. Imports `lang` and `edit`."""
