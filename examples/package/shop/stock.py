"""How many of each product are on the shelves."""


class Stock:
    def __init__(self) -> None:
        self.counts = {}

    def receive(self, sku: str, count: int) -> None:
        if count <= 0:
            raise ValueError("a delivery brings at least one item")
        self.counts[sku] = self.counts.get(sku, 0) + count

    def take(self, sku: str, count: int) -> bool:
        have = self.counts.get(sku, 0)
        if have < count:
            return False
        self.counts[sku] = have - count
        return True

    def low(self, threshold: int = 3) -> list:
        return sorted(sku for sku, n in self.counts.items() if n < threshold)
