# GROUP BY and ORDER BY read in index order (exec/scan_order.rs): groups arrive one after
# another and need no sort, in MariaDB's implicit GROUP BY order; an ORDER BY on the keys reads
# the index backward. EXPLAIN shows the whole primary-key read as `index`. An unconvertible key
# value still reads the access path's own index in order (a unit test in sql/mod.rs: MariaDB's
# truncation warnings for it vary from plan to plan). Expected outputs recorded from
# MariaDB 10.11 with mariadb_golden.py: edit group_order.sql, then regenerate group_order.test.
CREATE DATABASE godb;
USE godb;
CREATE TABLE t (a INT NOT NULL, b INT NOT NULL, c INT NOT NULL, d INT, e VARCHAR(10), PRIMARY KEY (a, b, c), KEY k (d));
INSERT INTO t WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < 999) SELECT n % 7, n % 13, n, n % 5, CONCAT('x', n % 3) FROM s;
CREATE TABLE u (id INT PRIMARY KEY, d INT, e INT, KEY k2 (d, e));
INSERT INTO u VALUES (1, 1, 9), (2, 1, 3), (3, 1, 5), (4, 2, 1), (5, 1, 1), (6, NULL, 2), (7, NULL, 0);
CREATE TABLE s (k VARCHAR(10) PRIMARY KEY, v INT);
INSERT INTO s VALUES ('b', 1), ('A', 2), ('c ', 3), ('C2', 4), ('d', 5);
SELECT a, COUNT(*) FROM t GROUP BY a;
SELECT a, b, SUM(c) FROM t WHERE a < 2 GROUP BY a, b;
SELECT b, COUNT(*), SUM(c) FROM t WHERE a = 3 GROUP BY b;
SELECT a, b, COUNT(*) FROM t WHERE a = 2 GROUP BY b, a;
SELECT a, COUNT(*) FROM t GROUP BY a ORDER BY a DESC;
SELECT a, b, COUNT(*) FROM t WHERE a > 4 GROUP BY a, b ORDER BY a DESC, b DESC;
SELECT b, MIN(c) FROM t WHERE a = 3 GROUP BY b ORDER BY b DESC LIMIT 3;
SELECT a, COUNT(*) c FROM t GROUP BY a ORDER BY c DESC, a;
SELECT a, COUNT(*) FROM t GROUP BY a HAVING COUNT(*) > 142 LIMIT 2;
SELECT a, b, COUNT(*) FROM t WHERE a BETWEEN 2 AND 3 AND b < 3 GROUP BY a, b;
SELECT b, COUNT(*) FROM t GROUP BY b;
SELECT b, a, COUNT(*) FROM t WHERE a < 2 GROUP BY b, a;
SELECT a, MAX(c), SUM(d) FROM t WHERE b > 3 GROUP BY a;
SELECT k, SUM(v) FROM s GROUP BY k;
SELECT k, SUM(v) FROM s GROUP BY k ORDER BY k DESC;
SELECT d, COUNT(*), MAX(e) FROM u GROUP BY d;
SELECT id, e FROM u WHERE d = 1 ORDER BY e LIMIT 3;
SELECT d, e, COUNT(*) FROM u WHERE d IS NULL GROUP BY d, e;
mask rows EXPLAIN SELECT a, COUNT(*) FROM t GROUP BY a;
mask rows EXPLAIN SELECT a, b, SUM(c) FROM t GROUP BY a, b;
mask rows EXPLAIN SELECT a, COUNT(*) FROM t GROUP BY a ORDER BY a DESC;
mask rows EXPLAIN SELECT a, COUNT(*) c FROM t GROUP BY a ORDER BY c DESC, a;
mask rows EXPLAIN SELECT a, MAX(c), SUM(d) FROM t WHERE b > 3 GROUP BY a;
EXPLAIN SELECT * FROM t ORDER BY a LIMIT 3;
EXPLAIN SELECT a, b, c FROM t ORDER BY a DESC, b DESC LIMIT 3;
mask rows EXPLAIN FORMAT=JSON SELECT a, COUNT(*) FROM t GROUP BY a;
mask rows EXPLAIN FORMAT=JSON SELECT a, MAX(c), SUM(d) FROM t WHERE b > 3 GROUP BY a;
DROP DATABASE godb;
