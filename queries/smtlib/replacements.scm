; Hints for SMT-LIB, read through the scheme grammar (see docs/smtlib.md): its own mutations are
; in transform/smtlib.py, and only these captures stay beside them.

; Inside literals (transform/tokens.py): a string's contents halved, a decimal numeral to 0 or 1.
(string) @trim
((number) @trim (#match? @trim "^[0-9]+$"))
