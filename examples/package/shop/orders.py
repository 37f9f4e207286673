"""Orders: lines of products and quantities, filled from stock."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class OrderLine:
    sku: str
    quantity: int


@dataclass
class Order:
    number: int
    lines: list = field(default_factory=list)
    filled: bool = False

    def add(self, sku: str, quantity: int = 1) -> None:
        self.lines.append(OrderLine(sku, quantity))

    def fill(self, stock) -> bool:
        if all(stock.take(line.sku, line.quantity) for line in self.lines):
            self.filled = True
        return self.filled

    def total_cents(self, catalog) -> int:
        return sum(catalog.get(line.sku).price_cents * line.quantity for line in self.lines)
