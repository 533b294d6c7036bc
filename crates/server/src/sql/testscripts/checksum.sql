# CHECKSUM TABLE (issue 21). Recorded from MariaDB 10.11 with mariadb_golden.py: edit this
# file, then regenerate checksum.test. Cohort's checksum of a non-empty table is its own
# (a sum of per-row CRC-32s over a canonical row image: see sql/exec/checksum.rs), not
# InnoDB's, so only what both answer alike is here: the result shape, empty tables, missing
# tables, QUICK.
CREATE DATABASE ck;
USE ck;
CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(10));
CREATE TABLE e (id INT PRIMARY KEY);
INSERT INTO a VALUES (1, 'x'), (2, NULL);
meta CHECKSUM TABLE e;
CHECKSUM TABLE e, nope;
SHOW WARNINGS;
CHECKSUM TABLE ck.e EXTENDED;
CHECKSUM TABLES e;
CHECKSUM TABLE a QUICK;
CHECKSUM TABLE a, e QUICK;
CHECKSUM TABLE nodb.t;
SHOW WARNINGS;
DROP DATABASE ck;
