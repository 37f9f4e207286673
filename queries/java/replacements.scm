; Replacement hints for Java: each pattern captures one node as @replace and names the smaller
; text it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py).
; See docs/queries.md.

; Bodies: method, constructor, class, interface and enum bodies can be empty.
((block) @replace (#set! replacement "{}"))
((constructor_body) @replace (#set! replacement "{}"))
((class_body) @replace (#set! replacement "{}"))
((interface_body) @replace (#set! replacement "{}"))
((enum_body) @replace (#set! replacement "{}"))
((array_initializer) @replace (#set! replacement "{}"))

; Literals: the smallest of their kind (an int widens to long, float and double).
((decimal_integer_literal) @replace (#set! replacement "0"))
((decimal_integer_literal) @replace (#set! replacement "1"))
((hex_integer_literal) @replace (#set! replacement "0"))
((octal_integer_literal) @replace (#set! replacement "0"))
((binary_integer_literal) @replace (#set! replacement "0"))
((decimal_floating_point_literal) @replace (#set! replacement "0"))
((hex_floating_point_literal) @replace (#set! replacement "0"))
((string_literal) @replace (#set! replacement "\"\""))
((character_literal) @replace (#set! replacement "'a'"))

; Lists: no arguments, no parameters.
((argument_list) @replace (#set! replacement "()"))
((formal_parameters) @replace (#set! replacement "()"))

; Conditions: an if that is always taken (`while (false)` would make its body unreachable,
; which javac rejects).
((if_statement condition: (parenthesized_expression) @replace) (#set! replacement "(true)"))

; Statements: return without a value.
((return_statement) @replace (#set! replacement "return;"))

; Types: a local variable's type can be inferred.
((local_variable_declaration type: (_) @replace) (#set! replacement "var"))

; A variable used once: the declaration goes and its one use becomes the value (@inline; see
; docs/queries.md).
(local_variable_declaration declarator: (variable_declarator name: (identifier) @inline.name value: (_) @inline.value)) @inline

; A definition with the statements that use its name (@define; see docs/queries.md): a class
; with the line that registers it, a function with its calls.
(class_declaration name: (identifier) @define.name) @define
(interface_declaration name: (identifier) @define.name) @define
(enum_declaration name: (identifier) @define.name) @define
(record_declaration name: (identifier) @define.name) @define
(method_declaration name: (identifier) @define.name) @define
(field_declaration declarator: (variable_declarator name: (identifier) @define.name)) @define
(local_variable_declaration declarator: (variable_declarator name: (identifier) @define.name)) @define

; A call that may be pointed at another function (@call; see docs/queries.md): one its callee
; calls, or one the file uses as a value.
(method_invocation name: (identifier) @call.callee arguments: (argument_list) @call.arguments) @call

; A generic type that may become one of its type arguments (@hoist; see docs/queries.md).
(generic_type (type_arguments (_) @hoist.target)) @hoist

; Operators: a two- or three-character operator becomes a one-character one of the same use
; (`a == b` -> `a < b`, still a comparison; `&&` -> `&`), an assignment with an operator a plain
; one (`+=` -> `=`). The hint is on the operator token: it alone is replaced (captures.py).
(binary_expression operator: ["==" "!=" "<=" ">="] @replace (#set! replacement "<"))
(binary_expression operator: ["&&" "||" "<<" ">>" ">>>"] @replace (#set! replacement "&"))
(assignment_expression operator: _ @replace (#set! replacement "="))
