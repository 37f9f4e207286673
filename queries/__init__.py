"""Per-language tree-sitter query files with reduction hints (see docs/queries.md)."""
