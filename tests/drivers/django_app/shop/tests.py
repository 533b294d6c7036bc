"""The app's test suite (`manage.py test shop`): runs in the test database Django creates by
running every migration, each test inside a transaction rolled back at its end."""
from decimal import Decimal

from django.db import IntegrityError, connection, transaction
from django.db.models import Avg, Count, F, Q, Sum
from django.test import TestCase, TransactionTestCase

from shop.models import Category, Product, Review, Tag


def make_catalog():
    cats = [Category.objects.create(name=f"cat{i}") for i in range(3)]
    tags = Tag.objects.bulk_create([Tag(label=f"tag{i}") for i in range(5)])
    products = []
    for i in range(12):
        p = Product.objects.create(category=cats[i % 3], title=f"product {i}", sku=f"SKU-{i:04d}-LONGER-THAN-20",
                                   price=Decimal("9.99") + i, stock=i)
        p.tags.set(tags[i % 5:i % 5 + 2])
        products.append(p)
    return cats, tags, products


class SchemaTests(TestCase):
    def test_data_migration_ran(self):
        self.assertTrue(Category.objects.filter(name="uncategorized").exists())

    def test_introspection_after_migrations(self):
        with connection.cursor() as c:
            cols = {d.name: d for d in connection.introspection.get_table_description(c, "shop_product")}
            cons = connection.introspection.get_constraints(c, "shop_product")
        self.assertIn("title", cols)
        self.assertNotIn("name", cols)
        self.assertNotIn("legacy", cols)
        self.assertEqual(cols["sku"].display_size or cols["sku"].internal_size, 40)
        self.assertIn("prod_title_price", cons)
        self.assertEqual(cons["prod_title_price"]["columns"], ["title", "price"])
        self.assertTrue(any(v["unique"] and v["columns"] == ["category_id", "sku"] for v in cons.values()))
        self.assertTrue(any(v["foreign_key"] == ("shop_category", "id") for v in cons.values()))


class QueryTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.cats, cls.tags, cls.products = make_catalog()

    def test_select_related(self):
        with self.assertNumQueries(1):
            names = [(p.title, p.category.name) for p in Product.objects.select_related("category").order_by("id")]
        self.assertEqual(names[4], ("product 4", "cat1"))

    def test_prefetch_related(self):
        with self.assertNumQueries(2):
            tags = {p.title: sorted(t.label for t in p.tags.all()) for p in Product.objects.prefetch_related("tags")}
        self.assertEqual(tags["product 3"], ["tag3", "tag4"])
        with self.assertNumQueries(2):
            cats = list(Category.objects.prefetch_related("products").order_by("name"))
        self.assertEqual(len(cats[1].products.all()), 4)

    def test_unique_together(self):
        p = self.products[0]
        with self.assertRaises(IntegrityError):
            with transaction.atomic():
                Product.objects.create(category=p.category, title="dup", sku=p.sku, price=1)
        Product.objects.create(category=self.cats[1], title="same sku, other category", sku=p.sku, price=1)

    def test_aggregates_and_filters(self):
        rows = list(Category.objects.annotate(n=Count("products"), total=Sum("products__stock")).order_by("name")
                    .values_list("name", "n", "total"))
        self.assertEqual(rows[:3], [("cat0", 4, 18), ("cat1", 4, 22), ("cat2", 4, 26)])
        self.assertEqual(Product.objects.filter(Q(stock__gte=10) | Q(title__endswith="0")).count(), 3)
        self.assertEqual(Product.objects.filter(tags__label="tag0").distinct().count(), 3)
        self.assertAlmostEqual(float(Product.objects.aggregate(a=Avg("price"))["a"]), 15.49, places=2)
        self.assertEqual(Product.objects.filter(title__icontains="PRODUCT 1").count(), 3)

    def test_update_and_f_expressions(self):
        n = Product.objects.filter(category=self.cats[0]).update(stock=F("stock") + 100)
        self.assertEqual(n, 4)
        self.assertEqual(Product.objects.get(pk=self.products[3].pk).stock, 103)
        # an UPDATE that changes nothing still counts the matched rows (CLIENT_FOUND_ROWS)
        self.assertEqual(Product.objects.filter(pk=self.products[1].pk).update(stock=1), 1)

    def test_bulk_create_returns_ids(self):
        made = Review.objects.bulk_create([Review(product=self.products[0], stars=s) for s in range(1, 6)])
        self.assertTrue(all(r.pk for r in made))
        self.assertEqual(sorted(Review.objects.values_list("stars", flat=True)), [1, 2, 3, 4, 5])

    def test_m2m_add_remove(self):
        p = self.products[5]
        p.tags.add(self.tags[4])
        p.tags.remove(self.tags[0])
        self.assertEqual(sorted(t.label for t in p.tags.all()), ["tag1", "tag4"])
        self.assertEqual(self.tags[4].products.count(), 5)

    def test_cascade_delete(self):
        Review.objects.create(product=self.products[2], stars=4)
        deleted, per_model = self.cats[2].delete()
        self.assertEqual(per_model["shop.Product"], 4)
        self.assertEqual(per_model["shop.Review"], 1)
        self.assertEqual(Product.objects.count(), 8)

    def test_nested_atomic(self):
        with transaction.atomic():
            Tag.objects.create(label="outer")
            try:
                with transaction.atomic():
                    Tag.objects.create(label="inner")
                    raise ValueError("roll the savepoint back")
            except ValueError:
                pass
            with transaction.atomic():
                Tag.objects.create(label="inner2")
                with transaction.atomic():
                    Tag.objects.create(label="innermost")
        labels = set(Tag.objects.filter(label__startswith="inn").values_list("label", flat=True))
        self.assertEqual(labels, {"inner2", "innermost"})
        self.assertTrue(Tag.objects.filter(label="outer").exists())

    def test_get_or_create_and_iterator(self):
        t, created = Tag.objects.get_or_create(label="fresh")
        self.assertTrue(created)
        t2, created = Tag.objects.get_or_create(label="fresh")
        self.assertFalse(created)
        self.assertEqual(t.pk, t2.pk)
        self.assertEqual(sum(1 for _ in Product.objects.iterator(chunk_size=5)), 12)

    def test_select_for_update(self):
        with transaction.atomic():
            p = Product.objects.select_for_update().get(pk=self.products[0].pk)
            p.stock = 77
            p.save(update_fields=["stock"])
        self.assertEqual(Product.objects.get(pk=p.pk).stock, 77)


class CommitTests(TransactionTestCase):
    """Real commits and rollbacks (no wrapping transaction)."""

    def test_atomic_commit_and_rollback(self):
        c = Category.objects.create(name="tx")
        try:
            with transaction.atomic():
                Product.objects.create(category=c, title="kept?", sku="A", price=1)
                raise RuntimeError("rollback")
        except RuntimeError:
            pass
        with transaction.atomic():
            Product.objects.create(category=c, title="kept", sku="B", price=1)
            sid = transaction.savepoint()
            Product.objects.create(category=c, title="gone", sku="C", price=1)
            transaction.savepoint_rollback(sid)
        self.assertEqual(list(Product.objects.values_list("title", flat=True)), ["kept"])
