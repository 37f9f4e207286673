"""What to try: planners that turn a parsed candidate into tasks (deletion, CDD over lists,
hoisting, replacements, renaming, inlining, calls, SMT-LIB rules, token pairs) and the text passes
(whitespace, tidying). Imports `lang` and `edit`, never the engine or the judge."""
