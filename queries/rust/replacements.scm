; Replacement hints for Rust: each pattern captures one node as @replace and names the smaller
; text it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py).
; See docs/queries.md.

; Bodies: blocks, struct, enum, impl, trait and module bodies can be empty.
((block) @replace (#set! replacement "{}"))
((field_declaration_list) @replace (#set! replacement "{}"))
((ordered_field_declaration_list) @replace (#set! replacement "()"))
((enum_variant_list) @replace (#set! replacement "{}"))
((declaration_list) @replace (#set! replacement "{}"))

; Literals: the smallest of their kind (a float stays a float so it still type-checks).
((integer_literal) @replace (#set! replacement "0"))
((integer_literal) @replace (#set! replacement "1"))
((float_literal) @replace (#set! replacement "0.0"))
((string_literal) @replace (#set! replacement "\"\""))
((raw_string_literal) @replace (#set! replacement "\"\""))
; Inside literals (transform/tokens.py): a string's contents halved, an integer to 0 or 1
; (not a float: it would stop being one).
(string_literal) @trim
(raw_string_literal) @trim
(integer_literal) @trim
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

; Optional parts, dropped with their punctuation: return types, let types and initializers,
; visibility, attributes, else branches, generic parameters, where clauses.
(function_item "->" @drop return_type: (_) @drop)
(function_signature_item "->" @drop return_type: (_) @drop)
(closure_expression "->" @drop return_type: (_) @drop)
(let_declaration ":" @drop type: (_) @drop)
(let_declaration "=" @drop value: (_) @drop)
(visibility_modifier) @drop
(attribute_item) @drop
(inner_attribute_item) @drop
(if_expression alternative: (else_clause) @drop)
(type_parameters) @drop
(type_arguments) @drop
(where_clause) @drop
(mutable_specifier) @drop

; More expressions whose value rarely matters: a constant or the unit value instead.
((field_expression) @replace (#set! replacement "0"))
((unary_expression) @replace (#set! replacement "0"))
((binary_expression) @replace (#set! replacement "0"))
((reference_expression) @replace (#set! replacement "0"))
((match_expression) @replace (#set! replacement "()"))

; A variable used once: the declaration goes and its one use becomes the value (@inline; see
; docs/queries.md).
(let_declaration pattern: (identifier) @inline.name value: (_) @inline.value) @inline

; A definition with the statements that use its name (@define; see docs/queries.md): a class
; with the line that registers it, a function with its calls.
(function_item name: (identifier) @define.name) @define
(struct_item name: (type_identifier) @define.name) @define
(enum_item name: (type_identifier) @define.name) @define
(union_item name: (type_identifier) @define.name) @define
(trait_item name: (type_identifier) @define.name) @define
(type_item name: (type_identifier) @define.name) @define
(const_item name: (identifier) @define.name) @define
(static_item name: (identifier) @define.name) @define
(mod_item name: (identifier) @define.name) @define
(macro_definition name: (identifier) @define.name) @define
(let_declaration pattern: (identifier) @define.name) @define

; A call that may be pointed at another function (@call; see docs/queries.md): one its callee
; calls, or one the file uses as a value.
(call_expression function: (_) @call.callee arguments: (arguments) @call.arguments) @call

; A generic type that may become one of its type arguments (@hoist; see docs/queries.md).
(generic_type type_arguments: (type_arguments (_) @hoist.target)) @hoist

; Operators: a two- or three-character operator becomes a one-character one of the same use
; (`a == b` -> `a < b`, still a comparison; `&&` -> `&`), an assignment with an operator a plain
; one (`+=` -> `=`). The hint is on the operator token: it alone is replaced (captures.py).
(binary_expression operator: ["==" "!=" "<=" ">="] @replace (#set! replacement "<"))
(binary_expression operator: ["&&" "||" "<<" ">>"] @replace (#set! replacement "&"))
(compound_assignment_expr operator: _ @replace (#set! replacement "="))
