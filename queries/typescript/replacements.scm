; Replacement hints for TypeScript: each pattern captures one node as @replace and names the
; smaller text it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py).
; See docs/queries.md. (queries/tsx/ inherits these and adds JSX.)

; Bodies and literals that can be empty.
((statement_block) @replace (#set! replacement "{}"))
((class_body) @replace (#set! replacement "{}"))
((interface_body) @replace (#set! replacement "{}"))
((enum_body) @replace (#set! replacement "{}"))
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

; Statements: return without a value.
((return_statement) @replace (#set! replacement "return;"))

; Types: `any` fits everywhere.
((type_annotation) @replace (#set! replacement ":any"))
((type_arguments) @replace (#set! replacement "<any>"))
((object_type) @replace (#set! replacement "{}"))
((type_alias_declaration value: (_) @replace) (#set! replacement "any"))

; Optional parts, dropped with their punctuation: type annotations, return types, modifiers,
; initializers, default values, else branches, type arguments.
(type_annotation) @drop
(accessibility_modifier) @drop
(override_modifier) @drop
(type_arguments) @drop
(type_parameters) @drop
(variable_declarator "=" @drop value: (_) @drop)

(required_parameter "=" @drop value: (_) @drop)
(optional_parameter "?" @drop)
(if_statement alternative: (else_clause) @drop)

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
(interface_declaration name: (type_identifier) @define.name) @define
(type_alias_declaration name: (type_identifier) @define.name) @define
(enum_declaration name: (identifier) @define.name) @define

; A call that may be pointed at another function (@call; see docs/queries.md): one its callee
; calls, or one the file uses as a value.
(call_expression function: (_) @call.callee arguments: (arguments) @call.arguments) @call

; A generic type that may become one of its type arguments (@hoist; see docs/queries.md).
(generic_type type_arguments: (type_arguments (_) @hoist.target)) @hoist

; Operators: a two- or three-character operator becomes a one-character one of the same use
; (`a == b` -> `a < b`, still a comparison; `&&` -> `&`), an assignment with an operator a plain
; one (`+=` -> `=`). The hint is on the operator token: it alone is replaced (captures.py).
(binary_expression operator: ["==" "===" "!=" "!==" "<=" ">="] @replace (#set! replacement "<"))
(binary_expression operator: ["&&" "||" "??" "<<" ">>" ">>>"] @replace (#set! replacement "&"))
(binary_expression operator: "**" @replace (#set! replacement "*"))
(augmented_assignment_expression operator: _ @replace (#set! replacement "="))
