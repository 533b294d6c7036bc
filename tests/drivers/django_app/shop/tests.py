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


class ExpressionTests(TestCase):
    """Query expressions, database functions and lookups as Django's MySQL backend writes them."""

    @classmethod
    def setUpTestData(cls):
        cls.cats, cls.tags, cls.products = make_catalog()
        for i, p in enumerate(cls.products):
            Review.objects.create(product=p, stars=1 + i % 5, body=f"Body {i} text", approved=i % 2 == 0)

    def test_subquery_exists_outerref(self):
        from django.db.models import Exists, OuterRef, Subquery
        best = Review.objects.filter(product=OuterRef("pk")).order_by("-stars").values("stars")[:1]
        rows = dict(Product.objects.annotate(best=Subquery(best)).values_list("title", "best"))
        self.assertEqual(rows["product 4"], 5)
        approved = Review.objects.filter(product=OuterRef("pk"), approved=True)
        self.assertEqual(Product.objects.filter(Exists(approved)).count(), 6)
        self.assertEqual(Product.objects.filter(~Exists(approved)).count(), 6)
        self.assertEqual(Category.objects.filter(products__in=Product.objects.filter(stock__gt=9)).distinct().count(), 2)

    def test_case_when_and_conditional_aggregates(self):
        from django.db.models import Case, IntegerField, Value, When
        rows = list(Product.objects.annotate(
            size=Case(When(stock__lt=4, then=Value("small")), When(stock__lt=8, then=Value("mid")), default=Value("big"))
        ).values_list("size", flat=True).order_by("id"))
        self.assertEqual(rows[:5], ["small", "small", "small", "small", "mid"])
        agg = Review.objects.aggregate(ok=Count("id", filter=Q(approved=True)), high=Sum("stars", filter=Q(stars__gte=4)))
        self.assertEqual((agg["ok"], agg["high"]), (6, 18))
        n = Product.objects.update(stock=Case(When(stock__lt=5, then=F("stock") * 2), default=F("stock"),
                                              output_field=IntegerField()))
        self.assertEqual(n, 12)
        self.assertEqual(Product.objects.aggregate(s=Sum("stock"))["s"], 66 + 10)

    def test_bulk_update_and_update_or_create(self):
        ps = list(Product.objects.order_by("id")[:4])
        for p in ps:
            p.stock = 1000 + p.id
            p.title = p.title.upper()
        Product.objects.bulk_update(ps, ["stock", "title"])
        self.assertEqual(Product.objects.filter(stock__gte=1000, title__startswith="PRODUCT").count(), 4)
        obj, created = Tag.objects.update_or_create(label="tag1", defaults={"label": "tag1-renamed"})
        self.assertFalse(created)
        obj, created = Tag.objects.update_or_create(label="brand-new", defaults={"label": "brand-new"})
        self.assertTrue(created)

    def test_string_functions(self):
        from django.db.models import CharField, Value
        from django.db.models.functions import (Concat, Left, Length, Lower, LPad, Replace, Reverse, StrIndex,
                                                Substr, Trim, Upper)
        p = Product.objects.annotate(
            c=Concat("title", Value("/"), "sku", output_field=CharField()), l=Length("title"), u=Upper("title"),
            s=Substr("sku", 1, 8), i=StrIndex("title", Value("uct")), r=Replace("title", Value("product"), Value("P")),
            lp=LPad("stock", 4, Value("0")), lo=Lower(Value("ABC")), t=Trim(Value("  x  ")), le=Left("title", 3),
            rv=Reverse("title"),
        ).get(pk=self.products[3].pk)
        self.assertEqual((p.c, p.l, p.u, p.s, p.i, p.r, p.lp, p.lo, p.t, p.le, p.rv),
                         ("product 3/SKU-0003-LONGER-THAN-20", 9, "PRODUCT 3", "SKU-0003", 5, "P 3", "0003", "abc", "x",
                          "pro", "3 tcudorp"))
        self.assertEqual(Product.objects.filter(title__iexact="PRODUCT 3").count(), 1)
        self.assertEqual(Product.objects.filter(title__regex=r"^product 1[01]$").count(), 2)
        self.assertEqual(Product.objects.filter(title__iregex=r"^PRODUCT 1[01]$").count(), 2)
        self.assertEqual(Product.objects.filter(sku__contains="0011").count(), 1)

    def test_math_functions(self):
        from django.db.models.functions import Abs, Ceil, Floor, Greatest, Least, Mod, Power, Round, Sqrt
        p = Product.objects.annotate(
            a=Abs(F("stock") - 10), c=Ceil("price"), f=Floor("price"), g=Greatest("stock", 5), le=Least("stock", 5),
            m=Mod("stock", 3), pw=Power("stock", 2), r=Round("price", 1), sq=Sqrt("stock"),
        ).get(pk=self.products[7].pk)
        self.assertEqual((p.a, int(p.c), int(p.f), p.g, p.le, int(p.m), int(p.pw), float(p.r)),
                         (3, 17, 16, 7, 5, 1, 49, 17.0))
        self.assertAlmostEqual(float(p.sq), 7 ** 0.5, places=6)

    def test_dates_and_windows(self):
        import datetime as dt
        from django.db.models import Window
        from django.db.models.functions import ExtractYear, Rank, RowNumber, TruncDate, TruncMonth
        now = dt.datetime.now(dt.timezone.utc)
        self.assertEqual(Product.objects.filter(created__year=now.year).count(), 12)
        self.assertEqual(Product.objects.filter(created__date=now.date()).count(), 12)
        self.assertEqual(Product.objects.filter(created__gte=now - dt.timedelta(hours=1)).count(), 12)
        ys = set(Product.objects.annotate(y=ExtractYear("created"), d=TruncDate("created"), m=TruncMonth("created"))
                 .values_list("y", flat=True))
        self.assertEqual(ys, {now.year})
        self.assertEqual(len(Product.objects.datetimes("created", "day")), 1)
        ranked = list(Product.objects.annotate(
            rn=Window(RowNumber(), partition_by=[F("category")], order_by=F("stock").desc()),
            rk=Window(Rank(), order_by=F("price").asc()),
        ).order_by("id").values_list("rn", "rk"))
        self.assertEqual(ranked[0], (4, 1))
        self.assertEqual(ranked[11], (1, 12))

    def test_values_distinct_and_slicing(self):
        self.assertEqual(list(Product.objects.values_list("category__name", flat=True).distinct().order_by("category__name")),
                         ["cat0", "cat1", "cat2"])
        page = list(Product.objects.order_by("-price")[3:6].values_list("title", flat=True))
        self.assertEqual(page, ["product 8", "product 7", "product 6"])
        self.assertEqual(Product.objects.order_by("id").last().title, "product 11")
        self.assertTrue(Product.objects.filter(stock__in=[1, 2, 99]).exists())
        self.assertEqual(Product.objects.filter(stock__range=(2, 5)).count(), 4)
        self.assertEqual(Product.objects.exclude(category__name__startswith="cat").count(), 0)
        self.assertEqual(Product.objects.filter(tags__isnull=True).count(), 0)
        self.assertEqual(Review.objects.filter(product__category__name="cat1", stars__gt=2).count(), 2)

    def test_select_for_update_skip_locked_and_nowait(self):
        with transaction.atomic():
            got = list(Product.objects.select_for_update(skip_locked=True).filter(stock__lt=3))
            self.assertEqual(len(got), 3)
            got = list(Product.objects.select_for_update(nowait=True).filter(pk=self.products[0].pk))
            self.assertEqual(len(got), 1)
            got = list(Product.objects.select_related("category").select_for_update().filter(stock=4))
            self.assertEqual(len(got), 1)
