# BLOB/TEXT DEFAULT NULL (what mariadb-dump writes for nullable BLOB/TEXT columns). Expected
# outputs recorded from MariaDB 10.11 with mariadb_golden.py: edit lob_default.sql, then
# regenerate lob_default.test. Literal and expression defaults on BLOB/TEXT (MariaDB keeps them
# as expressions) are refused with 1235 by Cohort, so they are not recorded here.
CREATE DATABASE lobdb;
USE lobdb;
CREATE TABLE t (id INT PRIMARY KEY, a TEXT DEFAULT NULL, b BLOB DEFAULT NULL, c LONGTEXT DEFAULT (NULL), d TINYBLOB NULL DEFAULT NULL);
INSERT INTO t (id) VALUES (1);
INSERT INTO t VALUES (2, DEFAULT, DEFAULT, 'x', x'00');
SELECT id, a, b, c, d, a IS NULL, d IS NULL FROM t ORDER BY id;
DESCRIBE t;
CREATE TABLE bad (a TEXT NOT NULL DEFAULT NULL);
CREATE TABLE bad2 (a MEDIUMBLOB NOT NULL DEFAULT NULL);
