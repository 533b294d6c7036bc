# GROUP BY … WITH ROLLUP (issue 20): expected outputs recorded from MariaDB 10.11 with
# mariadb_golden.py (see its header): edit rollup.sql, then regenerate rollup.test.
CREATE DATABASE rolldb;
USE rolldb;
CREATE TABLE t (id INT PRIMARY KEY, g INT, a INT, s VARCHAR(10), d DECIMAL(5,2));
INSERT INTO t VALUES (1, 1, 10, 'x', 1.50), (2, 1, 20, 'y', 2.50), (3, 1, 20, 'z', NULL), (4, 2, NULL, 'X', 4.00), (5, 2, 5, NULL, 5.25), (6, NULL, 7, 'q', 6.00), (7, NULL, NULL, 'r', 7.00);
CREATE TABLE e (g INT, a INT);

# Super-aggregate rows after the groups they sum up, NULL in the rolled-up keys.
SELECT g, SUM(a), COUNT(*) FROM t GROUP BY g WITH ROLLUP;
SELECT g, a, SUM(a), COUNT(*), AVG(d) FROM t GROUP BY g, a WITH ROLLUP;
SELECT g, s, COUNT(*), MAX(d), MIN(s) FROM t GROUP BY g, s WITH ROLLUP;
SELECT s, COUNT(*), GROUP_CONCAT(id ORDER BY id) FROM t GROUP BY s WITH ROLLUP;
SELECT g, SUM(DISTINCT a), COUNT(DISTINCT s) FROM t GROUP BY g WITH ROLLUP;
SELECT COUNT(*) FROM t GROUP BY g WITH ROLLUP;
SELECT 1 FROM t GROUP BY g WITH ROLLUP;

# Expressions of keys, aliases, positions.
SELECT g, g + 1, SUM(a) FROM t GROUP BY g WITH ROLLUP;
SELECT g + 1, SUM(a) FROM t GROUP BY g + 1 WITH ROLLUP;
SELECT g, a + 1 AS x, COUNT(*) FROM t GROUP BY g, x WITH ROLLUP;
SELECT g AS k, SUM(a) FROM t GROUP BY k WITH ROLLUP;
SELECT g, SUM(a) FROM t GROUP BY 1 WITH ROLLUP;

# HAVING sees the super-aggregate rows; DISTINCT, LIMIT; no rows at all.
SELECT g, SUM(a) FROM t GROUP BY g WITH ROLLUP HAVING SUM(a) > 10;
SELECT g, SUM(a) FROM t GROUP BY g WITH ROLLUP HAVING g IS NULL;
SELECT DISTINCT g, SUM(a) FROM t GROUP BY g WITH ROLLUP;
SELECT g, SUM(a) FROM t GROUP BY g WITH ROLLUP LIMIT 2;
SELECT g, a, COUNT(*) FROM t GROUP BY g, a WITH ROLLUP LIMIT 3, 4;
SELECT g, SUM(a) FROM t WHERE id > 100 GROUP BY g WITH ROLLUP;
SELECT g, COUNT(*) FROM e GROUP BY g WITH ROLLUP;
SELECT g, COUNT(*) FROM t WHERE id = 1 GROUP BY g WITH ROLLUP;
SELECT t1.g, COUNT(*) FROM t t1 JOIN t t2 ON t1.g = t2.g GROUP BY t1.g WITH ROLLUP;

# Errors: ORDER BY with ROLLUP (MariaDB 10.11 has no GROUPING(); WITH CUBE is 1235 in both,
# see surface.test).
SELECT g, SUM(a) FROM t GROUP BY g WITH ROLLUP ORDER BY g;
SELECT g, SUM(a) FROM t GROUP BY g WITH ROLLUP ORDER BY g LIMIT 1;
