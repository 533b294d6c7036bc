#!/usr/bin/env python3
"""python-mysql-replication (pip mysql-replication) streams a Cohort primary's binlog.

Writes a known set of changes to cdc.items (unsigned BIGINT extremes, DECIMAL, dates, NULLs,
UTF-8) with binlog_row_metadata=FULL, then reads them back twice, non-blocking:
  - file mode: COM_BINLOG_DUMP from the first binlog file;
  - MariaDB GTID mode (is_mariadb, auto_position = the GTID position before the changes).
Both must see exactly those inserts, updates and deletes, with the column names and the
unsigned values as written. Prints PASS/FAIL lines.
"""
import argparse
import sys

import pymysql
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent

FAILED = 0


def report(ok, name, why=""):
    global FAILED
    if ok:
        print(f"PASS: replication/cdc/{name}")
    else:
        FAILED += 1
        print(f"FAIL: replication/cdc/{name}: {why}")


def rows(port, **mode):
    settings = dict(host="127.0.0.1", port=port, user="root", passwd="")
    stream = BinLogStreamReader(
        connection_settings=settings,
        server_id=9100 + len(mode),
        blocking=False,
        only_schemas=["cdc"],
        only_events=[WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent],
        **mode,
    )
    out = []
    for ev in stream:
        for r in ev.rows:
            if isinstance(ev, UpdateRowsEvent):
                out.append(("update", ev.table, dict(r["before_values"]), dict(r["after_values"])))
            else:
                kind = "insert" if isinstance(ev, WriteRowsEvent) else "delete"
                out.append((kind, ev.table, dict(r["values"]), None))
    stream.close()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--first", required=True, help="the first binlog file")
    a = ap.parse_args()
    c = pymysql.connect(host="127.0.0.1", port=a.port, user="root", password="", autocommit=True)
    cur = c.cursor()
    cur.execute("SET GLOBAL binlog_row_metadata = FULL")
    cur.execute("SELECT @@gtid_binlog_pos")
    before = cur.fetchone()[0]
    cur.execute("CREATE DATABASE IF NOT EXISTS cdc")
    cur.execute(
        "CREATE TABLE cdc.items (id INT UNSIGNED PRIMARY KEY, big BIGINT UNSIGNED, tiny TINYINT UNSIGNED, "
        "neg INT, price DECIMAL(12,3), born DATE, name VARCHAR(40), note TEXT)"
    )
    cur.execute(
        "INSERT INTO cdc.items VALUES (1, 18446744073709551615, 255, -2147483648, 123456789.125, '2024-02-29', 'ünï ✓', NULL), "
        "(4294967295, 0, 0, 2147483647, -0.001, NULL, NULL, 'note')"
    )
    cur.execute("UPDATE cdc.items SET big = 9223372036854775808, name = 'renamed' WHERE id = 1")
    cur.execute("DELETE FROM cdc.items WHERE id = 4294967295")
    want = [
        ("insert", "items", {"id": 1, "big": 18446744073709551615, "tiny": 255, "neg": -2147483648,
                             "price": "123456789.125", "born": "2024-02-29", "name": "ünï ✓", "note": None}, None),
        ("insert", "items", {"id": 4294967295, "big": 0, "tiny": 0, "neg": 2147483647, "price": "-0.001",
                             "born": None, "name": None, "note": "note"}, None),
        ("update", "items", {"id": 1, "big": 18446744073709551615, "tiny": 255, "neg": -2147483648,
                             "price": "123456789.125", "born": "2024-02-29", "name": "ünï ✓", "note": None},
         {"id": 1, "big": 9223372036854775808, "tiny": 255, "neg": -2147483648, "price": "123456789.125",
          "born": "2024-02-29", "name": "renamed", "note": None}),
        ("delete", "items", {"id": 4294967295, "big": 0, "tiny": 0, "neg": 2147483647, "price": "-0.001",
                             "born": None, "name": None, "note": "note"}, None),
    ]

    def norm(rs):
        def v(d):
            if d is None:
                return None
            return {k: (str(x) if x is not None and k in ("price", "born") else x) for k, x in d.items()}
        return [(k, t, v(b), v(a)) for k, t, b, a in rs]

    for mode, kw in (
        ("file mode", dict(log_file=a.first, log_pos=4, resume_stream=True)),
        ("MariaDB GTID mode", dict(is_mariadb=True, auto_position=before)),
    ):
        try:
            got = norm(rows(a.port, **kw))
        except Exception as e:  # noqa: BLE001 -- any failure of the client is a FAIL line
            report(False, mode, repr(e))
            continue
        report(got == want, f"{mode}: the same rows, unsigned values and column names", f"got {got}")
    sys.exit(1 if FAILED else 0)


main()
