# Arithmetic signedness and the result types of IF / IFNULL / COALESCE / CASE / GREATEST /
# LEAST / NULLIF and HEX, as MariaDB 10.11 gives them: values, 1690 errors and column metadata
# (`meta`), and the columns CREATE TABLE … SELECT makes of them. Expected outputs recorded
# from MariaDB 10.11 with mariadb_golden.py: edit types_arith.sql, then regenerate
# types_arith.test.
CREATE DATABASE tya;
USE tya;
CREATE TABLE t (id INT PRIMARY KEY, u INT UNSIGNED, i INT, bu BIGINT UNSIGNED, bi BIGINT, ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED, mi MEDIUMINT, d DECIMAL(10,2), f DOUBLE, fl FLOAT, s VARCHAR(10), dt DATE, ts DATETIME(3)) DEFAULT CHARSET=utf8mb4;
INSERT INTO t VALUES (1, 1, -2, 18446744073709551615, -9223372036854775808, -5, 200, -300, 60000, 70000, 12.50, 1.5, 2.5, 'abc', '2020-01-02', '2020-01-02 03:04:05.678');
INSERT INTO t VALUES (2, 5, 3, 7, 8, 9, 10, 11, 12, 13, 1.25, -0.5, 0.25, 'x', '2021-03-04', '2021-03-04 05:06:07.000');
# An unsigned operand makes + - * DIV unsigned (and % when it is the dividend): a negative
# result is 1690. (Over columns and CAST the message quotes the expression as MariaDB prints
# it, which Cohort does not yet: those cases are unit tests of the error code,
# `expr::tests::unsigned_arithmetic_out_of_range`.)
SELECT 9223372036854775807 * 2;
SELECT 18446744073709551615 + 1;
SELECT 18446744073709551615 * 2;
SELECT 9223372036854775807 + 1;
SELECT -9223372036854775808 DIV -1;
SELECT -9223372036854775807 - 2;
# … and fine where the result is not negative, or leaves integers.
SELECT u - i, u - 1, u MOD -1, i MOD u, u - 1.5, u - 2e0, bu - bu, ABS(u - 1), u - u FROM t WHERE id = 1 ORDER BY id;
SELECT SUM(u) - 2, -u, -(u + 1), -CAST(9223372036854775808 AS UNSIGNED) FROM t WHERE id = 1;
# Signed and unsigned branches meet in a DECIMAL: arithmetic on it is decimal.
SELECT IF(id = 1, u, 0) - 2, IFNULL(u, i) - 2, GREATEST(u, 0) - 2, IF(id = 1, tu, -1) - 300 FROM t ORDER BY id;
# Result metadata of arithmetic.
meta SELECT u - 0 a, u DIV 2 b, u MOD 2 c, i MOD u d, u * 1 e, u + 1 g, bu - 0 h, -u k, tu - 0 l, ti + tu m, i DIV 2 n, u DIV i o, tu DIV 1 p, -tu q, -(u + 0) r, tu * 1000000 s FROM t WHERE id = 2;
# Result metadata of the branch functions over integers of every width and signedness.
meta SELECT IF(id, ti, 1) a, IF(id, tu, 1) b, IF(id, u, 0) c, IF(id, bu, 0) d, IF(id, bu, i) e, IF(id, u, bi) g, IF(id, tu, tu) h, IF(id, ti, i) k, IF(id, ti, bi) l, IF(id, 1, 2) m, IF(id, 1, 20000000000) n, IF(id, ti, -1) o, IF(id, ti, 1000) p FROM t ORDER BY id;
meta SELECT IF(id, si, mi) a, IF(id, tu, su) b, IF(id, tu, u) c, IF(id, su, bu) d, IF(id, tu, 18446744073709551615) e, IF(id, mi, 1) g, IF(id, ti, si) h, IF(id, 1, 1000000000000) k FROM t ORDER BY id;
meta SELECT IFNULL(u, i) a, IFNULL(tu, ti) b, COALESCE(ti, tu) c, COALESCE(ti, u, bi) d, COALESCE(ti, si) e, COALESCE(ti, 1) g, IFNULL(si, 1) h FROM t ORDER BY id;
meta SELECT GREATEST(u, 0) a, GREATEST(bu, 0) b, LEAST(ti, 1) c, LEAST(ti, si) d, GREATEST(ti, 1) e, NULLIF(ti, 1) g, NULLIF(u, 1) h FROM t ORDER BY id;
meta SELECT CASE WHEN id = 1 THEN ti ELSE 1 END a, CASE WHEN id = 1 THEN ti ELSE 1.5 END b, CASE WHEN id = 1 THEN si ELSE ti END c, CASE id WHEN 1 THEN u ELSE i END d FROM t ORDER BY id;
meta SELECT IF(id, ti, d) a, IF(id, ti, f) b, IF(id, d, f) c, IF(id, f, 1) e, COALESCE(f, 1.5) g, NULLIF(f, 1) h, f k, f + 1 l, fl m FROM t ORDER BY id;
# A NULL literal branch is a signed one in IFNULL, COALESCE and CASE, not in IF.
meta SELECT CASE WHEN NULL THEN NULL ELSE 18446744073709551604 END a, IF(id = 0, NULL, 18446744073709551604) b, IF(id = 0, NULL, u) c, COALESCE(NULL, u) g, IFNULL(NULL, u) h, CASE WHEN id THEN u END k, IF(id = 0, NULL, ti) m, CASE WHEN NULL THEN NULL ELSE u END n FROM t ORDER BY id;
# HEX of a DECIMAL goes through a DOUBLE.
SELECT HEX(18446744073709551604.0), HEX(9007199254740993.0), HEX(-9007199254740993.0), HEX(12.5), HEX(-12.5), HEX(CAST(9007199254740993 AS DECIMAL(20,0))), HEX(IFNULL(18446744073709551604, 1)), HEX(18446744073709551604);
# HEX: two digits a byte of a string, date or unsigned integer, 16 for other numbers; a
# DATETIME(n) and a TIME hexed as their text.
meta SELECT HEX(ti) a, HEX(s) b, HEX(bu) c, HEX(d) e, HEX(f) g, HEX(i) h, HEX(bi) k, HEX(u) l, HEX(tu) m, HEX(dt) n, HEX(ts) o, HEX(u + 1) p, HEX(i / 2) q FROM t ORDER BY id;
meta SELECT HEX(1) a, HEX(1.5) b, HEX(1e0) c, HEX(-1) d, HEX(18446744073709551615) e, HEX(CAST(1 AS UNSIGNED)) g, HEX(X'41') h, HEX(0x4142) k, HEX(TIME'10:00:00') l, HEX(NULL) m, HEX('abc') n;
# The same types as table columns.
CREATE TABLE t2 AS SELECT IF(id, ti, 1) a, IF(id, tu, 1) b, IF(id, u, 0) c, IFNULL(tu, ti) d, COALESCE(ti, si) e, GREATEST(u, 0) g, IF(id, ti, 1.5) h, CASE WHEN id THEN si ELSE 1 END k, IF(id, f, 1) l, u - 0 o, -u p, u DIV 2 q, u MOD 2 r, IF(id, bu, 0) s, IF(id, 1, 20000000000) v, IF(id, si, mi) w FROM t;
SHOW CREATE TABLE t2;
SELECT * FROM t2 ORDER BY o;
DROP DATABASE tya;
