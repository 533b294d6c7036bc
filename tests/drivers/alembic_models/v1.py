"""Alembic suite, first model set: what `revision --autogenerate` creates from nothing."""
import enum

from sqlalchemy import (JSON, BigInteger, Boolean, Column, Date, DateTime, Enum, ForeignKey, Index, Integer,
                        LargeBinary, MetaData, Numeric, SmallInteger, String, Table, Text, Time, UniqueConstraint,
                        func, text)
from sqlalchemy.dialects import mysql

metadata = MetaData()


class Color(enum.Enum):
    red = 1
    green = 2


Table("users", metadata,
      Column("id", Integer, primary_key=True),
      Column("email", String(120), nullable=False, unique=True),
      Column("name", String(50), nullable=True, server_default="anon"),
      Column("age", SmallInteger, server_default=text("0")),
      Column("active", Boolean, nullable=False, server_default=text("1")),
      Column("created", DateTime, server_default=func.now()),
      Column("color", Enum(Color), nullable=True),
      Column("prefs", JSON),
      Column("score", Numeric(10, 2), server_default="1.50"),
      Column("bio", Text),
      Column("photo", LargeBinary),
      Column("tiny", mysql.TINYINT(unsigned=True)),
      Column("born", Date),
      Column("wake", Time),
      Column("ratio", mysql.DOUBLE),
      UniqueConstraint("name", "age", name="uq_name_age"),
      Index("ix_users_created", "created"),
      comment="the users")
Table("posts", metadata,
      Column("id", BigInteger, primary_key=True, autoincrement=True),
      Column("user_id", Integer, ForeignKey("users.id", ondelete="CASCADE", name="fk_posts_user"), nullable=False),
      Column("title", String(200), nullable=False, comment="post title"),
      Column("status", mysql.ENUM("draft", "pub"), server_default="draft"),
      Column("body", mysql.MEDIUMTEXT),
      Index("ix_posts_title_prefix", "title", mysql_length=20))
Table("tags", metadata,
      Column("post_id", BigInteger, ForeignKey("posts.id", name="fk_tags_post"), primary_key=True),
      Column("tag", String(30), primary_key=True),
      Column("weight", Integer, nullable=False, server_default="5"))
