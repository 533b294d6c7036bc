# ANALYZE SELECT (issue 20): the statement runs and each table's row shows r_rows (rows read
# per loop) and r_filtered (percentage kept by its conditions). Recorded from MariaDB 10.11
# with the estimates (`rows`, `filtered`) masked; the counts are compared. Queries where the
# plans agree (no const tables: MariaDB reads those while planning and shows NULL counts). A
# set operation's result row counts the rows of the result.
CREATE DATABASE xadb;
USE xadb;
CREATE TABLE t (a INT PRIMARY KEY, b INT, c VARCHAR(10), KEY kb (b));
CREATE TABLE u (a INT NOT NULL, d INT NOT NULL, e VARCHAR(10), PRIMARY KEY (a, d));
INSERT INTO t VALUES (1, 10, 'one'), (2, 20, 'two'), (3, NULL, 'three'), (4, 10, 'four');
INSERT INTO u VALUES (1, 1, 'u11'), (1, 2, 'u12'), (2, 1, 'u21'), (5, 1, 'u51');
mask rows,filtered ANALYZE SELECT c FROM t WHERE c = 'zz';
mask rows,filtered ANALYZE SELECT c FROM t WHERE c <> 'one';
mask rows,filtered ANALYZE SELECT c FROM t WHERE c <> 'one' LIMIT 1;
mask rows,filtered ANALYZE SELECT c FROM t WHERE b = 10;
mask rows,filtered ANALYZE SELECT c FROM t WHERE b = 99;
mask rows,filtered ANALYZE SELECT * FROM t;
mask rows,filtered ANALYZE SELECT 1;
mask rows,filtered ANALYZE SELECT c, count(*) FROM t WHERE c LIKE 't%' GROUP BY c;
mask rows,filtered ANALYZE FORMAT=TRADITIONAL SELECT c FROM t WHERE c LIKE '%o%';
mask rows,filtered ANALYZE SELECT c FROM t UNION SELECT e FROM u;
mask rows,filtered ANALYZE SELECT c FROM t WHERE c <> 'one' UNION ALL SELECT e FROM u WHERE e LIKE 'u1%';
mask rows,filtered ANALYZE SELECT c FROM t UNION SELECT c FROM t WHERE c <> 'two';
mask rows,filtered ANALYZE SELECT c FROM t INTERSECT SELECT c FROM t WHERE c LIKE 't%';
mask rows,filtered ANALYZE SELECT c FROM t EXCEPT SELECT c FROM t WHERE c LIKE 't%';
mask rows,filtered ANALYZE SELECT c FROM t UNION SELECT e FROM u ORDER BY 1 LIMIT 3;
mask rows,filtered ANALYZE SELECT * FROM (SELECT c, count(*) FROM t GROUP BY c) d;
mask rows,filtered ANALYZE WITH w AS (SELECT c, count(*) n FROM t WHERE c <> 'one' GROUP BY c) SELECT * FROM w;
mask rows,filtered ANALYZE SELECT * FROM (SELECT c FROM t UNION SELECT e FROM u) d;
SELECT c FROM t ORDER BY a;
DROP DATABASE xadb;
