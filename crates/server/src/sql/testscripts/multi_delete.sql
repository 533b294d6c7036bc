# Multi-table DELETE (issue 20): expected outputs recorded from MariaDB 10.11 with
# mariadb_golden.py: edit multi_delete.sql, then regenerate multi_delete.test. Not here: DELETE
# IGNORE (dml_ignore_multi.sql), targets that are views.
CREATE DATABASE md;
USE md;
CREATE TABLE t1 (id INT PRIMARY KEY, a INT);
CREATE TABLE t2 (id INT PRIMARY KEY, t1id INT, c INT);
CREATE TABLE t3 (k INT, v INT);
INSERT INTO t1 VALUES (1, 10), (2, 20), (3, 30), (4, 40), (5, 50), (6, 60);
INSERT INTO t2 VALUES (1, 1, 100), (2, 1, 200), (3, 2, 300), (4, 9, 400), (5, 5, 500), (6, 6, 600);
INSERT INTO t3 VALUES (1, 1), (1, 1), (3, 3), (6, 6);

# DELETE t FROM: one target of a join; a row joined twice is deleted once.
DELETE t1 FROM t1 JOIN t2 ON t1.id = t2.t1id WHERE t2.c < 250;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;

# Both tables, comma join, `t.*` targets, aliases.
DELETE t1, t2 FROM t1, t2 WHERE t1.id = t2.t1id AND t2.id = 3;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;
DELETE x.*, y FROM t1 AS x JOIN t2 y ON x.id = y.t1id WHERE y.c = 500;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;

# DELETE FROM … USING.
DELETE FROM t3 USING t3 JOIN t1 ON t3.k = t1.id WHERE t1.a = 60;
SELECT * FROM t3 ORDER BY k;
DELETE FROM t2, t3 USING t2, t3 WHERE t2.t1id = 9 AND t3.k = 1;
SELECT * FROM t2 ORDER BY id;
SELECT * FROM t3 ORDER BY k;

# LEFT JOIN: delete the rows without a match; NULL-complemented tables lose nothing.
INSERT INTO t2 VALUES (7, 3, 700), (8, 4, 800);
DELETE t1 FROM t1 LEFT JOIN t2 ON t1.id = t2.t1id WHERE t2.id IS NULL;
SELECT * FROM t1 ORDER BY id;
DELETE t1, t2 FROM t2 LEFT JOIN t1 ON t1.id = t2.t1id WHERE t2.id = 6;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;

# Derived tables and subqueries as sources (a subquery may not read a target: 1093).
DELETE t2 FROM t2 JOIN (SELECT MAX(id) AS m FROM t2) d ON t2.id = d.m;
SELECT * FROM t2 ORDER BY id;
DELETE t1 FROM t1 JOIN t2 ON t1.id = t2.t1id WHERE t2.c IN (SELECT v * 100 FROM t3);
DELETE t1 FROM t1 JOIN t2 ON t1.id = t2.t1id WHERE t1.id = (SELECT MAX(id) FROM t1);
DELETE t2 FROM t2 WHERE t2.c > (SELECT MIN(a) * 10 FROM t1);
SELECT * FROM t2 ORDER BY id;
INSERT INTO t2 VALUES (10, 3, 1000);
DELETE t1 FROM t1 WHERE t1.id IN (SELECT t1id FROM t2 WHERE c = 1000);
SELECT * FROM t1 ORDER BY id;

# No match, then everything.
DELETE t1 FROM t1, t2 WHERE 1 = 0;
DELETE t1, t2 FROM t1, t2;
SELECT * FROM t1;
SELECT * FROM t2;

# Errors.
DELETE t9 FROM t1, t2;
DELETE t1 FROM t1 AS a, t2;
DELETE a FROM t1 a, t2 a;
DELETE t1 FROM t1, t2 WHERE zz = 1;
DELETE t1 FROM t1 JOIN t2 ON t1.zz = t2.t1id;
DELETE t1 FROM t1, t3 WHERE k = 1 AND id = 1 AND a = 1 AND v = 1 AND c = 1;
DELETE d FROM t1, (SELECT 1 AS x) d;
DELETE t1 FROM t1 ORDER BY id;
DELETE t1 FROM t1 LIMIT 1;
DELETE FROM t1 USING t1 LIMIT 1;
DELETE FROM t1 USING nosuch;
START TRANSACTION READ ONLY;
DELETE t1 FROM t1, t2;
ROLLBACK;

# FOREIGN KEY constraints are enforced row by row; cascades.
CREATE TABLE par (id INT PRIMARY KEY, v INT);
CREATE TABLE ch (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES par (id) ON DELETE CASCADE);
CREATE TABLE ch2 (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES par (id));
CREATE TABLE sel (id INT);
INSERT INTO par VALUES (1, 1), (2, 2), (3, 3), (4, 4);
INSERT INTO ch VALUES (10, 1), (20, 2), (30, 4);
INSERT INTO ch2 VALUES (100, 3);
INSERT INTO sel VALUES (1), (2), (3);
DELETE par FROM par JOIN sel ON par.id = sel.id WHERE sel.id < 3;
SELECT * FROM par ORDER BY id;
SELECT * FROM ch ORDER BY id;
DELETE par FROM par JOIN sel ON par.id = sel.id;
SELECT * FROM par ORDER BY id;
DELETE ch2, par FROM ch2 JOIN par ON par.id = ch2.pid;
SELECT * FROM par ORDER BY id;
SELECT * FROM ch2 ORDER BY id;
