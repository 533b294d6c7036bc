# CHECKSUM TABLE (issue 21). Recorded from MariaDB 10.11 with mariadb_golden.py: edit this
# file, then regenerate checksum.test. The statement's shape, empty and missing tables, QUICK;
# TEMPORARY tables; checksum_types.sql covers the values of every column type.
CREATE DATABASE ck;
USE ck;
CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(10));
CREATE TABLE e (id INT PRIMARY KEY);
INSERT INTO a VALUES (1, 'x'), (2, NULL);
meta CHECKSUM TABLE e;
CHECKSUM TABLE e, nope;
SHOW WARNINGS;
CHECKSUM TABLE ck.e EXTENDED;
CHECKSUM TABLE a, e EXTENDED;
CHECKSUM TABLES e;
CHECKSUM TABLE a QUICK;
CHECKSUM TABLE a, e QUICK;
CHECKSUM TABLE nodb.t;
SHOW WARNINGS;
# A TEMPORARY table hides the base table of its name.
CREATE TABLE tmp (a INT);
INSERT INTO tmp VALUES (5);
CREATE TEMPORARY TABLE tmp (a INT, b VARCHAR(3));
INSERT INTO tmp VALUES (1, 'x'), (NULL, '');
CHECKSUM TABLE tmp, a;
DROP TEMPORARY TABLE tmp;
CHECKSUM TABLE tmp;
DROP DATABASE ck;
