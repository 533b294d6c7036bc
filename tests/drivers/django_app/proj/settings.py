"""Settings of the driver suite's Django project: one MySQL database (mysqlclient) on the server
given by DRV_HOST / DRV_PORT / DRV_USER / DRV_PASSWORD."""
import os

try:
    import MySQLdb  # noqa: F401 - mysqlclient, Django's MySQL driver
except ImportError:  # not built here: PyMySQL stands in for it
    import pymysql

    pymysql.install_as_MySQLdb()

SECRET_KEY = "driver-suite-not-secret"
DEBUG = False
USE_TZ = True
TIME_ZONE = "UTC"
INSTALLED_APPS = ["django.contrib.contenttypes", "django.contrib.auth", "shop"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.mysql",
        "NAME": os.environ.get("DRV_DJANGO_DB", "drv_django"),
        "HOST": os.environ.get("DRV_HOST", "127.0.0.1"),
        "PORT": os.environ.get("DRV_PORT", "3306"),
        "USER": os.environ.get("DRV_USER", "root"),
        "PASSWORD": os.environ.get("DRV_PASSWORD", ""),
        "OPTIONS": {"charset": "utf8mb4"},
        "TEST": {"NAME": os.environ.get("DRV_DJANGO_DB", "drv_django") + "_test"},
    }
}
CACHES = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "drv_cache"}}
