# Result column lengths of integer expressions (literals, arithmetic, CAST, IF / COALESCE /
# CASE, aggregates, functions) and the column types CREATE TABLE ... SELECT makes of them.
# Recorded from MariaDB 10.11 with mariadb_golden.py.
CREATE DATABASE intlen;
USE intlen;
CREATE TABLE t (a TINYINT, b TINYINT UNSIGNED, g INT, h INT UNSIGNED, i BIGINT, j BIGINT UNSIGNED, x INT(5), m INT(5) ZEROFILL);
INSERT INTO t VALUES (1, 2, 3, 4, 5, 6, 7, 8);
meta SELECT 1, 123456, -5, 99999999999, 1+2, 2*3, -1-2, 5 DIV 2, 5 % 2, 1+1+1 FROM t;
meta SELECT COUNT(*), SUM(g), AVG(g), MAX(g), MIN(h) FROM t;
meta SELECT CAST(1 AS SIGNED), CAST(-5 AS SIGNED), CAST(12345 AS SIGNED), CAST(g AS SIGNED), CAST(h AS SIGNED), CAST(i AS SIGNED), CAST('1' AS SIGNED), CAST(1.5 AS SIGNED), CAST(1e0 AS SIGNED) FROM t;
meta SELECT CAST(1 AS UNSIGNED), CAST(g AS UNSIGNED), CAST(h AS UNSIGNED), CAST(12345 AS UNSIGNED), CAST(m AS UNSIGNED) FROM t;
meta SELECT IF(1, 2, 3), COALESCE(1, 2), IFNULL(1, 2), CASE WHEN 1 THEN 2 ELSE 3 END, IF(1, g, 2), COALESCE(g, 1), COALESCE(12345, 1), COALESCE(a), COALESCE(b), GREATEST(g, 1), LEAST(1, 2) FROM t;
meta SELECT g + 0, h + 0, x + 0, m + 0, a * 2, g * g, g % 3, g DIV 2, i + 1, j + 1, -g, -a, ABS(g), ABS(a), ABS(-1) FROM t;
meta SELECT ~1, 1 << 2, 1 & 3, LAST_INSERT_ID(), CONNECTION_ID() > 0, ROW_COUNT() FROM t;
CREATE TABLE c AS SELECT 1 AS a, COUNT(*) AS b, 1 + 2 AS c, 99999999999 AS d, CAST(1 AS UNSIGNED) AS e, -5 AS f, LAST_INSERT_ID() AS h, SUM(g) AS j, m + 0 AS k, ABS(g) AS l, IF(1, 2, 3) AS n, -g AS o, g * 2 AS p, CAST(g AS SIGNED) AS q, x, m FROM t;
SHOW CREATE TABLE c;
DROP DATABASE intlen;
