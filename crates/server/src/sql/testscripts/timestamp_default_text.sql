# How DEFAULT / ON UPDATE CURRENT_TIMESTAMP is shown, as MariaDB 10.11 writes it:
# current_timestamp() or current_timestamp(N) in SHOW CREATE TABLE, SHOW COLUMNS and
# information_schema.COLUMNS, and EXTRA without MySQL's DEFAULT_GENERATED. Schema-diff tools
# (TypeORM's synchronize) compare these texts. Expected outputs recorded from MariaDB 10.11 with
# mariadb_golden.py: edit timestamp_default_text.sql, then regenerate timestamp_default_text.test.
CREATE DATABASE tsdb;
USE tsdb;
CREATE TABLE tsd (a TIMESTAMP DEFAULT CURRENT_TIMESTAMP, b DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3), c TIMESTAMP(6) NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP(6), d DATETIME DEFAULT NOW(), e DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), f DATETIME DEFAULT '2020-01-02 03:04:05');
SHOW CREATE TABLE tsd;
SHOW COLUMNS FROM tsd;
SELECT COLUMN_NAME, COLUMN_DEFAULT, EXTRA, DATETIME_PRECISION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'tsdb' AND TABLE_NAME = 'tsd' ORDER BY ORDINAL_POSITION;
DROP DATABASE tsdb;
