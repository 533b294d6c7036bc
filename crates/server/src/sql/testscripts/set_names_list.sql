# SET NAMES / CHARACTER SET as one item of a SET list, in any place (Rails' ActiveRecord sends
# `SET NAMES utf8mb4, @@SESSION.sql_mode = …, @@SESSION.sql_auto_is_null = 0, …` on connect):
# the items take effect in order. Not here: an item in error after NAMES (MariaDB checks every
# item before it sets any; Cohort sets those before the error, as for any SET list). Recorded from
# MariaDB 10.11 with mariadb_golden.py. Not here either: `SET names = 'x'`, 1064 on both, MariaDB
# quoting near '' for it.
SET NAMES utf8mb4,  @@SESSION.sql_mode = CONCAT(CONCAT(@@sql_mode, ',STRICT_ALL_TABLES'), ',NO_AUTO_VALUE_ON_ZERO'),  @@SESSION.sql_auto_is_null = 0, @@SESSION.wait_timeout = 2147483;
SELECT @@sql_mode, @@character_set_client, @@sql_auto_is_null, @@wait_timeout;
SET NAMES latin1 COLLATE latin1_swedish_ci, @a = 1;
SELECT @@character_set_client, @@character_set_results, @@collation_connection, @a;
SET @@SESSION.sql_auto_is_null = 1, NAMES utf8mb4 COLLATE utf8mb4_bin;
SELECT @@character_set_results, @@collation_connection, @@sql_auto_is_null;
SET CHARACTER SET utf8mb4, @b = 2;
SELECT @@character_set_client, @@collation_connection, @b;
SET NAMES utf8mb4, @@nope = 1;
SET NAMES nosuch, @c = 3;
SELECT @c;
SET NAMES nosuch;
SET NAMES DEFAULT, @d = 4, CHARSET utf8mb4;
SELECT @@character_set_client, @d;
SET @e = 5, CHARSET DEFAULT, @@sql_auto_is_null = 0;
SELECT @e, @@sql_auto_is_null, @@character_set_connection;
SET charset = 1;
SET NAMES utf8mb4 COLLATE 'utf8mb4_bin', @z = 1;
SELECT @z, @@collation_connection;
