"""The app's models after all its migrations (0001 created `Product.name`, `sku` of 20 characters
and `legacy`; later migrations add `stock`, rename `name` to `title`, widen `sku`, drop `legacy`
and fill data)."""
from django.db import models


class Category(models.Model):
    name = models.CharField(max_length=50, unique=True)


class Tag(models.Model):
    label = models.CharField(max_length=30, db_index=True)


class Product(models.Model):
    category = models.ForeignKey(Category, on_delete=models.CASCADE, related_name="products")
    title = models.CharField(max_length=100)
    sku = models.CharField(max_length=40)
    price = models.DecimalField(max_digits=8, decimal_places=2)
    stock = models.IntegerField(default=0)
    tags = models.ManyToManyField(Tag, related_name="products")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        unique_together = [("category", "sku")]
        indexes = [models.Index(fields=["title", "price"], name="prod_title_price")]


class Review(models.Model):
    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="reviews")
    stars = models.PositiveSmallIntegerField()
    body = models.TextField(blank=True)
    approved = models.BooleanField(default=False)
