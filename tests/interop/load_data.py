#!/usr/bin/env python3
"""LOAD DATA LOCAL INFILE through PyMySQL (local_infile=True), checked against MariaDB 10.11.

The expected rows, warnings and "Records: …" texts were read from MariaDB 10.11 running the
same statements; the script passes against both servers. Checks:
  * CSV with OPTIONALLY ENCLOSED BY, doubled quotes, \\N and the word NULL, escapes, IGNORE 1
    LINES, an empty integer field (1366 warning: LOCAL makes data problems warnings);
  * too few / too many fields (1261 / 1262) and NULL into NOT NULL (1263);
  * LINES STARTING BY / TERMINATED BY '\\r\\n', a column list with @variables (the variable keeps
    the last row's field), SET col = expr over them;
  * duplicates: skipped with LOCAL (Skipped: N), REPLACE (in place with one unique key:
    Deleted: 0), REPLACE in strict mode
    fails on a bad value and leaves the table as it was (the statement is atomic);
  * LOAD inside a transaction, then ROLLBACK undoes it;
  * a client without local_infile gets 4166;
  * a large file (LOAD_ROWS rows [200000], several MB) streams in and every row arrives.

Prints one "PASS: name" / "FAIL: name: why" line per check; exit status 1 on any failure.
Environment: COHORT_HOST, COHORT_PORT, COHORT_USER, COHORT_PASSWORD, COHORT_DB, LOAD_ROWS.
"""

import os
import sys
import tempfile

import pymysql

HOST = os.environ.get("COHORT_HOST", "127.0.0.1")
PORT = int(os.environ.get("COHORT_PORT", "3306"))
USER = os.environ.get("COHORT_USER", "sb")
PASSWORD = os.environ.get("COHORT_PASSWORD", "sb")
DB = os.environ.get("COHORT_DB", "sbtest")
ROWS = int(os.environ.get("LOAD_ROWS", "200000"))

FAILED = 0
TMP = tempfile.mkdtemp(prefix="cohort-load-")


def check(name, ok, why=""):
    global FAILED
    if ok:
        print(f"PASS: {name}")
    else:
        FAILED += 1
        print(f"FAIL: {name}: {why}")


def connect(local_infile=True):
    return pymysql.connect(
        host=HOST,
        port=PORT,
        user=USER,
        password=PASSWORD,
        database=DB,
        charset="utf8mb4",
        local_infile=local_infile,
        autocommit=True,
        read_timeout=300,
        write_timeout=300,
    )


def write(name, data):
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def load(cur, sql):
    """Run a LOAD DATA; returns (affected, info, warnings)."""
    n = cur.execute(sql)
    info = cur._result.message
    info = info.decode(errors="replace") if isinstance(info, bytes) else info
    # PyMySQL keeps the length byte in front of the text.
    info = info[info.find("Records:"):]
    cur.execute("SHOW WARNINGS")
    return n, info, [tuple(r) for r in cur.fetchall()]


def rows(cur, sql):
    cur.execute(sql)
    return [tuple(r) for r in cur.fetchall()]


def main():
    conn = connect()
    cur = conn.cursor()
    for t in ("ld_a", "ld_b", "ld_c", "ld_big"):
        cur.execute(f"DROP TABLE IF EXISTS {t}")

    # CSV: enclosures, NULLs, escapes, IGNORE 1 LINES, an empty integer.
    cur.execute("CREATE TABLE ld_a (id INT PRIMARY KEY, s VARCHAR(10))")
    f = write(
        "a.csv",
        b'h1,h2\n1,"a,b"\n2,"q""x"\n3,NULL\n4,"NULL"\n5,\\N\n6,es\\tc\\\\\n,7\n',
    )
    got = load(
        cur,
        f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE ld_a FIELDS TERMINATED BY ',' "
        "OPTIONALLY ENCLOSED BY '\"' IGNORE 1 LINES",
    )
    check(
        "csv: affected, info",
        got[0] == 7 and got[1] == "Records: 7  Deleted: 0  Skipped: 0  Warnings: 1",
        repr(got),
    )
    check(
        "csv: 1366 warning for the empty integer",
        len(got[2]) == 1 and got[2][0][1] == 1366 and got[2][0][2].endswith("at row 7"),
        repr(got[2]),
    )
    want = [
        (0, "7"),
        (1, "a,b"),
        (2, 'q"x'),
        (3, None),
        (4, "NULL"),
        (5, None),
        (6, "es\tc\\"),
    ]
    got = rows(cur, "SELECT id, s FROM ld_a ORDER BY id")
    check("csv: rows", got == want, repr(got))

    # Duplicates: LOCAL skips them; REPLACE replaces (Deleted).
    got = load(
        cur,
        f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE ld_a FIELDS TERMINATED BY ',' "
        "OPTIONALLY ENCLOSED BY '\"' IGNORE 1 LINES",
    )
    check(
        "duplicates skipped",
        got[0] == 0 and got[1] == "Records: 7  Deleted: 0  Skipped: 7  Warnings: 8",
        repr(got[:2]),
    )
    cur.execute("SET SESSION sql_mode = ''")
    got = load(
        cur,
        f"LOAD DATA LOCAL INFILE '{f}' REPLACE INTO TABLE ld_a FIELDS TERMINATED BY ',' "
        "OPTIONALLY ENCLOSED BY '\"' IGNORE 1 LINES",
    )
    check(
        "replace: Deleted",
        got[0] == 7 and got[1] == "Records: 7  Deleted: 0  Skipped: 0  Warnings: 1",
        repr(got[:2]),
    )
    cur.execute("SET SESSION sql_mode = DEFAULT")
    cur.execute("DELETE FROM ld_a WHERE id > 3")
    try:
        cur.execute(
            f"LOAD DATA LOCAL INFILE '{f}' REPLACE INTO TABLE ld_a FIELDS TERMINATED BY ',' "
            "OPTIONALLY ENCLOSED BY '\"' IGNORE 1 LINES"
        )
        check("strict replace fails atomically", False, "no error")
    except pymysql.MySQLError as e:
        n = rows(cur, "SELECT COUNT(*) FROM ld_a")[0][0]
        check(
            "strict replace fails atomically",
            e.args[0] == 1366 and n == 4,
            f"{e.args} count {n}",
        )

    # Too few / too many fields, NULL into NOT NULL.
    cur.execute("CREATE TABLE ld_b (id INT NOT NULL, s VARCHAR(3), u VARCHAR(3))")
    f = write("b.csv", b"1,a,x\n2,b\n3,c,d,e\n\\N,n,m\n")
    got = load(cur, f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE ld_b FIELDS TERMINATED BY ','")
    codes = [(w[1], w[2]) for w in got[2]]
    check(
        "field counts: warnings",
        codes
        == [
            (1261, "Row 2 doesn't contain data for all columns"),
            (1262, "Row 3 was truncated; it contained more data than there were input columns"),
            (1263, "Column set to default value; NULL supplied to NOT NULL column 'id' at row 4"),
        ],
        repr(codes),
    )
    got = rows(cur, "SELECT id, s, u FROM ld_b ORDER BY id")
    check(
        "field counts: rows",
        got == [(0, "n", "m"), (1, "a", "x"), (2, "b", None), (3, "c", "d")],
        repr(got),
    )

    # LINES STARTING BY, CRLF, @variables.
    cur.execute("CREATE TABLE ld_c (id VARCHAR(5), s VARCHAR(5))")
    f = write("c.txt", b"xxxP1\tA\r\nnoprefix\r\nP2\tB\r\n")
    got = load(
        cur,
        f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE ld_c LINES STARTING BY 'P' TERMINATED BY '\\r\\n'",
    )
    check("lines starting by", got[0] == 2, repr(got))
    got = rows(cur, "SELECT id, s FROM ld_c ORDER BY id")
    check("lines starting by: rows", got == [("1", "A"), ("2", "B")], repr(got))
    cur.execute("DELETE FROM ld_c")
    load(cur, f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE ld_c LINES TERMINATED BY '\\r\\n' (@skip, s)")
    got = rows(cur, "SELECT id, s, @skip FROM ld_c ORDER BY s")
    check(
        "@variables",
        got == [(None, None, "P2"), (None, "A", "P2"), (None, "B", "P2")],
        repr(got),
    )

    # SET col = expr over @variables and columns.
    cur.execute("DROP TABLE IF EXISTS ld_d")
    cur.execute("CREATE TABLE ld_d (id INT, s VARCHAR(20), n INT)")
    f2 = write("d.csv", b"1,abc\n2,de\n3,\\N\n")
    got = load(
        cur,
        f"LOAD DATA LOCAL INFILE '{f2}' INTO TABLE ld_d FIELDS TERMINATED BY ',' (id, @x) "
        "SET s = UPPER(@x), n = LENGTH(@x) + id",
    )
    check("set: info", got[1] == "Records: 3  Deleted: 0  Skipped: 0  Warnings: 0", repr(got))
    got = rows(cur, "SELECT id, s, n, @x FROM ld_d ORDER BY id")
    check(
        "set: rows",
        got == [(1, "ABC", 4, None), (2, "DE", 4, None), (3, None, None, None)],
        repr(got),
    )
    cur.execute("DROP TABLE ld_d")

    # Inside a transaction: ROLLBACK undoes the load.
    conn.autocommit(False)
    cur.execute("BEGIN")
    load(cur, f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE ld_c LINES TERMINATED BY '\\r\\n'")
    cur.execute("ROLLBACK")
    conn.autocommit(True)
    got = rows(cur, "SELECT COUNT(*) FROM ld_c")[0][0]
    check("rollback undoes a load", got == 3, repr(got))

    # A client that does not offer local files.
    off = connect(local_infile=False)
    try:
        off.cursor().execute(f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE ld_c")
        check("client without local_infile: 4166", False, "no error")
    except pymysql.MySQLError as e:
        check("client without local_infile: 4166", e.args[0] == 4166, repr(e.args))
    off.close()

    # A large file streams in.
    cur.execute("CREATE TABLE ld_big (id INT PRIMARY KEY, v VARCHAR(40), n INT)")
    path = os.path.join(TMP, "big.tsv")
    with open(path, "wb") as out:
        for i in range(1, ROWS + 1):
            out.write(b"%d\tvalue number %d with some padding\t%d\n" % (i, i, i % 97))
    got = load(cur, f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE ld_big")
    check(
        "large file: info",
        got[0] == ROWS and got[1] == f"Records: {ROWS}  Deleted: 0  Skipped: 0  Warnings: 0",
        repr(got[:2]),
    )
    got = rows(cur, "SELECT COUNT(*), SUM(n), MAX(id) FROM ld_big")[0]
    want_sum = sum(i % 97 for i in range(1, ROWS + 1))
    check(
        "large file: rows",
        got[0] == ROWS and int(got[1]) == want_sum and got[2] == ROWS,
        repr(got),
    )
    os.remove(path)

    for t in ("ld_a", "ld_b", "ld_c", "ld_big"):
        cur.execute(f"DROP TABLE IF EXISTS {t}")
    conn.close()


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # noqa: BLE001 - any failure is reported as one
        FAILED += 1
        print(f"FAIL: load_data: {type(e).__name__}: {e}")
    print(f"{'FAIL' if FAILED else 'ok'}: load_data, {FAILED} failed")
    sys.exit(1 if FAILED else 0)
