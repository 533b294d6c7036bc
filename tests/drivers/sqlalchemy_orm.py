"""SQLAlchemy 2 ORM against one server, through PyMySQL and through mysql-connector-python.

Models with foreign keys (ON DELETE CASCADE), a many-to-many association table, a composite
unique constraint and an index; create_all / drop_all; bulk inserts (Core executemany and ORM
add_all); lazy, joined and select-in eager loading; a session with begin_nested savepoints (one
rolled back, one released); an UPDATE that changes nothing, which must still count its matched
row (SQLAlchemy connects with CLIENT_FOUND_ROWS and checks the count of every ORM UPDATE).
"""
from typing import List, Optional

from drvlib import HOST, PASSWORD, PORT, USER, check, finish, run_case
from sqlalchemy import (Column, ForeignKey, Index, MetaData, String, Table, UniqueConstraint, create_engine,
                        func, inspect, insert, select, text, update)
from sqlalchemy.orm import (DeclarativeBase, Mapped, Session, joinedload, mapped_column,
                            relationship, selectinload)


class Base(DeclarativeBase):
    pass


order_items = Table(
    "order_items",
    Base.metadata,
    Column("order_id", ForeignKey("orders.id", ondelete="CASCADE"), primary_key=True),
    Column("item_id", ForeignKey("items.id"), primary_key=True),
)


class User(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(50), index=True)
    email: Mapped[Optional[str]] = mapped_column(String(100), unique=True)
    addresses: Mapped[List["Address"]] = relationship(back_populates="user", cascade="all, delete-orphan",
                                                     order_by="Address.id")
    orders: Mapped[List["Order"]] = relationship(back_populates="user", order_by="Order.id")


class Address(Base):
    __tablename__ = "addresses"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    city: Mapped[str] = mapped_column(String(40))
    kind: Mapped[str] = mapped_column(String(10), default="home")
    user: Mapped[User] = relationship(back_populates="addresses")
    __table_args__ = (UniqueConstraint("user_id", "kind", name="uq_user_kind"),)


class Item(Base):
    __tablename__ = "items"
    id: Mapped[int] = mapped_column(primary_key=True)
    sku: Mapped[str] = mapped_column(String(20), unique=True)
    price_cents: Mapped[int]


class Order(Base):
    __tablename__ = "orders"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    note: Mapped[Optional[str]] = mapped_column(String(200))
    user: Mapped[User] = relationship(back_populates="orders")
    items: Mapped[List[Item]] = relationship(secondary=order_items, order_by=Item.id)
    __table_args__ = (Index("ix_orders_user_note", "user_id", "note"),)


def suite(driver):
    name = f"sqlalchemy-{driver}"
    db = f"drv_sqla_{driver}"
    admin = create_engine(f"mysql+{driver}://{USER}:{PASSWORD}@{HOST}:{PORT}/")
    with admin.begin() as c:
        c.execute(text(f"DROP DATABASE IF EXISTS {db}"))
        c.execute(text(f"CREATE DATABASE {db}"))
    admin.dispose()
    engine = create_engine(f"mysql+{driver}://{USER}:{PASSWORD}@{HOST}:{PORT}/{db}?charset=utf8mb4")

    def create_all():
        Base.metadata.create_all(engine)
        insp = inspect(engine)
        check(sorted(insp.get_table_names()) == ["addresses", "items", "order_items", "orders", "users"],
              f"tables {insp.get_table_names()}")
        fks = insp.get_foreign_keys("addresses")
        check(len(fks) == 1 and fks[0]["referred_table"] == "users" and fks[0]["constrained_columns"] == ["user_id"],
              f"addresses foreign keys {fks}")
        check(fks[0].get("options", {}).get("ondelete") == "CASCADE", f"ondelete {fks}")
        idx = {i["name"]: i for i in insp.get_indexes("orders")}
        check("ix_orders_user_note" in idx and idx["ix_orders_user_note"]["column_names"] == ["user_id", "note"],
              f"orders indexes {idx}")
        uqs = insp.get_unique_constraints("addresses")
        check(any(u["column_names"] == ["user_id", "kind"] for u in uqs), f"unique constraints {uqs}")
        cols = {c["name"]: c for c in insp.get_columns("users")}
        check(cols["id"]["autoincrement"] is True or cols["id"].get("autoincrement") == "auto", f"users.id {cols['id']}")
        check(cols["email"]["nullable"] and not cols["name"]["nullable"], f"nullability {cols}")
        check(insp.get_pk_constraint("order_items")["constrained_columns"] == ["order_id", "item_id"], "order_items pk")

    def bulk_insert():
        with Session(engine) as s, s.begin():
            s.execute(insert(User), [{"name": f"user{i}", "email": f"u{i}@x.org"} for i in range(1, 101)])
            s.execute(insert(Item), [{"sku": f"sku{i}", "price_cents": i * 100} for i in range(1, 21)])
        with Session(engine) as s, s.begin():
            users = s.scalars(select(User).order_by(User.id).limit(10)).all()
            for u in users:
                u.addresses = [Address(city=f"city{u.id}", kind="home"), Address(city=f"work{u.id}", kind="work")]
            items = s.scalars(select(Item).order_by(Item.id)).all()
            orders = [Order(user=users[i % 10], note=f"order{i}", items=items[i % 5:i % 5 + 3]) for i in range(30)]
            s.add_all(orders)
            s.flush()
            check(all(o.id for o in orders), "ORM add_all gave every order its AUTO_INCREMENT id")
            check(len({o.id for o in orders}) == 30, "distinct ids")
        with engine.connect() as c:
            check(c.scalar(text("SELECT COUNT(*) FROM users")) == 100, "100 users")
            check(c.scalar(text("SELECT COUNT(*) FROM addresses")) == 20, "20 addresses")
            check(c.scalar(text("SELECT COUNT(*) FROM order_items")) == 90, "90 order items")

    def lazy_load():
        with Session(engine) as s:
            u = s.get(User, 3)
            check([a.city for a in u.addresses] == ["city3", "work3"], f"lazy addresses {u.addresses}")
            check(len(u.orders) == 3 and all(len(o.items) == 3 for o in u.orders), "lazy orders/items")
            check(u.addresses[0].user is u, "back reference")

    def joined_load():
        with Session(engine) as s:
            stmt = (select(User).options(joinedload(User.addresses), joinedload(User.orders).joinedload(Order.items))
                    .where(User.id <= 10).order_by(User.id))
            users = s.scalars(stmt).unique().all()
            check(len(users) == 10, f"{len(users)} users")
            st = inspect(users[0])
            check("addresses" not in st.unloaded and "orders" not in st.unloaded, "eagerly loaded")
            check(sum(len(o.items) for u in users for o in u.orders) == 90, "items through joins")
            check([a.kind for a in users[4].addresses] == ["home", "work"], "addresses order")
            # joinedload with LIMIT: SQLAlchemy wraps the limited query in a subquery.
            u1 = s.scalars(select(User).options(joinedload(User.addresses)).order_by(User.id.desc()).limit(95)).unique().all()
            check(len(u1) == 95 and len(u1[-1].addresses) == 2, "joinedload + LIMIT subquery")

    def selectin_load():
        with Session(engine) as s:
            stmt = (select(User).options(selectinload(User.orders).selectinload(Order.items), selectinload(User.addresses))
                    .where(User.id.in_([1, 2, 3, 50])).order_by(User.id))
            users = s.scalars(stmt).all()
            check([len(u.orders) for u in users] == [3, 3, 3, 0], f"orders {[len(u.orders) for u in users]}")
            check([len(u.addresses) for u in users] == [2, 2, 2, 0], "addresses")
            check(users[0].orders[0].items[0].sku == "sku1", f"items {users[0].orders[0].items}")
            # aggregate with join and group by
            rows = s.execute(select(User.name, func.count(Order.id)).join(User.orders).group_by(User.name)
                             .order_by(func.count(Order.id).desc(), User.name).limit(2)).all()
            check([tuple(r) for r in rows] == [("user1", 3), ("user10", 3)], f"grouped {rows}")

    def savepoints():
        with Session(engine) as s:
            with s.begin():
                s.add(User(name="sp-outer", email="outer@x.org"))
                sp = s.begin_nested()
                s.add(User(name="sp-inner-rolled-back", email="inner1@x.org"))
                s.flush()
                sp.rollback()
                with s.begin_nested():
                    s.add(User(name="sp-inner-kept", email="inner2@x.org"))
                try:
                    with s.begin_nested():
                        s.add(User(name="dup", email="u1@x.org"))  # duplicate unique email
                        s.flush()
                    raise AssertionError("a duplicate email was accepted")
                except Exception as e:  # noqa: BLE001
                    check("1062" in str(e) or "Duplicate" in str(e), f"duplicate error {e}")
            names = s.scalars(select(User.name).where(User.name.like("sp-%")).order_by(User.name)).all()
            check(names == ["sp-inner-kept", "sp-outer"], f"after savepoints {names}")

    def unchanged_update():
        with Session(engine) as s1, Session(engine) as s2:
            u1 = s1.get(User, 7)
            u2 = s2.get(User, 7)
            u2.name = "renamed7"
            s2.commit()
            # the same value again: the row is matched but not changed; without CLIENT_FOUND_ROWS
            # the count would be 0 and the ORM would raise StaleDataError.
            u1.name = "renamed7"
            s1.commit()
        with engine.begin() as c:
            r = c.execute(update(User).where(User.id == 7).values(name="renamed7"))
            check(r.rowcount == 1, f"rowcount of an unchanged UPDATE {r.rowcount} (CLIENT_FOUND_ROWS)")
            r = c.execute(update(User).where(User.id > 1000).values(name="x"))
            check(r.rowcount == 0, f"rowcount with no match {r.rowcount}")

    def delete_cascade():
        with Session(engine) as s, s.begin():
            u = s.get(User, 2)
            s.delete(u.orders[0])
            u.addresses.pop(0)  # delete-orphan
        with engine.begin() as c:
            check(c.scalar(text("SELECT COUNT(*) FROM addresses WHERE user_id = 2")) == 1, "orphan deleted")
            check(c.scalar(text("SELECT COUNT(*) FROM orders WHERE user_id = 2")) == 2, "order deleted")
            check(c.scalar(text("SELECT COUNT(*) FROM order_items")) == 87, "order_items cascaded")
            c.execute(text("DELETE FROM orders WHERE user_id = 3"))
            c.execute(text("DELETE FROM users WHERE id = 3"))  # addresses by ON DELETE CASCADE
            check(c.scalar(text("SELECT COUNT(*) FROM addresses WHERE user_id = 3")) == 0, "ON DELETE CASCADE")

    def fk_violation():
        with engine.connect() as c:
            try:
                c.execute(text("INSERT INTO orders (user_id, note) VALUES (99999, 'x')"))
                raise AssertionError("an order of a missing user was accepted")
            except Exception as e:  # noqa: BLE001
                check("1452" in str(e), f"error {e}")
            c.rollback()

    def core_features():
        from sqlalchemy import (Boolean, DateTime, Integer, LargeBinary, MetaData, Numeric, Text, and_, case,
                                cast, delete, exists, literal, or_, union_all)
        from sqlalchemy.dialects.mysql import insert as my_insert
        md = MetaData()
        ev = Table("events", md, Column("id", Integer, primary_key=True),
                   Column("kind", String(20), nullable=False, server_default="misc"),
                   Column("at", DateTime, server_default=func.now()),
                   Column("ok", Boolean, nullable=False, default=True),
                   Column("amount", Numeric(12, 4)), Column("payload", LargeBinary), Column("note", Text),
                   Column("user_id", ForeignKey(User.__table__.c.id)))
        md.create_all(engine)
        try:
            core_queries(md, ev)
        finally:
            md.drop_all(engine)

    def core_queries(md, ev):
        from sqlalchemy import Integer, and_, case, cast, delete, exists, literal, or_, union_all
        from sqlalchemy.dialects.mysql import insert as my_insert
        refl = Table("events", MetaData(), autoload_with=engine)
        check([c.name for c in refl.columns] == ["id", "kind", "at", "ok", "amount", "payload", "note", "user_id"],
              f"reflected {[c.name for c in refl.columns]}")
        check(str(refl.c.kind.server_default.arg).strip("'") == "misc", f"server default {refl.c.kind.server_default.arg}")
        check(len(refl.foreign_keys) == 1, "reflected foreign key")
        with engine.begin() as c:
            c.execute(insert(ev), [{"kind": k, "amount": i / 8, "payload": bytes([i, 0, 255]), "user_id": [1, 2, 4, 5, 6][i % 5]}
                                   for i, k in enumerate(["a", "b", "c", "a", "b", "a"])])
            c.execute(insert(ev).values(note="defaults"))
            row = c.execute(select(ev).where(ev.c.note == "defaults")).one()
            check(row.kind == "misc" and row.at is not None and row.ok is True, f"defaults {row}")
            # ON DUPLICATE KEY UPDATE
            stmt = my_insert(ev).values(id=1, kind="dup")
            c.execute(stmt.on_duplicate_key_update(kind=stmt.inserted.kind, note="upserted"))
            check(c.execute(select(ev.c.kind, ev.c.note).where(ev.c.id == 1)).one() == ("dup", "upserted"), "upsert")
            # INSERT … SELECT
            c.execute(insert(ev).from_select(["kind", "amount"], select(ev.c.kind + "-copy", ev.c.amount).where(ev.c.kind == "a")))
            check(c.scalar(select(func.count()).select_from(ev).where(ev.c.kind.like("%-copy"))) == 2, "from_select")
            # CTE, window function, UNION ALL, EXISTS, CASE, CAST
            cte = select(ev.c.kind, func.count().label("n")).group_by(ev.c.kind).cte("kinds")
            rows = c.execute(select(cte.c.kind, cte.c.n, func.rank().over(order_by=cte.c.n.desc()).label("r"))
                             .order_by(cte.c.n.desc(), cte.c.kind)).all()
            check([tuple(r) for r in rows][:2] == [("a", 2, 1), ("a-copy", 2, 1)], f"cte/window {rows}")
            u = union_all(select(literal(1).label("x")), select(literal(2))).subquery()
            check(c.scalar(select(func.sum(u.c.x))) == 3, "union all")
            q = select(User.name).where(exists().where(and_(ev.c.user_id == User.id, ev.c.kind == "b"))).order_by(User.name)
            check(c.scalars(q).all() == ["user2", "user6"], f"exists {c.scalars(q).all()}")
            label = case((ev.c.amount > 0.3, "big"), (ev.c.amount > 0, "small"), else_="zero")
            got = c.execute(select(label, func.count()).group_by(label).order_by(label)).all()
            check([tuple(r) for r in got] == [("big", 5), ("small", 2), ("zero", 2)], f"case {got}")
            check(c.scalar(select(cast(ev.c.amount * 100, Integer)).where(ev.c.id == 3)) == 25, "cast")
            check(c.scalar(select(ev.c.payload).where(ev.c.id == 2)) == bytes([1, 0, 255]), "binary")
            check(c.execute(select(ev.c.id).where(or_(ev.c.kind == "b", ev.c.id.in_([1, 2]))).order_by(ev.c.id)).scalars().all()
                  == [1, 2, 5], "or/in")
            # DELETE … RETURNING (MariaDB), as the ORM's synchronize_session='fetch' uses it
            gone = c.execute(delete(ev).where(ev.c.kind.like("%-copy")).returning(ev.c.id, ev.c.kind)).all()
            check(sorted(r.kind for r in gone) == ["a-copy", "a-copy"], f"delete returning {gone}")
        with Session(engine) as s, s.begin():
            s.execute(update(User).where(User.name.like("user9%")).values(email=None)
                      .execution_options(synchronize_session="fetch"))
            s.execute(delete(Address).where(Address.kind == "work").execution_options(synchronize_session="fetch"))
            locked = s.scalars(select(User).where(User.id < 5).with_for_update(skip_locked=True)).all()
            check(len(locked) == 3, f"skip locked {len(locked)}")
            m = s.merge(User(id=4, name="merged4", email="m4@x.org"))
            check(m.name == "merged4", "merge")
        with engine.connect() as c:
            check(c.scalar(text("SELECT COUNT(*) FROM addresses WHERE kind = 'work'")) == 0, "fetch delete")
            check(c.scalar(text("SELECT name FROM users WHERE id = 4")) == "merged4", "merged")

    def drop_all():
        Base.metadata.drop_all(engine)
        check(inspect(engine).get_table_names() == [], "no tables left")

    for case, fn in [("create_all", create_all), ("bulk_insert", bulk_insert), ("lazy_load", lazy_load),
                     ("joinedload", joined_load), ("selectinload", selectin_load), ("begin_nested", savepoints),
                     ("unchanged_update_found_rows", unchanged_update), ("delete_cascade", delete_cascade),
                     ("fk_violation", fk_violation), ("core_features", core_features), ("drop_all", drop_all)]:
        run_case(name, case, fn)
    engine.dispose()
    with admin.begin() as c:
        c.execute(text(f"DROP DATABASE IF EXISTS {db}"))


for drv in ("pymysql", "mysqlconnector"):
    try:
        suite(drv)
    except Exception as e:  # noqa: BLE001
        from drvlib import failed
        failed(f"sqlalchemy-{drv}", "setup", f"{type(e).__name__}: {e}")
finish()
