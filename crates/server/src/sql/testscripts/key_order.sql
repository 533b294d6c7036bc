# MariaDB's order of keys (SHOW CREATE TABLE, SHOW INDEX, information_schema.STATISTICS):
# UNIQUE over NOT NULL whole columns, UNIQUE with a prefix, UNIQUE over a nullable column (whole,
# then prefix), then the other keys; creation order within each. CREATE TABLE, ALTER TABLE and
# CREATE INDEX keep it. Expected outputs recorded from MariaDB 10.11 with mariadb_golden.py:
# edit key_order.sql, then regenerate key_order.test.
CREATE DATABASE kodb;
USE kodb;
CREATE TABLE x3 (a INT, b INT NOT NULL, c VARCHAR(20), d VARCHAR(20) NOT NULL, e INT, KEY k1 (c(5)), KEY k2 (e), UNIQUE u1 (c(5)), UNIQUE u2 (c), UNIQUE u3 (a), UNIQUE u4 (d(3)), UNIQUE u5 (b, a), UNIQUE u6 (b, d), KEY k3 (e, a));
SHOW CREATE TABLE x3;
ALTER TABLE x3 ADD UNIQUE u7 (b), ADD KEY k0 (a);
CREATE UNIQUE INDEX u8 ON x3 (e, b);
SHOW CREATE TABLE x3;
ALTER TABLE x3 MODIFY a INT NOT NULL;
CREATE INDEX k9 ON x3 (d);
CREATE INDEX IF NOT EXISTS k9 ON x3 (d);
SHOW CREATE TABLE x3;
SHOW INDEX FROM x3;
SELECT INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NON_UNIQUE FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'kodb' AND TABLE_NAME = 'x3';
CREATE TABLE p (id INT PRIMARY KEY);
CREATE TABLE ch (id INT PRIMARY KEY, pid INT, code INT NOT NULL, note VARCHAR(10), KEY kn (note), FOREIGN KEY (pid) REFERENCES p (id), UNIQUE KEY uc (code));
SHOW CREATE TABLE ch;
DROP DATABASE kodb;
