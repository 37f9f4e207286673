; inherits: typescript
; Replacement hints for TypeScript with JSX (tsx): the first line pulls in every hint of
; queries/typescript/, and this file adds the JSX ones. A hint is only tried when it makes the
; node's text shorter. See docs/queries.md.

; JSX: the smallest element.
((jsx_element) @replace (#set! replacement "<a/>"))

