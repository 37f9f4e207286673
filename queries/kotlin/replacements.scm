; Replacement hints for Kotlin: each pattern captures one node as @replace and names the smaller
; text it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py).
; See docs/queries.md.

; Bodies: function, class, branch and lambda bodies can be empty.
((function_body) @replace (#set! replacement "{}"))
((class_body) @replace (#set! replacement "{}"))
((control_structure_body) @replace (#set! replacement "{}"))
((lambda_literal) @replace (#set! replacement "{}"))

; Literals: the smallest of their kind.
((integer_literal) @replace (#set! replacement "0"))
((integer_literal) @replace (#set! replacement "1"))
((long_literal) @replace (#set! replacement "0L"))
((real_literal) @replace (#set! replacement "0.0"))
((string_literal) @replace (#set! replacement "\"\""))
((character_literal) @replace (#set! replacement "'a'"))

; Lists: no arguments, no parameters.
((value_arguments) @replace (#set! replacement "()"))
((function_value_parameters) @replace (#set! replacement "()"))

; Conditions: an if that is always taken.
((if_expression condition: (_) @replace) (#set! replacement "true"))

; Returns without a value.
((jump_expression "return") @replace (#set! replacement "return"))
