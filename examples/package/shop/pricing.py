"""Prices: discounts, taxes and averages over groups of products."""

TAX_RATE = 0.2


def with_tax(cents: int) -> int:
    return round(cents * (1 + TAX_RATE))


def discounted(cents: int, percent: int) -> int:
    if not 0 <= percent <= 100:
        raise ValueError("a discount is a percentage")
    return cents - cents * percent // 100


def average(prices: list) -> float:
    return sum(prices) / len(prices)


def spread(prices: list) -> int:
    return max(prices) - min(prices) if prices else 0
