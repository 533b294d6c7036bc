# SQL-level prepared statements: PREPARE / EXECUTE / DEALLOCATE PREPARE / DROP PREPARE, as
# MariaDB 10.11 runs them. Expected outputs recorded from MariaDB 10.11 with mariadb_golden.py.
CREATE DATABASE psq;
CREATE TABLE psq.t (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(20), n INT);
PREPARE s FROM 'SELECT ?, ? + 1';
SET @a = 5;
EXECUTE s USING @a, 1 + 1;
EXECUTE s USING 'x', 2;
EXECUTE s USING NULL, @undefined_variable;
EXECUTE s;
EXECUTE s USING 1, 2, 3;
EXECUTE s USING (SELECT 1), 2;
EXECUTE nosuch;
DEALLOCATE PREPARE nosuch;
DROP PREPARE nosuch;
# The text from a variable or an expression; NULL reads as the text NULL.
SET @q = 'SELECT 10 AS c, ? AS d';
PREPARE s2 FROM @q;
EXECUTE s2 USING CONCAT('a', 'b');
PREPARE s3 FROM CONCAT('SELECT ', 7, ' AS seven');
EXECUTE s3;
SET @n = NULL;
PREPARE s4 FROM @n;
# Names are case-insensitive; re-PREPARE replaces; a failed re-PREPARE leaves none.
PREPARE S5 FROM 'SELECT 1 AS one';
EXECUTE s5;
PREPARE s5 FROM 'SELECT 2 AS two';
EXECUTE S5;
PREPARE s5 FROM 'SELEC 3';
EXECUTE s5;
# Statements that cannot be prepared, and syntax errors.
PREPARE p FROM 'PREPARE x FROM ''SELECT 1''';
PREPARE p FROM 'EXECUTE s';
PREPARE p FROM 'DEALLOCATE PREPARE s';
PREPARE p FROM 'SELECT 1; SELECT 2';
PREPARE p FROM 'SELECT * FROM psq.nosuch';
# DML through EXECUTE: affected rows, insert ids, ROW_COUNT(), warnings.
PREPARE ins FROM 'INSERT INTO psq.t (v, n) VALUES (?, ?)';
EXECUTE ins USING 'a', 1;
SELECT LAST_INSERT_ID(), ROW_COUNT();
EXECUTE ins USING 'b', 2;
EXECUTE ins USING 'c', '3x';
SHOW WARNINGS;
PREPARE upd FROM 'UPDATE psq.t SET n = n + ? WHERE id <= ?';
EXECUTE upd USING 10, 2;
SELECT ROW_COUNT();
PREPARE sel FROM 'SELECT id, v, n FROM psq.t WHERE id >= ? ORDER BY id';
EXECUTE sel USING 2;
# ALTER TABLE between PREPARE and EXECUTE: the statement is prepared again.
ALTER TABLE psq.t ADD COLUMN w INT DEFAULT 7;
EXECUTE sel USING 1;
PREPARE star FROM 'SELECT * FROM psq.t WHERE id = ?';
EXECUTE star USING 1;
ALTER TABLE psq.t DROP COLUMN w;
EXECUTE star USING 1;
ALTER TABLE psq.t DROP COLUMN n;
EXECUTE sel USING 1;
EXECUTE ins USING 'd', 4;
DROP TABLE psq.t;
EXECUTE star USING 1;
# Transactions: EXECUTE of DML joins the open transaction.
CREATE TABLE psq.u (id INT PRIMARY KEY, v INT);
PREPARE iu FROM 'INSERT INTO psq.u VALUES (?, ?)';
BEGIN;
EXECUTE iu USING 1, 1;
EXECUTE iu USING 1, 2;
EXECUTE iu USING 2, 2;
ROLLBACK;
SELECT * FROM psq.u;
EXECUTE iu USING 3, 3;
SELECT * FROM psq.u;
# Statements are per session.
[s2] EXECUTE iu USING 4, 4;
DEALLOCATE PREPARE iu;
EXECUTE iu USING 4, 4;
DROP PREPARE sel;
EXECUTE sel USING 1;
# Other statements prepared by name.
PREPARE sh FROM 'SHOW TABLES FROM psq';
EXECUTE sh;
PREPARE st FROM 'SET @z = ?';
EXECUTE st USING 42;
SELECT @z;
PREPARE dd FROM 'DROP TABLE psq.u';
EXECUTE dd;
EXECUTE dd;
DROP DATABASE psq;
