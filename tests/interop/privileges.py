#!/usr/bin/env python3
"""Privileges, differentially: the same statements, run as several users, against MariaDB 10.11
(the oracle) and Cohort; every statement's outcome must be the same on both — the error code
and message (1142 / 1143 / 1044 / 1045 / 1227 …), or the rows.

    privileges.py --mariadb-port P1 --cohort-port P2 [--cohort-root-password PW]

Each server gets databases pv_d and pv_e and accounts pv_* (dropped first, dropped again at the
end). Statements run in order; "root" is the administrator, the others log in with password
'pw' over TCP from 127.0.0.1 (both servers then name that address in 1142). Output: one
"PASS: privileges: <who> <sql>" or "FAIL: …" line per statement, then a summary; the exit
status is non-zero when anything differed.
"""

import argparse
import sys

import pymysql

USERS = ["pv_r", "pv_t", "pv_w", "pv_g", "pv_adm", "pv_none", "pv_new"]

SETUP = [
    "DROP DATABASE IF EXISTS pv_d",
    "DROP DATABASE IF EXISTS pv_e",
    "CREATE DATABASE pv_d",
    "CREATE DATABASE pv_e",
    "CREATE TABLE pv_d.t1 (id INT PRIMARY KEY, a INT, b VARCHAR(10))",
    "CREATE TABLE pv_d.t2 (id INT PRIMARY KEY, a INT)",
    "CREATE TABLE pv_e.x (id INT PRIMARY KEY, v INT)",
    "INSERT INTO pv_d.t1 VALUES (1, 10, 'one'), (2, 20, 'two')",
    "INSERT INTO pv_d.t2 VALUES (1, 100)",
    "INSERT INTO pv_e.x VALUES (1, 7)",
    "CREATE VIEW pv_d.v1 AS SELECT id, a FROM pv_d.t1",
]

# (who, statement). Outcomes are compared; rows in the order the server returns them.
SCRIPT = [
    ("root", "CREATE USER pv_r@'%' IDENTIFIED BY 'pw'"),
    ("root", "CREATE USER pv_t@'%' IDENTIFIED BY 'pw'"),
    ("root", "CREATE USER pv_w@'%' IDENTIFIED BY 'pw'"),
    ("root", "CREATE USER pv_g@'%' IDENTIFIED BY 'pw'"),
    ("root", "CREATE USER pv_adm@'%' IDENTIFIED BY 'pw'"),
    ("root", "CREATE USER pv_none@'%' IDENTIFIED BY 'pw'"),
    # Granting: the levels, the names, the errors.
    ("root", "GRANT SELECT ON pv_d.* TO pv_r@'%'"),
    ("root", "GRANT SELECT ON pv_d.t1 TO pv_t@'%'"),
    ("root", "GRANT INSERT, DELETE ON pv_d.t2 TO pv_t@'%'"),
    ("root", "GRANT INSERT, UPDATE ON pv_d.t1 TO pv_w@'%'"),
    ("root", "GRANT SELECT, INSERT ON pv_d.* TO pv_g@'%' WITH GRANT OPTION"),
    ("root", "GRANT PROCESS, RELOAD, REPLICATION CLIENT ON *.* TO pv_adm@'%'"),
    ("root", "GRANT SUPER ON pv_d.* TO pv_r@'%'"),
    ("root", "GRANT RELOAD ON pv_d.t1 TO pv_r@'%'"),
    ("root", "GRANT SELECT ON pv_d.nosuch TO pv_r@'%'"),
    ("root", "GRANT SELECT ON pv_d.t1 TO nosuchuser@'%'"),
    ("root", "GRANT USAGE ON *.* TO pv_none@'%'"),
    ("root", "SHOW GRANTS FOR pv_r@'%'"),
    ("root", "SHOW GRANTS FOR pv_t@'%'"),
    ("root", "SHOW GRANTS FOR pv_w@'%'"),
    ("root", "SHOW GRANTS FOR pv_g@'%'"),
    ("root", "SHOW GRANTS FOR pv_adm@'%'"),
    ("root", "SHOW GRANTS FOR pv_none@'%'"),
    ("root", "SHOW GRANTS FOR nosuchuser@'%'"),
    # Reads.
    ("pv_r", "SELECT id, a FROM pv_d.t1 ORDER BY id"),
    ("pv_r", "SELECT * FROM pv_e.x"),
    ("pv_r", "SELECT * FROM pv_d.nosuch"),
    ("pv_r", "SELECT t1.id FROM pv_d.t1 JOIN pv_e.x ON x.id = t1.id"),
    ("pv_r", "SELECT id FROM pv_d.t1 WHERE a IN (SELECT v FROM pv_e.x)"),
    ("pv_t", "SELECT id, b FROM pv_d.t1 ORDER BY id"),
    ("pv_t", "SELECT * FROM pv_d.t2"),
    ("pv_t", "SELECT * FROM pv_d.v1"),
    ("pv_none", "SELECT * FROM pv_d.t1"),
    ("pv_none", "SELECT 1"),
    # Writes.
    ("pv_r", "INSERT INTO pv_d.t1 VALUES (3, 30, 'three')"),
    ("pv_r", "UPDATE pv_d.t1 SET a = 1"),
    ("pv_r", "DELETE FROM pv_d.t1"),
    ("pv_t", "INSERT INTO pv_d.t2 VALUES (2, 200)"),
    ("pv_t", "INSERT INTO pv_d.t2 SELECT id + 10, a FROM pv_d.t1"),
    ("pv_t", "INSERT INTO pv_d.t2 SELECT id + 20, v FROM pv_e.x"),
    ("pv_t", "DELETE FROM pv_d.t2 WHERE id = 2"),
    ("pv_t", "DELETE FROM pv_d.t2"),
    ("pv_w", "INSERT INTO pv_d.t1 VALUES (3, 30, 'three')"),
    ("pv_w", "UPDATE pv_d.t1 SET b = 'x'"),
    ("pv_w", "UPDATE pv_d.t1 SET a = a + 1"),
    ("pv_w", "UPDATE pv_d.t1 SET b = 'y' WHERE id = 1"),
    ("pv_w", "SELECT * FROM pv_d.t1"),
    ("pv_w", "DELETE FROM pv_d.t1 WHERE id = 3"),
    ("pv_t", "INSERT INTO pv_d.t2 VALUES (1, 5) ON DUPLICATE KEY UPDATE a = 6"),
    ("pv_t", "REPLACE INTO pv_d.t2 VALUES (1, 5)"),
    ("pv_w", "REPLACE INTO pv_d.t1 VALUES (1, 5, 'r')"),
    ("pv_w", "INSERT INTO pv_d.t1 VALUES (1, 5, 'd') ON DUPLICATE KEY UPDATE b = 'dup'"),
    ("pv_w", "INSERT INTO pv_d.t1 SELECT * FROM pv_d.v1"),
    ("pv_w", "UPDATE pv_d.t1 SET b = 'z' WHERE 1 = (SELECT COUNT(*) FROM pv_e.x)"),
    ("pv_r", "SELECT * FROM (SELECT * FROM pv_e.x) AS dt"),
    ("pv_r", "WITH c AS (SELECT * FROM pv_e.x) SELECT * FROM c"),
    ("pv_r", "SELECT id FROM pv_d.t1 UNION SELECT id FROM pv_e.x"),
    ("pv_r", "SELECT (SELECT MAX(v) FROM pv_e.x) AS m"),
    ("root", "SELECT * FROM pv_d.t1 ORDER BY id"),
    ("root", "SELECT * FROM pv_d.t2 ORDER BY id"),
    # DDL.
    ("pv_r", "CREATE TABLE pv_d.n (a INT)"),
    ("pv_r", "DROP TABLE pv_d.t2"),
    ("pv_r", "ALTER TABLE pv_d.t1 ADD COLUMN c INT"),
    ("pv_r", "CREATE INDEX i_a ON pv_d.t1 (a)"),
    ("pv_r", "TRUNCATE TABLE pv_d.t1"),
    ("pv_r", "CREATE DATABASE pv_new"),
    ("pv_r", "DROP DATABASE pv_e"),
    ("pv_r", "CREATE VIEW pv_d.v2 AS SELECT 1"),
    ("pv_r", "DROP VIEW pv_d.v1"),
    ("pv_r", "RENAME TABLE pv_d.t1 TO pv_d.t9"),
    ("pv_r", "CREATE TABLE pv_d.n LIKE pv_e.x"),
    ("pv_r", "CREATE TABLE pv_d.n AS SELECT * FROM pv_d.t1"),
    ("pv_g", "CREATE TABLE pv_d.n LIKE pv_e.x"),
    ("root", "GRANT CREATE ON pv_d.* TO pv_adm@'%'"),
    ("pv_adm", "CREATE TABLE pv_d.c (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES pv_e.x (id))"),
    ("pv_adm", "CREATE TABLE pv_d.c (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES pv_d.t1 (id))"),
    ("pv_r", "LOCK TABLES pv_d.t1 READ"),
    ("pv_r", "UNLOCK TABLES"),
    ("pv_r", "ANALYZE TABLE pv_e.x"),
    ("pv_r", "CHECK TABLE pv_e.x"),
    ("pv_r", "OPTIMIZE TABLE pv_d.t1"),
    ("pv_r", "SHOW INDEX FROM pv_e.x"),
    ("pv_r", "DESCRIBE pv_e.x"),
    ("pv_r", "SHOW TABLE STATUS FROM pv_e"),
    # Databases, tables, information_schema.
    # (MariaDB keeps a session's privileges on its current database until its next USE; Cohort
    # applies a change at the next statement. So the users whose grants change below do not
    # USE their database until the end.)
    ("pv_g", "USE pv_d"),
    ("pv_r", "USE pv_e"),
    ("pv_none", "USE pv_d"),
    ("pv_r", "SHOW DATABASES LIKE 'pv%'"),
    ("pv_t", "SHOW DATABASES LIKE 'pv%'"),
    ("pv_none", "SHOW DATABASES LIKE 'pv%'"),
    ("pv_r", "SHOW TABLES FROM pv_d"),
    ("pv_t", "SHOW TABLES FROM pv_d"),
    ("pv_r", "SHOW TABLES FROM pv_e"),
    ("pv_t", "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA LIKE 'pv%' ORDER BY 1"),
    ("pv_r", "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'pv%' ORDER BY 1"),
    ("pv_t", "SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA LIKE 'pv%' ORDER BY 1, 2"),
    ("pv_t", "SELECT * FROM information_schema.TABLE_PRIVILEGES WHERE GRANTEE LIKE '%pv%' ORDER BY 1, 3, 4, 5"),
    ("pv_g", "SELECT * FROM information_schema.SCHEMA_PRIVILEGES WHERE GRANTEE LIKE '%pv%' ORDER BY 1, 3, 4"),
    ("pv_adm", "SELECT * FROM information_schema.USER_PRIVILEGES WHERE GRANTEE LIKE '%pv%' ORDER BY 1, 3"),
    ("root", "SELECT * FROM information_schema.TABLE_PRIVILEGES WHERE GRANTEE LIKE '%pv%' ORDER BY 1, 3, 4, 5"),
    ("root", "SELECT * FROM information_schema.SCHEMA_PRIVILEGES WHERE GRANTEE LIKE '%pv%' ORDER BY 1, 3, 4"),
    ("root", "SELECT * FROM information_schema.USER_PRIVILEGES WHERE GRANTEE LIKE '%pv%' ORDER BY 1, 3"),
    ("pv_t", "SHOW CREATE TABLE pv_e.x"),
    ("pv_t", "SHOW COLUMNS FROM pv_e.x"),
    # Administration.
    ("pv_r", "SHOW GRANTS"),
    ("pv_r", "SHOW GRANTS FOR CURRENT_USER()"),
    ("pv_r", "SHOW GRANTS FOR pv_t@'%'"),
    ("pv_r", "CREATE USER pv_x@'%'"),
    ("pv_r", "DROP USER pv_t@'%'"),
    ("pv_r", "SET GLOBAL max_connections = 151"),
    ("pv_r", "SET GLOBAL sort_buffer_size = 262144"),
    ("pv_r", "FLUSH TABLES"),
    ("pv_adm", "FLUSH TABLES"),
    ("pv_r", "SHOW BINARY LOGS"),
    ("pv_r", "SHOW MASTER STATUS"),
    ("pv_adm", "SELECT COUNT(*) > 0 FROM information_schema.PROCESSLIST WHERE USER = 'root'"),
    ("pv_r", "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = 'root'"),
    ("pv_r", "KILL {root_id}"),
    ("pv_r", "KILL QUERY {root_id}"),
    ("pv_adm", "KILL QUERY {root_id}"),
    ("pv_r", "SHOW GRANTS FOR CURRENT_USER"),
    ("pv_g", "GRANT SELECT ON pv_d.t1 TO pv_y@'%' IDENTIFIED BY 'pw'"),
    ("pv_g", "REVOKE SELECT ON pv_e.* FROM pv_r@'%'"),
    # Granting as a non-administrator.
    ("pv_g", "GRANT SELECT ON pv_d.* TO pv_none@'%'"),
    ("pv_g", "GRANT SELECT ON pv_d.t1 TO pv_none@'%'"),
    ("pv_g", "GRANT UPDATE ON pv_d.t1 TO pv_none@'%'"),
    ("pv_g", "GRANT SELECT ON pv_e.* TO pv_none@'%'"),
    ("pv_g", "GRANT SELECT ON *.* TO pv_none@'%'"),
    ("pv_r", "GRANT SELECT ON pv_d.* TO pv_none@'%'"),
    ("pv_g", "REVOKE SELECT ON pv_d.t1 FROM pv_none@'%'"),
    ("root", "SHOW GRANTS FOR pv_none@'%'"),
    ("pv_none", "SELECT COUNT(*) FROM pv_d.t1"),
    # Changes apply to sessions already logged in.
    ("root", "REVOKE SELECT ON pv_d.* FROM pv_r@'%'"),
    ("pv_r", "SELECT id FROM pv_d.t1 ORDER BY id"),
    ("root", "GRANT SELECT ON pv_d.t1 TO pv_r@'%'"),
    ("pv_r", "SELECT id FROM pv_d.t1 ORDER BY id"),
    ("pv_r", "SELECT * FROM pv_d.t2"),
    # Revoking.
    ("root", "REVOKE SELECT ON pv_e.* FROM pv_r@'%'"),
    ("root", "REVOKE SELECT ON pv_d.t2 FROM pv_r@'%'"),
    ("root", "REVOKE SELECT ON *.* FROM pv_r@'%'"),
    ("root", "REVOKE ALL PRIVILEGES ON pv_d.* FROM pv_g@'%'"),
    ("root", "SHOW GRANTS FOR pv_g@'%'"),
    ("root", "REVOKE GRANT OPTION ON pv_d.* FROM pv_g@'%'"),
    ("root", "SHOW GRANTS FOR pv_g@'%'"),
    ("root", "REVOKE ALL PRIVILEGES, GRANT OPTION FROM pv_t@'%', pv_w@'%'"),
    ("root", "SHOW GRANTS FOR pv_t@'%'"),
    ("pv_t", "SELECT * FROM pv_d.t1"),
    ("root", "GRANT ALL ON pv_d.t1 TO pv_w@'%'"),
    ("root", "GRANT ALL PRIVILEGES ON pv_d.* TO pv_t@'%'"),
    ("root", "SHOW GRANTS FOR pv_w@'%'"),
    ("root", "SHOW GRANTS FOR pv_t@'%'"),
    ("pv_w", "SELECT COUNT(*) FROM pv_d.t1"),
    ("pv_t", "CREATE TABLE pv_d.n (a INT)"),
    ("pv_t", "DROP TABLE pv_d.n"),
    ("root", "GRANT SELECT ON pv_d.t1 TO pv_new@'%' IDENTIFIED BY 'pw'"),
    ("pv_new", "SELECT COUNT(*) FROM pv_d.t1"),
    ("root", "SHOW GRANTS FOR pv_new@'%'"),
    ("pv_t", "USE pv_d"),
    ("pv_t", "SELECT COUNT(*) FROM t1"),
    # Definer and invoker views.
    ("root", "CREATE SQL SECURITY INVOKER VIEW pv_d.v_inv AS SELECT id FROM pv_e.x"),
    ("root", "CREATE SQL SECURITY DEFINER VIEW pv_d.v_def AS SELECT id FROM pv_e.x"),
    ("root", "GRANT SELECT ON pv_d.v_inv TO pv_none@'%'"),
    ("root", "GRANT SELECT ON pv_d.v_def TO pv_none@'%'"),
    ("pv_none", "SELECT * FROM pv_d.v_def"),
    ("pv_none", "SHOW CREATE VIEW pv_d.v_def"),
    ("pv_none", "CREATE DEFINER = 'root'@'%' VIEW pv_d.v3 AS SELECT 1"),
    # The column level is not implemented by Cohort: refused there (1235), so it is not run here.
]


def connect(port, user, password):
    return pymysql.connect(
        host="127.0.0.1",
        port=port,
        user=user,
        password=password,
        autocommit=True,
        connect_timeout=10,
    )


def outcome(conn, sql):
    try:
        with conn.cursor() as c:
            c.execute(sql)
            if c.description is None:
                return ("ok",)
            rows = [tuple("NULL" if v is None else str(v) for v in r) for r in c.fetchall()]
            if sql.startswith("SHOW GRANTS"):
                # MariaDB lists a user's database and table grants in its hash tables' order,
                # and adds the PUBLIC role's (Cohort has no roles): the *.* line, then the
                # others sorted, without PUBLIC's.
                rows = rows[:1] + sorted(r for r in rows[1:] if "TO PUBLIC" not in r[0])
            return ("rows", [d[0] for d in c.description], rows)
    except pymysql.err.MySQLError as e:
        return ("error", e.args[0], e.args[1] if len(e.args) > 1 else "")


class Server:
    def __init__(self, port, root_password):
        self.port = port
        self.root_password = root_password
        self.conns = {}

    def conn(self, who):
        if who not in self.conns:
            if who == "root":
                self.conns[who] = connect(self.port, "root", self.root_password)
            else:
                self.conns[who] = connect(self.port, who, "pw")
        return self.conns[who]

    def run(self, who, sql):
        # {root_id}: root's connection id on this server (for KILL), named so in the outcome.
        root_id = None
        if "{root_id}" in sql:
            root_id = str(self.conn("root").thread_id())
            sql = sql.replace("{root_id}", root_id)
        try:
            c = self.conn(who)
        except pymysql.err.MySQLError as e:
            return ("login error", e.args[0], e.args[1] if len(e.args) > 1 else "")
        r = outcome(c, sql)
        if root_id is not None:
            r = tuple(x.replace(root_id, "{root_id}") if isinstance(x, str) else x for x in r)
        return r

    def cleanup(self):
        root = self.conn("root")
        for u in USERS + ["pv_x", "pv_y"]:
            outcome(root, f"DROP USER IF EXISTS {u}@'%'")
        for d in ["pv_d", "pv_e", "pv_new"]:
            outcome(root, f"DROP DATABASE IF EXISTS {d}")

    def close(self):
        for c in self.conns.values():
            try:
                c.close()
            except Exception:
                pass
        self.conns = {}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mariadb-port", type=int, required=True)
    ap.add_argument("--cohort-port", type=int, required=True)
    ap.add_argument("--mariadb-root-password", default="")
    ap.add_argument("--cohort-root-password", default="")
    args = ap.parse_args()
    servers = [
        Server(args.mariadb_port, args.mariadb_root_password),
        Server(args.cohort_port, args.cohort_root_password),
    ]
    for s in servers:
        s.cleanup()
        for sql in SETUP:
            r = s.run("root", sql)
            if r[0] == "error":
                print(f"FAIL: privileges: setup on port {s.port}: {sql}: {r}")
                return 1
    passed = failed = 0
    for who, sql in SCRIPT:
        m, c = (s.run(who, sql) for s in servers)
        name = f"privileges: {who}: {sql}"
        if m == c:
            print(f"PASS: {name}")
            passed += 1
        else:
            print(f"FAIL: {name}\n    mariadb: {m}\n    cohort:  {c}")
            failed += 1
    for s in servers:
        s.close()
        s.cleanup()
        s.close()
    print(f"privileges: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
