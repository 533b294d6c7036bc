# Multi-table UPDATE (issue 20): expected outputs recorded from MariaDB 10.11 with
# mariadb_golden.py: edit multi_update.sql, then regenerate multi_update.test. Not here: ORDER BY
# with an assignment reading a target column (MariaDB 10.11 then assigns values of another row,
# a bug of its sorted multi-update), UPDATE IGNORE (dml_ignore_multi.sql), targets that are views.
CREATE DATABASE mu;
USE mu;
CREATE TABLE t1 (id INT PRIMARY KEY, a INT, b VARCHAR(10));
CREATE TABLE t2 (id INT PRIMARY KEY, t1id INT, c INT, a INT, KEY (t1id));
CREATE TABLE t3 (k INT, v INT);
INSERT INTO t1 VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 30, 'z');
INSERT INTO t2 VALUES (1, 1, 100, 0), (2, 1, 200, 0), (3, 2, 300, 0), (4, 9, 400, 0);
INSERT INTO t3 VALUES (1, 5), (2, 6), (2, 7);

# JOIN … ON, both tables targets; a row joined twice is changed once (from its first join).
UPDATE t1 JOIN t2 ON t1.id = t2.t1id SET t1.a = t1.a + 1, t2.c = t2.c + 1;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;

# Comma join with WHERE; only one table changed.
UPDATE t1, t2 SET t2.a = t1.a WHERE t1.id = t2.t1id AND t2.c > 150;
SELECT * FROM t2 ORDER BY id;
UPDATE t1, t2 SET t1.b = 'w' WHERE t1.id = t2.t1id;
SELECT * FROM t1 ORDER BY id;

# Unchanged rows are matched, not changed.
UPDATE t1, t2 SET t1.b = 'w', t2.a = t2.a WHERE t1.id = t2.t1id;
UPDATE t1, t2 SET t1.a = 0 WHERE t1.id = t2.t1id AND 1 = 0;

# Every assignment reads the joined row as found (unlike a single-table UPDATE).
UPDATE t1 JOIN t2 ON t1.id = t2.t1id SET t1.a = 50, t1.b = t1.a WHERE t2.id = 3;
SELECT * FROM t1 ORDER BY id;
UPDATE t1 STRAIGHT_JOIN t2 ON t1.id = t2.t1id SET t2.c = t1.a, t1.a = t1.a + 1, t2.a = t1.a;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;

# Aliases, qualified names, unqualified columns that only one table has.
UPDATE t1 AS x JOIN t2 AS y ON x.id = y.t1id SET x.b = 'al', c = 7 WHERE y.id = 1;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;
UPDATE mu.t1 JOIN mu.t2 ON t1.id = t2.t1id SET mu.t1.b = 'q' WHERE t2.id = 3;
SELECT * FROM t1 ORDER BY id;

# LEFT JOIN: a NULL-complemented table has no row to change.
UPDATE t1 LEFT JOIN t2 ON t1.id = t2.t1id SET t1.b = 'L', t2.c = t2.c + 1000;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;
UPDATE t1 LEFT JOIN t2 ON t1.id = t2.t1id SET t1.a = -1 WHERE t2.id IS NULL;
SELECT * FROM t1 ORDER BY id;
UPDATE t2 RIGHT JOIN t1 ON t1.id = t2.t1id SET t1.a = 3 WHERE t2.id IS NULL;
SELECT * FROM t1 ORDER BY id;

# A table without a primary key, joined several times per row.
UPDATE t3 JOIN t1 ON t3.k = t1.id SET t3.v = t3.v * 10, t1.a = t1.a + t3.v;
SELECT * FROM t3 ORDER BY k, v;
SELECT * FROM t1 ORDER BY id;

# Derived tables and views are read-only sources.
UPDATE t1 JOIN (SELECT t1id, SUM(c) AS s FROM t2 GROUP BY t1id) d ON d.t1id = t1.id SET t1.a = d.s;
SELECT * FROM t1 ORDER BY id;
UPDATE t1, (SELECT 1 AS x) d SET t1.b = 'dd' WHERE t1.id = d.x;
SELECT * FROM t1 ORDER BY id;
CREATE VIEW vv AS SELECT id, c FROM t2 WHERE c > 1000;
UPDATE t1 JOIN vv ON vv.id = t1.id SET t1.b = 'view';
SELECT * FROM t1 ORDER BY id;

# Subqueries in SET and WHERE (reading a target table too: read as the statement found it).
UPDATE t1, t2 SET t1.a = (SELECT MAX(c) FROM t2) WHERE t1.id = t2.t1id AND t2.id = 1;
SELECT * FROM t1 ORDER BY id;
UPDATE t1, t2 SET t2.a = 9 WHERE t1.id = t2.t1id AND t1.a = (SELECT MAX(a) FROM t1);
SELECT * FROM t2 ORDER BY id;
UPDATE t1 JOIN t2 ON t1.id = t2.t1id SET t2.a = (SELECT COUNT(*) FROM t3 WHERE t3.k = t1.id);
SELECT * FROM t2 ORDER BY id;

# ORDER BY and LIMIT count joined rows.
UPDATE t1, t2 SET t1.b = 'lim' WHERE t1.id = t2.t1id LIMIT 1;
SELECT * FROM t1 ORDER BY id;
UPDATE t1 JOIN t2 ON t1.id = t2.t1id SET t1.b = 'o', t2.a = 1 ORDER BY t2.id DESC LIMIT 2;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;
UPDATE t1, t2 SET t1.b = 'z' WHERE t1.id = t2.t1id LIMIT 0;

# DEFAULT, NULL into NOT NULL, conversions.
CREATE TABLE nn (id INT PRIMARY KEY, n INT NOT NULL DEFAULT 4, s VARCHAR(3));
INSERT INTO nn VALUES (1, 1, 'a'), (2, 2, 'b');
UPDATE nn JOIN t1 ON nn.id = t1.id SET nn.n = DEFAULT, nn.s = 'abc';
SELECT * FROM nn ORDER BY id;
UPDATE nn JOIN t1 ON nn.id = t1.id SET nn.n = NULL;
UPDATE nn JOIN t1 ON nn.id = t1.id SET nn.s = 'toolong';
SELECT * FROM nn ORDER BY id;
SET sql_mode = '';
UPDATE nn JOIN t1 ON nn.id = t1.id SET nn.n = NULL, nn.s = 'toolong';
SHOW WARNINGS;
SELECT * FROM nn ORDER BY id;
SET sql_mode = DEFAULT;

# Duplicate keys roll the statement back.
UPDATE t1 JOIN t2 ON t1.id = t2.t1id SET t1.id = 3;
SELECT * FROM t1 ORDER BY id;
UPDATE t1 JOIN t2 ON t1.id = t2.t1id SET t1.id = t1.id + 10, t2.t1id = t2.t1id + 10;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;

# Errors: unknown and ambiguous columns, targets that cannot be updated, repeated names.
UPDATE t1, t2 SET t1.zz = 1;
UPDATE t1, t2 SET t9.a = 1;
UPDATE t1, t2 SET id = 1;
UPDATE t1, t2 SET t1.a = a;
UPDATE t1, t2 SET t1.a = zz;
UPDATE t1, t2 SET t1.a = 1 WHERE zz = 1;
UPDATE t1, t2 SET t1.a = 1 WHERE a = 1;
UPDATE t1, t2 SET t1.a = 1 ORDER BY zz;
UPDATE t1 JOIN t2 ON t1.zz = t2.t1id SET t1.a = 1;
UPDATE t1, (SELECT 1 AS x) d SET d.x = 4 WHERE t1.id = d.x;
UPDATE (SELECT * FROM t1) d SET d.a = 1;
UPDATE t1, t1 SET t1.a = 1;
UPDATE t1 x, t2 x SET x.a = 1;
UPDATE t1, nosuch SET t1.a = 1;
UPDATE t1 SET a = 1 FROM t2;
UPDATE t1 FROM t2 SET a = 1;
START TRANSACTION READ ONLY;
UPDATE t1, t2 SET t1.a = 1 WHERE t1.id = t2.t1id;
ROLLBACK;

# FOREIGN KEY and CHECK constraints are enforced row by row.
CREATE TABLE par (id INT PRIMARY KEY, v INT CHECK (v < 100));
CREATE TABLE ch (id INT PRIMARY KEY, pid INT, w INT, FOREIGN KEY (pid) REFERENCES par (id) ON UPDATE CASCADE);
CREATE TABLE ch2 (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES par (id));
INSERT INTO par VALUES (1, 1), (2, 2), (3, 3);
INSERT INTO ch VALUES (10, 1, 0), (20, 2, 0);
INSERT INTO ch2 VALUES (100, 3);
UPDATE par JOIN ch ON par.id = ch.pid SET par.id = par.id + 10, ch.w = par.v;
SELECT * FROM par ORDER BY id;
SELECT * FROM ch ORDER BY id;
UPDATE par JOIN ch2 ON par.id = ch2.pid SET par.id = 30;
UPDATE ch JOIN par ON par.id = ch.pid SET ch.pid = 99;
UPDATE ch JOIN par ON par.id = ch.pid SET par.v = 500;
SELECT * FROM par ORDER BY id;
SELECT * FROM ch ORDER BY id;
