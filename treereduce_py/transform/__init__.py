"""What to try: planners that turn a parsed candidate into tasks (deletion, CDD over lists,
hoisting, replacements, renaming, token pairs), the plug-ins that offer them what else to try
(query captures: inlining, calls, ...; SMT-LIB rules), and the text passes (whitespace,
tidying). Imports `lang` and `edit`, never the engine or the judge."""
