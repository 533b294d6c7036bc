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
    import MySQLdb
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
