"""The products the shop sells, by category."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Product:
    sku: str
    name: str
    category: str
    price_cents: int

    def label(self) -> str:
        return f"{self.name} ({self.sku})"


@dataclass
class Catalog:
    products: dict = field(default_factory=dict)

    def add(self, product: Product) -> None:
        if product.sku in self.products:
            raise ValueError(f"duplicate sku {product.sku}")
        self.products[product.sku] = product

    def get(self, sku: str) -> Product:
        return self.products[sku]

    def categories(self) -> list:
        return sorted({p.category for p in self.products.values()})

    def in_category(self, category: str) -> list:
        return [p for p in self.products.values() if p.category == category]

    def search(self, words: str) -> list:
        wanted = words.lower().split()
        return [p for p in self.products.values() if all(w in p.name.lower() for w in wanted)]
