"""A small inventory system with a bug: restocking an unknown SKU raises KeyError deep inside."""

import json
from dataclasses import dataclass, field


@dataclass
class Item:
    sku: str
    name: str
    price_cents: int
    quantity: int = 0
    tags: list[str] = field(default_factory=list)

    def total_value(self) -> int:
        return self.price_cents * self.quantity

    def describe(self) -> str:
        tags = ", ".join(sorted(self.tags)) or "untagged"
        return f"{self.sku}: {self.name} x{self.quantity} @ {self.price_cents / 100:.2f} ({tags})"


class Inventory:
    def __init__(self) -> None:
        self.items: dict[str, Item] = {}
        self.history: list[tuple[str, str, int]] = []

    def add(self, item: Item) -> None:
        if item.sku in self.items:
            raise ValueError(f"duplicate sku {item.sku}")
        self.items[item.sku] = item
        self.history.append(("add", item.sku, item.quantity))

    def remove(self, sku: str, quantity: int) -> None:
        item = self.items[sku]
        if quantity > item.quantity:
            raise ValueError(f"only {item.quantity} of {sku} left")
        item.quantity -= quantity
        self.history.append(("remove", sku, quantity))

    def restock(self, sku: str, quantity: int) -> None:
        self._adjust(sku, quantity)
        self.history.append(("restock", sku, quantity))

    def _adjust(self, sku: str, delta: int) -> None:
        normalized = self._normalize(sku)
        self.items[normalized].quantity += delta

    def _normalize(self, sku: str) -> str:
        return sku.strip().upper()

    def total_value(self) -> int:
        return sum(item.total_value() for item in self.items.values())

    def by_tag(self, tag: str) -> list[Item]:
        return [item for item in self.items.values() if tag in item.tags]

    def report(self) -> str:
        lines = [item.describe() for item in sorted(self.items.values(), key=lambda i: i.sku)]
        lines.append(f"total value: {self.total_value() / 100:.2f}")
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps(
            {sku: {"name": i.name, "price": i.price_cents, "qty": i.quantity}
             for sku, i in self.items.items()},
            indent=2,
        )


def load_demo_inventory() -> Inventory:
    inv = Inventory()
    inv.add(Item("A100", "widget", 250, 10, ["metal", "small"]))
    inv.add(Item("B200", "gadget", 1299, 3, ["electronic"]))
    inv.add(Item("C300", "doohickey", 75, 120, ["small", "plastic"]))
    inv.add(Item("D400", "thingamajig", 4999, 1, []))
    return inv


def apply_orders(inv: Inventory, orders: list[tuple[str, str, int]]) -> None:
    for kind, sku, quantity in orders:
        if kind == "sell":
            inv.remove(sku, quantity)
        elif kind == "restock":
            inv.restock(sku, quantity)
        else:
            raise ValueError(f"unknown order kind {kind}")


def main() -> None:
    inv = load_demo_inventory()
    print(inv.report())
    orders = [
        ("sell", "A100", 2),
        ("sell", "C300", 20),
        ("restock", "b200", 5),
        ("restock", "E500", 7),
        ("sell", "D400", 1),
    ]
    apply_orders(inv, orders)
    print(inv.report())
    print(inv.to_json())
    for tag in ("small", "metal"):
        print(tag, [i.sku for i in inv.by_tag(tag)])


if __name__ == "__main__":
    main()
