# sql_mode ONLY_FULL_GROUP_BY, recorded from MariaDB 10.11 (mariadb_golden.py only_full_group_by.sql only_full_group_by.test)
DROP DATABASE IF EXISTS ofgbdb;
CREATE DATABASE ofgbdb;
USE ofgbdb;
CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT);
INSERT INTO t VALUES (1, 1, 1), (2, 1, 2), (3, 2, 5);
# Off: anything goes
SELECT a, COUNT(*) FROM t GROUP BY a ORDER BY a;
SET sql_mode = 'ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';
SELECT @@sql_mode;
SELECT a, b FROM t GROUP BY a;
SELECT a, COUNT(*) FROM t GROUP BY a ORDER BY a;
SELECT a + 1, SUM(b) FROM t GROUP BY a ORDER BY 1;
SELECT a + 1 FROM t GROUP BY a + 1 ORDER BY 1;
SELECT t.a + b FROM t GROUP BY a + b ORDER BY 1;
SELECT a FROM t GROUP BY a + 1;
SELECT id, a FROM t GROUP BY id;
SELECT a x, b FROM t GROUP BY x;
SELECT a, b FROM t x GROUP BY a;
SELECT a, MAX(b) FROM t GROUP BY 1 ORDER BY 1;
SELECT x.a, y.b FROM t x JOIN t y ON x.id = y.id GROUP BY x.a;
SELECT x.a, MAX(y.b) FROM t x JOIN t y ON x.id = y.id GROUP BY x.a ORDER BY 1;
# Aggregates without GROUP BY
SELECT COUNT(*), SUM(b) FROM t;
SELECT b, COUNT(*) FROM t;
SELECT COUNT(*), a + b FROM t;
SELECT MAX(a) FROM t ORDER BY b;
# A TIMESTAMP column read in a session zone
CREATE TABLE u (id INT PRIMARY KEY, ts TIMESTAMP NULL);
INSERT INTO u VALUES (1, '2020-01-01 00:00:00');
SET time_zone = '+03:00';
SELECT ts + 0, COUNT(*) FROM u GROUP BY ts;
SELECT id + 0, COUNT(*) FROM u GROUP BY ts;
SET time_zone = DEFAULT;
# Derived tables are not checked
SELECT b FROM (SELECT a, b FROM t WHERE id = 1) s GROUP BY a;
# Off again
SET sql_mode = DEFAULT;
SELECT a, b FROM t WHERE id = 3 GROUP BY a;
SET sql_mode = 'ONLY_FULL_GROUP_BY';
SELECT a, b FROM t WHERE id = 3 GROUP BY a;
SET sql_mode = DEFAULT;
DROP DATABASE ofgbdb;
