# The ids an INSERT reports and uses, as MariaDB (InnoDB's default "consecutive" mode):
# LAST_INSERT_ID() moves only with a generated value that was inserted; the OK packet's id is
# the first generated value inserted, else the last given one, else the last row ON DUPLICATE
# KEY UPDATE changed; a row not inserted hands its generated value to the next row; a
# multi-row VALUES reserves one value per row left, and the ones it does not use are lost; an
# explicit value moves later ones past it. Expected outputs recorded from MariaDB 10.11 with
# mariadb_golden.py: edit auto_increment_ids.sql, then regenerate auto_increment_ids.test.
CREATE DATABASE aidb;
USE aidb;
CREATE TABLE od (id INT AUTO_INCREMENT PRIMARY KEY, u VARCHAR(10) UNIQUE, v INT);
INSERT INTO od (u, v) VALUES ('a', 1), ('b', 2), ('c', 3);
SELECT LAST_INSERT_ID();
INSERT INTO od (u, v) VALUES ('b', 5) ON DUPLICATE KEY UPDATE v = v + 1;
SELECT LAST_INSERT_ID();
INSERT INTO od (u, v) VALUES ('b', 5) ON DUPLICATE KEY UPDATE v = v;
INSERT INTO od (u, v) VALUES ('d', 5) ON DUPLICATE KEY UPDATE v = v + 1;
SELECT LAST_INSERT_ID();
INSERT INTO od (u, v) VALUES ('c', 5), ('e', 1) ON DUPLICATE KEY UPDATE v = v + 1;
SELECT LAST_INSERT_ID();
INSERT INTO od (u, v) VALUES ('a', 5) ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id), v = 9;
SELECT LAST_INSERT_ID();
INSERT INTO od (id, u, v) VALUES (2, 'zz', 5) ON DUPLICATE KEY UPDATE v = 10;
INSERT IGNORE INTO od (u, v) VALUES ('a', 5);
SELECT LAST_INSERT_ID();
REPLACE INTO od (u, v) VALUES ('a', 7);
SELECT LAST_INSERT_ID(), MAX(id) FROM od;
INSERT IGNORE INTO od (u, v) VALUES ('a', 5), ('f', 1), ('g', 2);
SELECT LAST_INSERT_ID();
INSERT INTO od (id, u, v) VALUES (50, 'h', 1);
SELECT LAST_INSERT_ID();
INSERT INTO od (u, v) VALUES ('h', 1), ('i', 2) ON DUPLICATE KEY UPDATE v = v + 1;
INSERT INTO od (u, v) VALUES ('h', 1), ('i', 2) ON DUPLICATE KEY UPDATE v = v + 1;
SELECT LAST_INSERT_ID();
SELECT * FROM od ORDER BY id;
SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'aidb' AND TABLE_NAME = 'od';
CREATE TABLE ai1 (id INT AUTO_INCREMENT PRIMARY KEY, v INT UNIQUE);
INSERT INTO ai1 (v) VALUES (1), (2), (3);
INSERT IGNORE INTO ai1 (id, v) VALUES (NULL, 1), (100, 5), (NULL, 6), (NULL, 7);
INSERT IGNORE INTO ai1 (v) VALUES (8), (1), (9);
INSERT INTO ai1 (v) SELECT v + 100 FROM ai1 WHERE v < 4;
SELECT * FROM ai1 ORDER BY id;
SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'aidb' AND TABLE_NAME = 'ai1';
DROP DATABASE aidb;
