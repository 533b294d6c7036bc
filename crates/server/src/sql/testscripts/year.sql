# YEAR columns. Expected outputs recorded from MariaDB 10.11 with mariadb_golden.py (see its
# header): edit year.sql, then regenerate year.test. Not here: YEAR(2) and other widths (MariaDB
# accepts them with a note, Cohort refuses them with 1235); text that is no number (1366: Cohort
# names the column 'a' where MariaDB writes `db`.`t`.`a`, as for every integer column).
CREATE DATABASE yeardb;
USE yeardb;
CREATE TABLE y (id INT PRIMARY KEY, a YEAR, b YEAR(4) NOT NULL DEFAULT 1999, c YEAR DEFAULT '70', d YEAR DEFAULT 0, KEY (a));
SHOW CREATE TABLE y;
DESCRIBE y;

# Non-strict: MariaDB's conversions and warnings.
SET sql_mode = '';
INSERT INTO y (id, a) VALUES (1, 0), (2, '0'), (3, '00'), (4, 1), (5, '1'), (6, 69), (7, 70), (8, 99), (9, 100), (10, 1900), (11, 1901), (12, 2155), (13, 2156), (15, -1), (16, '2024x'), (17, 1999.5), (18, '99.5'), (19, NULL), (20, '0000');
SHOW WARNINGS;
INSERT INTO y (id, a) VALUES (21, '000'), (22, ' 0000'), (23, '00000'), (24, '0.0'), (25, 0.4), (26, 69.5), (27, '2155.4'), (28, 2155.5), (29, 1900.5), (30, TRUE), (31, DATE '2024-05-06'), (32, X'32'), (33, '12 '), (35, 5e1), (36, 2001.4e0);
SHOW WARNINGS;
meta SELECT id, a, b, c, d FROM y WHERE id < 3 ORDER BY id;
meta SELECT MAX(a), MIN(a) FROM y WHERE id < 3;
SELECT id, a, a + 0, a + 1 FROM y ORDER BY id;
SELECT a, COUNT(*) FROM y GROUP BY a ORDER BY a;
SELECT id FROM y WHERE a = 2001 ORDER BY id;
SELECT id FROM y WHERE a = '2069' ORDER BY id;
SELECT id FROM y WHERE a BETWEEN 1970 AND 2000 ORDER BY id;
SELECT id FROM y WHERE a > 2100 ORDER BY a DESC, id;
UPDATE y SET a = a + 1 WHERE id = 12;
SHOW WARNINGS;
UPDATE y SET a = '55' WHERE id = 11;
SELECT id, a FROM y WHERE id IN (11, 12);

# Strict mode: errors instead of warnings.
SET sql_mode = DEFAULT;
INSERT INTO y (id, a) VALUES (40, 2156);
INSERT INTO y (id, a) VALUES (42, '2024x');
INSERT INTO y (id, a) VALUES (43, 1900);
INSERT INTO y (id, a) VALUES (44, '12 ');
INSERT INTO y (id, a) VALUES (45, '0'), (46, 0), (47, 2155);
SELECT id, a FROM y WHERE id >= 40 ORDER BY id;
UPDATE y SET a = 3000 WHERE id = 47;
SELECT MIN(a), MAX(a), SUM(a) FROM y;
