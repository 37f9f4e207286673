

# --- benchmark driver (appended to this machine's stdlib fractions.py by bench/prepare.py) ---
def scale_recipe(amounts, servings_from, servings_to):
    """Scale ingredient amounts (Fractions) from one number of servings to another."""
    factor = Fraction(servings_to) / Fraction(servings_from)
    return {name: (qty * factor).limit_denominator(64) for name, qty in amounts.items()}


if __name__ == "__main__":
    base = {"flour": Fraction("2 1/4".split()[0]) + Fraction(1, 4), "sugar": Fraction(3, 4),
            "butter": Fraction("0.5"), "salt": Fraction(1, 8)}
    for servings in (8, 2, 12):
        scaled = scale_recipe(base, 4, servings)
        print(servings, {k: str(v) for k, v in sorted(scaled.items())})
    # A recipe with zero servings recorded: the division raises inside Fraction.
    print(scale_recipe(base, 0, 6))
