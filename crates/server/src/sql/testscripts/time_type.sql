# TIME[(fsp)] columns. Expected outputs recorded from MariaDB 10.11 with mariadb_golden.py (see
# its header): edit time_type.sql, then regenerate time_type.test.
CREATE DATABASE timedb;
USE timedb;
CREATE TABLE t (id INT PRIMARY KEY, a TIME, b TIME(3) DEFAULT '1:2:3', c TIME(6) NOT NULL DEFAULT '-838:59:59', KEY (a));
SHOW CREATE TABLE t;
DESCRIBE t;
SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, DATETIME_PRECISION, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'timedb' AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION;

# Non-strict: every input form, truncation of fractions, clipping.
SET sql_mode = '';
INSERT INTO t (id, a, b) VALUES (1, '12:34:56', '1 02:03:04.12345'), (2, '123456', 123456.7895), (3, '12:34', '12'), (4, '1234', '1:2:3'), (5, 8385959, '-838:59:59.9999'), (6, '900:00:00', -9000000), (7, '10:70:00', 'abc'), (8, '2020-01-02 03:04:05.6', 1.5e3), (9, '-01:00:00', '12:00:00x'), (10, NULL, NULL);
SHOW WARNINGS;
meta SELECT id, a, b, c FROM t WHERE id = 1;
SELECT id, a, b, c FROM t ORDER BY id;
SELECT id, a + 0, b + 0, a * 1, HOUR(a), MINUTE(b), SECOND(b), TIME_TO_SEC(a), TIME_TO_SEC(b) FROM t ORDER BY id;
SELECT a FROM t ORDER BY a, id;
SELECT id FROM t WHERE a = '12:34:56' ORDER BY id;
SELECT id FROM t WHERE a > '10:00' ORDER BY id;
SELECT id FROM t WHERE a BETWEEN '-2:00:00' AND '03:04:05' ORDER BY id;
SELECT id FROM t WHERE a = 123456 ORDER BY id;
SELECT MIN(a), MAX(a), MIN(b), MAX(b) FROM t;
SELECT a, COUNT(*) FROM t GROUP BY a ORDER BY a;
SELECT CONCAT(a), CONCAT(b) FROM t WHERE id = 1;
SELECT id, b + INTERVAL 1 HOUR, b - INTERVAL 90 MINUTE, a + INTERVAL 1 DAY FROM t WHERE id < 5 ORDER BY id;

# Strict mode: 1292 for what is no time, clipped or truncated (not here: the messages, where
# Cohort names the column 'a' and MariaDB `db`.`t`.`a`, as for dates; the code is the same).
SET sql_mode = 'STRICT_ALL_TABLES';
INSERT INTO t (id, a) VALUES (20, '2020-01-01 10:00:00');
SHOW WARNINGS;
UPDATE t SET a = '-12:00:00.5' WHERE id = 20;
SELECT id, a FROM t WHERE id = 20;

# CAST, functions returning TIME.
meta SELECT CAST('12:34:56.789' AS TIME), CAST('1 2:3' AS TIME(2)), CAST(126 AS TIME), SEC_TO_TIME(100000), SEC_TO_TIME(1.5);
SELECT CAST(123.5 AS TIME), CAST('-838:59:59' AS TIME), CAST(20200101103000 AS TIME);
SELECT CAST('abc' AS TIME);
SELECT CAST('900:00:00' AS TIME);
SELECT HOUR(CAST('100:00:00' AS TIME)), HOUR(SEC_TO_TIME(400000)), TIME_TO_SEC(SEC_TO_TIME(-5000));
SELECT CAST('10:00:00' AS TIME) < CAST('9:00:00' AS TIME), CAST('100:00:00' AS TIME) > '99:00:00';
meta SELECT CAST('01:00:00' AS TIME) + INTERVAL 30 SECOND, CAST('01:00:00.5' AS TIME(1)) - INTERVAL 2 HOUR;
SELECT CAST('800:00:00' AS TIME) + INTERVAL 100 HOUR;
DROP DATABASE timedb;
