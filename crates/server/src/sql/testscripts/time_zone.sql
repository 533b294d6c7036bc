# Time zones (SET time_zone, @@time_zone, TIMESTAMP columns, the clock functions, CONVERT_TZ).
# Recorded from MariaDB 10.11 with mariadb_golden.py, on a server whose time zone tables were
# loaded from this host's zoneinfo (`mariadb-tzinfo-to-sql /usr/share/zoneinfo | mariadb mysql`,
# as Debian's package does): Cohort reads the same files. The host and both servers run at
# UTC (SYSTEM). TIMESTAMP values are kept in UTC and shown in the session's zone; DATETIME is
# never converted.
CREATE DATABASE tzdb;
USE tzdb;
# Offsets: MariaDB's range is -12:59 .. +13:00; the value is shown as +HH:MM.
SELECT @@time_zone, @@global.time_zone;
SET time_zone = '+05:30';
SELECT @@time_zone, @@session.time_zone;
SET time_zone = '-8:00';
SELECT @@time_zone;
SET time_zone = '+05:3';
SELECT @@time_zone;
SET time_zone = '-00:00';
SELECT @@time_zone;
SET time_zone = '+13:00';
SET time_zone = '-12:59';
SET time_zone = '+13:01';
SET time_zone = '-13:00';
SET time_zone = '+05:60';
SET time_zone = '05:30';
SET time_zone = ' +05:30';
SET time_zone = '';
SET time_zone = 5;
SELECT @@time_zone;
SET time_zone = system;
SELECT @@time_zone;
SET GLOBAL time_zone = '+01:00';
SELECT @@global.time_zone, @@session.time_zone;
SET GLOBAL time_zone = DEFAULT;
SELECT @@global.time_zone;
# Named zones: matched without regard to case, shown as the zone's file is spelled.
SET time_zone = 'europe/paris';
SELECT @@time_zone;
SET time_zone = 'utc';
SELECT @@time_zone;
SET time_zone = 'America/New_York';
SELECT @@time_zone;
SET time_zone = 'Mars/Olympus';
SET time_zone = 'Europe/';
SET time_zone = '../etc/passwd';
SELECT @@time_zone;
# The clock: NOW() and friends are local, UTC_* are not.
SET time_zone = '+05:30';
SELECT TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), NOW()) a, TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), SYSDATE()) BETWEEN 329 AND 331 b, UNIX_TIMESTAMP() - UNIX_TIMESTAMP(UTC_TIMESTAMP()) c, CURDATE() = DATE(NOW()) d, CURTIME() = TIME(NOW()) e, UTC_DATE() = DATE(UTC_TIMESTAMP()) f, TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), CURRENT_TIMESTAMP(3)) g, TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), LOCALTIMESTAMP) h;
SELECT FROM_UNIXTIME(0), FROM_UNIXTIME(1711846800), UNIX_TIMESTAMP('2024-03-31 06:30:00'), UNIX_TIMESTAMP('1970-01-01 05:30:01');
# TIMESTAMP columns: stored in UTC, read and written in the session's zone.
SET time_zone = '+00:00';
CREATE TABLE t (id INT PRIMARY KEY, ts TIMESTAMP NULL, dt DATETIME NULL, v INT, KEY (ts));
INSERT INTO t VALUES (1, '2024-01-01 12:00:00', '2024-01-01 12:00:00', 1), (2, '2024-03-31 00:30:00', '2024-03-31 00:30:00', 2), (3, '2024-10-27 00:30:00', '2024-10-27 00:30:00', 3);
SET time_zone = '+05:30';
SELECT * FROM t ORDER BY id;
SELECT id, ts, UNIX_TIMESTAMP(ts), ts + INTERVAL 1 HOUR, DATE(ts), HOUR(ts), CAST(ts AS CHAR), CONCAT('[', ts, ']') FROM t ORDER BY id;
SELECT id FROM t WHERE ts = '2024-01-01 17:30:00';
SELECT id FROM t WHERE ts > '2024-03-31 06:00:00' ORDER BY id;
SELECT id FROM t WHERE ts BETWEEN '2024-03-31 06:00:00' AND '2024-10-27 06:00:00' ORDER BY id;
SELECT id FROM t WHERE ts IN ('2024-01-01 17:30:00', '2024-10-27 06:00:00') ORDER BY id;
SELECT id FROM t WHERE ts = dt;
SELECT a.id, b.id, a.ts FROM t a JOIN t b ON a.ts = b.ts ORDER BY a.id;
SELECT id, (SELECT MAX(x.ts) FROM t x WHERE x.ts <= t.ts) m FROM t ORDER BY id;
SELECT id FROM t WHERE ts IN (SELECT ts FROM t WHERE id > 1) ORDER BY id;
SELECT MIN(ts), MAX(ts) FROM t;
SELECT * FROM (SELECT id, ts FROM t) d ORDER BY id;
INSERT INTO t VALUES (4, '2024-06-01 10:00:00', '2024-06-01 10:00:00', 4);
INSERT INTO t (id, ts, v) SELECT 5, ts, 5 FROM t WHERE id = 1;
UPDATE t SET ts = ts + INTERVAL 30 MINUTE WHERE id = 3;
INSERT INTO t (id, ts) VALUES (2, '2024-02-02 02:02:02') ON DUPLICATE KEY UPDATE ts = VALUES(ts);
SET time_zone = '-08:00';
SELECT * FROM t ORDER BY id;
SET time_zone = SYSTEM;
SELECT * FROM t ORDER BY id;
SELECT id FROM t WHERE ts = '2024-06-01 04:30:00';
# Out of TIMESTAMP's range once converted to UTC (not strict: the error's message names the
# column differently in Cohort, for every type).
SET sql_mode = '';
SET time_zone = '+05:30';
INSERT INTO t VALUES (8, '1970-01-01 05:30:00', NULL, 8);
SHOW WARNINGS;
INSERT INTO t VALUES (6, '1970-01-01 05:30:01', NULL, 6);
SET time_zone = '-08:00';
INSERT INTO t VALUES (9, '2038-01-18 19:14:08', NULL, 9);
SHOW WARNINGS;
INSERT INTO t VALUES (7, '2038-01-18 19:14:07', NULL, 7);
SET sql_mode = DEFAULT;
SET time_zone = SYSTEM;
SELECT id, ts FROM t WHERE id >= 6 ORDER BY id;
# DST: Europe/Paris skips 02:00-03:00 on 2024-03-31 and repeats 02:00-03:00 on 2024-10-27.
SET time_zone = 'Europe/Paris';
SELECT id, ts FROM t WHERE id <= 4 ORDER BY id;
SELECT UNIX_TIMESTAMP('2024-03-31 01:59:59'), UNIX_TIMESTAMP('2024-03-31 02:30:00'), UNIX_TIMESTAMP('2024-03-31 03:00:00'), UNIX_TIMESTAMP('2024-10-27 02:30:00'), UNIX_TIMESTAMP('2024-10-27 03:00:00');
SELECT FROM_UNIXTIME(1711846799), FROM_UNIXTIME(1711846800), FROM_UNIXTIME(1729989000), FROM_UNIXTIME(1729992600);
INSERT INTO t VALUES (11, '2024-10-27 02:30:00', NULL, 11);
SET sql_mode = '';
INSERT INTO t VALUES (12, '2024-03-31 02:30:00', NULL, 12);
SHOW WARNINGS;
UPDATE t SET ts = '2024-03-31 02:59:59' WHERE id = 11;
SHOW WARNINGS;
SET sql_mode = DEFAULT;
SELECT id, ts, UNIX_TIMESTAMP(ts) FROM t WHERE id >= 10 ORDER BY id;
SET time_zone = 'UTC';
SELECT id, ts FROM t WHERE id >= 10 ORDER BY id;
SET time_zone = 'America/New_York';
SELECT id, ts FROM t WHERE id <= 4 ORDER BY id;
SELECT UNIX_TIMESTAMP('2024-03-10 02:30:00'), UNIX_TIMESTAMP('2024-11-03 01:30:00');
# DEFAULT / ON UPDATE CURRENT_TIMESTAMP: a TIMESTAMP keeps the instant, a DATETIME the local time.
SET time_zone = '+05:30';
CREATE TABLE c (id INT PRIMARY KEY, ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, dt DATETIME DEFAULT CURRENT_TIMESTAMP, v INT);
INSERT INTO c (id, v) VALUES (1, 1);
SELECT TIMESTAMPDIFF(MINUTE, dt, ts), ABS(TIMESTAMPDIFF(SECOND, ts, NOW())) < 60, TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), ts) FROM c;
UPDATE c SET v = 2, ts = '2000-01-01 00:00:00';
UPDATE c SET v = 3;
SELECT TIMESTAMPDIFF(MINUTE, dt, ts), ABS(TIMESTAMPDIFF(SECOND, ts, NOW())) < 60 FROM c;
SET time_zone = SYSTEM;
SELECT TIMESTAMPDIFF(MINUTE, dt, ts) FROM c;
# CONVERT_TZ with offsets and names; NULL for an unknown zone; outside TIMESTAMP's range the
# value is returned as it is.
SELECT CONVERT_TZ('2024-03-31 01:30:00', 'Europe/Paris', 'UTC') a, CONVERT_TZ('2024-03-31 02:30:00', 'Europe/Paris', 'UTC') b, CONVERT_TZ('2024-10-27 02:30:00', 'Europe/Paris', 'UTC') c, CONVERT_TZ('2024-10-27 03:30:00', 'Europe/Paris', 'UTC') d;
SELECT CONVERT_TZ('2024-07-01 12:00:00', 'America/New_York', '+05:30') a, CONVERT_TZ('2024-07-01', 'UTC', 'europe/paris') b, CONVERT_TZ('2024-01-01 00:00:00', 'Nowhere', 'UTC') c, CONVERT_TZ('2024-01-01 00:00:00', '+14:00', 'UTC') d, CONVERT_TZ('1969-01-01 00:00:00', 'UTC', 'Europe/Paris') e, CONVERT_TZ('2040-01-01 00:00:00', 'UTC', 'Asia/Tokyo') f;
SELECT CONVERT_TZ('2024-01-01 12:00:00.123456', 'Asia/Kolkata', 'America/Los_Angeles') a, CONVERT_TZ('2024-06-15 12:00:00', 'SYSTEM', 'Australia/Sydney') b, CONVERT_TZ('2024-06-15 12:00:00', 'Australia/Sydney', 'system') c, CONVERT_TZ(NULL, 'UTC', 'UTC') d, CONVERT_TZ('2024-06-15 12:00:00', NULL, 'UTC') e;
SELECT id, CONVERT_TZ(dt, '+00:00', 'Europe/Paris') FROM t WHERE id <= 3 ORDER BY id;
# Names: trailing spaces are ignored, the tz database's aliases and subdirectories are zones.
SET time_zone = 'Europe/Paris ';
SELECT FROM_UNIXTIME(0);
SET time_zone = 'posix/Asia/Tokyo';
SELECT @@time_zone, FROM_UNIXTIME(0);
SET time_zone = 'Etc/GMT+5';
SELECT @@time_zone, FROM_UNIXTIME(0);
SELECT CONVERT_TZ('2024-01-01 00:00:00', '+01:00 ', 'UTC') a, CONVERT_TZ('2024-01-01 00:00:00', ' +01:00', 'UTC') b, CONVERT_TZ('2024-01-01 00:00:00', 'Europe/Paris ', 'UTC') c, CONVERT_TZ('2024-01-01 00:00:00', 'system ', 'UTC') d;
# UNIX_TIMESTAMP outside TIMESTAMP's range once in UTC, and of zero dates: NULL.
SET time_zone = '+01:00';
SELECT UNIX_TIMESTAMP('1970-01-01 00:30:00') a, UNIX_TIMESTAMP('1970-01-01 01:00:00') b, UNIX_TIMESTAMP('0000-00-00 00:00:00') c, UNIX_TIMESTAMP('2038-01-19 04:14:07') d, UNIX_TIMESTAMP('2038-01-19 04:14:08') e;
SET time_zone = SYSTEM;
# TIMESTAMP columns through views, joins, multi-table UPDATE, RETURNING, windows, CTEs, UNION.
CREATE TABLE u (id INT PRIMARY KEY, ts TIMESTAMP NULL, v INT, UNIQUE KEY (ts));
INSERT INTO u VALUES (1, '2024-01-01 00:00:00', 1), (2, '2024-06-01 00:00:00', 2);
CREATE VIEW uv AS SELECT id, ts, v FROM u;
SET time_zone = '+02:00';
SELECT * FROM uv ORDER BY id;
UPDATE uv SET ts = '2024-01-01 04:00:00' WHERE id = 1;
INSERT INTO uv (id, ts, v) VALUES (3, '2024-07-01 12:00:00', 3);
SELECT * FROM uv ORDER BY id;
DELETE FROM u WHERE ts = '2024-07-01 12:00:00' RETURNING id, ts;
REPLACE INTO u VALUES (2, '2024-06-01 05:00:00', 22);
INSERT INTO u VALUES (4, '2024-06-01 05:00:00', 4);
UPDATE u SET ts = '2024-06-01 05:00:00' WHERE id = 1;
INSERT IGNORE INTO u VALUES (4, '2024-06-01 05:00:00', 4);
SHOW WARNINGS;
SELECT id, ts FROM u WHERE ts >= '2024-01-01 04:00:00' ORDER BY ts DESC;
SELECT id, ts FROM u ORDER BY ts LIMIT 1;
SELECT id, ts, ROW_NUMBER() OVER (ORDER BY ts) r FROM u ORDER BY id;
WITH c AS (SELECT ts FROM u) SELECT * FROM c ORDER BY ts;
SELECT ts FROM u UNION SELECT '2000-01-01 00:00:00' ORDER BY 1;
UPDATE u a JOIN u b ON a.id = b.id SET a.ts = b.ts + INTERVAL 1 HOUR WHERE a.id = 1;
SELECT id, ts, JSON_OBJECT('ts', ts) j FROM u ORDER BY id;
SET time_zone = SYSTEM;
SELECT id, ts FROM u ORDER BY id;
# The hour Europe/Paris repeats: ORDER BY, MIN / MAX and UNIX_TIMESTAMP of a TIMESTAMP column
# use its UTC value; a local time there means the earlier instant.
CREATE TABLE o (id INT PRIMARY KEY, ts TIMESTAMP NULL);
INSERT INTO o VALUES (1, FROM_UNIXTIME(1729989000)), (2, FROM_UNIXTIME(1729991400)), (3, FROM_UNIXTIME(1729993800));
SET time_zone = 'Europe/Paris';
SELECT id, ts, UNIX_TIMESTAMP(ts) FROM o ORDER BY ts;
SELECT id FROM o ORDER BY ts DESC;
SELECT MIN(ts), MAX(ts), COUNT(DISTINCT ts) FROM o;
SELECT id FROM o WHERE ts = '2024-10-27 02:10:00';
SELECT id FROM o WHERE ts > '2024-10-27 02:20:00' ORDER BY id;
SET time_zone = SYSTEM;
SELECT id, ts FROM o ORDER BY id;
# A TIMESTAMP column's literal DEFAULT is kept in UTC and shown in the session's zone. (Given
# in a zone other than SYSTEM, Cohort refuses it with 1235: recovery replays DDL at SYSTEM.)
CREATE TABLE d (id INT PRIMARY KEY, ts TIMESTAMP NOT NULL DEFAULT '2024-01-01 00:00:00', z TIMESTAMP NOT NULL DEFAULT '0000-00-00 00:00:00', dt DATETIME DEFAULT '2024-01-01 00:00:00');
SET time_zone = '+05:30';
SHOW CREATE TABLE d;
SHOW COLUMNS FROM d;
INSERT INTO d (id) VALUES (1);
SELECT * FROM d;
SET time_zone = SYSTEM;
SELECT * FROM d;
SET time_zone = '+05:30';
SELECT COLUMN_NAME, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'tzdb' AND TABLE_NAME = 'd' ORDER BY ORDINAL_POSITION;
SET time_zone = SYSTEM;
CREATE TABLE x (a DATE DEFAULT '2024-01-02', b DATETIME(3) DEFAULT '2024-01-02 03:04:05.500', c TIMESTAMP(2) NULL DEFAULT '2024-01-02 03:04:05.25', h TIMESTAMP NULL DEFAULT NULL);
SHOW CREATE TABLE x;
SHOW COLUMNS FROM x;
SELECT COLUMN_NAME, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'tzdb' AND TABLE_NAME = 'x' ORDER BY ORDINAL_POSITION;
