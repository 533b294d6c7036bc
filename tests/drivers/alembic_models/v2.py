"""Alembic suite, second model set: each kind of change autogenerate detects against v1."""
import enum

from sqlalchemy import (JSON, BigInteger, Boolean, Column, Date, DateTime, Enum, ForeignKey, Index, Integer,
                        LargeBinary, MetaData, Numeric, String, Table, Text, Time, UniqueConstraint, func, text)
from sqlalchemy.dialects import mysql

metadata = MetaData()


class Color(enum.Enum):
    red = 1
    green = 2
    blue = 3


Table("users", metadata,
      Column("id", Integer, primary_key=True),
      Column("email", String(200), nullable=False, unique=True),
      Column("name", String(50), nullable=False, server_default="anon2"),
      Column("age", Integer, server_default=text("1")),
      Column("active", Boolean, nullable=False, server_default=text("1")),
      Column("created", DateTime, server_default=func.now()),
      Column("color", Enum(Color), nullable=True),
      Column("prefs", JSON),
      Column("score", Numeric(12, 3), server_default="1.50"),
      Column("bio", Text),
      Column("photo", LargeBinary),
      Column("tiny", mysql.TINYINT(unsigned=True)),
      Column("born", Date),
      Column("wake", Time),
      Column("nick", String(20), nullable=True, index=True),
      Index("ix_users_created_name", "created", "name"),
      comment="the users v2")
Table("posts", metadata,
      Column("id", BigInteger, primary_key=True, autoincrement=True),
      Column("user_id", Integer, ForeignKey("users.id", ondelete="CASCADE", name="fk_posts_user"), nullable=False),
      Column("title", String(200), nullable=False, comment="the title"),
      Column("status", mysql.ENUM("draft", "pub", "gone"), server_default="pub"),
      Column("body", mysql.MEDIUMTEXT),
      Column("editor_id", Integer, ForeignKey("users.id", name="fk_editor")),
      UniqueConstraint("title", "user_id", name="uq_user_title"))
Table("categories", metadata,
      Column("id", Integer, primary_key=True),
      Column("parent_id", Integer, ForeignKey("categories.id", name="fk_cat_parent")),
      Column("slug", String(40), nullable=False),
      Index("ix_cat_slug", "slug", unique=True))
