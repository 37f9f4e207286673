; Replacement hints for Zig: each pattern captures one node as @replace and names the smaller
; text it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py).
; See docs/queries.md.

; Bodies: blocks and initializer lists can be empty.
((Block) @replace (#set! replacement "{}"))
((InitList) @replace (#set! replacement "{}"))

; Literals: the smallest of their kind (comptime 0 fits any number type).
((INTEGER) @replace (#set! replacement "0"))
((INTEGER) @replace (#set! replacement "1"))
((FLOAT) @replace (#set! replacement "0"))
((STRINGLITERALSINGLE) @replace (#set! replacement "\"\""))
((CHAR_LITERAL) @replace (#set! replacement "'a'"))

; Lists: no arguments, no parameters.
((FnCallArguments) @replace (#set! replacement "()"))
((ParamDeclList) @replace (#set! replacement "()"))
