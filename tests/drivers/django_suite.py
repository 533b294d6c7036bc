"""Django against one server: `manage.py migrate` (every migration of tests/drivers/django_app,
schema changes and a data migration), `migrate shop zero` (each one reversed) and `migrate`
again, then the app's test suite (`manage.py test shop -v 2`, one PASS/FAIL line per test)."""
import os
import re
import subprocess
import sys

from drvlib import TARGET, failed, finish, passed

APP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "django_app")
SUITE = "django"


def manage(*args):
    env = dict(os.environ, DRV_DJANGO_DB="drv_django")
    r = subprocess.run([sys.executable, "manage.py", *args], cwd=APP, env=env, capture_output=True, text=True,
                       timeout=600)
    return r.returncode, r.stdout + r.stderr


def admin_sql(sql):
    try:
        import MySQLdb
    except ImportError:
        import pymysql as MySQLdb
    from drvlib import HOST, PASSWORD, PORT, USER
    c = MySQLdb.connect(host=HOST, port=PORT, user=USER, passwd=PASSWORD)
    c.cursor().execute(sql)
    c.close()


for db in ("drv_django", "drv_django_test"):
    admin_sql(f"DROP DATABASE IF EXISTS {db}")
admin_sql("CREATE DATABASE drv_django CHARACTER SET utf8mb4")

for case, args in [("migrate", ("migrate", "--noinput")), ("migrate_shop_zero", ("migrate", "shop", "zero", "--noinput")),
                   ("migrate_again", ("migrate", "--noinput"))]:
    rc, out = manage(*args)
    if rc == 0:
        passed(SUITE, case)
    else:
        failed(SUITE, case, out.strip().splitlines()[-1] if out.strip() else f"exit {rc}")
        if os.environ.get("DRV_VERBOSE") == "1":
            print(out)

# Management commands against the migrated database.
FIXTURE = os.path.join(os.environ.get("INTEROP_WORKDIR", "/tmp"), f"drv-django-{TARGET}.json")


def seed():
    # a little data through the ORM (the shell command runs it in the project)
    return manage("shell", "-c", "from shop.models import *; c = Category.objects.create(name='seed'); "
                  "p = Product.objects.create(category=c, title='seeded', sku='S1', price='1.50'); "
                  "p.tags.add(Tag.objects.create(label='t')); Review.objects.create(product=p, stars=3)")


def inspectdb_ok(out):
    """The models inspectdb writes; against Cohort, also the very text it wrote against MariaDB (when
    run.sh ran the MariaDB suite first, in the same work directory)."""
    if not all(x in out for x in ("class ShopProduct(models.Model)", "models.ForeignKey(ShopCategory, models.DO_NOTHING)",
                                  "unique_together = (('category', 'sku'),)", "sku = models.CharField(max_length=40)")):
        return False
    work = os.environ.get("INTEROP_WORKDIR")
    if not work:
        return True
    with open(os.path.join(work, f"inspectdb-{TARGET}.py"), "w") as f:
        f.write(out)
    oracle = os.path.join(work, "inspectdb-mariadb.py")
    if TARGET != "mariadb" and os.path.exists(oracle):
        with open(oracle) as f:
            return f.read() == out
    return True


for case, args, ok in [
    ("check-database", ("check", "--database", "default"), None),
    ("showmigrations", ("showmigrations", "shop"), lambda o: "[X] 0005_data" in o),
    ("sqlmigrate", ("sqlmigrate", "shop", "0004"), lambda o: "ALTER TABLE" in o),
    ("seed-data", None, None),
    ("inspectdb", ("inspectdb",), inspectdb_ok),
    ("dumpdata", ("dumpdata", "shop", "--indent", "1", "-o", FIXTURE), None),
    ("flush", ("flush", "--noinput"), None),
    ("loaddata", ("loaddata", FIXTURE), lambda o: "Installed" in o),
    ("createcachetable", ("createcachetable", "--database", "default"), None),
]:
    rc, out = seed() if args is None else manage(*args)
    if rc == 0 and (ok is None or ok(out)):
        passed(SUITE, case)
    else:
        failed(SUITE, case, (out.strip().splitlines() or [f"exit {rc}"])[-1] if rc else f"unexpected output: {out[:300]}")
        if os.environ.get("DRV_VERBOSE") == "1":
            print(out)

rc, out = manage("test", "shop", "-v", "2", "--noinput")
seen = 0
for m in re.finditer(r"^(test_\w+) \(([\w.]+)\)[^\n]*? \.\.\. (ok|FAIL|ERROR|skipped.*)$", out, re.M):
    seen += 1
    name = f"test/{m.group(2).split('.')[-1] if m.group(2).count('.') < 3 else m.group(2).split('.')[-2]}.{m.group(1)}"
    if m.group(3) == "ok":
        passed(SUITE, name)
    else:
        detail = ""
        blk = re.search(r"^(?:FAIL|ERROR): " + re.escape(m.group(1)) + r" .*?\n-{20,}\n(.*?)(?:\n={20,}|\n-{20,}|\Z)", out,
                        re.M | re.S)
        if blk:
            detail = blk.group(1).strip().splitlines()[-1]
        failed(SUITE, name, f"{m.group(3)} {detail}")
if rc != 0 or seen == 0:
    tail = " | ".join(out.strip().splitlines()[-6:])
    failed(SUITE, "test-run", f"manage.py test exit {rc}, {seen} tests seen: {tail}")
    if os.environ.get("DRV_VERBOSE") == "1":
        print(out)
else:
    passed(SUITE, "test-run")
admin_sql("DROP DATABASE IF EXISTS drv_django")
print(f"# {TARGET}: django done")
finish()
