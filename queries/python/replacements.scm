; Replacement hints for Python: each pattern captures one node as @replace and names the smaller
; text it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py).
; See docs/queries.md.

; Bodies: any indented block (function, class, loop, branch) can be just `pass`.
((block) @replace (#set! replacement "pass"))

; Literals and displays: the smallest of their kind.
((integer) @replace (#set! replacement "0"))
((integer) @replace (#set! replacement "1"))
((float) @replace (#set! replacement "0"))
((string) @replace (#set! replacement "\"\""))
((concatenated_string) @replace (#set! replacement "\"\""))
; Inside literals (transform/tokens.py): a string's contents halved, a number to 0 or 1.
(string) @trim
(integer) @trim
(float) @trim
((list) @replace (#set! replacement "[]"))
((list_comprehension) @replace (#set! replacement "[]"))
((dictionary) @replace (#set! replacement "{}"))
((dictionary_comprehension) @replace (#set! replacement "{}"))
((tuple) @replace (#set! replacement "()"))
((generator_expression) @replace (#set! replacement "()"))

; Lists: no arguments, no parameters.
((argument_list) @replace (#set! replacement "()"))
((parameters) @replace (#set! replacement "()"))

; Conditions: always true for an if, always false for a loop (it ends at once).
((if_statement condition: (_) @replace) (#set! replacement "1"))
((elif_clause condition: (_) @replace) (#set! replacement "1"))
((while_statement condition: (_) @replace) (#set! replacement "0"))

; Expressions whose value rarely matters to the bug: a constant instead.
((call) @replace (#set! replacement "0"))
((binary_operator) @replace (#set! replacement "0"))
((boolean_operator) @replace (#set! replacement "0"))
((comparison_operator) @replace (#set! replacement "0"))
((conditional_expression) @replace (#set! replacement "0"))

; Statements: return without a value.
((return_statement) @replace (#set! replacement "return"))

; Annotations: a simple type.
((type) @replace (#set! replacement "int"))

; Optional parts, dropped with their punctuation: annotations, return types, default values,
; else branches, decorators.
(assignment ":" @drop type: (_) @drop)
(function_definition "->" @drop return_type: (_) @drop)
(typed_parameter ":" @drop type: (_) @drop)
(typed_default_parameter ":" @drop type: (_) @drop)
(default_parameter "=" @drop value: (_) @drop)
(typed_default_parameter "=" @drop value: (_) @drop)
(if_statement alternative: (else_clause) @drop)
(for_statement alternative: (else_clause) @drop)
(decorated_definition (decorator) @drop)
(class_definition superclasses: (argument_list) @drop)

; More expressions whose value rarely matters: a constant instead.
((attribute) @replace (#set! replacement "0"))
((subscript) @replace (#set! replacement "0"))
((lambda) @replace (#set! replacement "0"))
((unary_operator) @replace (#set! replacement "0"))
((not_operator) @replace (#set! replacement "0"))
((await) @replace (#set! replacement "0"))

; A variable used once: the declaration goes and its one use becomes the value (@inline; see
; docs/queries.md).
(block (assignment left: (identifier) @inline.name right: (_) @inline.value) @inline)
(module (assignment left: (identifier) @inline.name right: (_) @inline.value) @inline)

; A definition with the statements that use its name (@define; see docs/queries.md): a class
; with the line that registers it, a function with its calls.
(function_definition name: (identifier) @define.name) @define
(class_definition name: (identifier) @define.name) @define
(decorated_definition definition: (_ name: (identifier) @define.name)) @define
(block (assignment left: (identifier) @define.name) @define)
(module (assignment left: (identifier) @define.name) @define)

; A call that may be pointed at another function (@call; see docs/queries.md): one its callee
; calls, or one the file uses as a value.
(call function: (_) @call.callee arguments: (argument_list) @call.arguments) @call

; Operators: a two- or three-character operator becomes a one-character one of the same use
; (`a == b` -> `a < b`, still a comparison; `&&` -> `&`), an assignment with an operator a plain
; one (`+=` -> `=`). The hint is on the operator token: it alone is replaced (captures.py).
(comparison_operator operators: ["==" "!=" "<=" ">="] @replace (#set! replacement "<"))
(boolean_operator operator: ["and" "or"] @replace (#set! replacement "&"))
(binary_operator operator: ["**" "//" "<<" ">>"] @replace (#set! replacement "*"))
(augmented_assignment operator: _ @replace (#set! replacement "="))
