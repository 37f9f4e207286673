"""A toy shop: products, stock, orders and a sales report."""

from shop.catalog import Catalog, Product
from shop.orders import Order, OrderLine

__all__ = ["Catalog", "Order", "OrderLine", "Product"]
VERSION = "0.3.1"
