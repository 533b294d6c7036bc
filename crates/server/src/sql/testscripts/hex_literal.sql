# X'41' (a binary string) and 0x41 (a hybrid: a number in a numeric context) as MariaDB 10.11
# reads them; columns are named as written. Recorded with mariadb_golden.py.
CREATE DATABASE hexlit;
USE hexlit;
SELECT X'41', 0x41, x'4142', X'', 0x4;
SELECT 0x41 + 0, X'41' + 0, X'' + 0, 0x41 = 'A', X'41' = 65, X'41' = 'A';
SELECT CAST(X'41' AS UNSIGNED), CAST(0x41 AS UNSIGNED), HEX(X''), LENGTH(X''), X'' IS NULL;
SELECT CAST(0x41 AS SIGNED), CAST(0x41 AS DECIMAL(5,1)), CAST(0x41 AS DOUBLE), CAST(X'41' AS DOUBLE);
SELECT 0xffffffffffffffffff + 0, X'ffffffffffffffffff' + 0;
SELECT X'41' AS a, 0x41 AS b UNION SELECT 1, 2;
SELECT CONCAT(X'41', 0x42), X'41' | 0, 0x41 | 0, -0x41, -X'41', -'abc', ~0x41, ~X'41', NOT 0x41;
SELECT _binary X'41' + 0, _latin1 X'41';
# Odd digits in X'…' are a syntax error; 0x alone, 0x41G, 0X41 and 0x1p are identifiers.
SELECT X'4';
SELECT 0x;
SELECT 0x41G;
SELECT 0X41;
SELECT 0x1p;
CREATE TABLE t (id INT PRIMARY KEY, b VARBINARY(10));
INSERT INTO t VALUES (1, X'41'), (2, 0x42), (3, x'');
SELECT id, b, HEX(b) FROM t WHERE b = X'41' OR b = 0x42 ORDER BY id;
SELECT id FROM t WHERE b = X'' ORDER BY id;
