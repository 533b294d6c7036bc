# sql_select_limit, recorded from MariaDB 10.11 (mariadb_golden.py select_limit.sql select_limit.test)
DROP DATABASE IF EXISTS sldb;
CREATE DATABASE sldb;
USE sldb;
CREATE TABLE t (a INT PRIMARY KEY, b INT);
INSERT INTO t VALUES (1, 10), (2, 20), (3, 30), (4, 40);
CREATE TABLE u (c INT);
SET sql_select_limit = 2;
SELECT @@sql_select_limit, @@session.sql_select_limit;
SELECT * FROM t ORDER BY a;
SELECT * FROM t ORDER BY a DESC;
# The statement's own LIMIT wins, larger or smaller
SELECT * FROM t ORDER BY a LIMIT 3;
SELECT * FROM t ORDER BY a LIMIT 1;
SELECT * FROM t ORDER BY a LIMIT 1, 3;
# Set operations: the whole result
SELECT a FROM t UNION SELECT b FROM t ORDER BY 1;
SELECT a FROM t UNION ALL SELECT b FROM t ORDER BY 1 LIMIT 5;
(SELECT a FROM t ORDER BY a LIMIT 3) UNION ALL (SELECT b FROM t ORDER BY b LIMIT 3) ORDER BY 1;
# Subqueries and derived tables are not limited
SELECT (SELECT COUNT(*) FROM t) AS n;
SELECT COUNT(*) FROM (SELECT * FROM t) d;
SELECT a FROM t WHERE a IN (SELECT a FROM t WHERE a > 1) ORDER BY a;
SELECT COUNT(*), SUM(b) FROM t;
# INSERT ... SELECT and CREATE ... SELECT copy every row
INSERT INTO u SELECT a FROM t;
SELECT COUNT(*) FROM u;
CREATE TABLE v AS SELECT a FROM t;
SET sql_select_limit = DEFAULT;
SELECT COUNT(*) FROM v;
SELECT COUNT(*) FROM u;
SET sql_select_limit = 0;
SELECT * FROM t;
SELECT 1;
SET sql_select_limit = 1;
SELECT 1 UNION SELECT 2;
SELECT * FROM t WHERE a = 3;
SELECT b FROM t WHERE b > 15 ORDER BY b;
# The SHOW forms MariaDB answers from information_schema are limited too
SHOW TABLES;
SHOW COLUMNS FROM t;
SHOW VARIABLES LIKE 'sql_s%';
SET sql_select_limit = DEFAULT;
SELECT a FROM t ORDER BY a;
DROP DATABASE sldb;
