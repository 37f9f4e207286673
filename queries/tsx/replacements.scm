; inherits: typescript
; Replacement hints for TypeScript with JSX (tsx): the first line pulls in every hint of
; queries/typescript/, and this file adds the JSX ones. A hint is only tried when it makes the
; node's text shorter. See docs/queries.md.

; JSX: the smallest element.
((jsx_element) @replace (#set! replacement "<a/>"))

; Operators: a two- or three-character operator becomes a one-character one of the same use
; (`a == b` -> `a < b`, still a comparison; `&&` -> `&`), an assignment with an operator a plain
; one (`+=` -> `=`). The hint is on the operator token: it alone is replaced (captures.py).
(binary_expression operator: ["==" "===" "!=" "!==" "<=" ">="] @replace (#set! replacement "<"))
(binary_expression operator: ["&&" "||" "??" "<<" ">>" ">>>"] @replace (#set! replacement "&"))
(binary_expression operator: "**" @replace (#set! replacement "*"))
(augmented_assignment_expression operator: _ @replace (#set! replacement "="))
