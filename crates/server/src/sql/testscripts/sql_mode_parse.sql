# sql_mode flags that change how a statement's text is read, as MariaDB 10.11 reads it:
# ANSI_QUOTES ("x" is an identifier), PIPES_AS_CONCAT (|| is concat(), binding tighter than
# ^), NO_BACKSLASH_ESCAPES (a backslash is an ordinary character), HIGH_NOT_PRECEDENCE (NOT
# binds as !), REAL_AS_FLOAT, the combinations made of them (ANSI, POSTGRESQL, MYSQL40, …), and
# what SHOW CREATE prints under them, NO_DIR_IN_CREATE. The statement cache sees the same text under two modes
# (the point selects), and text stored under a mode (DEFAULT, CHECK, generated columns, view
# bodies) means the same after SET sql_mode = DEFAULT. Recorded from MariaDB 10.11 with
# mariadb_golden.py: edit sql_mode_parse.sql, then regenerate sql_mode_parse.test.
CREATE DATABASE smp;
USE smp;
SET sql_mode = 'ansi';
SELECT CONCAT('[', @@sql_mode, ']');
SET sql_mode = 'postgresql';
SELECT CONCAT('[', @@sql_mode, ']');
SET sql_mode = 'mssql,db2';
SELECT CONCAT('[', @@sql_mode, ']');
SET sql_mode = 'mysql40';
SELECT CONCAT('[', @@sql_mode, ']');
SET sql_mode = 'mysql323';
SELECT CONCAT('[', @@sql_mode, ']');
SET sql_mode = DEFAULT;
CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(20), n INT);
INSERT INTO t VALUES (1, 'p', 5), (2, 'q\\r', 7), (3, 'it''s', NULL);
SELECT "a" FROM t WHERE id = 1;
SELECT a || 'x' FROM t WHERE id = 1;
SELECT id FROM t WHERE a = 'q\\r';
SELECT id FROM t WHERE NOT n = 5;
SET sql_mode = 'ANSI_QUOTES';
SELECT "a" FROM t WHERE id = 1;
SELECT "a" FROM t WHERE id = 2;
SELECT 1 AS "x""y", "t"."a" FROM "t" WHERE "id" = 3;
SELECT "nope" FROM t WHERE id = 1;
SELECT 'single' FROM t WHERE id = 1;
SET sql_mode = 'PIPES_AS_CONCAT';
SELECT a || 'x' FROM t WHERE id = 1;
SELECT 1 + 2 || 3, 2 * 3 || 4, 2 ^ 3 || 1, 1 || 2 ^ 3, 5 - 1 || 2, 'x' || 1 + 1;
SELECT 'a' || 'b' || 'c', 'a' || NULL, 1 || 2 IS NULL, 'ab' = 'a' || 'b';
SELECT a || n FROM t ORDER BY id;
SET sql_mode = 'NO_BACKSLASH_ESCAPES';
SELECT id FROM t WHERE a = 'q\\r';
SELECT id FROM t WHERE a = 'q\r';
SELECT 'a\b', LENGTH('a\'), 'x\n', 'it''s';
SELECT 'a\b' LIKE 'a\b', 'a_' LIKE 'a\_', 'a\_' LIKE 'a\_', 'ab' LIKE 'a\_';
SET sql_mode = 'HIGH_NOT_PRECEDENCE';
SELECT id FROM t WHERE NOT n = 5;
SELECT NOT 1 = 2, NOT 1 BETWEEN 2 AND 3, NOT 0 + 1, NOT EXISTS (SELECT 1), 1 NOT IN (2), NULL IS NOT NULL;
SET sql_mode = DEFAULT;
SELECT "a" FROM t WHERE id = 1;
SELECT a || 'x' FROM t WHERE id = 1;
SELECT id FROM t WHERE a = 'q\\r';
SELECT id FROM t WHERE NOT n = 5;
SELECT NOT 1 = 2, NOT 1 BETWEEN 2 AND 3, NOT 0 + 1;
# Stored under ANSI, used in the default mode.
SET sql_mode = 'ANSI';
CREATE TABLE "s" ("id" INT PRIMARY KEY AUTO_INCREMENT, "a" VARCHAR(10) DEFAULT 'x\\y', "b" VARCHAR(10) DEFAULT ('p' || 'q'), "g" VARCHAR(40) AS ("a" || '-' || "b") VIRTUAL, "r" REAL, CHECK ("a" || "b" <> 'zzq'));
SHOW CREATE TABLE s;
CREATE VIEW "v" AS SELECT "id", "a" AS "q", CONCAT("a", "b") AS "c" FROM "s" WHERE NOT "a" = 'none';
INSERT INTO s (id, a) VALUES (1, 'k');
SELECT * FROM v;
SET sql_mode = 'POSTGRESQL';
SHOW CREATE TABLE s;
SET sql_mode = 'NO_FIELD_OPTIONS,NO_KEY_OPTIONS,NO_TABLE_OPTIONS';
SHOW CREATE TABLE s;
SET sql_mode = 'ANSI_QUOTES';
SHOW CREATE DATABASE smp;
SET sql_mode = DEFAULT;
SHOW CREATE TABLE s;
INSERT INTO s (id, a, b) VALUES (2, 'zz', 'q');
INSERT INTO s (id, a, b) VALUES (3, 'm', 'n');
SELECT id, a, b, g, r FROM s ORDER BY id;
SELECT * FROM v ORDER BY id;
# Stored under NO_BACKSLASH_ESCAPES and HIGH_NOT_PRECEDENCE.
SET sql_mode = 'NO_BACKSLASH_ESCAPES';
CREATE TABLE u (s VARCHAR(10) DEFAULT 'a\b', CHECK (s <> 'c\d'));
CREATE VIEW w AS SELECT 'e\f' AS e, a FROM t WHERE a <> 'g\h' AND id = 2;
SET sql_mode = 'HIGH_NOT_PRECEDENCE';
CREATE VIEW x AS SELECT id FROM t WHERE NOT n = 5 AND NOT EXISTS (SELECT 1 FROM t WHERE id = 99) AND id NOT IN (7);
SET sql_mode = DEFAULT;
INSERT INTO u VALUES ('c\\d');
INSERT INTO u VALUES (DEFAULT);
SELECT * FROM u;
SELECT * FROM w;
SELECT * FROM x ORDER BY id;
# SET STATEMENT's inner statement is read under the mode it was sent in.
SET STATEMENT sql_mode = 'ANSI_QUOTES' FOR SELECT "a" FROM t WHERE id = 1;
SET sql_mode = 'ANSI_QUOTES';
SET STATEMENT sql_mode = '' FOR SELECT "a" FROM t WHERE id = 1;
# NO_DIR_IN_CREATE: DATA / INDEX DIRECTORY ignored with a warning.
SET sql_mode = 'NO_DIR_IN_CREATE';
CREATE TABLE dd (a INT) DATA DIRECTORY = '/tmp/nowhere';
SHOW WARNINGS;
CREATE TABLE di (a INT) INDEX DIRECTORY = '/tmp/nowhere';
SHOW CREATE TABLE dd;
SET sql_mode = DEFAULT;
DROP DATABASE smp;
