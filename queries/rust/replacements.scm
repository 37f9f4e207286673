; Replacement hints for Rust: each pattern captures one node as @replace and names the smaller
; text it may become. A hint is only tried when it makes the node's text shorter.
; See docs/queries.md.

; Bodies: blocks, struct, enum, impl, trait and module bodies can be empty.
((block) @replace (#set! replacement "{}"))
((field_declaration_list) @replace (#set! replacement "{}"))
((ordered_field_declaration_list) @replace (#set! replacement "()"))
((enum_variant_list) @replace (#set! replacement "{}"))
((declaration_list) @replace (#set! replacement "{}"))

; Literals: the smallest of their kind (a float stays a float so it still type-checks).
((integer_literal) @replace (#set! replacement "0"))
((float_literal) @replace (#set! replacement "0.0"))
((string_literal) @replace (#set! replacement "\"\""))
((raw_string_literal) @replace (#set! replacement "\"\""))
((char_literal) @replace (#set! replacement "'a'"))
((array_expression) @replace (#set! replacement "[]"))

; Lists: no arguments, no parameters, an empty macro call, one simple generic argument.
((arguments) @replace (#set! replacement "()"))
((parameters) @replace (#set! replacement "()"))
((closure_parameters) @replace (#set! replacement "||"))
((macro_invocation (token_tree) @replace) (#set! replacement "()"))
((type_arguments) @replace (#set! replacement "<i32>"))

; Conditions: always true for an if, always false for a loop (it ends at once).
((if_expression condition: (_) @replace) (#set! replacement "true"))
((while_expression condition: (_) @replace) (#set! replacement "false"))

; Calls: `todo!()` has the never type, so it type-checks wherever the call did.
((call_expression) @replace (#set! replacement "todo!()"))

; Returns without a value.
((return_expression) @replace (#set! replacement "return"))

; Types: the unit type for signatures and fields, an inferred type for `let`.
((function_item return_type: (_) @replace) (#set! replacement "()"))
((parameter type: (_) @replace) (#set! replacement "()"))
((field_declaration type: (_) @replace) (#set! replacement "()"))
((let_declaration type: (_) @replace) (#set! replacement "_"))
