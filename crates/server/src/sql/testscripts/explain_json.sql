# EXPLAIN FORMAT=JSON (issue 20), recorded from MariaDB 10.11 with the estimates (`rows`,
# `filtered`) masked. The queries are ones where Cohort's plan and MariaDB's agree; see
# exec/explain.rs for the JSON members Cohort leaves out (filesort and temporary-table
# wrappers of joins) and exec/explain/cond.rs for the condition text.
CREATE DATABASE xjdb;
USE xjdb;
CREATE TABLE t (a INT PRIMARY KEY, b INT, c VARCHAR(10), KEY kb (b));
CREATE TABLE u (a INT NOT NULL, d INT NOT NULL, e VARCHAR(10), PRIMARY KEY (a, d));
INSERT INTO t VALUES (1, 10, 'one'), (2, 20, 'two'), (3, NULL, 'three'), (4, 10, 'four');
INSERT INTO u VALUES (1, 1, 'u11'), (1, 2, 'u12'), (2, 1, 'u21'), (5, 1, 'u51');
mask rows,filtered EXPLAIN FORMAT=JSON SELECT 1;
mask rows,filtered EXPLAIN FORMAT=JSON SELECT * FROM t WHERE a = 1;
mask rows,filtered EXPLAIN FORMAT=JSON SELECT * FROM t WHERE c = 'x';
mask rows,filtered EXPLAIN FORMAT=JSON SELECT * FROM t WHERE c <> 'x' ORDER BY c DESC, b;
mask rows,filtered EXPLAIN FORMAT=JSON SELECT * FROM t WHERE c IS NULL OR c LIKE 'f%' OR a + 1 = 3;
mask rows,filtered EXPLAIN FORMAT=JSON SELECT * FROM t WHERE a > 1 AND c <> 'x';
mask rows,filtered EXPLAIN FORMAT=JSON SELECT * FROM t WHERE b = 10;
mask rows,filtered EXPLAIN FORMAT=JSON SELECT * FROM u WHERE a = 1 AND d = 2;
mask rows,filtered EXPLAIN FORMAT=JSON SELECT c, count(*) FROM t WHERE c <> 'x' GROUP BY c;
mask rows,filtered EXPLAIN FORMAT=JSON SELECT DISTINCT c FROM t;
mask rows,filtered EXPLAIN FORMAT=JSON SELECT c FROM t UNION SELECT e FROM u;
mask rows,filtered EXPLAIN FORMAT=JSON SELECT c FROM t UNION ALL SELECT e FROM u;
mask rows,filtered EXPLAIN FORMAT=JSON SELECT c FROM t INTERSECT SELECT e FROM u;
mask rows,filtered EXPLAIN FORMAT=JSON SELECT c, (SELECT max(e) FROM u) FROM t;
mask rows,filtered EXPLAIN FORMAT=JSON SELECT c FROM t WHERE c > (SELECT max(e) FROM u WHERE u.e <> t.c) AND c <> 'zz';
mask rows,filtered EXPLAIN FORMAT=JSON SELECT * FROM (SELECT c FROM t ORDER BY c LIMIT 2) d WHERE c <> 'a';
mask rows,filtered EXPLAIN FORMAT=JSON UPDATE t SET b = 1 WHERE a = 1;
mask rows,filtered EXPLAIN FORMAT=JSON DELETE FROM t WHERE b = 10;
mask rows,filtered EXPLAIN FORMAT=JSON INSERT INTO t SELECT a + 10, d, e FROM u WHERE e = 'u11';
DROP DATABASE xjdb;
