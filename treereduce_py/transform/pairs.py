"""Token pairs: tokens that only make sense together, so deleting one of them at a time fails.

Line and token reduction delete one chunk of neighbours at a time; they cannot delete `(` and
its `)` when something between them must stay, nor `->` and a type next to it when each alone
breaks the parse. So the pair stage offers, over the token table, each balanced pair of brackets
(`()`, `[]`, `{}`, and `<>` after a name, as in generics) and each two adjacent tokens, as one
deletion each. The syntax check rejects most broken pairs without a test.
"""

from __future__ import annotations

from collections.abc import Sequence

OPENERS = {b"(": b")", b"[": b"]", b"{": b"}"}
CLOSERS = {close: open_ for open_, close in OPENERS.items()}
# Tokens that end a generic argument list's search: `<` there was a comparison.
_NOT_IN_GENERICS = frozenset({b";", b"{", b"}", b"(", b")", b"=", b"|", b"&"})


def balanced_pairs(tokens: Sequence[bytes]) -> list[tuple[int, int]]:
    """(opening, closing) indices of matched brackets, in order of the opening one.

    `tokens` are the token texts without surrounding whitespace. Unmatched brackets pair with
    nothing; `<` pairs with the `>` that closes it when it follows a name (`Vec<Vec<u8>>`).
    """
    pairs: list[tuple[int, int]] = []
    stack: list[int] = []
    for i, tok in enumerate(tokens):
        if tok in OPENERS:
            stack.append(i)
        elif tok in CLOSERS:
            if stack and tokens[stack[-1]] == CLOSERS[tok]:
                pairs.append((stack.pop(), i))
            else:
                stack.clear()  # unbalanced: start afresh rather than pair across it
    pairs += _angle_pairs(tokens)
    return sorted(pairs)


def _angle_pairs(tokens: Sequence[bytes]) -> list[tuple[int, int]]:
    pairs: list[tuple[int, int]] = []
    for i, tok in enumerate(tokens):
        if tok != b"<" or i == 0 or not _name(tokens[i - 1]):
            continue
        depth = 0
        for j in range(i, len(tokens)):
            if tokens[j] == b"<":
                depth += 1
            elif tokens[j] == b">":
                depth -= 1
                if depth == 0:
                    pairs.append((i, j))
                    break
            elif tokens[j] in _NOT_IN_GENERICS:
                break
    return pairs


def _name(tok: bytes) -> bool:
    return tok[:1].isalpha() or tok[:1] == b"_"


def adjacent_pairs(count: int) -> list[tuple[int, int]]:
    """Each two neighbouring tokens of `count`."""
    return [(i, i + 1) for i in range(count - 1)]
