"""The sales report: totals by category, and the average price of what sold."""

from shop import pricing


def sold_by_category(catalog, orders) -> dict:
    sold = {c: [] for c in catalog.categories()}
    for order in orders:
        if not order.filled:
            continue
        for line in order.lines:
            product = catalog.get(line.sku)
            sold[product.category].extend([product.price_cents] * line.quantity)
    return sold


def render(catalog, orders) -> str:
    rows = []
    for category, prices in sold_by_category(catalog, orders).items():
        rows.append(
            f"{category:12} {len(prices):4} sold, average {pricing.average(prices):8.2f}, "
            f"spread {pricing.spread(prices)}"
        )
    return "\n".join(rows)
