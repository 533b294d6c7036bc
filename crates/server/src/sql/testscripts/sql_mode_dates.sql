# NO_ZERO_DATE / NO_ZERO_IN_DATE on the dates a conversion makes, as MariaDB 10.11 answers:
# CAST(… AS DATE / DATETIME) and DATE() give NULL with warning 1292, STR_TO_DATE NULL with 1411,
# where the mode refuses the date (the zero date; a zero month or day); without the mode the
# date is kept. The same cached statement under two modes. INSERT / UPDATE IGNORE and
# non-strict statements store the zero date with MariaDB's warnings. Recorded from MariaDB 10.11 with
# mariadb_golden.py: edit sql_mode_dates.sql, then regenerate sql_mode_dates.test.
CREATE DATABASE smd;
USE smd;
CREATE TABLE t (id INT PRIMARY KEY, d VARCHAR(20));
INSERT INTO t VALUES (1, '0000-00-00'), (2, '2020-00-03'), (3, '2021-02-03');
SET sql_mode = '';
SELECT CAST('0000-00-00' AS DATE), CAST('2020-00-01' AS DATE), DATE('0000-00-00'), STR_TO_DATE('00/00/0000', '%m/%d/%Y');
SELECT id, CAST(d AS DATE), DATE(d), STR_TO_DATE(d, '%Y-%m-%d') FROM t WHERE id = 1;
SELECT id, CAST(d AS DATE), DATE(d), STR_TO_DATE(d, '%Y-%m-%d') FROM t WHERE id = 2;
SET sql_mode = 'NO_ZERO_DATE,NO_ZERO_IN_DATE';
SELECT CAST('0000-00-00' AS DATE), CAST('2020-00-01' AS DATE), CAST('0000-00-00 00:00:00' AS DATETIME), CAST('2020-01-00' AS DATETIME);
SHOW WARNINGS;
SELECT DATE('0000-00-00'), DATE('2020-00-05'), STR_TO_DATE('00/00/0000', '%m/%d/%Y'), STR_TO_DATE('2020-00-05', '%Y-%m-%d');
SHOW WARNINGS;
SELECT STR_TO_DATE('10:20', '%H:%i'), CAST('0000-00-00 10:00:00' AS DATETIME), CAST(0 AS DATE), CAST(20200003 AS DATE), CAST('2021-02-03' AS DATE);
SHOW WARNINGS;
SET sql_mode = 'NO_ZERO_DATE';
values SELECT id, CAST(d AS DATE), DATE(d), STR_TO_DATE(d, '%Y-%m-%d') FROM t WHERE id = 1;
values SELECT id, CAST(d AS DATE), DATE(d), STR_TO_DATE(d, '%Y-%m-%d') FROM t WHERE id = 2;
SET sql_mode = 'NO_ZERO_IN_DATE';
values SELECT id, CAST(d AS DATE), DATE(d), STR_TO_DATE(d, '%Y-%m-%d') FROM t WHERE id = 2;
values SELECT id, CAST(d AS DATE), DATE(d), STR_TO_DATE(d, '%Y-%m-%d') FROM t WHERE id = 3;
SET sql_mode = 'TRADITIONAL';
SELECT CAST('0000-00-00' AS DATE), DATE('2020-00-05'), STR_TO_DATE('00/00/0000', '%m/%d/%Y');
SET sql_mode = DEFAULT;
SELECT CAST('0000-00-00' AS DATE), DATE('2020-00-05');
# INSERT / UPDATE IGNORE under TRADITIONAL, and non-strict: the zero date with a warning.
CREATE TABLE z (id INT AUTO_INCREMENT PRIMARY KEY, a DATE, b DATETIME, c TIMESTAMP NULL);
SET sql_mode = 'TRADITIONAL';
INSERT IGNORE INTO z (a) VALUES ('0000-00-00');
SHOW WARNINGS;
INSERT IGNORE INTO z (a) VALUES ('2020-00-01');
SHOW WARNINGS;
INSERT IGNORE INTO z (b) VALUES ('0000-00-00 00:00:00');
INSERT IGNORE INTO z (c) VALUES ('0000-00-00 00:00:00');
SHOW WARNINGS;
UPDATE IGNORE z SET a = '0000-00-00' WHERE id = 1;
SHOW WARNINGS;
SET sql_mode = 'NO_ZERO_DATE,NO_ZERO_IN_DATE';
INSERT INTO z (a, b) VALUES ('0000-00-00', '2020-01-00 10:00:00');
SHOW WARNINGS;
INSERT INTO z (c) VALUES ('2020-00-01 00:00:00');
SHOW WARNINGS;
SELECT id, a, b, c FROM z ORDER BY id;
SET sql_mode = DEFAULT;
DROP DATABASE smd;
