; Replacement hints for Bash: each pattern captures one node as @replace and names the smaller
; text it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py).
; See docs/queries.md.

; Bodies: a group or loop body that does nothing (`:` is the shell's no-op command).
((compound_statement) @replace (#set! replacement "{ :;}"))
((do_group) @replace (#set! replacement "do :;done"))

; Commands: the no-op command.
((command) @replace (#set! replacement ":"))
((command_substitution) @replace (#set! replacement "$(:)"))

; Conditions: always true for an if, always false for a loop (it ends at once).
((if_statement condition: (_) @replace) (#set! replacement ":"))
((while_statement condition: (_) @replace) (#set! replacement "false"))

; Literals: the smallest of their kind.
((string) @replace (#set! replacement "\"\""))
((raw_string) @replace (#set! replacement "''"))
((number) @replace (#set! replacement "0"))
((number) @replace (#set! replacement "1"))
((array) @replace (#set! replacement "()"))
