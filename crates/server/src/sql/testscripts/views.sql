# Views (issue 20): expected outputs recorded from MariaDB 10.11 with mariadb_golden.py: edit
# views.sql, then regenerate views.test. SHOW CREATE VIEW is not compared: MariaDB stores a
# rewritten query text, Cohort the text as written.
CREATE DATABASE vdb;
USE vdb;
CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10), c DECIMAL(5,2));
CREATE TABLE u (a INT, d VARCHAR(10));
INSERT INTO t VALUES (1, 'one', 1.50), (2, 'two', NULL), (3, 'three', 3.25), (4, NULL, 0.00);
INSERT INTO u VALUES (1, 'x'), (1, 'y'), (3, NULL), (NULL, 'z');

# A view reads as its query; WHERE, ORDER BY, aggregates and joins over it.
CREATE VIEW v AS SELECT a, b FROM t WHERE a > 1;
SELECT * FROM v ORDER BY a;
SELECT b FROM v WHERE a <> 3 ORDER BY b;
SELECT COUNT(*), MAX(a) FROM v;
SELECT v.a, u.d FROM v JOIN u ON v.a = u.a ORDER BY v.a, u.d;
SELECT v.a, u.d FROM u LEFT JOIN v ON v.a = u.a ORDER BY u.d;
SELECT x.a, y.a FROM v x, v y WHERE x.a + 1 = y.a ORDER BY 1;
SELECT a FROM v UNION SELECT a FROM u ORDER BY a;

# Column lists, expressions, views over views, grouped views.
CREATE VIEW v2 (k, label) AS SELECT a, CONCAT(b, '!') FROM t;
SELECT * FROM v2 ORDER BY k;
SELECT label FROM v2 WHERE k = 3;
CREATE VIEW v3 AS SELECT k * 10 AS k10 FROM v2 WHERE label IS NOT NULL;
SELECT * FROM v3 ORDER BY k10;
CREATE VIEW g AS SELECT a, COUNT(*) AS n FROM u GROUP BY a;
SELECT * FROM g ORDER BY a;
SELECT SUM(n) FROM g;

# A view sees the table as it is now.
INSERT INTO t VALUES (5, 'five', 5.00);
SELECT * FROM v ORDER BY a;
UPDATE t SET b = 'TWO' WHERE a = 2;
SELECT * FROM v WHERE a = 2;

# OR REPLACE, ALTER VIEW, IF NOT EXISTS.
CREATE OR REPLACE VIEW v AS SELECT a FROM t WHERE a < 3;
SELECT * FROM v ORDER BY a;
ALTER VIEW v AS SELECT b FROM t WHERE a = 1;
SELECT * FROM v;
CREATE VIEW IF NOT EXISTS v AS SELECT 1;
SELECT * FROM v;

# Listing and columns.
SHOW FULL TABLES;
SHOW TABLES LIKE 'v%';
DESCRIBE v2;

# Errors.
CREATE VIEW v AS SELECT 1;
CREATE VIEW t AS SELECT 1;
CREATE TABLE v (x INT);
CREATE VIEW w (p) AS SELECT 1, 2;
CREATE VIEW w AS SELECT 1 AS a, 2 AS a;
CREATE VIEW w AS SELECT * FROM nope;
ALTER VIEW nope AS SELECT 1;
DROP VIEW t;
DROP VIEW nope;
DROP TABLE v;
SHOW CREATE VIEW t;
SHOW CREATE VIEW nope;
SELECT * FROM nope_v;

# DROP VIEW, several at once, IF EXISTS.
DROP VIEW IF EXISTS nope, v3;
SHOW WARNINGS;
DROP VIEW v, v2;
SHOW FULL TABLES;
DROP DATABASE vdb;
