# BIT(M) columns. Expected outputs recorded from MariaDB 10.11 with mariadb_golden.py (see its
# header): edit bit_type.sql, then regenerate bit_type.test. Raw BIT values are shown as the
# bytes the text protocol sends (read as UTF-8).
CREATE DATABASE bitdb;
USE bitdb;
CREATE TABLE b (id INT PRIMARY KEY, a BIT(8), c BIT(5) DEFAULT b'101', d BIT DEFAULT 0, e BIT(64), KEY (a));
SHOW CREATE TABLE b;
DESCRIBE b;
SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'bitdb' AND TABLE_NAME = 'b' ORDER BY ORDINAL_POSITION;
CREATE TABLE bad (a BIT(65));

SET sql_mode = '';
INSERT INTO b (id, a) VALUES (1, 65), (2, b'1000010'), (3, 'C'), (4, x'44'), (5, 300), (6, -1), (7, 'ab'), (8, 3.7), (9, NULL), (10, 0);
SHOW WARNINGS;
INSERT INTO b (id, e) VALUES (11, 18446744073709551615), (12, b'1111111111111111111111111111111111111111111111111111111111111111');
meta SELECT id, a, c, d FROM b WHERE id = 1;
SELECT id, a, a + 0, HEX(a), BIN(a), OCT(a), c + 0, d + 0, e + 0 FROM b ORDER BY id;
SELECT id FROM b WHERE a = 65 ORDER BY id;
SELECT id, LENGTH(a), LENGTH(e), CONCAT(a), HEX(CONCAT(e)), UPPER(a) FROM b WHERE id IN (1, 2, 11) ORDER BY id;
SELECT id FROM b WHERE a = b'1000011' ORDER BY id;
SELECT id FROM b WHERE a > 66 ORDER BY id;
SELECT a + 0 FROM b ORDER BY a, id;
SELECT MAX(a) + 0, MIN(a) + 0, SUM(a), BIT_OR(a) FROM b;
SELECT a + 0, COUNT(*) FROM b GROUP BY a ORDER BY a;
UPDATE b SET c = c + 1 WHERE id = 1;
SELECT c + 0 FROM b WHERE id = 1;
SELECT b'101' + 0 AS x, b'11111111' + 0 AS y, 0x41 + 0 AS z, b'1' = 1 AS w;

SET sql_mode = 'STRICT_ALL_TABLES';
INSERT INTO b (id, a) VALUES (20, 256);
INSERT INTO b (id, a) VALUES (20, 'ab');
INSERT INTO b (id, a) VALUES (20, -1);
INSERT INTO b (id, a) VALUES (20, b'11111111');
SELECT a + 0 FROM b WHERE id = 20;

# ALTER TABLE: adding BIT / TIME columns, converting INT to TIME, narrowing a BIT.
CREATE TABLE al (id INT PRIMARY KEY, x INT);
INSERT INTO al VALUES (1, 123456), (2, 5);
ALTER TABLE al ADD COLUMN t TIME(1) DEFAULT '1:00:00', ADD COLUMN b BIT(3) DEFAULT 7;
ALTER TABLE al MODIFY x TIME;
SELECT id, x, t, b + 0 FROM al ORDER BY id;
ALTER TABLE al MODIFY b BIT(2);
SHOW CREATE TABLE al;
DROP DATABASE bitdb;
