# SELECT … INTO @a, @b: the query's single row into user variables (parse/select_into.rs,
# exec/select_into.rs). 1222 for a count mismatch, 1172 for more than one row, warning 1329
# (variables unchanged) for none, 1287 for the deprecated trailing position, 1327 for a
# name without @. Expected outputs recorded from MariaDB 10.11 with mariadb_golden.py.
CREATE DATABASE sint;
USE sint;
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10), d DECIMAL(6,2));
INSERT INTO t VALUES (1, 'one', 1.50), (2, 'two', NULL), (3, 'three', 3.25);
SELECT 1 INTO @x;
SELECT @x;
SELECT v, d INTO @v, @d FROM t WHERE id = 1;
SELECT @v, @d;
SELECT v INTO @v FROM t WHERE id = 2 FOR UPDATE;
SELECT @v;
SELECT v, d FROM t WHERE id = 3 INTO @v, @d;
SHOW WARNINGS;
SELECT @v, @d;
SELECT v INTO @v FROM t WHERE id = 99;
SHOW WARNINGS;
SELECT @v;
SELECT v INTO @v FROM t;
SELECT @v;
SELECT 1, 2 INTO @x;
SELECT 1 INTO @x, @y;
SELECT 1 INTO x;
SELECT 1 INTO @x INTO @y;
SELECT (SELECT 1 INTO @x);
SELECT 1 UNION SELECT 2 INTO @x;
SELECT 1 UNION SELECT 5 ORDER BY 1 DESC LIMIT 1 INTO @x;
SELECT @x;
(SELECT id FROM t ORDER BY id LIMIT 1) INTO @x;
SELECT @x;
WITH c AS (SELECT COUNT(*) AS n FROM t) SELECT n FROM c INTO @n;
SELECT @n;
SELECT 7 INTO @`q q`;
SELECT 8 INTO @'s';
SELECT @`q q`, @s;
SELECT MAX(id), MIN(v) INTO @mx, @mn FROM t;
SELECT @mx, @mn;
SELECT id INTO @x FROM t WHERE id = 2 LOCK IN SHARE MODE;
SELECT @x;
