# sql_safe_updates: an UPDATE / DELETE that would read the whole table (no key in WHERE) without
# LIMIT is refused with 1175; with a key, or a LIMIT, it runs. Also sql_select_limit and
# max_join_size at their defaults (other values are refused by Cohort with 1235, not recorded
# here). Recorded from MariaDB 10.11 with mariadb_golden.py.
CREATE DATABASE safedb;
USE safedb;
CREATE TABLE su (id INT PRIMARY KEY, k INT, v INT, KEY (k));
INSERT INTO su VALUES (1, 1, 1), (2, 2, 2), (3, 3, 3), (4, 4, 4);
SELECT @@sql_safe_updates, @@session.sql_safe_updates, @@global.sql_safe_updates;
SET sql_safe_updates = 1;
SELECT @@sql_safe_updates;
UPDATE su SET v = v + 1;
UPDATE su SET v = v + 1 WHERE v = 1;
UPDATE su SET v = v + 1 WHERE id = 1;
UPDATE su SET v = v + 1 WHERE k > 2;
UPDATE su SET v = v + 1 WHERE id IN (1, 2);
UPDATE su SET v = v + 1 WHERE v = 2 LIMIT 1;
UPDATE su SET v = v + 1 LIMIT 2;
UPDATE su SET v = 10 WHERE id = 1 OR v = 2;
DELETE FROM su;
DELETE FROM su WHERE v = 3;
DELETE FROM su WHERE id = 4;
DELETE FROM su WHERE v > 100 LIMIT 1;
DELETE FROM su ORDER BY id LIMIT 1;
SELECT * FROM su ORDER BY id;
SELECT * FROM su WHERE v > 0 ORDER BY id;
SET sql_safe_updates = 0;
UPDATE su SET v = 0;
DELETE FROM su WHERE v = 0 AND id = 3;
SELECT * FROM su ORDER BY id;
SET SESSION sql_safe_updates = ON;
DELETE FROM su;
SET sql_safe_updates = DEFAULT;
SELECT @@sql_safe_updates;
DELETE FROM su;
SELECT @@sql_select_limit, @@max_join_size;
SET sql_select_limit = DEFAULT, max_join_size = DEFAULT;
SET sql_select_limit = 18446744073709551615;
SELECT COUNT(*) FROM su;
