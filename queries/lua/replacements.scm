; Replacement hints for Lua: each pattern captures one node as @replace and names the smaller
; text it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py).
; See docs/queries.md.

; Literals and tables: the smallest of their kind.
((number) @replace (#set! replacement "0"))
((number) @replace (#set! replacement "1"))
((string) @replace (#set! replacement "\"\""))
((table_constructor) @replace (#set! replacement "{}"))

; Lists: no arguments, no parameters.
((arguments) @replace (#set! replacement "()"))
((parameters) @replace (#set! replacement "()"))

; Conditions: always true for an if, always false for a loop (it ends at once).
((if_statement condition: (_) @replace) (#set! replacement "true"))
((elseif_statement condition: (_) @replace) (#set! replacement "true"))
((while_statement condition: (_) @replace) (#set! replacement "false"))

; Expressions whose value rarely matters to the bug (a call is only an expression in a list;
; as a statement it must stay a call).
((binary_expression) @replace (#set! replacement "0"))
((expression_list (function_call) @replace) (#set! replacement "0"))

; Statements: return without values.
((return_statement) @replace (#set! replacement "return"))
