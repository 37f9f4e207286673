; Replacement hints for Swift: each pattern captures one node as @replace and names the smaller
; text it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py).
; See docs/queries.md.

; Bodies: function and type bodies can be empty.
((function_body) @replace (#set! replacement "{}"))
((class_body) @replace (#set! replacement "{}"))

; Literals: the smallest of their kind.
((integer_literal) @replace (#set! replacement "0"))
((integer_literal) @replace (#set! replacement "1"))
((real_literal) @replace (#set! replacement "0"))
((line_string_literal) @replace (#set! replacement "\"\""))
((multi_line_string_literal) @replace (#set! replacement "\"\""))
((array_literal) @replace (#set! replacement "[]"))
((dictionary_literal) @replace (#set! replacement "[:]"))

; Lists: no arguments.
((value_arguments) @replace (#set! replacement "()"))

; Conditions: always true for an if, always false for a loop (it ends at once).
((if_statement condition: (_) @replace) (#set! replacement "true"))
((while_statement condition: (_) @replace) (#set! replacement "false"))

; Returns without a value.
((control_transfer_statement "return" result: (_)) @replace (#set! replacement "return"))
