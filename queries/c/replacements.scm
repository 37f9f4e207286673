; Replacement hints for C: each pattern captures one node as @replace and names the smaller text
; it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py). See docs/queries.md.

; Bodies: a block, a struct or union body, an initializer can all be (nearly) empty.
((compound_statement) @replace (#set! replacement "{}"))
((field_declaration_list) @replace (#set! replacement "{}"))
; `{0}` initializes any array or struct in standard C; `{}` needs C23 or GNU C.
((initializer_list) @replace (#set! replacement "{0}"))

; Literals: the smallest of their kind (a char literal is an int in C).
((number_literal) @replace (#set! replacement "0"))
((number_literal) @replace (#set! replacement "1"))
((char_literal) @replace (#set! replacement "0"))
((string_literal) @replace (#set! replacement "\"\""))
; Inside literals (transform/tokens.py): a string's contents halved, a number to 0 or 1.
(string_literal) @trim
(number_literal) @trim
((concatenated_string) @replace (#set! replacement "\"\""))

; Lists: no arguments, no parameters.
((argument_list) @replace (#set! replacement "()"))
((parameter_list) @replace (#set! replacement "()"))

; Conditions: always false (loops end at once), or always true for an if.
((parenthesized_expression) @replace (#set! replacement "(0)"))
((if_statement condition: (parenthesized_expression) @replace) (#set! replacement "(1)"))

; Expressions whose value rarely matters to the bug: a constant instead.
((binary_expression) @replace (#set! replacement "0"))
((call_expression) @replace (#set! replacement "0"))
((conditional_expression) @replace (#set! replacement "0"))

; Statements: return without a value.
((return_statement) @replace (#set! replacement "return;"))

; Types: `unsigned long long` and friends become `int`.
((sized_type_specifier) @replace (#set! replacement "int"))

; Optional parts, dropped with their punctuation: the return type (implicit int), storage
; classes and qualifiers, initializers, else branches, attributes.
; (tree-sitter reads `main(void)` as a declarator in parentheses, with or without `int`; with
; parameters it cannot, so only functions without any lose their type.)
(function_definition
  type: (_) @drop
  declarator: (function_declarator parameters: (parameter_list) @_params)
  (#match? @_params "^[(][ \t]*(void)?[ \t]*[)]$"))
(function_definition (storage_class_specifier) @drop)
(declaration (storage_class_specifier) @drop)
(declaration (type_qualifier) @drop)
(init_declarator "=" @drop value: (_) @drop)
(if_statement alternative: (else_clause) @drop)
(attribute_specifier) @drop

; A function whose body is one expression statement: that expression as the initializer of a
; file-scope variable (implicit int), `b(){b==b;}` -> `b=b==b;` (transform/captures.py). Only
; the body's one statement (the anchors): each candidate costs a test where deleting the
; function failed, and a longer body has its statements deleted first.
(translation_unit
  (function_definition
    body: (compound_statement . (expression_statement (_) @global.value) .)) @global)

; More expressions whose value rarely matters: a constant instead.
((unary_expression) @replace (#set! replacement "0"))
((cast_expression) @replace (#set! replacement "0"))
((field_expression) @replace (#set! replacement "0"))
((subscript_expression) @replace (#set! replacement "0"))
((sizeof_expression) @replace (#set! replacement "0"))

; A variable used once: the declaration goes and its one use becomes the value (@inline; see
; docs/queries.md).
(declaration declarator: (init_declarator declarator: (identifier) @inline.name value: (_) @inline.value)) @inline

; A definition with the statements that use its name (@define; see docs/queries.md): a class
; with the line that registers it, a function with its calls.
(function_definition declarator: (function_declarator declarator: (identifier) @define.name)) @define
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @define.name))) @define
(declaration declarator: (init_declarator declarator: (identifier) @define.name)) @define
(declaration declarator: (identifier) @define.name) @define
(type_definition declarator: (type_identifier) @define.name) @define
(translation_unit (struct_specifier name: (type_identifier) @define.name body: (_)) @define)

; A call that may be pointed at another function (@call; see docs/queries.md): one its callee
; calls, or one the file uses as a value.
(call_expression function: (_) @call.callee arguments: (argument_list) @call.arguments) @call

; Operators: a two- or three-character operator becomes a one-character one of the same use
; (`b == b` -> `b < b`: still a comparison; `&&` -> `&`, `<<=` -> `=`).
(binary_expression operator: ["==" "!=" "<=" ">="] @replace (#set! replacement "<"))
(binary_expression operator: ["&&" "||" "<<" ">>"] @replace (#set! replacement "&"))
(assignment_expression operator: _ @replace (#set! replacement "="))
