# JSON columns. Expected outputs recorded from MariaDB 10.11 with mariadb_golden.py (see its
# header): edit json_column.sql, then regenerate json_column.test. In MariaDB JSON is LONGTEXT
# in utf8mb4_bin with a CHECK (json_valid(c)) of its own, unless the column has another CHECK.
CREATE DATABASE jsondb;
USE jsondb;
CREATE TABLE t (id INT PRIMARY KEY, j JSON, k JSON NOT NULL, m JSON CHECK (json_length(m) < 3));
SHOW CREATE TABLE t;
DESCRIBE t;
SELECT COLUMN_NAME, COLUMN_TYPE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'jsondb' AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION;
SELECT CONSTRAINT_NAME, LEVEL, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 'jsondb' ORDER BY CONSTRAINT_NAME;
INSERT INTO t VALUES (1, '{"a": 1}', '[1, 2]', '[1]');
INSERT INTO t VALUES (2, NULL, 'null', NULL);
INSERT INTO t VALUES (3, '{bad', '1', NULL);
INSERT INTO t VALUES (3, '1', '', NULL);
INSERT INTO t VALUES (3, '1', '2', '[1, 2, 3]');
INSERT INTO t VALUES (3, '"x"', '  true  ', '{}');
UPDATE t SET j = 'nope' WHERE id = 1;
UPDATE t SET j = JSON_OBJECT('b', 2) WHERE id = 1;
SELECT id, j, k, m, JSON_EXTRACT(j, '$.b'), JSON_TYPE(k) FROM t ORDER BY id;
SELECT id FROM t WHERE j = '{"b": 2}';
SELECT id FROM t WHERE k = '[1, 2]' COLLATE utf8mb4_general_ci;
SET sql_mode = '';
INSERT INTO t VALUES (4, '{bad', '1', NULL);
SET sql_mode = DEFAULT;
CREATE TABLE e (id INT PRIMARY KEY);
ALTER TABLE e ADD COLUMN n JSON DEFAULT NULL;
SHOW CREATE TABLE e;
INSERT INTO e VALUES (5, '[');
ALTER TABLE t DROP CONSTRAINT j;
INSERT INTO t (id, j, k) VALUES (5, '[', '1');
SELECT id, j FROM t WHERE id = 5;
CREATE TABLE u (id INT PRIMARY KEY, v VARCHAR(20));
INSERT INTO u VALUES (1, '[1]'), (2, 'x');
ALTER TABLE u MODIFY v JSON;
DELETE FROM u WHERE id = 2;
ALTER TABLE u MODIFY v JSON;
SHOW CREATE TABLE u;
# MODIFY replaces a column's own CHECK: JSON gets json_valid() again, TEXT none.
ALTER TABLE u MODIFY v TEXT;
SHOW CREATE TABLE u;
INSERT INTO u VALUES (3, 'not json');
CREATE TABLE k (a INT CHECK (a > 0), b INT CHECK (b < 5));
ALTER TABLE k MODIFY a BIGINT, CHANGE b c INT;
SHOW CREATE TABLE k;
DROP DATABASE jsondb;
