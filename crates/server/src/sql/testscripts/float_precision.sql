# FLOAT(M,D) / DOUBLE(M,D) / REAL(M,D) / DOUBLE PRECISION(M,D) columns (issue 21): DDL and its
# errors, rounding to D decimals on store, out of range values (strict and not), output with
# exactly D decimals, arithmetic and aggregates, metadata. Expected outputs recorded from
# MariaDB 10.11 with mariadb_golden.py: edit float_precision.sql, then regenerate the .test.
CREATE DATABASE fpdb;
USE fpdb;

# DDL: every spelling, with UNSIGNED / SIGNED; FLOAT(p) picks FLOAT or DOUBLE.
CREATE TABLE f (a FLOAT(8,2), b DOUBLE(10,3) UNSIGNED, c REAL(5,1), d DOUBLE PRECISION(7,0), e FLOAT(30), g FLOAT UNSIGNED, h FLOAT(8,2) SIGNED, i DOUBLE PRECISION (6, 2) UNSIGNED);
SHOW CREATE TABLE f;
SHOW COLUMNS FROM f;
DESCRIBE f a;
SELECT COLUMN_NAME, COLUMN_TYPE, DATA_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE, CHARACTER_MAXIMUM_LENGTH FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'fpdb' AND TABLE_NAME = 'f' ORDER BY ORDINAL_POSITION;
CREATE TABLE z (a FLOAT(0,0), b DOUBLE(255,0), c FLOAT(255,30), h FLOAT(0), i FLOAT(24), j FLOAT(25) UNSIGNED, k DOUBLE UNSIGNED, l REAL UNSIGNED, m FLOAT(53));
SHOW CREATE TABLE z;

# Sizes MariaDB refuses, in its order of checks.
CREATE TABLE bad (x FLOAT(3,5));
CREATE TABLE bad (x FLOAT(256,2));
CREATE TABLE bad (x FLOAT(40,31));
CREATE TABLE bad (x DOUBLE(10,256));
CREATE TABLE bad (x FLOAT(255,256));
CREATE TABLE bad (x FLOAT(300,301));
CREATE TABLE bad (x FLOAT(300,20));
CREATE TABLE bad (x DOUBLE(30,31));
CREATE TABLE bad (x DOUBLE(255,31));
CREATE TABLE bad (x REAL(31,31));
CREATE TABLE bad (x FLOAT(54));
CREATE TABLE bad (x DOUBLE(10));
CREATE TABLE bad (x DOUBLE PRECISION(10));
CREATE TABLE bad (x REAL(10));

# Rounding on store: the fraction half to even; strict mode refuses out of range values.
INSERT INTO f VALUES (1.555, 2.0005, 3.25, 4.5, 1.1, 0, 1.005, 1.125);
INSERT INTO f (a) VALUES (1000000);
INSERT INTO f (b) VALUES (-1);
INSERT INTO f (c) VALUES (9999.95);
INSERT INTO f (g) VALUES (-0.5);
INSERT INTO f (a) VALUES ('12.345');
INSERT INTO f (a) VALUES (-999999.994);
INSERT INTO f (a) VALUES (-999999.996);
SELECT * FROM f;
INSERT IGNORE INTO f VALUES (123456.789, -1, 9999.95, 9999999.5, 1e300, -1, 1, -3);
SHOW WARNINGS;
SET sql_mode = '';
INSERT INTO f VALUES (-1e30, 1e30, -5.55, -2.5, -1.5, -2, 99.999, 10000.001);
SHOW WARNINGS;
SET sql_mode = DEFAULT;
SELECT * FROM f ORDER BY a, b, c;
UPDATE f SET c = c * 100 WHERE c < 0;
CREATE TABLE u (c DOUBLE(5,1));
INSERT INTO u VALUES (-55.5);
UPDATE IGNORE u SET c = c * 1000;
SHOW WARNINGS;
SELECT * FROM u;
UPDATE f SET a = a + 0.005, d = d + 0.5;
SELECT a, c, d FROM f ORDER BY a, c;

# Output and arithmetic: D decimals where MariaDB keeps them.
meta SELECT a, b, c, d, h, i FROM f ORDER BY a, b LIMIT 1;
meta SELECT a + 1, a * 2, a - 0.001, a / 3, -a, SUM(a), AVG(a), MAX(a), MIN(c), COUNT(a) FROM f;
SELECT a + 1, a * 2, a / 3, -a, b + c, a + '1' FROM f ORDER BY a, b;
SELECT SUM(a), AVG(a), MAX(b), MIN(d), SUM(c) FROM f;
SELECT CONCAT(a, '|', b), a > 1 FROM f ORDER BY a, b;
SELECT ROUND(1.234e0, 2) + 1, ROUND(2.5e0, 1) * 2;

# Defaults keep the type's decimals; ALTER converts the rows.
CREATE TABLE dd (a FLOAT(8,2) DEFAULT 1.5, b DOUBLE(5,1) NOT NULL DEFAULT 2, c FLOAT UNSIGNED DEFAULT 3);
SHOW CREATE TABLE dd;
SHOW COLUMNS FROM dd;
INSERT INTO dd VALUES ();
SELECT * FROM dd;
CREATE TABLE bad (a FLOAT(4,2) DEFAULT 100);
CREATE TABLE m (x DOUBLE, y FLOAT(6,3));
INSERT INTO m VALUES (1.23456, 1.5), (-2.5, -0.125), (3.14159, 99.999);
ALTER TABLE m MODIFY x DOUBLE(6,2);
SELECT * FROM m;
ALTER TABLE m MODIFY x FLOAT(4,1);
ALTER TABLE m MODIFY y DOUBLE;
SELECT * FROM m;
SHOW CREATE TABLE m;
ALTER TABLE m MODIFY x FLOAT(3,1) UNSIGNED;

# CREATE TABLE … SELECT and LIKE carry the type.
CREATE TABLE cs SELECT a, b, g, a + 1 AS ap, ROUND(1e0, 2) AS r, SUM(a) AS s, AVG(a) AS av, -a AS n FROM f;
SHOW CREATE TABLE cs;
SELECT * FROM cs ORDER BY a, b;
CREATE TABLE cl LIKE f;
SHOW CREATE TABLE cl;
CHECKSUM TABLE f;
CHECKSUM TABLE m;

# An index on a FLOAT(M,D) column; ALTER with another change converts (and checks) the rows.
CREATE TABLE ix (id INT PRIMARY KEY, a FLOAT(8,2), KEY (a));
INSERT INTO ix VALUES (1, 1.55), (2, 2.5), (3, -0.004), (4, 2.499);
SELECT id FROM ix WHERE a = 2.5 ORDER BY id;
SELECT id, a FROM ix WHERE a > 2 ORDER BY a, id;
SELECT id, a FROM ix ORDER BY a, id;
ALTER TABLE ix MODIFY a DOUBLE(6,1), ADD COLUMN b INT;
SELECT * FROM ix ORDER BY id;
ALTER TABLE ix MODIFY a FLOAT(4,3);
SET sql_mode = '';
ALTER TABLE ix MODIFY a FLOAT(4,3);
SHOW WARNINGS;
SET sql_mode = DEFAULT;
SELECT * FROM ix ORDER BY id;
