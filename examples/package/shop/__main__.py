"""A day at the shop: stock arrives, orders come in, the report is printed."""

from shop import report
from shop.catalog import Catalog, Product
from shop.orders import Order
from shop.stock import Stock


def main() -> None:
    catalog = Catalog()
    catalog.add(Product("T1", "Green tea", "drinks", 350))
    catalog.add(Product("C1", "Black coffee", "drinks", 420))
    catalog.add(Product("B1", "Rye bread", "bakery", 510))
    catalog.add(Product("U1", "Umbrella", "garden", 1990))
    stock = Stock()
    for sku, count in (("T1", 10), ("C1", 2), ("B1", 5)):
        stock.receive(sku, count)
    orders = [Order(1), Order(2), Order(3)]
    orders[0].add("T1", 2)
    orders[1].add("C1", 3)
    orders[2].add("B1")
    for order in orders:
        order.fill(stock)
    print(report.render(catalog, orders))
    print("low stock:", ", ".join(stock.low()))


main()
