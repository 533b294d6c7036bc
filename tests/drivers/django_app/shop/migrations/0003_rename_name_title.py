from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("shop", "0002_product_stock_review")]

    operations = [migrations.RenameField(model_name="product", old_name="name", new_name="title")]
