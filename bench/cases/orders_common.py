"""Shared by the orders-* cases' gen.py: seeded rules with one faulty rule, and twelve orders.

Each generator passes its language's rule template and order literal; the order of random draws
(faulty rule, then the rules, then the orders) is the same for every language.
"""

import random
import sys
from collections.abc import Callable


def generate(
    header: str,
    rule: Callable[[int, random.Random, bool], str],
    order: tuple[str, str, str],
    footer: str,
) -> None:
    """Read SEED RULES from argv and write header, rules and footer (``{orders}`` replaced by
    twelve order literals, each ``order[0]`` + fields + ``order[1]``, joined by ``order[2]``)."""
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    faulty = rng.randrange(count // 2, count)
    rules = [rule(i, rng, i == faulty) for i in range(count)]
    literals = [
        f'{order[0]}{n}, "SKU-{rng.randint(100, 999)}", {rng.randint(1, 60)}, '
        f"{rng.randint(100, 9999) / 100}{order[1]}"
        for n in range(1, 13)
    ]
    sys.stdout.write("".join([header, *rules, footer.replace("{orders}", order[2].join(literals))]))
