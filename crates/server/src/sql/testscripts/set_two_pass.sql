# SET a = x, b = y, … runs in two passes, as MariaDB's: every value is evaluated and checked
# first, then all take effect. Values read the variables as they were before the statement,
# and one bad assignment leaves every variable unchanged. To a user variable a bare word is a
# column (1054 in 'SET'), TRUE / FALSE are 1 / 0 for any variable. Expected outputs recorded
# from MariaDB 10.11 with mariadb_golden.py.
SET @d = 1;
SET @d = 2, sql_mode = 'NOPE';
SELECT @d;
SET sql_mode = 'ANSI', autocommit = 7;
SELECT @@sql_mode;
SET @x = 5, @@global.max_connections = 'abc';
SELECT @x;
SET time_zone = '+01:00', wait_timeout = -5, time_zone = 'nope';
SELECT @@time_zone, @@wait_timeout;
SET wait_timeout = 100, @w = @@wait_timeout, wait_timeout = 200;
SELECT @w, @@wait_timeout;
SET NAMES latin1, @n = @@character_set_client;
SELECT @n, @@character_set_client;
SET NAMES utf8mb4;
SET @e = 1, @e = @e + 1, @e = @e * 10;
SELECT @e;
SET @a = 0;
SET @a = 1, @b = @a + 1;
SELECT @a, @b;
SET session sql_mode = DEFAULT, @m = @@sql_mode;
SELECT @m;
SET @q = (SELECT 1), @r = nosuchvar;
SELECT @q;
SET @@session.autocommit = 0, @@session.autocommit = 1;
SELECT @@autocommit;
SET autocommit = 0, @z = @@autocommit;
SELECT @z, @@autocommit;
SET autocommit = 1;
SET @r = true, @s = FALSE;
SELECT @r, @s;
SET autocommit = false;
SELECT @@autocommit;
SET autocommit = ON;
SET @r = abc;
SET @r = `abc`;
SET @r = on, @s = 1;
SET @r = default;
DO abc;
SET sql_mode = ansi, @v = @@sql_mode;
SELECT @v, @@sql_mode;
SET sql_mode = DEFAULT;
