# Subqueries in SET, DO, INSERT … ON DUPLICATE KEY UPDATE and inner joins' ON (issue 20):
# expected outputs recorded from MariaDB 10.11 with mariadb_golden.py: edit subquery_set.sql,
# then regenerate subquery_set.test. Not here: a later assignment of the same SET reading an
# earlier one (MariaDB evaluates every value first); VALUES() inside a subquery (MariaDB:
# 1064); subqueries in an outer join's ON (Cohort: 1235).
CREATE DATABASE sqs;
USE sqs;
CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10));
INSERT INTO t VALUES (1, 'x'), (2, 'y');
SET @v = (SELECT MAX(a) FROM t);
SELECT @v;
SET @w = (SELECT b FROM t WHERE a = 2), @z = 3;
SELECT @w, @z;
SET @n = (SELECT a FROM t WHERE a > 5);
SELECT @n;
SET @s = EXISTS (SELECT * FROM t WHERE a = 1), @i = 2 IN (SELECT a FROM t);
SELECT @s, @i;
SET @q = 1 + (SELECT MIN(a) FROM t) * 10;
SELECT @q;
SET @c = (SELECT COUNT(*) FROM t WHERE b = (SELECT b FROM t WHERE a = 1));
SELECT @c;
SET SESSION sql_mode = (SELECT 'STRICT_TRANS_TABLES');
SELECT @@session.sql_mode;
SET sql_mode = DEFAULT;
SET @e = (SELECT a FROM t);
SET @x = (SELECT zz FROM t);
SET @y = (SELECT a FROM nosuch);
DO (SELECT COUNT(*) FROM t), (SELECT 1);
DO (SELECT a FROM t);
SHOW WARNINGS;
DO (SELECT zz FROM t);

# ON DUPLICATE KEY UPDATE: the subquery runs for each duplicate, on the existing row.
CREATE TABLE od (a INT PRIMARY KEY, b INT);
CREATE TABLE s (k INT, v INT);
INSERT INTO s VALUES (1, 100), (2, 200), (2, 201);
INSERT INTO od VALUES (1, 1), (2, 2);
INSERT INTO od VALUES (1, 5) ON DUPLICATE KEY UPDATE b = (SELECT MAX(v) FROM s);
SELECT * FROM od ORDER BY a;
INSERT INTO od VALUES (1, 5), (2, 6), (3, 7) ON DUPLICATE KEY UPDATE b = (SELECT MIN(v) FROM s WHERE s.k = od.a) + VALUES(b);
SELECT * FROM od ORDER BY a;
INSERT INTO od VALUES (2, 5) ON DUPLICATE KEY UPDATE b = (SELECT v FROM s WHERE k = 2);
INSERT INTO od VALUES (2, 5) ON DUPLICATE KEY UPDATE b = b + (SELECT COUNT(*) FROM od);
SELECT * FROM od ORDER BY a;
INSERT INTO od SELECT k, v FROM s WHERE k = 1 ON DUPLICATE KEY UPDATE b = (SELECT MAX(v) FROM s) + 1;
SELECT * FROM od ORDER BY a;
INSERT INTO od SET a = 1, b = 0 ON DUPLICATE KEY UPDATE b = (SELECT zz FROM s);

# An inner join's ON condition with a subquery (it filters as WHERE would).
CREATE TABLE j1 (id INT PRIMARY KEY, a INT);
CREATE TABLE j2 (id INT PRIMARY KEY, t1id INT, c INT);
CREATE TABLE js (v INT);
INSERT INTO j1 VALUES (1, 10), (2, 20), (3, 30);
INSERT INTO j2 VALUES (1, 1, 100), (2, 2, 200), (3, 9, 300);
INSERT INTO js VALUES (1), (2);
SELECT j1.id, j2.id FROM j1 JOIN j2 ON j1.id = j2.t1id AND j1.id IN (SELECT v FROM js) ORDER BY 1;
SELECT j1.id, j2.id FROM j1 JOIN j2 ON j1.id = (SELECT MAX(v) FROM js) ORDER BY 1, 2;
SELECT j1.id, j2.id FROM j1, j2 JOIN js ON js.v = (SELECT MIN(v) FROM js) WHERE j1.id = j2.t1id ORDER BY 1;
SELECT j1.id, j2.id FROM j1 JOIN j2 ON j2.t1id = j1.id AND EXISTS (SELECT * FROM js WHERE js.v = j2.id) ORDER BY 1;
SELECT j1.id, j2.id FROM j1 LEFT JOIN j2 ON j1.id = j2.t1id JOIN js ON js.v = (SELECT 2) ORDER BY 1;
SELECT j1.id FROM j1 JOIN j2 ON j1.id = (SELECT t1id FROM j2);
UPDATE j1 JOIN j2 ON j1.id = j2.t1id AND j2.c > (SELECT 150) SET j1.a = j1.a + 1;
SELECT * FROM j1 ORDER BY id;
DELETE j2 FROM j2 JOIN j1 ON j1.id = j2.t1id AND j1.id IN (SELECT v FROM js);
SELECT * FROM j2 ORDER BY id;
