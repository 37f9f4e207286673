; Replacement hints for Go: each pattern captures one node as @replace and names the smaller
; text it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py).
; See docs/queries.md.

; Bodies: blocks, struct bodies and composite literal bodies can be empty.
((block) @replace (#set! replacement "{}"))
((field_declaration_list) @replace (#set! replacement "{}"))
((literal_value) @replace (#set! replacement "{}"))

; Literals: the smallest of their kind (untyped constants fit int and float alike).
((int_literal) @replace (#set! replacement "0"))
((int_literal) @replace (#set! replacement "1"))
((float_literal) @replace (#set! replacement "0"))
((interpreted_string_literal) @replace (#set! replacement "\"\""))
((raw_string_literal) @replace (#set! replacement "\"\""))
((rune_literal) @replace (#set! replacement "'a'"))

; Lists: no arguments, no parameters (a method's receiver must stay).
((argument_list) @replace (#set! replacement "()"))
((function_declaration parameters: (parameter_list) @replace) (#set! replacement "()"))
((method_declaration parameters: (parameter_list) @replace) (#set! replacement "()"))
((func_literal parameters: (parameter_list) @replace) (#set! replacement "()"))

; Conditions: an if that is always taken.
((if_statement condition: (_) @replace) (#set! replacement "true"))

; Statements: return without values.
((return_statement) @replace (#set! replacement "return"))

; A variable used once: the declaration goes and its one use becomes the value (@inline; see
; docs/queries.md).
(short_var_declaration left: (expression_list . (identifier) @inline.name .) right: (expression_list . (_) @inline.value .)) @inline

; A definition with the statements that use its name (@define; see docs/queries.md): a class
; with the line that registers it, a function with its calls.
(function_declaration name: (identifier) @define.name) @define
(method_declaration name: (field_identifier) @define.name) @define
(type_declaration (type_spec name: (type_identifier) @define.name)) @define
(var_declaration (var_spec name: (identifier) @define.name)) @define
(const_declaration (const_spec name: (identifier) @define.name)) @define
(short_var_declaration left: (expression_list (identifier) @define.name)) @define

; A call that may be pointed at another function (@call; see docs/queries.md): one its callee
; calls, or one the file uses as a value.
(call_expression function: (_) @call.callee arguments: (argument_list) @call.arguments) @call

; Operators: a two- or three-character operator becomes a one-character one of the same use
; (`a == b` -> `a < b`, still a comparison; `&&` -> `&`), an assignment with an operator a plain
; one (`+=` -> `=`). The hint is on the operator token: it alone is replaced (captures.py).
(binary_expression operator: ["==" "!=" "<=" ">="] @replace (#set! replacement "<"))
(binary_expression operator: ["&&" "||" "<<" ">>" "&^"] @replace (#set! replacement "&"))
(assignment_statement operator: _ @replace (#set! replacement "="))
