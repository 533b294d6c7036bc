# CREATE TABLE t (declared columns and keys) SELECT …, as MariaDB 10.11 merges the two: the
# declared columns the query does not produce come first (with their defaults), then the
# query's columns in its order, a declared name taking the declared definition; keys may name
# either. Expected outputs recorded from MariaDB 10.11 with mariadb_golden.py: edit
# create_select_columns.sql, then regenerate create_select_columns.test.
CREATE DATABASE csx;
USE csx;
CREATE TABLE src (id INT PRIMARY KEY, name VARCHAR(10), qty INT);
INSERT INTO src VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', NULL);
CREATE TABLE t (id INT PRIMARY KEY, extra INT DEFAULT 7, z VARCHAR(3)) SELECT id, name, 'abc' AS z FROM src;
SHOW CREATE TABLE t;
SELECT * FROM t ORDER BY id;
CREATE TABLE t2 (PRIMARY KEY (id)) SELECT id, name FROM src;
SHOW CREATE TABLE t2;
CREATE TABLE t3 (KEY (name), UNIQUE KEY uq (qty)) AS SELECT id, name, qty FROM src;
SHOW CREATE TABLE t3;
CREATE TABLE t4 (id INT PRIMARY KEY) SELECT 1 AS id UNION ALL SELECT 1;
SHOW TABLES;
CREATE TABLE t5 (n BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, created DATETIME DEFAULT '2020-01-01 00:00:00', total INT DEFAULT (qty * 2)) SELECT name, qty FROM src ORDER BY id;
SELECT * FROM t5 ORDER BY n;
SHOW CREATE TABLE t5;
CREATE TABLE t6 (qty INT NOT NULL) SELECT qty FROM src;
CREATE TABLE t7 (z VARCHAR(2)) SELECT name, 'abcd' AS z FROM src;
CREATE TABLE t8 (CHECK (qty > 15)) SELECT qty FROM src WHERE qty IS NOT NULL;
CREATE TEMPORARY TABLE tt (id INT PRIMARY KEY, flag INT DEFAULT 1) SELECT id FROM src;
SELECT * FROM tt ORDER BY id;
DROP DATABASE csx;
