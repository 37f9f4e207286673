; Replacement hints for JavaScript (and JSX): each pattern captures one node as @replace and
; names the smaller text it may become. A hint is only tried when it makes the node's text
; shorter. See docs/queries.md.

; Bodies and literals that can be empty.
((statement_block) @replace (#set! replacement "{}"))
((class_body) @replace (#set! replacement "{}"))
((object) @replace (#set! replacement "{}"))
((array) @replace (#set! replacement "[]"))

; Literals: the smallest of their kind.
((number) @replace (#set! replacement "0"))
((number) @replace (#set! replacement "1"))
((string) @replace (#set! replacement "\"\""))
((template_string) @replace (#set! replacement "\"\""))
; Inside literals (transform/tokens.py): a string's contents halved, a number to 0 or 1.
(string) @trim
(template_string) @trim
(number) @trim

; Lists: no arguments, no parameters.
((arguments) @replace (#set! replacement "()"))
((formal_parameters) @replace (#set! replacement "()"))

; Conditions: always false (loops end at once), or always true for an if.
((parenthesized_expression) @replace (#set! replacement "(0)"))
((if_statement condition: (parenthesized_expression) @replace) (#set! replacement "(1)"))

; Expressions whose value rarely matters to the bug: a constant instead.
((binary_expression) @replace (#set! replacement "0"))
((call_expression) @replace (#set! replacement "0"))
((new_expression) @replace (#set! replacement "0"))
((ternary_expression) @replace (#set! replacement "0"))
; Functions as values: the smallest function.
((arrow_function) @replace (#set! replacement "()=>{}"))
((function_expression) @replace (#set! replacement "()=>{}"))
; JSX: the smallest element.
((jsx_element) @replace (#set! replacement "<a/>"))

; Statements: return without a value.
((return_statement) @replace (#set! replacement "return;"))

; Optional parts, dropped with their punctuation: initializers, default values, else branches.
(variable_declarator "=" @drop value: (_) @drop)
(assignment_pattern "=" @drop right: (_) @drop)
(if_statement alternative: (else_clause) @drop)
(class_heritage) @drop

; More expressions whose value rarely matters: a constant instead.
((member_expression) @replace (#set! replacement "0"))
((unary_expression) @replace (#set! replacement "0"))
((await_expression) @replace (#set! replacement "0"))
((object) @replace (#set! replacement "0"))

; A variable used once: the declaration goes and its one use becomes the value (@inline; see
; docs/queries.md).
(lexical_declaration (variable_declarator name: (identifier) @inline.name value: (_) @inline.value)) @inline
(variable_declaration (variable_declarator name: (identifier) @inline.name value: (_) @inline.value)) @inline

; A definition with the statements that use its name (@define; see docs/queries.md): a class
; with the line that registers it, a function with its calls.
(function_declaration name: (identifier) @define.name) @define
(generator_function_declaration name: (identifier) @define.name) @define
(class_declaration name: (_) @define.name) @define
(method_definition name: (property_identifier) @define.name) @define
(lexical_declaration (variable_declarator name: (identifier) @define.name)) @define
(variable_declaration (variable_declarator name: (identifier) @define.name)) @define

; A call that may be pointed at another function (@call; see docs/queries.md): one its callee
; calls, or one the file uses as a value.
(call_expression function: (_) @call.callee arguments: (arguments) @call.arguments) @call

; Operators: a two- or three-character operator becomes a one-character one of the same use
; (`a == b` -> `a < b`, still a comparison; `&&` -> `&`), an assignment with an operator a plain
; one (`+=` -> `=`). The hint is on the operator token: it alone is replaced (captures.py).
(binary_expression operator: ["==" "===" "!=" "!==" "<=" ">="] @replace (#set! replacement "<"))
(binary_expression operator: ["&&" "||" "??" "<<" ">>" ">>>"] @replace (#set! replacement "&"))
(binary_expression operator: "**" @replace (#set! replacement "*"))
(augmented_assignment_expression operator: _ @replace (#set! replacement "="))
