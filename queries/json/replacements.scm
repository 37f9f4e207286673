; Replacement hints for JSON: each pattern captures one node as @replace and names the smaller
; text it may become. A hint is only tried when it makes the node's text no longer
; (as long: only where the text is smaller, a `6` that may be `1`; see edit/order.py).
; See docs/queries.md.

; Values: the smallest of their kind.
((object) @replace (#set! replacement "{}"))
((array) @replace (#set! replacement "[]"))
((string) @replace (#set! replacement "\"\""))
((number) @replace (#set! replacement "0"))
; Inside literals (transform/tokens.py): a string's contents halved, a number to 0 or 1.
(string) @trim
(number) @trim
