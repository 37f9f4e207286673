; Replacement hints for C++: each pattern captures one node as @replace and names the smaller
; text it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py).
; See docs/queries.md.

; Bodies: blocks, class and namespace bodies, brace initializers can be empty.
((compound_statement) @replace (#set! replacement "{}"))
((field_declaration_list) @replace (#set! replacement "{}"))
((declaration_list) @replace (#set! replacement "{}"))
((initializer_list) @replace (#set! replacement "{}"))

; Literals: the smallest of their kind.
((number_literal) @replace (#set! replacement "0"))
((number_literal) @replace (#set! replacement "1"))
((char_literal) @replace (#set! replacement "0"))
((string_literal) @replace (#set! replacement "\"\""))
((raw_string_literal) @replace (#set! replacement "\"\""))
; Inside literals (transform/tokens.py): a string's contents halved, a number to 0 or 1.
(string_literal) @trim
(raw_string_literal) @trim
(number_literal) @trim
((concatenated_string) @replace (#set! replacement "\"\""))

; Lists: no arguments, no parameters, one simple template argument.
((argument_list) @replace (#set! replacement "()"))
((parameter_list) @replace (#set! replacement "()"))
((template_argument_list) @replace (#set! replacement "<int>"))

; Conditions: always false (loops end at once), or always true for an if.
((parenthesized_expression) @replace (#set! replacement "(0)"))
((condition_clause) @replace (#set! replacement "(0)"))
((if_statement condition: (condition_clause) @replace) (#set! replacement "(1)"))

; Expressions whose value rarely matters to the bug: a constant (also a null pointer).
((binary_expression) @replace (#set! replacement "0"))
((call_expression) @replace (#set! replacement "0"))
((conditional_expression) @replace (#set! replacement "0"))
((new_expression) @replace (#set! replacement "0"))
; The smallest lambda.
((lambda_expression) @replace (#set! replacement "[]{}"))

; Statements: return without a value.
((return_statement) @replace (#set! replacement "return;"))

; Types: `unsigned long long` and friends become `int`.
((sized_type_specifier) @replace (#set! replacement "int"))

; A variable used once: the declaration goes and its one use becomes the value (@inline; see
; docs/queries.md).
(declaration declarator: (init_declarator declarator: (identifier) @inline.name value: (_) @inline.value)) @inline

; A definition with the statements that use its name (@define; see docs/queries.md): a class
; with the line that registers it, a function with its calls.
(function_definition declarator: (function_declarator declarator: (identifier) @define.name)) @define
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @define.name))) @define
(function_definition declarator: (reference_declarator (function_declarator declarator: (identifier) @define.name))) @define
(declaration declarator: (init_declarator declarator: (identifier) @define.name)) @define
(declaration declarator: (identifier) @define.name) @define
(type_definition declarator: (type_identifier) @define.name) @define
(alias_declaration name: (type_identifier) @define.name) @define
(class_specifier name: (type_identifier) @define.name body: (_)) @define
(struct_specifier name: (type_identifier) @define.name body: (_)) @define

; A call that may be pointed at another function (@call; see docs/queries.md): one its callee
; calls, or one the file uses as a value.
(call_expression function: (_) @call.callee arguments: (argument_list) @call.arguments) @call

; A generic type that may become one of its type arguments (@hoist; see docs/queries.md).
(template_type arguments: (template_argument_list (type_descriptor) @hoist.target)) @hoist
(qualified_identifier name: (template_type arguments: (template_argument_list (type_descriptor) @hoist.target))) @hoist

; Operators: a two- or three-character operator becomes a one-character one of the same use
; (`a == b` -> `a < b`, still a comparison; `&&` -> `&`), an assignment with an operator a plain
; one (`+=` -> `=`). The hint is on the operator token: it alone is replaced (captures.py).
(binary_expression operator: ["==" "!=" "<=" ">=" "<=>"] @replace (#set! replacement "<"))
(binary_expression operator: ["&&" "||" "<<" ">>"] @replace (#set! replacement "&"))
(assignment_expression operator: _ @replace (#set! replacement "="))
