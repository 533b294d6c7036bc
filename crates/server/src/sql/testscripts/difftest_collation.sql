# Differences cohort-difftest found (stop 30): collation derivation, hex literals in string
# context, decimal quotients in DISTINCT / UNION / AVG, and others. Expected outputs recorded
# from MariaDB 10.11 with mariadb_golden.py: edit difftest_collation.sql, then regenerate
# difftest_collation.test.
CREATE DATABASE dcdb;
USE dcdb;
CREATE TABLE t (id INT PRIMARY KEY, b VARCHAR(10) COLLATE utf8mb4_bin, g VARCHAR(10) COLLATE utf8mb4_general_ci, v VARBINARY(10));
INSERT INTO t VALUES (1, 'BA', 'ab', 'ab'), (2, 'a', 'A', 'A'), (3, NULL, NULL, NULL);

# GREATEST / LEAST of a utf8mb4_bin and a utf8mb4_general_ci column compare under utf8mb4_bin
# (of two columns, the binary-sorting collation wins); a literal takes the column's collation.
SELECT id, GREATEST(b, g), LEAST(b, g), GREATEST('BA', g), LEAST(g, 'BA') FROM t ORDER BY id;
SELECT id, GREATEST(IF(id > 5, 'BA', b), g) FROM t ORDER BY id;

# COLLATION(), COERCIBILITY() and CHARSET() of the aggregated results.
SELECT COLLATION(GREATEST(b, g)), COLLATION(COALESCE(g, b)), COLLATION(IF(id, g, b)), COLLATION(CONCAT(g, b)), COLLATION(IFNULL(g, b)), COLLATION(NULLIF(b, g)), COLLATION(CASE WHEN id THEN g ELSE b END) FROM t WHERE id = 1;
SELECT COERCIBILITY(g), COERCIBILITY('a'), COERCIBILITY(X'41'), COERCIBILITY(1), COERCIBILITY(NULL), COERCIBILITY(UPPER(g)), COERCIBILITY(CONCAT('a', g)), COERCIBILITY(CAST(1 AS CHAR)), COERCIBILITY(g COLLATE utf8mb4_bin), COERCIBILITY(CONCAT(1, 2)), COERCIBILITY(REPEAT('a', 2)) FROM t WHERE id = 1;
SELECT CHARSET(g), CHARSET(v), CHARSET(1), COLLATION(b), COLLATION(v), COLLATION(1), COLLATION(NULL), CHARSET(CONCAT(v, g)) FROM t WHERE id = 1;

# Comparisons, IN, CASE and NULLIF in the aggregated collation; an explicit COLLATE wins.
SELECT id, b = g, b < g, g IN (b, 'x'), CASE g WHEN b THEN 'same' ELSE 'other' END, NULLIF(g, b) FROM t ORDER BY id;
SELECT id, GREATEST(g, 'BA' COLLATE utf8mb4_bin), GREATEST(b, 'ab' COLLATE utf8mb4_general_ci), b = 'A' COLLATE utf8mb4_general_ci FROM t ORDER BY id;

# A hex literal in string context takes the other operand's collation (it is only coercible);
# against a literal, binary wins.
SELECT id, CONCAT(g, X'41'), COLLATION(CONCAT(g, X'41')), g = X'41', g = X'61', GREATEST(g, X'61'), LEAST(g, X'61'), COALESCE(g, X'41') FROM t ORDER BY id;
SELECT 'a' = X'41', COLLATION(CONCAT('a', X'41')), GREATEST(X'41', 'a'), COLLATION(GREATEST(X'41', 'a')), UPPER(CONCAT(X'61', 'b'));
SELECT id, REPLACE(g, X'61', 'z'), g LIKE X'41', X'41' IN (g, 'x'), UPPER(COALESCE(X'61', g)) FROM t ORDER BY id;
SELECT id, LEAST(CONCAT(X'6162', X'00'), X'6162') = X'6162' FROM t ORDER BY id;

# ... and must then be valid utf8mb4: error 1300 even with no rows.
SELECT g = X'8061' FROM t;
SELECT g FROM t WHERE X'FF8061' = g;
SELECT CONCAT(g, 0xC3) FROM t WHERE 0;
SELECT g IN ('a', X'80') FROM t;
SELECT GREATEST(g, X'E282') FROM t;
SELECT X'80' = 'a', X'80' = v FROM t ORDER BY id;

# REPLACE under a byte-sorting collation: a search string not found gives the subject back,
# even when the replacement is NULL.
CREATE TABLE r (a CHAR(6) COLLATE utf8mb4_bin, c VARCHAR(6) COLLATE utf8mb4_bin, d VARCHAR(6));
INSERT INTO r VALUES (NULL, NULL, NULL);
SELECT REPLACE('abc', 'x', a), REPLACE('abc', 'x', c), REPLACE('abc', 'x', d), REPLACE('abc', 'b', a), REPLACE('abc', 'x', NULL) FROM r;

# A decimal quotient is distinct (DISTINCT, UNION) and averaged by its value: rounded to its
# scale where it is stored, every digit in AVG.
CREATE TABLE q (c0 SMALLINT, c4 DECIMAL(65,30));
INSERT INTO q VALUES (7, 18027486046881.1788229605624), (13, 99999999999999999999999999999999999.8958172), (300, 99999999999999999999999999999999999.909836621522023852447), (-9, 1);
SELECT ((-4 / c4) % CAST('2019-05-05 23:59:59.5' AS DECIMAL(30,10))) AS r0 FROM q UNION SELECT 0.0;
SELECT DISTINCT (-4 / c4) % 1.0000000000 AS r0 FROM q WHERE c4 > 100;
SELECT SUM(1 / c0), AVG(1 / c0), AVG(c0 / 7), SUM(c0 / 7) FROM q;
SELECT (SELECT AVG(1 / q2.c0) FROM q AS q2) FROM q LIMIT 1;

# TRUNCATE / ROUND to a scale that is not a constant: at most the argument type's scale.
SELECT c0, TRUNCATE(7 / 3.14159, c0), ROUND(7 / 3.14159, c0), TRUNCATE(c0 / 3.14159, 9) FROM q ORDER BY c0;
# ... and to a NULL scale: a DOUBLE.
SELECT ROUND(1.5, NULL) UNION SELECT 1 / 3;
(SELECT c4 / 18446744073709551615 AS r0 FROM q WHERE c0 = -9) UNION DISTINCT (SELECT TRUNCATE(c4, NULL) FROM q);

# A DECIMAL past its type's digits in a UNION with strings: cut to the column's length.
SELECT 12345678901234567890123456789.123456789 * 12345678901234567890123456789.123456789 AS p UNION SELECT DATE'2020-01-01';
SELECT 12345678901234567890123456789.123456789 * 12345678901234567890123456789.123456789 AS p UNION SELECT 'a';
# ... and a quotient is the text of its value (its working digits), cut the same way.
values SELECT 10 / 7 AS p UNION SELECT DATE'2020-01-01';
values SELECT 1 / 3 * 3 AS p UNION SELECT 'z';
SELECT 1.50 AS p UNION SELECT 'a' UNION SELECT CAST(2.5 AS DECIMAL(10,3));

# BETWEEN with a temporal bound compares all three as datetimes (warnings 1292 not compared:
# MariaDB warns again where it re-reads a value).
CREATE TABLE w (c0 SMALLINT, dt DATETIME(6), s SET('m','b','Z','a'));
INSERT INTO w VALUES (2, '7890-10-10 00:00:00', 'Z,a'), (21, '2020-01-01 10:00:00.5', 'b,Z,a'), (5, NULL, 'Z');
values SELECT c0, COALESCE(c0, '2038-01-19 03:14:07') NOT BETWEEN '2019-05-05 23:59:59.5' AND TIMESTAMP'2020-06-15 12:30:45', CONCAT(c0) BETWEEN '2019-05-05' AND DATE'2020-01-01' FROM w ORDER BY c0;

# String functions read a DATETIME(n) with its n digits (SUBSTR, MID, TRIM, POSITION too).
SELECT c0, SUBSTR(dt, 4), SUBSTRING(dt FROM 12), MID(dt, 20), LEFT(dt, 30), TRIM(dt), POSITION('.' IN dt), LOCATE('00', dt, 12) FROM w ORDER BY c0;

# CEIL / FLOOR of a SET or ENUM read its number.
SELECT c0, CEIL(s), FLOOR(s), CEILING(s) FROM w ORDER BY c0;

# A window's ORDER BY an ENUM / SET orders by its number, as a query's ORDER BY does.
SELECT c0, s, LAG(c0) OVER (ORDER BY s) AS prev, ROW_NUMBER() OVER (ORDER BY s DESC) AS rn FROM w ORDER BY c0;

# FIELD with a number among strings compares every argument as a DOUBLE (strings that are no
# number read as 0), an ENUM / SET as its number; GREATEST / LEAST of an ENUM / SET and a number
# take its number.
CREATE TABLE fe (c0 SMALLINT UNSIGNED, c1 ENUM('m','b','Z','a'), s VARCHAR(10), f FLOAT);
INSERT INTO fe VALUES (4, 'Z', ' 0Zé', 2.5), (1, 'm', '1', 0), (2, NULL, NULL, NULL);
values SELECT c0, FIELD(s, '0B%ß%', c0), FIELD(s, 'x', 5), FIELD('5', 'x', 5), FIELD('é', f, 'a '), FIELD(c1, 1, 3), FIELD(c1, 'Z', 4) FROM fe ORDER BY c0;
SELECT c0, LEAST(c0, c1), GREATEST(c0, c1), LEAST(c1, 2.5) FROM fe ORDER BY c0;

# IS [NOT] TRUE / FALSE / UNKNOWN read a truth value: GREATEST / LEAST of strings compare as
# numbers there ('ZZ' is 0, below '9999-12-31', which is 9999).
values SELECT s, LEAST(CONCAT(c1, s), '9999-12-31') IS NOT TRUE, GREATEST(s, '0x') IS TRUE, LEAST('abc', '11') IS FALSE FROM fe ORDER BY c0;

# A set operation's column aggregates collations too: a column with a hex literal is the
# column's (utf8mb4_general_ci: 'ab' sorts after 'B'), utf8mb4_bin with utf8mb4_general_ci is
# utf8mb4_bin.
SELECT g AS r FROM t WHERE g IS NOT NULL UNION SELECT X'42' ORDER BY r DESC;
SELECT b AS r FROM t WHERE b IS NOT NULL UNION SELECT g FROM t WHERE g IS NOT NULL ORDER BY r;
SELECT COLLATION(r) FROM (SELECT g AS r FROM t UNION SELECT X'42') AS u LIMIT 1;

DROP DATABASE dcdb;
