# SET columns. Expected outputs recorded from MariaDB 10.11 with mariadb_golden.py (see its
# header): edit set.sql, then regenerate set.test. The value is the named members' texts in
# declaration order; its number (`s + 0`, ORDER BY) is the bitmask (member i is bit i).
CREATE DATABASE setdb;
USE setdb;
CREATE TABLE t (id INT PRIMARY KEY, s SET('x','y','z ') NOT NULL, u SET('a','b') DEFAULT 'b,a', UNIQUE KEY (u), KEY (s));
SHOW CREATE TABLE t;
DESCRIBE t;
SELECT COLUMN_NAME, COLUMN_TYPE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'setdb' AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION;
INSERT INTO t (id) VALUES (1);
INSERT INTO t (id, s, u) VALUES (1, 'y,x', 'A');
INSERT INTO t (id, s, u) VALUES (2, 'Z,y,z', NULL), (3, 5, 'b'), (4, '', NULL), (5, '3', NULL), (6, 'x,x', NULL);
INSERT INTO t (id, s) VALUES (7, 0);
meta SELECT * FROM t WHERE id = 1;
SELECT id, s, s + 0, u, u + 0 FROM t ORDER BY id;

# Strict mode: an element that names no member is 1265.
INSERT INTO t (id, s) VALUES (8, 'x,w');
INSERT INTO t (id, s) VALUES (8, 8);
INSERT INTO t (id, s) VALUES (8, 'x,,y');
INSERT INTO t (id, s) VALUES (8, ' x');
INSERT INTO t (id, s, u) VALUES (8, 'x', 'b');

# Non-strict: the valid elements, with a warning.
SET sql_mode = '';
INSERT INTO t (id, s, u) VALUES (9, 'w,z', NULL), (10, 9, NULL), (11, 'x,,y', NULL);
SHOW WARNINGS;
SET sql_mode = DEFAULT;
SELECT id, s, s + 0 FROM t WHERE id >= 9 ORDER BY id;

# Comparisons, FIND_IN_SET, ORDER BY / GROUP BY by bitmask.
SELECT id FROM t WHERE s = 'x,y' ORDER BY id;
SELECT id FROM t WHERE s = 'y,x' ORDER BY id;
SELECT id FROM t WHERE s = 3 ORDER BY id;
SELECT id FROM t WHERE s & 4 ORDER BY id;
SELECT id FROM t WHERE s > 4 ORDER BY id;
SELECT id, FIND_IN_SET('y', s), FIND_IN_SET('Z', s), FIND_IN_SET('q', s) FROM t ORDER BY id;
SELECT FIND_IN_SET('b', 'a,b,c'), FIND_IN_SET('', 'a,,b'), FIND_IN_SET('a,b', 'a,b'), FIND_IN_SET(NULL, 'a'), FIND_IN_SET('a', NULL), FIND_IN_SET('a', '');
SELECT id, s FROM t ORDER BY s, id;
SELECT id, s FROM t ORDER BY s DESC, id;
SELECT s, s + 0, COUNT(*) FROM t GROUP BY s;
SELECT DISTINCT s, s + 0 FROM t ORDER BY s;
SELECT SUM(s), BIT_OR(s), COUNT(DISTINCT s) FROM t;
# MIN / MAX compare the text (MariaDB reads them from an index in number order instead: not
# here, where s has no index).
CREATE TABLE m (s SET('x','y','z'), e ENUM('m','b','Z','a'));
INSERT INTO m VALUES ('z', 'm'), ('y,z', 'a'), ('x', NULL), (NULL, 'b');
values SELECT MAX(s), MIN(s), MAX(e), MIN(e), MAX(s) + 0 FROM m;
SELECT id, CONCAT('[', s, ']'), LENGTH(s), s | 8 FROM t ORDER BY id;

# UPDATE, DEFAULT.
UPDATE t SET s = CONCAT(s, ',z') WHERE id = 1;
UPDATE t SET s = s + 1 WHERE id = 3;
SELECT id, s, s + 0 FROM t WHERE id IN (1, 3) ORDER BY id;
UPDATE t SET u = DEFAULT WHERE id = 4;

# Member lists.
CREATE TABLE d1 (s SET('a', 'A'));
CREATE TABLE d2 (s SET('a,b'));
CREATE TABLE d3 (s SET('a', 'b') DEFAULT 'c');
CREATE TABLE d4 (s SET('a', 'A') COLLATE utf8mb4_bin);
SHOW CREATE TABLE d4;
INSERT INTO d4 VALUES ('A,a');
SELECT s, s + 0 FROM d4;

# ALTER TABLE MODIFY to and from SET.
CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO a VALUES (1, 'b,a'), (2, 'c'), (3, NULL);
ALTER TABLE a MODIFY v SET('a', 'b', 'c');
SELECT id, v, v + 0 FROM a ORDER BY id;
ALTER TABLE a MODIFY v BIGINT;
SELECT id, v FROM a ORDER BY id;
DROP DATABASE setdb;
