from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("shop", "0003_rename_name_title")]

    operations = [
        migrations.AlterField(model_name="product", name="sku", field=models.CharField(max_length=40)),
        migrations.RemoveField(model_name="product", name="legacy"),
        migrations.AddIndex(model_name="product",
                            index=models.Index(fields=["title", "price"], name="prod_title_price")),
    ]
