# ENUM columns. Expected outputs recorded from MariaDB 10.11 with mariadb_golden.py (see its
# header): edit enum.sql, then regenerate enum.test. The value is the member's text; its
# number (`e + 0`, ORDER BY, comparisons with numbers) is the member's 1-based position.
CREATE DATABASE enumdb;
USE enumdb;
CREATE TABLE t (id INT PRIMARY KEY, e ENUM('b','A  ','c') NOT NULL, n ENUM('x','y') DEFAULT 'y', m ENUM('p','q'), UNIQUE KEY (m), KEY (n));
SHOW CREATE TABLE t;
DESCRIBE t;
SHOW FULL COLUMNS FROM t;
SELECT COLUMN_NAME, COLUMN_TYPE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, COLUMN_DEFAULT, IS_NULLABLE, CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'enumdb' AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION;

# Defaults: a NOT NULL ENUM without DEFAULT takes its first member.
INSERT INTO t (id) VALUES (1);
INSERT INTO t VALUES (2, 'a', 'X', 'q'), (3, 3, 1, NULL), (4, 'C', DEFAULT, 'p'), (5, '2', NULL, NULL), (6, 'b  ', 'x', NULL);
meta SELECT * FROM t WHERE id = 1;
SELECT id, e, e + 0, n, n + 0, m, m + 0 FROM t ORDER BY id;

# Strict mode: a value that names no member is 1265.
INSERT INTO t VALUES (7, 'zz', 'x', NULL);
INSERT INTO t VALUES (7, 4, 'x', NULL);
INSERT INTO t VALUES (7, 0, 'x', NULL);
INSERT INTO t VALUES (7, '', 'x', NULL);
INSERT INTO t VALUES (7, 'b', 'x', 'p');
UPDATE t SET n = 'w' WHERE id = 1;
INSERT INTO t VALUES (7, 'b', NULL, NULL);

# Non-strict: '' (number 0) with a warning.
SET sql_mode = '';
INSERT INTO t VALUES (8, 'zz', 'w', NULL), (9, 7, 0, NULL);
SHOW WARNINGS;
SET sql_mode = DEFAULT;
SELECT id, e, e + 0, n, n + 0 FROM t WHERE id >= 8 ORDER BY id;

# Comparisons: text against strings (the collation's way), number against numbers.
SELECT id FROM t WHERE e = 'a' ORDER BY id;
SELECT id FROM t WHERE e AND id < 3 ORDER BY id;
SELECT id FROM t WHERE e ORDER BY id;
SELECT id FROM t WHERE NOT e ORDER BY id;
SELECT id FROM t WHERE e = 'A ' ORDER BY id;
SELECT id FROM t WHERE e = 2 ORDER BY id;
SELECT id FROM t WHERE e < 'b' ORDER BY id;
SELECT id FROM t WHERE e < 2 ORDER BY id;
SELECT id FROM t WHERE e > 1 ORDER BY id;
SELECT id FROM t WHERE e = '' ORDER BY id;
SELECT id FROM t WHERE n = 'Y' ORDER BY id;
SELECT id FROM t WHERE m = 'q';
SELECT id FROM t WHERE e IN ('c', 'b') ORDER BY id;

# ORDER BY sorts by number; GROUP BY and DISTINCT too.
SELECT id, e FROM t ORDER BY e, id;
SELECT id, e FROM t ORDER BY e DESC, id;
SELECT id, n FROM t ORDER BY n, id;
SELECT e, COUNT(*) FROM t GROUP BY e;
SELECT DISTINCT e, e + 0 FROM t ORDER BY e;
SELECT e AS x, id FROM t ORDER BY x, id;
SELECT id, e FROM t ORDER BY 2, 1;
SELECT GROUP_CONCAT(e ORDER BY e), GROUP_CONCAT(DISTINCT e ORDER BY 1 DESC) FROM t;
SELECT d.e, d.id FROM (SELECT e, id FROM t) AS d ORDER BY d.e, d.id;
SELECT e FROM t WHERE id < 5 UNION SELECT e FROM t WHERE id < 5 ORDER BY e;
SELECT CONCAT(e) AS c, id FROM t ORDER BY c, id;

# String context: the member text; numeric context: the position.
SELECT id, CONCAT(e, '!'), LENGTH(e), UPPER(e), e + 0, -e, e * 2, CAST(e AS SIGNED), e || 0 FROM t ORDER BY id;
SELECT SUM(e), AVG(e), MIN(e), MAX(e), COUNT(DISTINCT e) FROM t;

# UPDATE and DEFAULT.
UPDATE t SET e = 'c', n = DEFAULT WHERE id = 1;
UPDATE t SET e = e + 0 WHERE id = 2;
SELECT id, e, n FROM t WHERE id IN (1, 2) ORDER BY id;
UPDATE t SET m = 'q' WHERE id = 5;

# Members: trailing spaces removed; duplicates (the collation's way) are 1291.
CREATE TABLE d1 (e ENUM('a', 'A'));
CREATE TABLE d2 (e ENUM('a', 'b', 'a'));
CREATE TABLE d3 (e ENUM('a', 'b') DEFAULT 'c');
CREATE TABLE d4 (e ENUM('a', 'A') COLLATE utf8mb4_bin, f ENUM('it''s', 'x y ') CHARACTER SET utf8mb4);
SHOW CREATE TABLE d4;
INSERT INTO d4 VALUES ('A', 'IT''S'), ('a', 'x y');
SELECT e, e + 0, f, f + 0 FROM d4 ORDER BY e;

# ALTER TABLE MODIFY to and from ENUM.
CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(10), e ENUM('lo', 'mid', 'hi'));
INSERT INTO a VALUES (1, 'mid', 'hi'), (2, 'lo', 'lo'), (3, NULL, 'mid');
ALTER TABLE a MODIFY v ENUM('lo', 'mid', 'hi');
ALTER TABLE a MODIFY e INT;
SELECT id, v, v + 0, e FROM a ORDER BY id;
ALTER TABLE a MODIFY e ENUM('x', 'y');
ALTER TABLE a MODIFY v VARCHAR(5);
SHOW CREATE TABLE a;
SELECT id, v FROM a ORDER BY v;
ALTER TABLE a MODIFY v ENUM('zz');
ALTER TABLE a MODIFY v ENUM('lo', 'mid', 'hi', 'extra');
SELECT id, v, v + 0 FROM a ORDER BY v;
DROP DATABASE enumdb;
