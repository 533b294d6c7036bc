# A view's `*` is expanded when the view is created (exec/ddl/view_star.rs): columns added
# to its table later are not in the view, and a dropped one makes it invalid (1356). Expected
# outputs recorded from MariaDB 10.11 with mariadb_golden.py.
CREATE DATABASE vstar;
USE vstar;
CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(5));
INSERT INTO t VALUES (1, 'x'), (2, 'y');
CREATE VIEW v1 AS SELECT * FROM t;
CREATE VIEW v2 AS SELECT t.*, a + 10 AS a10 FROM t WHERE a > 1;
CREATE VIEW v3 AS SELECT q.* FROM vstar.t AS q ORDER BY a DESC;
CREATE VIEW v4 (p, q) AS SELECT * FROM t;
ALTER TABLE t ADD COLUMN c INT DEFAULT 7, ADD COLUMN d INT DEFAULT 8 FIRST;
SELECT * FROM t ORDER BY a;
SELECT * FROM v1 ORDER BY a;
SELECT * FROM v2;
SELECT * FROM v3;
SELECT * FROM v4 ORDER BY p;
SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'vstar' AND TABLE_NAME = 'v1' ORDER BY ORDINAL_POSITION;
INSERT INTO v1 VALUES (3, 'z');
SELECT * FROM t ORDER BY a;
ALTER TABLE t DROP COLUMN b;
SELECT * FROM v1;
SELECT a FROM v3;
DROP DATABASE vstar;
