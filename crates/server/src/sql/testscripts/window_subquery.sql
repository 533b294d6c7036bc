# Window functions in queries that also hold subqueries (issue 20): the subqueries run with the
# statement's transaction while the window functions read every row first.
# Expected outputs recorded from MariaDB 10.11 with mariadb_golden.py.
CREATE DATABASE wsq;
USE wsq;
CREATE TABLE t (k INT PRIMARY KEY, g INT, v INT);
INSERT INTO t VALUES (1, 1, 10), (2, 1, 20), (3, 2, 30), (4, 2, NULL), (5, 3, 50), (6, 3, 60);
CREATE TABLE u (g INT PRIMARY KEY, name VARCHAR(10), w INT);
INSERT INTO u VALUES (1, 'one', 100), (2, 'two', 200), (4, 'four', 400);

# A scalar subquery in the select list beside a window function.
SELECT k, ROW_NUMBER() OVER (ORDER BY k) AS rn, (SELECT MAX(w) FROM u) AS mw FROM t ORDER BY k;
# Correlated subqueries: in the select list, as a window argument, in PARTITION BY and ORDER BY.
SELECT k, (SELECT name FROM u WHERE u.g = t.g) AS nm, SUM(v) OVER (PARTITION BY g ORDER BY k) AS s FROM t ORDER BY k;
SELECT k, SUM((SELECT w FROM u WHERE u.g = t.g)) OVER (ORDER BY k) AS sw FROM t ORDER BY k;
SELECT k, RANK() OVER (PARTITION BY (SELECT COUNT(*) FROM u WHERE u.g <= t.g) ORDER BY v DESC) AS r FROM t ORDER BY k;
SELECT k, ROW_NUMBER() OVER (ORDER BY (SELECT w FROM u WHERE u.g = t.g) DESC, k) AS rn FROM t ORDER BY k;
# A subquery in WHERE, with IN and EXISTS.
SELECT k, LAG(v) OVER (ORDER BY k) AS prev FROM t WHERE g IN (SELECT g FROM u) ORDER BY k;
SELECT k, COUNT(*) OVER () AS n FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.g = t.g AND u.w > 150) ORDER BY k;
SELECT k, FIRST_VALUE(v) OVER (PARTITION BY g ORDER BY k) AS fv FROM t WHERE v > (SELECT MIN(v) FROM t) ORDER BY k;
# Grouped, with a window over the groups and a subquery.
SELECT g, SUM(v) AS s, RANK() OVER (ORDER BY SUM(v) DESC) AS r, (SELECT name FROM u WHERE u.g = t.g) AS nm FROM t GROUP BY g ORDER BY g;
SELECT g, AVG(v) OVER (ORDER BY g) AS a FROM t WHERE k <> (SELECT MAX(k) FROM t) GROUP BY g ORDER BY g;
# Window functions inside a subquery or a derived table whose query holds a subquery.
SELECT k FROM t WHERE k IN (SELECT k FROM (SELECT k, ROW_NUMBER() OVER (PARTITION BY g ORDER BY k) AS rn FROM t WHERE g IN (SELECT g FROM u)) d WHERE rn = 1) ORDER BY k;
SELECT EXISTS (SELECT ROW_NUMBER() OVER (ORDER BY k) FROM t WHERE v > (SELECT MAX(w) FROM u));
SELECT EXISTS (SELECT ROW_NUMBER() OVER (ORDER BY k) FROM t WHERE v < (SELECT MAX(w) FROM u));
# DISTINCT and LIMIT over window outputs with a subquery.
SELECT DISTINCT g, COUNT(*) OVER (PARTITION BY g) AS c, (SELECT 1) AS one FROM t ORDER BY g LIMIT 2;
SELECT k, NTILE(2) OVER (ORDER BY k) AS nt, (SELECT COUNT(*) FROM u) AS cu FROM t ORDER BY k DESC LIMIT 3;
# Errors still come through: a scalar subquery of more than one row.
SELECT k, ROW_NUMBER() OVER (ORDER BY k), (SELECT g FROM u) FROM t;
DROP DATABASE wsq;
