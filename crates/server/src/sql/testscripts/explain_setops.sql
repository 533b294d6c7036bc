# EXPLAIN of every query form (issue 20): set operations, derived tables, CTEs, subqueries,
# UPDATE / DELETE / INSERT … SELECT, EXTENDED / PARTITIONS / DESCRIBE. Recorded from MariaDB
# 10.11 with `rows` and `filtered` masked (estimates). The queries are ones where Cohort's plan
# and MariaDB's agree (no covering-index reads, no merged derived tables, no semi-joins: see
# exec/explain.rs for where they differ).
CREATE DATABASE xsdb;
USE xsdb;
CREATE TABLE t (a INT PRIMARY KEY, b INT, c VARCHAR(10), KEY kb (b));
CREATE TABLE u (a INT NOT NULL, d INT NOT NULL, e VARCHAR(10), PRIMARY KEY (a, d));
INSERT INTO t VALUES (1, 10, 'one'), (2, 20, 'two'), (3, NULL, 'three'), (4, 10, 'four');
INSERT INTO u VALUES (1, 1, 'u11'), (1, 2, 'u12'), (2, 1, 'u21'), (5, 1, 'u51');
mask rows EXPLAIN SELECT c FROM t UNION SELECT e FROM u;
mask rows EXPLAIN SELECT c FROM t UNION ALL SELECT e FROM u WHERE e = 'x';
mask rows EXPLAIN SELECT c FROM t UNION ALL SELECT e FROM u ORDER BY 1;
mask rows EXPLAIN SELECT c FROM t INTERSECT SELECT e FROM u;
mask rows EXPLAIN SELECT c FROM t EXCEPT SELECT e FROM u;
mask rows EXPLAIN SELECT c FROM t UNION SELECT e FROM u EXCEPT SELECT c FROM t;
mask rows EXPLAIN SELECT c FROM t UNION SELECT e FROM u UNION SELECT 'z' ORDER BY 1 LIMIT 2;
mask rows EXPLAIN SELECT c FROM t UNION SELECT e FROM u INTERSECT SELECT e FROM u;
mask rows EXPLAIN SELECT * FROM (SELECT c FROM t UNION SELECT e FROM u) d;
mask rows EXPLAIN SELECT * FROM (SELECT c FROM t ORDER BY c LIMIT 2) d;
mask rows EXPLAIN WITH w AS (SELECT c FROM t ORDER BY c LIMIT 2) SELECT * FROM w;
mask rows EXPLAIN WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r;
mask rows EXPLAIN SELECT c, (SELECT max(e) FROM u) FROM t;
mask rows EXPLAIN SELECT c, (SELECT max(e) FROM u WHERE u.e = t.c) FROM t;
mask rows EXPLAIN SELECT c FROM t WHERE c > (SELECT max(e) FROM u);
mask rows EXPLAIN SELECT (SELECT max(e) FROM u) FROM (SELECT c FROM t ORDER BY c LIMIT 2) d WHERE c > (SELECT min(e) FROM u);
mask rows EXPLAIN SELECT * FROM t WHERE a = 2 UNION SELECT * FROM t WHERE b = 10;
mask rows EXPLAIN UPDATE t SET b = 1 WHERE a = 1;
mask rows EXPLAIN DELETE FROM t WHERE b = 10;
mask rows EXPLAIN DELETE FROM t;
mask rows EXPLAIN DELETE FROM t WHERE c = (SELECT max(e) FROM u);
mask rows EXPLAIN INSERT INTO t SELECT a + 10, d, e FROM u;
mask rows EXPLAIN INSERT INTO t VALUES (100, 1, 'x');
mask rows EXPLAIN REPLACE INTO t SELECT a + 10, d, e FROM u WHERE e = 'u11';
mask rows,filtered values EXPLAIN EXTENDED SELECT c FROM t WHERE b = 10;
mask rows EXPLAIN PARTITIONS SELECT c FROM t WHERE b = 10;
mask rows DESCRIBE SELECT c FROM t WHERE b = 10;
mask rows DESC SELECT c FROM t UNION SELECT e FROM u;
mask rows EXPLAIN FORMAT=TRADITIONAL SELECT c FROM t WHERE a = 1;
SELECT c FROM t ORDER BY a;
DROP DATABASE xsdb;
