# time_zone: SYSTEM and +00:00 are served; a name or offset MariaDB does not know is 1298.
# (Named zones such as 'Europe/Paris' and other offsets such as '+05:30' are refused by Cohort
# with 1235 — not recorded here.) Recorded from MariaDB 10.11 with mariadb_golden.py.
SELECT @@time_zone, @@global.time_zone;
SET time_zone = '+00:00';
SELECT @@time_zone;
SET time_zone = 'SYSTEM';
SELECT @@time_zone;
SET time_zone = 'No/Such_Zone';
SET time_zone = 'garbage';
SET time_zone = '+25:00';
SET time_zone = '+05:61';
SET time_zone = '';
SET time_zone = '../../etc/passwd';
SELECT @@time_zone;
SET time_zone = DEFAULT;
SELECT @@time_zone;
