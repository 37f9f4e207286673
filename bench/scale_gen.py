"""Seeded inputs for the scale family: the same program at 100 KB, 1 MB or 10 MB.

A scale input is filler (independent top-level items drawn from one seeded random stream) with
two trigger items placed at a third and at two thirds of the target size: a definition and a use
of it that misbehaves.  The triggers are the same at every size and the filler is the same stream,
so a larger input only has more of it; a reducer's result should not depend on the size.

- C: ``struct trigger_shape`` (width, height) at 1/3 and ``trigger_use`` returning ``s->depth``
  at 2/3, so ``gcc -fsyntax-only`` reports "has no member named 'depth'" (deleting the struct
  gives a different error: an incomplete type).
- JavaScript: ``class TriggerShape`` (width, height) at 1/3 and ``new
  TriggerShape().depth.toFixed(2)`` at 2/3, so node dies with "TypeError: Cannot read properties
  of undefined (reading 'toFixed')" (deleting the class gives a ReferenceError instead).

Usage: python3 scale_gen.py {c,js} BYTES > FILE
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

SEED = 7
SIZES = {"100k": 100_000, "1m": 1_000_000, "10m": 10_000_000, "100m": 100_000_000}


def c_item(i: int, rng: random.Random) -> str:
    """A C filler item: a struct, a static table or a small function, none referring to another."""
    kind = rng.randrange(4)
    if kind == 0:
        return f"struct rec_{i} {{ int a{i}; long b{i}; char tag_{i}[{rng.randint(2, 16)}]; }};\n"
    if kind == 1:
        values = ", ".join(str(rng.randint(0, 999)) for _ in range(rng.randint(3, 9)))
        return f"static int table_{i}[] = {{ {values} }};\n"
    body = " ".join(
        f"x = x * {rng.randint(2, 9)} + {rng.randint(0, 99)};" for _ in range(rng.randint(2, 6))
    )
    return (
        f"int helper_{i}(int x) {{\n    if (x > {rng.randint(1, 500)}) {{ {body} }}\n"
        f"    return x - {i % 97};\n}}\n"
    )


def js_item(i: int, rng: random.Random) -> str:
    """A JavaScript filler item: a class, a constant table or a small function; none runs code
    that could throw, and none refers to another."""
    kind = rng.randrange(4)
    if kind == 0:
        return (
            f"class Rec{i} {{\n    constructor() {{ this.a{i} = {rng.randint(0, 99)};"
            f" this.tag{i} = '{'x' * rng.randint(2, 16)}'; }}\n}}\n"
        )
    if kind == 1:
        values = ", ".join(str(rng.randint(0, 999)) for _ in range(rng.randint(3, 9)))
        return f"const table{i} = [{values}];\n"
    body = " ".join(
        f"x = x * {rng.randint(2, 9)} + {rng.randint(0, 99)};" for _ in range(rng.randint(2, 6))
    )
    return (
        f"function helper{i}(x) {{\n    if (x > {rng.randint(1, 500)}) {{ {body} }}\n"
        f"    return x - {i % 97};\n}}\n"
    )


TRIGGERS = {
    "c": (
        "struct trigger_shape { int width; int height; };\n",
        "int trigger_use(struct trigger_shape *s) { return s->depth; }\n",
    ),
    "js": (
        "class TriggerShape {\n    constructor() { this.width = 1; this.height = 2; }\n}\n",
        "new TriggerShape().depth.toFixed(2);\n",
    ),
}
FILLERS: dict[str, Callable[[int, random.Random], str]] = {"c": c_item, "js": js_item}


def generate(lang: str, size: int, seed: int = SEED) -> str:
    """About ``size`` bytes of ``lang`` ("c" or "js"): filler with the definition trigger at a
    third of the size and the use at two thirds."""
    rng = random.Random(seed)
    marks = dict(zip((size // 3, 2 * size // 3), TRIGGERS[lang], strict=True))
    pending = sorted(marks)
    out: list[str] = []
    written = i = 0
    while written < size:
        if pending and written >= pending[0]:
            item = marks[pending.pop(0)]
        else:
            item = FILLERS[lang](i, rng)
            i += 1
        out.append(item)
        written += len(item)
    return "".join(out)


def main(argv: list[str]) -> int:
    """Write the input for LANG and BYTES (a number, or 100k/1m/10m) to stdout."""
    if len(argv) != 2 or argv[0] not in FILLERS:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    size = SIZES.get(argv[1]) or int(argv[1])
    sys.stdout.write(generate(argv[0], size))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
