# NULL into a NOT NULL column, as MariaDB 10.11 answers: one row without IGNORE is 1048 in any
# sql_mode; IGNORE makes it a warning and stores the type's implicit value; several rows in a
# non-strict mode warn too. The same for a NULL an expression DEFAULT computes, INSERT …
# SELECT and UPDATE. Expected outputs recorded from MariaDB 10.11 with mariadb_golden.py: edit
# null_into_not_null.sql, then regenerate null_into_not_null.test.
CREATE DATABASE nnx;
USE nnx;
CREATE TABLE g (id INT PRIMARY KEY, b INT NOT NULL, s VARCHAR(5) NOT NULL, d DATE NOT NULL, e INT NOT NULL DEFAULT (id + b));
INSERT INTO g VALUES (1, NULL, 'a', '2020-01-01', 1);
INSERT IGNORE INTO g VALUES (1, NULL, NULL, NULL, NULL);
SHOW WARNINGS;
INSERT IGNORE INTO g (id, b, s, d) VALUES (2, NULL, 'x', '2020-01-01');
SHOW WARNINGS;
SET sql_mode = '';
INSERT INTO g VALUES (3, NULL, 'a', '2020-01-01', 1);
INSERT INTO g VALUES (3, NULL, 'a', '2020-01-01', 1), (4, 4, NULL, NULL, NULL);
SHOW WARNINGS;
INSERT INTO g (id, b, s, d) SELECT 5, NULL, 'q', '2020-01-01';
SHOW WARNINGS;
UPDATE g SET b = NULL WHERE id = 4;
SHOW WARNINGS;
SET sql_mode = DEFAULT;
INSERT INTO g (id, b, s, d) SELECT 6, NULL, 'q', '2020-01-01';
UPDATE g SET b = NULL WHERE id = 4;
UPDATE IGNORE g SET b = NULL, s = NULL WHERE id = 1;
SHOW WARNINGS;
SELECT * FROM g ORDER BY id;
DROP DATABASE nnx;
