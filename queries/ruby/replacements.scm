; Replacement hints for Ruby: each pattern captures one node as @replace and names the smaller
; text it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py).
; See docs/queries.md.

; Bodies: a method, class, module or block body can be just `nil`.
((body_statement) @replace (#set! replacement "nil"))
((block_body) @replace (#set! replacement "nil"))
((do_block) @replace (#set! replacement "{}"))
((block) @replace (#set! replacement "{}"))

; Literals: the smallest of their kind.
((integer) @replace (#set! replacement "0"))
((integer) @replace (#set! replacement "1"))
((float) @replace (#set! replacement "0"))
((string) @replace (#set! replacement "\"\""))
((chained_string) @replace (#set! replacement "\"\""))
((array) @replace (#set! replacement "[]"))
((hash) @replace (#set! replacement "{}"))

; Lists: no arguments, no parameters (only where they are written in parentheses).
((argument_list "(") @replace (#set! replacement "()"))
((method_parameters "(") @replace (#set! replacement "()"))

; Conditions: always true for an if, always false for a loop (it ends at once).
((if condition: (_) @replace) (#set! replacement "true"))
((if_modifier condition: (_) @replace) (#set! replacement "true"))
((while condition: (_) @replace) (#set! replacement "false"))

; Returns without a value.
((return (argument_list)) @replace (#set! replacement "return"))
