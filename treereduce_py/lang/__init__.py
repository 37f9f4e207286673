"""Languages: which grammar reads an input, the flattened parse (`NodeTable`) and the query
files' hints. The ground floor: imports nothing else of the package."""
