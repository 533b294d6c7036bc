# Error 1062 names the key values of the row being written (not those of the row already
# holding the key, which may differ under the collation), for INSERT, UPDATE, ON DUPLICATE KEY
# UPDATE and multi-table UPDATE. Expected outputs recorded from MariaDB 10.11
# with mariadb_golden.py: edit dup_entry.sql, then regenerate dup_entry.test.
CREATE DATABASE dedb;
USE dedb;
CREATE TABLE s (k VARCHAR(10) PRIMARY KEY, v INT, w VARCHAR(5), UNIQUE KEY (w));
INSERT INTO s VALUES ('A', 1, 'x'), ('b', 2, 'y');
INSERT INTO s VALUES ('a', 2, 'q');
INSERT INTO s VALUES ('c', 2, 'X ');
UPDATE s SET k = 'a ' WHERE k = 'b';
UPDATE s SET w = 'Y' WHERE k = 'A';
INSERT INTO s VALUES ('zz', 1, 'X') ON DUPLICATE KEY UPDATE k = 'B';
INSERT IGNORE INTO s VALUES ('a', 9, 'm');
CREATE TABLE o (id INT PRIMARY KEY, sk VARCHAR(10));
INSERT INTO o VALUES (1, 'A'), (2, 'b');
UPDATE s JOIN o ON o.sk = s.k SET s.w = 'Y' WHERE o.id = 1;
SELECT * FROM s ORDER BY k;
DROP DATABASE dedb;
