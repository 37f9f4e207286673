"""Candidates as values: the edit set over a node table, the task kinds that change it, and the
list-reduction schedules (CDD, ddmin). Pure data and functions; imports only `lang`."""
