#!/usr/bin/env python3
"""PyMySQL against the server: a concurrent bank, type round-trips and error codes.

Bank: BANK_ACCOUNTS accounts start with 1000 each. BANK_THREADS threads each make
BANK_TRANSFERS transfers. A transfer is one transaction with autocommit off (PyMySQL's
default): half of them open it with BEGIN (conn.begin()), half rely on the implicit
transaction of autocommit=0. It locks both accounts with SELECT ... FOR UPDATE in random order
(so deadlocks can happen), gives up (ROLLBACK) if the source would go negative, else moves the
amount with two UPDATEs, appends a row to a transfer log table (AUTO_INCREMENT id) and COMMITs.
1213 (deadlock) and 1205 (lock wait timeout) are retried after ROLLBACK; any other error fails.
One auditor thread meanwhile reads all balances with SELECT ... FOR UPDATE (a locking read:
with two-phase row locks it must see a consistent state) and checks the total every time.

Checked afterwards on a fresh connection:
  * total balance == BANK_ACCOUNTS * 1000, no balance < 0;
  * the log holds exactly the committed transfers (as a multiset of (src, dst, amount));
  * every balance == 1000 + incoming - outgoing according to the committed transfers;
  * log ids are distinct.
Then type round-trips (NULL, unicode incl. 4-byte UTF-8, DECIMAL, DATE/DATETIME(6), BIGINT
limits, DOUBLE, bytes with NUL/quotes/backslash, lastrowid) and errors (1062, 1146, 1064, 1049,
and the connection stays usable after each).

Prints one "PASS: name" / "FAIL: name: why" line per check; exit status 1 on any failure.
Environment: COHORT_HOST, COHORT_PORT, COHORT_USER, COHORT_PASSWORD, COHORT_DB,
BANK_THREADS [8], BANK_ACCOUNTS [20], BANK_TRANSFERS [300], BANK_DEADLINE [180 s].
"""

import datetime
import os
import random
import sys
import threading
import time
from collections import Counter
from decimal import Decimal

import pymysql

HOST = os.environ.get("COHORT_HOST", "127.0.0.1")
PORT = int(os.environ.get("COHORT_PORT", "3306"))
USER = os.environ.get("COHORT_USER", "sb")
PASSWORD = os.environ.get("COHORT_PASSWORD", "sb")
DB = os.environ.get("COHORT_DB", "sbtest")
THREADS = int(os.environ.get("BANK_THREADS", "8"))
ACCOUNTS = int(os.environ.get("BANK_ACCOUNTS", "20"))
TRANSFERS = int(os.environ.get("BANK_TRANSFERS", "300"))
DEADLINE = float(os.environ.get("BANK_DEADLINE", "180"))
START_BALANCE = 1000
RETRYABLE = (1213, 1205)

passed = 0
failed = 0
lock = threading.Lock()


def check(name, ok, detail=""):
    global passed, failed
    with lock:
        if ok:
            passed += 1
            print(f"PASS: pymysql/{name}", flush=True)
        else:
            failed += 1
            print(f"FAIL: pymysql/{name}: {detail}", flush=True)
    return ok


def connect(**kw):
    args = dict(
        host=HOST,
        port=PORT,
        user=USER,
        password=PASSWORD,
        database=DB,
        charset="utf8mb4",
        connect_timeout=10,
        read_timeout=120,
        write_timeout=120,
    )
    args.update(kw)
    return pymysql.connect(**args)


def err_code(e):
    return e.args[0] if e.args and isinstance(e.args[0], int) else None


# ------------------------------------------------------------------------------------------
# Bank


class Stats:
    def __init__(self):
        self.committed = []  # (src, dst, amount)
        self.insufficient = 0
        self.retries = Counter()
        self.errors = []
        self.audits = 0
        self.audit_retries = 0
        self.audit_bad = []


def worker(tid, stats, stop_at):
    rnd = random.Random(tid * 7919 + int(time.time()))
    try:
        conn = connect()
    except Exception as e:  # noqa: BLE001 - report anything
        stats.errors.append(f"thread {tid}: connect: {e!r}")
        return
    try:
        if conn.get_autocommit():
            stats.errors.append(f"thread {tid}: autocommit is on after connect (PyMySQL sets it off)")
            return
        for i in range(TRANSFERS):
            src, dst = rnd.sample(range(1, ACCOUNTS + 1), 2)
            amount = rnd.randint(1, 300)
            for attempt in range(100):
                if time.time() > stop_at:
                    stats.errors.append(f"thread {tid}: deadline passed at transfer {i}")
                    return
                try:
                    if i % 2 == 0:
                        conn.begin()
                    with conn.cursor() as cur:
                        bal = {}
                        order = [src, dst] if rnd.random() < 0.5 else [dst, src]
                        for acc in order:
                            cur.execute("SELECT balance FROM py_accounts WHERE id = %s FOR UPDATE", (acc,))
                            row = cur.fetchone()
                            if row is None:
                                raise AssertionError(f"account {acc} not found")
                            bal[acc] = row[0]
                        if bal[src] < amount:
                            conn.rollback()
                            with lock:
                                stats.insufficient += 1
                            break
                        n1 = cur.execute("UPDATE py_accounts SET balance = balance - %s WHERE id = %s", (amount, src))
                        n2 = cur.execute("UPDATE py_accounts SET balance = balance + %s WHERE id = %s", (amount, dst))
                        if (n1, n2) != (1, 1):
                            raise AssertionError(f"UPDATE affected rows {n1}, {n2}, want 1, 1")
                        cur.execute(
                            "INSERT INTO py_transfers (src, dst, amount) VALUES (%s, %s, %s)", (src, dst, amount)
                        )
                    conn.commit()
                    with lock:
                        stats.committed.append((src, dst, amount))
                    break
                except pymysql.err.MySQLError as e:
                    code = err_code(e)
                    if code in RETRYABLE:
                        with lock:
                            stats.retries[code] += 1
                        conn.rollback()
                        time.sleep(rnd.random() * 0.01 * min(attempt + 1, 10))
                        continue
                    stats.errors.append(f"thread {tid}: transfer {i}: {e!r}")
                    return
            else:
                stats.errors.append(f"thread {tid}: transfer {i} still failing after 100 attempts")
                return
    except Exception as e:  # noqa: BLE001
        stats.errors.append(f"thread {tid}: {e!r}")
    finally:
        try:
            conn.close()
        except Exception:  # noqa: BLE001
            pass


def auditor(stats, done, stop_at):
    total = ACCOUNTS * START_BALANCE
    try:
        conn = connect()
    except Exception as e:  # noqa: BLE001
        stats.errors.append(f"auditor: connect: {e!r}")
        return
    try:
        while not done.is_set() and time.time() < stop_at:
            try:
                conn.begin()
                with conn.cursor() as cur:
                    cur.execute("SELECT id, balance FROM py_accounts ORDER BY id FOR UPDATE")
                    rows = cur.fetchall()
                conn.commit()
            except pymysql.err.MySQLError as e:
                if err_code(e) in RETRYABLE:
                    stats.audit_retries += 1
                    conn.rollback()
                    continue
                stats.errors.append(f"auditor: {e!r}")
                return
            s = sum(r[1] for r in rows)
            stats.audits += 1
            if len(rows) != ACCOUNTS or s != total:
                stats.audit_bad.append(f"{len(rows)} rows, total {s}")
            time.sleep(0.02)
    finally:
        conn.close()


def bank():
    conn = connect()
    with conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS py_accounts")
        cur.execute("DROP TABLE IF EXISTS py_transfers")
        cur.execute("CREATE TABLE py_accounts (id INT NOT NULL PRIMARY KEY, balance BIGINT NOT NULL)")
        cur.execute(
            "CREATE TABLE py_transfers (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
            " src INT NOT NULL, dst INT NOT NULL, amount BIGINT NOT NULL)"
        )
        cur.executemany(
            "INSERT INTO py_accounts (id, balance) VALUES (%s, %s)",
            [(i, START_BALANCE) for i in range(1, ACCOUNTS + 1)],
        )
    conn.commit()
    conn.close()

    stats = Stats()
    stop_at = time.time() + DEADLINE
    done = threading.Event()
    threads = [threading.Thread(target=worker, args=(t, stats, stop_at), daemon=True) for t in range(THREADS)]
    aud = threading.Thread(target=auditor, args=(stats, done, stop_at), daemon=True)
    t0 = time.time()
    aud.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.1, stop_at + 5 - time.time()))
    done.set()
    aud.join(10)
    elapsed = time.time() - t0
    stuck = [t for t in threads if t.is_alive()] + ([aud] if aud.is_alive() else [])
    print(
        f"  bank: {len(stats.committed)} transfers committed, {stats.insufficient} refused (insufficient funds),"
        f" retries {dict(stats.retries)}, {stats.audits} audits ({stats.audit_retries} retried) in {elapsed:.1f}s",
        flush=True,
    )
    check("bank/workers-finished", not stuck, f"{len(stuck)} threads still running after {DEADLINE}s")
    check("bank/no-unexpected-errors", not stats.errors, "; ".join(stats.errors[:5]))
    check(
        "bank/progress", len(stats.committed) > THREADS, f"only {len(stats.committed)} transfers committed"
    )
    check("bank/auditor-consistent", not stats.audit_bad and stats.audits > 0,
          f"{stats.audits} audits, inconsistent: {stats.audit_bad[:5]}")

    conn = connect()
    with conn.cursor() as cur:
        cur.execute("SELECT id, balance FROM py_accounts ORDER BY id")
        rows = cur.fetchall()
        cur.execute("SELECT id, src, dst, amount FROM py_transfers")
        log = cur.fetchall()
    conn.commit()
    conn.close()
    balances = {r[0]: r[1] for r in rows}
    total = sum(balances.values())
    check("bank/total-unchanged", len(rows) == ACCOUNTS and total == ACCOUNTS * START_BALANCE,
          f"{len(rows)} accounts, total {total}, want {ACCOUNTS} accounts, {ACCOUNTS * START_BALANCE}")
    neg = {k: v for k, v in balances.items() if v < 0}
    check("bank/no-negative-balance", not neg, f"negative: {neg}")
    want_log = Counter(stats.committed)
    got_log = Counter((r[1], r[2], r[3]) for r in log)
    check(
        "bank/log-matches-commits",
        want_log == got_log,
        f"log has {len(log)} rows, clients committed {len(stats.committed)};"
        f" missing {list((want_log - got_log).elements())[:5]}, extra {list((got_log - want_log).elements())[:5]}",
    )
    check("bank/log-ids-distinct", len({r[0] for r in log}) == len(log), "duplicate AUTO_INCREMENT ids in the log")
    expect = {i: START_BALANCE for i in range(1, ACCOUNTS + 1)}
    for src, dst, amount in stats.committed:
        expect[src] -= amount
        expect[dst] += amount
    diff = {k: (balances.get(k), v) for k, v in expect.items() if balances.get(k) != v}
    check("bank/balances-match-commits", not diff, f"(got, want) per account: {dict(list(diff.items())[:5])}")


# ------------------------------------------------------------------------------------------
# Type round-trips


def roundtrip(conn, name, coltype, values):
    """Create a one-column table, insert values through client-side parameters, read them back."""
    table = f"py_rt_{name}"
    try:
        with conn.cursor() as cur:
            cur.execute(f"DROP TABLE IF EXISTS {table}")
            cur.execute(f"CREATE TABLE {table} (id INT NOT NULL PRIMARY KEY, v {coltype})")
            cur.executemany(f"INSERT INTO {table} (id, v) VALUES (%s, %s)", list(enumerate(values, 1)))
            conn.commit()
            cur.execute(f"SELECT v FROM {table} ORDER BY id")
            got = [r[0] for r in cur.fetchall()]
            conn.commit()
            cur.execute(f"DROP TABLE {table}")
        bad = [(w, g) for w, g in zip(values, got) if not (w == g and type(w) is type(g))]
        check(
            f"types/{name}",
            len(got) == len(values) and not bad,
            f"{coltype}: {len(got)} rows back; (sent, got): {bad[:4]}",
        )
    except pymysql.err.MySQLError as e:
        check(f"types/{name}", False, f"{coltype}: {e!r}")
        try:
            conn.rollback()
        except Exception:  # noqa: BLE001
            pass


def types():
    conn = connect()
    roundtrip(conn, "null_int", "INT NULL", [None, 7, None])
    roundtrip(conn, "null_varchar", "VARCHAR(10) NULL", [None, "", "x"])
    roundtrip(
        conn,
        "unicode",
        "VARCHAR(100) NOT NULL",
        ["héllo wörld", "☃ snowman", "𝄞 clef and 😀 emoji (4-byte UTF-8)", "日本語テキスト", "quote ' and \" and \\"],
    )
    roundtrip(
        conn,
        "decimal",
        "DECIMAL(15,4) NULL",
        [Decimal("12345678901.2345"), Decimal("-0.0001"), Decimal("0.0000"), Decimal("-99999999999.9999"), None],
    )
    roundtrip(conn, "date", "DATE", [datetime.date(2024, 2, 29), datetime.date(1999, 12, 31)])
    roundtrip(
        conn,
        "datetime",
        "DATETIME",
        [datetime.datetime(2024, 2, 29, 23, 59, 58), datetime.datetime(2000, 1, 1, 0, 0, 0)],
    )
    roundtrip(
        conn,
        "datetime6",
        "DATETIME(6)",
        [datetime.datetime(2024, 7, 1, 12, 34, 56, 123456), datetime.datetime(1970, 1, 2, 3, 4, 5, 6)],
    )
    roundtrip(conn, "bigint", "BIGINT", [2**63 - 1, -(2**63), 0, -1])
    roundtrip(conn, "double", "DOUBLE", [1.5e300, -2.25, 0.1])
    roundtrip(
        conn,
        "bytes",
        "VARBINARY(64)",
        [b"\x00\x01\x02\xff\xfe", b"quote ' dq \" bs \\ nul \x00 end", b""],
    )
    roundtrip(conn, "blob", "BLOB", [bytes(range(256)) * 4])

    # lastrowid / affected rows
    try:
        with conn.cursor() as cur:
            cur.execute("DROP TABLE IF EXISTS py_autoinc")
            cur.execute("CREATE TABLE py_autoinc (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT)")
            cur.execute("INSERT INTO py_autoinc (v) VALUES (10)")
            first = cur.lastrowid
            cur.execute("INSERT INTO py_autoinc (v) VALUES (20)")
            second = cur.lastrowid
            n = cur.execute("UPDATE py_autoinc SET v = v + 1")
            conn.commit()
            cur.execute("DROP TABLE py_autoinc")
        check("types/lastrowid-affected", (first, second, n) == (1, 2, 2),
              f"lastrowid {first}, {second}, UPDATE affected {n}; want 1, 2, 2")
    except pymysql.err.MySQLError as e:
        check("types/lastrowid-affected", False, repr(e))
    conn.close()


# ------------------------------------------------------------------------------------------
# Errors


def expect_error(conn, name, sql, code, exc_class):
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
        check(f"errors/{name}", False, f"{sql!r} succeeded, want error {code}")
    except pymysql.err.MySQLError as e:
        check(
            f"errors/{name}",
            err_code(e) == code and isinstance(e, exc_class),
            f"{sql!r}: got {type(e).__name__}{e.args}, want {exc_class.__name__} {code}",
        )
    try:
        conn.rollback()
        with conn.cursor() as cur:
            cur.execute("SELECT 1")
            ok = cur.fetchone() == (1,)
        check(f"errors/{name}/connection-usable", ok, "SELECT 1 after the error gave a wrong answer")
    except pymysql.err.MySQLError as e:
        check(f"errors/{name}/connection-usable", False, f"SELECT 1 after the error: {e!r}")


def errors():
    conn = connect()
    with conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS py_err")
        cur.execute("CREATE TABLE py_err (id INT NOT NULL PRIMARY KEY, v VARCHAR(10))")
        cur.execute("INSERT INTO py_err VALUES (1, 'one')")
    conn.commit()
    expect_error(conn, "duplicate-key-1062", "INSERT INTO py_err VALUES (1, 'again')", 1062, pymysql.err.IntegrityError)
    expect_error(conn, "no-such-table-1146", "SELECT * FROM py_no_such_table", 1146, pymysql.err.ProgrammingError)
    expect_error(conn, "syntax-1064", "SELEKT 1", 1064, pymysql.err.ProgrammingError)
    # The failed INSERT did not change anything; the row is still there.
    with conn.cursor() as cur:
        cur.execute("SELECT v FROM py_err WHERE id = 1")
        row = cur.fetchone()
    conn.commit()
    check("errors/row-intact", row == ("one",), f"got {row}")
    # COM_PING and COM_INIT_DB.
    try:
        conn.ping(reconnect=False)
        conn.select_db(DB)
        check("errors/ping-select-db", True)
    except pymysql.err.MySQLError as e:
        check("errors/ping-select-db", False, repr(e))
    try:
        conn.select_db("py_no_such_db")
        check("errors/select-db-1049", False, "COM_INIT_DB of a missing database succeeded")
    except pymysql.err.MySQLError as e:
        check("errors/select-db-1049", err_code(e) == 1049, f"got {e!r}")
    try:
        connect(database="py_no_such_db").close()
        check("errors/connect-unknown-db-1049", False, "connect succeeded")
    except pymysql.err.MySQLError as e:
        check("errors/connect-unknown-db-1049", err_code(e) == 1049, f"got {e!r}")
    try:
        connect(password=PASSWORD + "-wrong").close()
        check("errors/wrong-password-1045", False, "connect succeeded")
    except pymysql.err.MySQLError as e:
        check("errors/wrong-password-1045", err_code(e) == 1045, f"got {e!r}")
    with conn.cursor() as cur:
        cur.execute("DROP TABLE py_err")
    conn.close()


def main():
    for part in (bank, types, errors):
        try:
            part()
        except Exception as e:  # noqa: BLE001 - a crash of the script is a failure, not a traceback
            check(f"{part.__name__}/completed", False, repr(e))
    drop_bank_tables()
    print(f"pymysql: {passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


def drop_bank_tables():
    try:
        c = connect()
        with c.cursor() as cur:
            cur.execute("DROP TABLE IF EXISTS py_accounts")
            cur.execute("DROP TABLE IF EXISTS py_transfers")
        c.close()
    except Exception:  # noqa: BLE001 - best effort
        pass


if __name__ == "__main__":
    sys.exit(main())
