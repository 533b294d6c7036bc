# What mariadb-dump, mariadb-show and mariadb-check ask of a database with a view (issue 21).
# LOCK TABLES of a view locks its tables too (mariadb-dump locks tables and views together);
# SHOW KEYS of a view is empty (COM_FIELD_LIST of a view, for mariadb-show -v, is not scripted);
# SHOW TABLE STATUS lists views and has Max_index_length and Temporary; OPTIMIZE / REPAIR
# answer as for InnoDB, and for a view as MariaDB does; information_schema.COLUMNS lists the
# columns of views (mariadb-dump --xml reads them), a DATE has no DATETIME_PRECISION. Expected outputs recorded from
# MariaDB 10.11 with mariadb_golden.py.
CREATE DATABASE dtv;
USE dtv;
CREATE TABLE a (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(20) NOT NULL DEFAULT 'x', KEY (name)) COMMENT 'tbl a';
CREATE TABLE b (id INT PRIMARY KEY, a_id INT, note TEXT, FOREIGN KEY (a_id) REFERENCES a (id));
INSERT INTO a VALUES (1, 'one'), (2, 'two');
INSERT INTO b VALUES (1, 1, 'hello'), (2, NULL, NULL);
CREATE VIEW v AS SELECT id, name FROM a;
CREATE VIEW vv AS SELECT v.id, b.note FROM v JOIN b ON b.a_id = v.id;
CREATE VIEW vc (k, n) AS WITH c AS (SELECT id, name FROM a) SELECT id, name FROM c;
LOCK TABLES a READ, b READ, v READ;
SELECT * FROM v ORDER BY id;
SELECT COUNT(*) FROM b;
UNLOCK TABLES;
LOCK TABLES vv READ;
SELECT * FROM vv;
SELECT COUNT(*) FROM a;
INSERT INTO b VALUES (3, 1, 'no');
UNLOCK TABLES;
LOCK TABLES vc READ;
SELECT * FROM vc ORDER BY k;
UNLOCK TABLES;
LOCK TABLES v WRITE;
INSERT INTO v (id, name) VALUES (7, 'w');
SELECT COUNT(*) FROM a;
UNLOCK TABLES;
LOCK TABLES nosuch READ;
SHOW KEYS FROM v;
SHOW INDEX FROM dtv.vv;
mask Version,Rows,Avg_row_length,Data_length,Index_length,Auto_increment,Create_time,Update_time SHOW TABLE STATUS;
mask Version,Rows,Avg_row_length,Data_length,Index_length,Auto_increment,Create_time,Update_time SHOW TABLE STATUS LIKE 'v%';
OPTIMIZE TABLE a, v;
REPAIR TABLE a, b, v;
ANALYZE TABLE v;
CHECK TABLE a, v, vv;
CREATE TABLE tb (x INT);
CREATE VIEW vb AS SELECT x FROM tb;
DROP TABLE tb;
CHECK TABLE vb;
CREATE TABLE dd (d DATE, t TIME(2), n INT NOT NULL DEFAULT 5, s VARCHAR(10) NOT NULL);
CREATE VIEW vd (dd, tt, nn, ss) AS SELECT d, t, n, s FROM dd;
SELECT TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_DEFAULT, IS_NULLABLE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION, COLLATION_NAME, COLUMN_TYPE, COLUMN_KEY, EXTRA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'dtv' AND TABLE_NAME IN ('dd', 'v', 'vv', 'vd') ORDER BY TABLE_NAME, ORDINAL_POSITION;
DROP DATABASE dtv;
