# Differences cohort-difftest found with its `types` feature (arithmetic over unsigned
# operands, branch functions over mixed signedness and kinds, HEX and CONCAT of them), each
# with the seed and case that found it. Expected outputs recorded from MariaDB 10.11 with
# mariadb_golden.py: edit difftest_types.sql, then regenerate difftest_types.test.
CREATE DATABASE dty;
USE dty;
CREATE TABLE t (id INT PRIMARY KEY, u INT UNSIGNED, i SMALLINT, d DECIMAL(10,2), f DOUBLE, vb VARBINARY(20), dt DATETIME(6), s VARCHAR(10)) DEFAULT CHARSET=utf8mb4;
INSERT INTO t VALUES (1, 1, -2, 12.50, 21, X'4100FF', '2021-09-12 00:00:00.318549', 'abc'), (2, 5, 7, -1.25, 8.5, NULL, NULL, NULL), (3, 0, 10, 0.00, -0.004, NULL, NULL, 'x');
# Seed 12 0:250: a CASE of an integer and a DOUBLE of fixed decimals keeps them as a string.
SELECT id, CONCAT(CASE WHEN NULL THEN -1 ELSE ROUND(1e0, 1) END) a, CONCAT(IF(id = 1, i, ROUND(f, 2))) b, CONCAT(COALESCE(NULL, ROUND(f, 3), 1)) c FROM t ORDER BY id;
# Seed 11 0:150: HEX of a DECIMAL (a signed and an unsigned branch) goes through a DOUBLE.
SELECT id, HEX(CASE WHEN NULL THEN NULL ELSE 18446744073709551604 END) a, HEX(IFNULL(u, i)) b, HEX(COALESCE(NULL, u)) c FROM t ORDER BY id;
# Seed 22 7:113 and seed 23 2:241: a string IFNULL / COALESCE / IF / CASE shows a DOUBLE of
# fixed decimals and a DECIMAL with their decimals.
SELECT id, IFNULL(vb, ROUND(f, 2)) a, IFNULL(dt, COALESCE(1, 100.00)) b, IF(id = 1, s, d) c, CASE WHEN id = 3 THEN s ELSE ROUND(f, 3) END e, COALESCE(s, 2.50) g FROM t ORDER BY id;
# Seed 21 6:290: ROUND / TRUNCATE of a DOUBLE to a negative scale fix no decimals, so a
# quotient's four show; a negative zero DOUBLE is sent as 0.
SELECT id, (i / 3) - ROUND(-1.5e1, -5) a, ROUND(f, -1) b, TRUNCATE(f, -2) c, ROUND(-0.4e0) e, -0e0 g, f * 0 * -1 h FROM t ORDER BY id;
# Signed and unsigned branches meet in a DECIMAL: arithmetic on them is decimal (no 1690).
SELECT id, IF(id = 1, u, 0) - 2 a, IFNULL(u, i) - 2 b, GREATEST(u, 0) - 5 c, COALESCE(NULL, u) - 3 e FROM t ORDER BY id;
DROP DATABASE dty;
