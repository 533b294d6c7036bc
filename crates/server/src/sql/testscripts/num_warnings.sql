# Warning 1292 "Truncated incorrect DOUBLE / DECIMAL value" when a string that is not all a
# number is read as one (expr/num_warn.rs). Recorded from MariaDB 10.11 with mariadb_golden.py.
CREATE DATABASE numwarn;
USE numwarn;
CREATE TABLE t (id INT PRIMARY KEY, x INT, s VARCHAR(10), d DECIMAL(5,2));
INSERT INTO t VALUES (1, 1, 'abc', 1), (2, 5, '5z', 2), (3, 6, ' 6 ', 3), (4, 7, '7', 4);

# Arithmetic: DOUBLE (DIV and bit operators: DECIMAL); trailing spaces are a Note.
SELECT '1x' + 1;
SHOW WARNINGS;
SELECT '1e' * 2, ' 12 ' + 0, '' + 0, '1.5.5' + 0, ' 12' + 0, '.5' + 0, '-' + 0, '0x1' + 0;
SHOW WARNINGS;
SELECT -'1x', 'a' DIV 1, 'a' MOD 2, 'a' / 2, 'a' & 1, '1' + '2';
SHOW WARNINGS;
SELECT id, s + 0 FROM t ORDER BY id;
SHOW WARNINGS;
SELECT id, x + s FROM t ORDER BY id;
SHOW WARNINGS;
SELECT 'abc' + 0 FROM t;
SHOW WARNINGS;

# Comparisons: DECIMAL against an integer, DOUBLE against a double or decimal; a constant
# string warns once per statement, a column on each row.
SELECT 'abc' = 0;
SHOW WARNINGS;
SELECT 'abc' = 0e0;
SHOW WARNINGS;
SELECT 'abc' = 0.5;
SHOW WARNINGS;
SELECT 'a' BETWEEN 1 AND 2, 'abc' BETWEEN 0 AND 1;
SHOW WARNINGS;
SELECT 'a' IN (1.5, 2);
SHOW WARNINGS;
SELECT 'abc' IN (0, 1);
SHOW WARNINGS;
SELECT id FROM t WHERE s = 0 ORDER BY id;
SHOW WARNINGS;
SELECT id FROM t WHERE s = 1e0 ORDER BY id;
SHOW WARNINGS;
SELECT id FROM t WHERE x = '5z';
SHOW WARNINGS;
SELECT id FROM t WHERE x = s ORDER BY id;
SHOW WARNINGS;
SELECT x = 'q' FROM t ORDER BY id;
SHOW WARNINGS;
SELECT d = 'x' FROM t ORDER BY id;
SHOW WARNINGS;

# CAST and math functions.
SELECT CAST('1x' AS SIGNED), CAST('1x' AS DECIMAL(5,2)), CAST('1x' AS DOUBLE);
SHOW WARNINGS;
SELECT CAST(' 1 ' AS DOUBLE), CAST('' AS SIGNED), CAST(' 1 ' AS SIGNED), CAST('1 ' AS DECIMAL(3,1));
SHOW WARNINGS;
SELECT ABS('1x'), ROUND('2.5x'), FLOOR('a'), SQRT('4q'), POW('2x', 2), MOD('7x', 2), SIGN('-1x');
SHOW WARNINGS;

# Truth values.
SELECT 'abc' AND 1, NOT 'abc', '1x' OR 0, 'a' XOR 1;
SHOW WARNINGS;
