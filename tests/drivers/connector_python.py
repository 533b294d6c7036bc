"""mysql-connector-python against one server, with its C extension and pure Python: basics
(types round trip, warnings, errors, autocommit, transactions), the prepared cursor (binary
protocol) with INSERT … RETURNING, and multi-statement execution."""
import datetime
from decimal import Decimal

import mysql.connector
from drvlib import HOST, PASSWORD, PORT, USER, check, failed, finish, run_case, skipped


def suite(use_pure):
    name = "connector-python-" + ("pure" if use_pure else "cext")
    if not use_pure and not mysql.connector.HAVE_CEXT:
        skipped(name, "all", "the C extension is not available in this installation")
        return
    c = mysql.connector.connect(host=HOST, port=PORT, user=USER, password=PASSWORD, use_pure=use_pure)
    check(type(c).__name__ == ("MySQLConnection" if use_pure else "CMySQLConnection"), type(c).__name__)
    cur = c.cursor()
    db = f"drv_cpy_{'pure' if use_pure else 'cext'}"
    cur.execute(f"DROP DATABASE IF EXISTS {db}")
    cur.execute(f"CREATE DATABASE {db}")
    c.database = db

    def basics():
        cur.execute("CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, s VARCHAR(20) NOT NULL, d DECIMAL(10,3), "
                    "f DOUBLE, dt DATETIME(3), dd DATE, b VARBINARY(8), u BIGINT UNSIGNED, x TEXT)")
        row = ("héllo", Decimal("12.345"), 1.5, datetime.datetime(2024, 2, 29, 23, 59, 58, 123000),
               datetime.date(1999, 12, 31), b"\x00\xff", 18446744073709551615, "x" * 1000)
        cur.execute("INSERT INTO t (s, d, f, dt, dd, b, u, x) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)", row)
        check(cur.lastrowid == 1 and cur.rowcount == 1, f"lastrowid {cur.lastrowid} rowcount {cur.rowcount}")
        c.commit()
        cur.execute("SELECT s, d, f, dt, dd, b, u, x FROM t")
        got = cur.fetchone()
        check(tuple(got[:5]) == row[:5] and bytes(got[5]) == row[5] and got[6:] == row[6:], f"round trip {got}")
        check([d[0] for d in cur.description] == ["s", "d", "f", "dt", "dd", "b", "u", "x"], "description")

    def errors_and_warnings():
        try:
            cur.execute("INSERT INTO t (id, s) VALUES (1, 'dup')")
            raise AssertionError("duplicate accepted")
        except mysql.connector.IntegrityError as e:
            check(e.errno == 1062 and e.sqlstate == "23000", f"{e.errno} {e.sqlstate}")
        try:
            cur.execute("SELEC 1")
            raise AssertionError("syntax error accepted")
        except mysql.connector.ProgrammingError as e:
            check(e.errno == 1064, f"{e.errno}")
        cur.execute("SET sql_mode = ''")
        cur.execute("INSERT INTO t (s, d) VALUES ('w', 'abc')")
        check(cur.warning_count == 1, f"warning_count {cur.warning_count}")
        cur.execute("SHOW WARNINGS")
        w = cur.fetchall()
        check(len(w) == 1 and w[0][1] == 1366, f"warnings {w}")
        cur.execute("SET sql_mode = DEFAULT")
        c.rollback()

    def transactions():
        c.autocommit = False
        cur.execute("INSERT INTO t (s) VALUES ('rolled back')")
        c.rollback()
        c.start_transaction(isolation_level="READ COMMITTED")
        cur.execute("INSERT INTO t (s) VALUES ('kept')")
        c.commit()
        c.autocommit = True
        cur.execute("SELECT s FROM t WHERE s IN ('rolled back', 'kept')")
        check(cur.fetchall() == [("kept",)], "transactions")
        check(c.autocommit is True, "autocommit")

    def prepared():
        pc = c.cursor(prepared=True)
        pc.execute("SELECT id, s, d, dt FROM t WHERE id = %s", (1,))
        r = pc.fetchall()
        check(len(r) == 1 and r[0][1] == "héllo" and r[0][2] == Decimal("12.345")
              and r[0][3] == datetime.datetime(2024, 2, 29, 23, 59, 58, 123000), f"prepared select {r}")
        for i in range(3):
            pc.execute("INSERT INTO t (s, d, dd) VALUES (?, ?, ?)", (f"p{i}", Decimal(i) / 4, datetime.date(2020, 1, i + 1)))
        pc.execute("SELECT COUNT(*) FROM t WHERE s LIKE ? AND dd >= ?", ("p%", datetime.date(2020, 1, 2)))
        check(pc.fetchone()[0] == 2, "prepared count")
        pc.execute("INSERT INTO t (s, d) VALUES (?, ?) RETURNING id, s, d", ("ret", None))
        r = pc.fetchall()
        check(len(r) == 1 and r[0][1] == "ret" and r[0][2] is None, f"prepared RETURNING {r}")
        pc.execute("SELECT s FROM t WHERE d IS NULL AND s = ?", (None,))
        check(pc.fetchall() == [], "NULL parameter")
        pc.close()

    def multi():
        sql = "SELECT 1 AS a; INSERT INTO t (s) VALUES ('multi'); SELECT s FROM t WHERE s = 'multi'; UPDATE t SET f = 2 WHERE s = 'multi'"
        out = []
        if hasattr(cur, "fetchsets"):
            cur.execute(sql, map_results=True)
            for stmt, rs in cur.fetchsets():
                out.append((rs, cur.rowcount))
        else:
            for r in cur.execute(sql, multi=True):
                out.append((r.fetchall() if r.with_rows else None, r.rowcount))
        check(out[0][0] == [(1,)] and out[1][1] == 1 and out[2][0] == [("multi",)] and out[3][1] == 1, f"multi {out}")
        try:
            if hasattr(cur, "fetchsets"):
                cur.execute("SELECT 1; SELECT * FROM nope; SELECT 3", map_results=True)
                list(cur.fetchsets())
            else:
                for r in cur.execute("SELECT 1; SELECT * FROM nope; SELECT 3", multi=True):
                    if r.with_rows:
                        r.fetchall()
            raise AssertionError("no error from the second statement")
        except AssertionError:
            raise
        except Exception as e:  # noqa: BLE001 - the C extension raises its own MySQLInterfaceError
            check(getattr(e, "errno", None) == 1146 or "doesn't exist" in str(e), f"error {e!r}")
        cur.execute("SELECT 42")
        check(cur.fetchall() == [(42,)], "connection usable after the error")

    def executemany():
        cur.executemany("INSERT INTO t (s, u) VALUES (%s, %s)", [(f"m{i}", i) for i in range(100)])
        check(cur.rowcount == 100, f"rowcount {cur.rowcount}")
        cur.execute("SELECT SUM(u) FROM t WHERE s LIKE 'm%'")
        check(int(cur.fetchone()[0]) == 4950, "sum")

    for case, fn in [("basics", basics), ("errors-warnings", errors_and_warnings), ("transactions", transactions),
                     ("prepared-cursor", prepared), ("multi-statements", multi), ("executemany", executemany)]:
        run_case(name, case, fn)
    cur.execute(f"DROP DATABASE {db}")
    c.close()


for pure in (False, True):
    try:
        suite(pure)
    except Exception as e:  # noqa: BLE001
        failed("connector-python-" + ("pure" if pure else "cext"), "setup", f"{type(e).__name__}: {e}")
finish()
