# Index statistics (storage/stats.rs), recorded from MariaDB 10.11: ANALYZE TABLE's answer,
# SHOW INDEX / information_schema.STATISTICS cardinality on tables small enough for InnoDB's
# sampled counts to be exact (Cardinality = rows / rec_per_key, rec_per_key = rows / n_diff
# truncated and halved), EXPLAIN's rows from them, and a 3-table join ordered by them.
CREATE DATABASE stdb;
USE stdb;
CREATE TABLE d (n INT);
INSERT INTO d VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9);
CREATE TABLE t1 (id INT PRIMARY KEY, k INT, KEY k (k));
CREATE TABLE t2 (id INT PRIMARY KEY, k INT, KEY k (k));
CREATE TABLE t3 (id INT PRIMARY KEY, a INT, b INT, KEY a (a));
CREATE TABLE ol (w INT NOT NULL, o INT NOT NULL, n INT NOT NULL, i INT, c VARCHAR(10), PRIMARY KEY (w, o, n), KEY ic (i, c));
ANALYZE TABLE t1;
SHOW INDEX FROM t1;
INSERT INTO t1 SELECT a.n * 100 + b.n * 10 + c.n + 1, (a.n * 100 + b.n * 10 + c.n + 1) MOD 2 FROM d a, d b, d c;
INSERT INTO t2 SELECT a.n * 100 + b.n * 10 + c.n + 1, (a.n * 100 + b.n * 10 + c.n + 1) MOD 500 FROM d a, d b, d c;
INSERT INTO t3 SELECT a.n * 100 + b.n * 10 + c.n + 1, a.n * 100 + b.n * 10 + c.n + 1, 1000 - (a.n * 100 + b.n * 10 + c.n) FROM d a, d b, d c;
INSERT INTO ol SELECT a.n, b.n * 10 + c.n, e.n, (a.n * 100 + b.n * 10 + c.n) MOD 7, IF(e.n MOD 2 = 0, 'even', 'odd') FROM d a, d b, d c, d e WHERE e.n < 5;
ANALYZE TABLE t1, t2, t3, ol;
ANALYZE TABLE t1, nosuch;
SHOW INDEX FROM t1;
SHOW KEYS FROM t2;
SHOW INDEX FROM t3;
SHOW INDEX FROM ol;
SELECT TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'stdb' ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX;
# ref by constants: the rows per key value; ref from a table read before: rec_per_key.
# (Extra and possible_keys masked where Cohort does not say "Using index" / "Using where" or
# list keys usable only by conditions on tables read later as MariaDB does.)
EXPLAIN SELECT * FROM ol WHERE w = 3 AND o = 7;
EXPLAIN SELECT * FROM ol WHERE w = 3;
mask Extra EXPLAIN SELECT * FROM t2 WHERE k = 7;
EXPLAIN SELECT * FROM t1 WHERE id = 5;
mask Extra EXPLAIN SELECT d.n, t3.id FROM d JOIN t3 ON t3.a = d.n;
mask Extra EXPLAIN SELECT d.n, ol.n FROM d JOIN ol ON ol.w = d.n AND ol.o = d.n;
# The join order follows the statistics: t2.k = 1 matches 2 rows, t1.k = 0 matches 500.
mask possible_keys,Extra EXPLAIN SELECT t1.id, t2.id, t3.id FROM t1, t2, t3 WHERE t1.k = 0 AND t2.k = 1 AND t3.a = t2.id AND t3.b = t1.id;
mask possible_keys,Extra EXPLAIN SELECT t1.id, t2.id, t3.id FROM t3, t1, t2 WHERE t1.k = 0 AND t2.k = 1 AND t3.a = t2.id AND t3.b = t1.id;
SELECT t1.id, t2.id, t3.id FROM t1, t2, t3 WHERE t1.k = 0 AND t2.k = 1 AND t3.a = t2.id AND t3.b = t1.id ORDER BY t2.id;
# Cost over the whole order, not the fewest rows first: reading s first (500 rows by its key
# prefix) is cheaper for one table, but l's range then the unique s lookup reads far fewer.
# (rows masked: MariaDB counts a range in the index, Cohort estimates a third of the prefix.)
CREATE TABLE s (w INT NOT NULL, i INT NOT NULL, q INT, PRIMARY KEY (w, i));
CREATE TABLE l (w INT NOT NULL, o INT NOT NULL, n INT NOT NULL, i INT, PRIMARY KEY (w, o, n));
INSERT INTO s SELECT 1, a.n * 100 + b.n * 10 + c.n, c.n FROM d a, d b, d c WHERE a.n < 5;
INSERT INTO l SELECT 1, a.n * 100 + b.n * 10 + c.n, e.n, (a.n * 100 + b.n * 10 + c.n) * 3 MOD 500 FROM d a, d b, d c, d e WHERE e.n < 3;
ANALYZE TABLE s, l;
mask possible_keys,rows,Extra EXPLAIN SELECT COUNT(DISTINCT s.i) FROM l, s WHERE l.w = 1 AND l.o >= 10 AND l.o < 30 AND s.w = 1 AND s.i = l.i AND s.q < 5;
mask possible_keys,rows,Extra EXPLAIN SELECT COUNT(DISTINCT s.i) FROM s, l WHERE l.w = 1 AND l.o >= 10 AND l.o < 30 AND s.w = 1 AND s.i = l.i AND s.q < 5;
SELECT COUNT(DISTINCT s.i) FROM s, l WHERE l.w = 1 AND l.o >= 10 AND l.o < 30 AND s.w = 1 AND s.i = l.i AND s.q < 5;
# After a change of more than 10% of the rows and ANALYZE, the new counts and order: t1.k = 7
# now matches 1 row.
UPDATE t1 SET k = id;
ANALYZE TABLE t1;
SHOW INDEX FROM t1;
mask possible_keys,Extra EXPLAIN SELECT t1.id, t2.id, t3.id FROM t1, t2, t3 WHERE t1.k = 7 AND t2.k = 1 AND t3.a = t2.id AND t3.b = t1.id;
DROP DATABASE stdb;
