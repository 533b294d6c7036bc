# information_schema tables in joins (ORMs' introspection: Django's get_constraints joins
# KEY_COLUMN_USAGE and TABLE_CONSTRAINTS). Recorded from MariaDB 10.11 with mariadb_golden.py.
CREATE DATABASE isj;
USE isj;
CREATE TABLE p (id INT PRIMARY KEY, code VARCHAR(10), UNIQUE KEY uc (code));
CREATE TABLE c (id INT PRIMARY KEY, pid INT, a INT, b INT, CONSTRAINT fk_p FOREIGN KEY (pid) REFERENCES p (id), UNIQUE KEY ab (a, b));
SELECT kc.constraint_name, kc.column_name, kc.referenced_table_name, kc.referenced_column_name, c.constraint_type FROM information_schema.key_column_usage AS kc, information_schema.table_constraints AS c WHERE kc.table_schema = DATABASE() AND c.table_schema = kc.table_schema AND c.constraint_name = kc.constraint_name AND c.constraint_type != 'CHECK' AND kc.table_name = 'c' AND c.table_name = kc.table_name ORDER BY kc.constraint_name, kc.ordinal_position;
SELECT t.table_name, COUNT(k.column_name) FROM information_schema.tables t LEFT JOIN information_schema.key_column_usage k ON k.table_schema = t.table_schema AND k.table_name = t.table_name WHERE t.table_schema = 'isj' GROUP BY t.table_name ORDER BY t.table_name;
SELECT c.id, kcu.column_name FROM c JOIN information_schema.key_column_usage kcu ON kcu.table_schema = 'isj' AND kcu.table_name = 'c' AND kcu.constraint_name = 'fk_p' ORDER BY c.id;
DROP DATABASE isj;
