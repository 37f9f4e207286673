; Replacement hints for Scala: each pattern captures one node as @replace and names the smaller
; text it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py).
; See docs/queries.md.

; Bodies: blocks and class or object bodies can be empty.
((block) @replace (#set! replacement "{}"))
((template_body) @replace (#set! replacement "{}"))

; Literals: the smallest of their kind.
((integer_literal) @replace (#set! replacement "0"))
((integer_literal) @replace (#set! replacement "1"))
((floating_point_literal) @replace (#set! replacement "0"))
((string) @replace (#set! replacement "\"\""))
((interpolated_string_expression) @replace (#set! replacement "\"\""))
((character_literal) @replace (#set! replacement "'a'"))

; Lists: no arguments, no parameters.
((arguments) @replace (#set! replacement "()"))
((parameters) @replace (#set! replacement "()"))
((class_parameters) @replace (#set! replacement "()"))

; Conditions: always true for an if, always false for a loop (it ends at once).
((if_expression condition: (parenthesized_expression) @replace) (#set! replacement "(true)"))
((while_expression condition: (parenthesized_expression) @replace) (#set! replacement "(false)"))

; Expressions: `???` has type Nothing, so it type-checks wherever the expression did.
((call_expression) @replace (#set! replacement "???"))
((infix_expression) @replace (#set! replacement "???"))

; Returns without a value.
((return_expression) @replace (#set! replacement "return"))
