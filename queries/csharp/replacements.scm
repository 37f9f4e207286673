; Replacement hints for C#: each pattern captures one node as @replace and names the smaller
; text it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py).
; See docs/queries.md.

; Bodies: blocks, type and namespace bodies, initializers can be empty.
((block) @replace (#set! replacement "{}"))
((declaration_list) @replace (#set! replacement "{}"))
((enum_member_declaration_list) @replace (#set! replacement "{}"))
((initializer_expression) @replace (#set! replacement "{}"))

; Literals: the smallest of their kind (an int converts to long, float and double).
((integer_literal) @replace (#set! replacement "0"))
((integer_literal) @replace (#set! replacement "1"))
((real_literal) @replace (#set! replacement "0"))
((string_literal) @replace (#set! replacement "\"\""))
((verbatim_string_literal) @replace (#set! replacement "\"\""))
((raw_string_literal) @replace (#set! replacement "\"\""))
((interpolated_string_expression) @replace (#set! replacement "\"\""))
((character_literal) @replace (#set! replacement "'a'"))

; Lists: no arguments, no parameters.
((argument_list) @replace (#set! replacement "()"))
((parameter_list) @replace (#set! replacement "()"))

; Conditions: always true for an if, always false for a loop (it ends at once).
((if_statement condition: (_) @replace) (#set! replacement "true"))
((while_statement condition: (_) @replace) (#set! replacement "false"))

; Statements: return without a value.
((return_statement) @replace (#set! replacement "return;"))

; Types: a local variable's type can be inferred.
((local_declaration_statement (variable_declaration type: (_) @replace))
  (#set! replacement "var"))
