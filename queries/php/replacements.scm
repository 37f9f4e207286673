; Replacement hints for PHP: each pattern captures one node as @replace and names the smaller
; text it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py).
; See docs/queries.md.

; Bodies: blocks and class bodies can be empty.
((compound_statement) @replace (#set! replacement "{}"))
((declaration_list) @replace (#set! replacement "{}"))
((array_creation_expression) @replace (#set! replacement "[]"))

; Literals: the smallest of their kind.
((integer) @replace (#set! replacement "0"))
((integer) @replace (#set! replacement "1"))
((float) @replace (#set! replacement "0"))
((string) @replace (#set! replacement "''"))
((encapsed_string) @replace (#set! replacement "''"))

; Lists: no arguments, no parameters.
((arguments) @replace (#set! replacement "()"))
((formal_parameters) @replace (#set! replacement "()"))

; Conditions: always false (loops end at once), or always true for an if.
((parenthesized_expression) @replace (#set! replacement "(0)"))
((if_statement condition: (parenthesized_expression) @replace) (#set! replacement "(1)"))

; Expressions whose value rarely matters to the bug: a constant instead.
((binary_expression) @replace (#set! replacement "0"))
((function_call_expression) @replace (#set! replacement "0"))
((conditional_expression) @replace (#set! replacement "0"))

; Statements: return without a value.
((return_statement) @replace (#set! replacement "return;"))
