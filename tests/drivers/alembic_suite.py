"""Alembic against one server (issue 21): `revision --autogenerate` from an empty database (model
set alembic_models/v1.py: foreign keys, unique constraints, indexes with a prefix length, server
defaults, ENUMs, JSON, BOOL, comments), `upgrade head`, autogenerate again, then the same with the
changed models of v2.py (types, nullability, defaults, comments, ENUMs, indexes, a table and a
foreign key added, a table and a column dropped), and `downgrade base`.

Autogenerate reads the schema back through SHOW CREATE TABLE and information_schema, so what it
finds is what the server says about its tables. Each generated migration (its upgrade and
downgrade bodies) and each list of differences left after an upgrade must equal MariaDB's: the
suite writes them to the work directory, and against Cohort compares them with what the MariaDB
run wrote there (run.sh runs MariaDB first)."""
import os
import re
import shutil
import tempfile

from drvlib import HOST, PASSWORD, PORT, TARGET, USER, check, finish, run_case

SUITE = "alembic"
HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.environ.get("INTEROP_WORKDIR") or tempfile.mkdtemp(prefix="drv-alembic-")
DB = "drv_alembic"
URL = f"mysql+pymysql://{USER}:{PASSWORD}@{HOST}:{PORT}/{DB}"

ENV_PY = '''
import importlib.util
from alembic import context
from sqlalchemy import engine_from_config, pool

config = context.config
spec = importlib.util.spec_from_file_location("models", config.attributes["models"])
models = importlib.util.module_from_spec(spec)
spec.loader.exec_module(models)
engine = engine_from_config(config.get_section(config.config_ini_section), prefix="sqlalchemy.", poolclass=pool.NullPool)
with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=models.metadata, compare_type=True,
                      compare_server_default=True)
    with context.begin_transaction():
        context.run_migrations()
'''


def admin(sql):
    import pymysql
    c = pymysql.connect(host=HOST, port=PORT, user=USER, password=PASSWORD)
    try:
        c.cursor().execute(sql)
    finally:
        c.close()


def same_as_mariadb(name, text):
    """Writes `text` as this target's `name`; against Cohort, it must equal MariaDB's."""
    with open(os.path.join(WORK, f"alembic-{TARGET}-{name}.txt"), "w") as f:
        f.write(text)
    oracle = os.path.join(WORK, f"alembic-mariadb-{name}.txt")
    if TARGET != "mariadb" and os.path.exists(oracle):
        with open(oracle) as f:
            want = f.read()
        check(want == text, f"{name} differs from MariaDB's:\n--- mariadb\n{want}\n--- {TARGET}\n{text}")


def main():
    from alembic import command
    from alembic.config import Config

    admin(f"DROP DATABASE IF EXISTS {DB}")
    admin(f"CREATE DATABASE {DB} CHARACTER SET utf8mb4")
    d = os.path.join(WORK, f"alembic-{TARGET}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    ini = os.path.join(d, "alembic.ini")
    command.init(Config(ini), os.path.join(d, "mig"))
    cfg = Config(ini)
    cfg.set_main_option("script_location", os.path.join(d, "mig"))
    cfg.set_main_option("sqlalchemy.url", URL.replace("%", "%%"))
    with open(os.path.join(d, "mig", "env.py"), "w") as f:
        f.write(ENV_PY)

    def use(models):
        cfg.attributes["models"] = os.path.join(HERE, "alembic_models", models)

    def body(rev):
        """The upgrade and downgrade bodies of revision `rev` (no header: it has a date)."""
        path = [p for p in os.listdir(os.path.join(d, "mig", "versions")) if p.startswith(rev + "_")][0]
        with open(os.path.join(d, "mig", "versions", path)) as f:
            text = f.read()
        return text[text.index("def upgrade()"):]

    def leftover():
        """What autogenerate still finds after an upgrade, one difference a line."""
        from alembic.autogenerate import compare_metadata
        from alembic.migration import MigrationContext
        import importlib.util
        from sqlalchemy import create_engine
        spec = importlib.util.spec_from_file_location("m", cfg.attributes["models"])
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        eng = create_engine(URL)
        try:
            with eng.connect() as c:
                mc = MigrationContext.configure(c, opts={"compare_type": True, "compare_server_default": True})
                diffs = compare_metadata(mc, m.metadata)
        finally:
            eng.dispose()
        def show(v):
            # a server default as its text (DefaultClause's repr hides a reflected one)
            arg = getattr(v, "arg", None)
            if arg is not None:
                return f"default {getattr(arg, 'text', None) or str(arg)!r}"
            if isinstance(v, (list, tuple)):
                return "(" + ", ".join(show(x) for x in v) + ")"
            return re.sub(r" at 0x[0-9a-f]+", "", repr(v))
        return "".join(show(x) + "\n" for x in diffs)

    def autogen(rev, msg, expect):
        def case():
            command.revision(cfg, message=msg, autogenerate=True, rev_id=rev)
            text = body(rev)
            for e in expect:
                check(e in text, f"no {e!r} in the migration:\n{text}")
            same_as_mariadb(rev, text)
        return case

    def upgrade():
        command.upgrade(cfg, "head")

    def again(name):
        def case():
            same_as_mariadb(name, leftover())
        return case

    use("v1.py")
    ok = run_case(SUITE, "autogenerate-v1", autogen("r1", "one", [
        "op.create_table('users'", "op.create_table('posts'", "op.create_table('tags'",
        "sa.ForeignKeyConstraint(['user_id'], ['users.id'], name='fk_posts_user', ondelete='CASCADE')",
        "mysql_length=20", "op.create_index('ix_users_created'"]))
    ok = ok and run_case(SUITE, "upgrade-v1", upgrade)
    ok = ok and run_case(SUITE, "autogenerate-v1-again", again("v1-again"))
    use("v2.py")
    ok = ok and run_case(SUITE, "autogenerate-v2", autogen("r2", "two", [
        "op.create_table('categories'", "op.drop_table('tags')", "op.add_column('posts', sa.Column('editor_id'",
        "op.create_unique_constraint('uq_user_title'", "op.create_foreign_key('fk_editor'",
        "op.drop_column('users', 'ratio')", "type_=sa.String(length=200)", "server_default='anon2'",
        "existing_type=mysql.ENUM('draft', 'pub')", "comment='the title'", "op.create_table_comment("]))
    ok = ok and run_case(SUITE, "upgrade-v2", upgrade)
    ok = ok and run_case(SUITE, "autogenerate-v2-again", again("v2-again"))
    ok = ok and run_case(SUITE, "downgrade-v1", lambda: command.downgrade(cfg, "r1"))
    use("v1.py")
    ok = ok and run_case(SUITE, "downgraded-matches-v1", again("v1-downgraded"))
    ok and run_case(SUITE, "downgrade-base", lambda: command.downgrade(cfg, "base"))
    admin(f"DROP DATABASE IF EXISTS {DB}")


main()
print(f"# {TARGET}: alembic done")
finish()
