# The BINLOG statement and the session variables of `mariadb-binlog` output
# (sql/exec/binlog_stmt, sql/exec/replay_vars.rs). The payloads are MariaDB 10.11's own events
# (binlog_format=ROW) of a workload on pitrg.t and pitrg.n.
DROP DATABASE IF EXISTS pitrg;
CREATE DATABASE pitrg;
CREATE TABLE pitrg.t (id INT PRIMARY KEY, s VARCHAR(10), d DECIMAL(6,2), ts DATETIME(2), u INT UNSIGNED);
CREATE TABLE pitrg.n (a INT, b CHAR(3));
# Not base64; empty; a Table_map before the Format_description.
BINLOG 'abc';
BINLOG '!!!!';
BINLOG 'dhIMaxMBAAAANgAAAHQEAAAAABwAAAAAAAEABXBpdHJnAAF0AAUDD/YSAwUoAAYCAh6+Y449dhIMaxcBAAAAWwAAAM8EAAAAABwAAAAAAAEABR/gAQAAAANvbmWAATKZskQxBQb/////6gIAAAB//eYAAAAA4AMAAAAFdGhyZWWAAACZY/9++2MHAAAAtrGraA==';
# A truncated Format_description.
BINLOG 'dhIMaw8BAAAA/AAAAAABAAAAAAQAMTAuMTEuMTktTWFyaWFEQi0wK2RlYjEydTEtbG9nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
BINLOG 'dhIMaw8BAAAA/AAAAAABAAAAAAQAMTAuMTEuMTktTWFyaWFEQi0wK2RlYjEydTEtbG9nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEzgNAAgAEgAEBAQEEgAA5AAEGggAAAAICAgCAAAACgoKAAAAAAAACgoKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEEwQADQgICAoKCgH1nne9';
BINLOG 'dhIMaxMBAAAANgAAAHQEAAAAABwAAAAAAAEABXBpdHJnAAF0AAUDD/YSAwUoAAYCAh6+Y449dhIMaxcBAAAAWwAAAM8EAAAAABwAAAAAAAEABR/gAQAAAANvbmWAATKZskQxBQb/////6gIAAAB//eYAAAAA4AMAAAAFdGhyZWWAAACZY/9++2MHAAAAtrGraA==';
SELECT * FROM pitrg.t ORDER BY id;
# The same rows again: duplicates, and the statement undone.
BINLOG 'dhIMaxMBAAAANgAAAHQEAAAAABwAAAAAAAEABXBpdHJnAAF0AAUDD/YSAwUoAAYCAh6+Y449dhIMaxcBAAAAWwAAAM8EAAAAABwAAAAAAAEABR/gAQAAAANvbmWAATKZskQxBQb/////6gIAAAB//eYAAAAA4AMAAAAFdGhyZWWAAACZY/9++2MHAAAAtrGraA==';
SELECT COUNT(*) FROM pitrg.t;
BINLOG 'dhIMaxMBAAAANgAAAJEFAAAAABwAAAAAAAEABXBpdHJnAAF0AAUDD/YSAwUoAAYCAh4u0qV2dhIMaxgBAAAATgAAAN8FAAAAABwAAAAAAAEABR8f4AEAAAADb25lgAEymbJEMQUG/////+ABAAAAA3Vub4ADAJmyRDEFBv////8SqCf2';
BINLOG 'dhIMaxMBAAAANgAAAJMGAAAAABwAAAAAAAEABXBpdHJnAAF0AAUDD/YSAwUoAAYCAh6vgdTIdhIMaxkBAAAALQAAAMAGAAAAABwAAAAAAAEABR/qAgAAAH/95gAAAADMLXa2';
SELECT * FROM pitrg.t ORDER BY id;
# The row is gone now: 1032.
BINLOG 'dhIMaxMBAAAANgAAAJMGAAAAABwAAAAAAAEABXBpdHJnAAF0AAUDD/YSAwUoAAYCAh6vgdTIdhIMaxkBAAAALQAAAMAGAAAAABwAAAAAAAEABR/qAgAAAH/95gAAAADMLXa2';
BINLOG 'dhIMaxMBAAAANgAAAJEFAAAAABwAAAAAAAEABXBpdHJnAAF0AAUDD/YSAwUoAAYCAh4u0qV2dhIMaxgBAAAATgAAAN8FAAAAABwAAAAAAAEABR8f4AEAAAADb25lgAEymbJEMQUG/////+ABAAAAA3Vub4ADAJmyRDEFBv////8SqCf2';
# A table without a primary key: the row is found by its whole image.
BINLOG 'dhIMaxMBAAAAMAAAAHoHAAAAAB0AAAAAAAEABXBpdHJnAAFuAAID/gL+DAMFGAgjdhIMaxcBAAAALwAAAKkHAAAAAB0AAAAAAAEAAgP8AQAAAAFh/AEAAAABYTB5OuQ=';
BINLOG 'dhIMaxMBAAAAMAAAAFQIAAAAAB0AAAAAAAEABXBpdHJnAAFuAAID/gL+DAMzh7/4dhIMaxkBAAAAKAAAAHwIAAAAAB0AAAAAAAEAAgP8AQAAAAFhlLzxbw==';
SELECT * FROM pitrg.n;
# Inside a transaction: rolled back with it.
DELETE FROM pitrg.t;
START TRANSACTION;
BINLOG 'dhIMaxMBAAAANgAAAHQEAAAAABwAAAAAAAEABXBpdHJnAAF0AAUDD/YSAwUoAAYCAh6+Y449dhIMaxcBAAAAWwAAAM8EAAAAABwAAAAAAAEABR/gAQAAAANvbmWAATKZskQxBQb/////6gIAAAB//eYAAAAA4AMAAAAFdGhyZWWAAACZY/9++2MHAAAAtrGraA==';
SELECT COUNT(*) FROM pitrg.t;
ROLLBACK;
SELECT COUNT(*) FROM pitrg.t;
# A large event split into two user variables.
SET @binlog_fragment_0='dhIMaxMBAAAANgAAAHQEAAAAABwAAAAAAAEABXBpdHJnAAF0AAUDD/YSAwUoAAYCAh6+Y449dhIMaxcBAAAAWwAAAM8EAAAAABwA', @binlog_fragment_1='AAAAAAEABR/gAQAAAANvbmWAATKZskQxBQb/////6gIAAAB//eYAAAAA4AMAAAAFdGhyZWWAAACZY/9++2MHAAAAtrGraA==';
BINLOG @binlog_fragment_0, @binlog_fragment_1;
SELECT * FROM pitrg.t ORDER BY id;
BINLOG @binlog_fragment_0, @no_such_fragment;
# The session variables mariadb-binlog sets.
SET @@SESSION.PSEUDO_SLAVE_MODE=1;
SELECT @@pseudo_slave_mode;
SET @@session.max_delayed_threads=0;
SELECT @@max_delayed_threads;
SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0;
SELECT @OLD_COMPLETION_TYPE, @@completion_type;
SET @@session.skip_parallel_replication=0;
SET @@session.gtid_domain_id=0;
SET @@session.server_id=1;
SET @@session.gtid_seq_no=42;
SELECT @@session.gtid_domain_id, @@session.server_id, @@gtid_seq_no;
SELECT @@global.gtid_seq_no;
SET TIMESTAMP=1795951215;
SET @@session.pseudo_thread_id=7;
SELECT @@pseudo_thread_id, CONNECTION_ID();
SHOW SESSION VARIABLES LIKE 'pseudo%';
SHOW GLOBAL VARIABLES LIKE 'pseudo%';
SHOW GLOBAL VARIABLES LIKE 'gtid_seq_no';
SET @@session.foreign_key_checks=1, @@session.sql_auto_is_null=0, @@session.unique_checks=1, @@session.autocommit=1, @@session.check_constraint_checks=1, @@session.sql_if_exists=0, @@session.explicit_defaults_for_timestamp=1, @@session.system_versioning_insert_history=0;
SELECT @@sql_auto_is_null, @@check_constraint_checks, @@sql_if_exists, @@explicit_defaults_for_timestamp, @@system_versioning_insert_history;
SET @@session.sql_mode=1411383296;
SELECT @@sql_mode;
SET @@session.auto_increment_increment=1, @@session.auto_increment_offset=1;
SELECT @@auto_increment_increment, @@auto_increment_offset;
SET @@session.character_set_client=utf8mb3,@@session.collation_connection=33,@@session.collation_server=45;
SELECT @@character_set_client, @@collation_connection, @@character_set_connection, @@collation_server, @@character_set_server;
SET @@session.collation_connection=999;
SET @@session.lc_time_names=0;
SELECT @@lc_time_names;
SET @@session.collation_database=DEFAULT;
SET @@session.collation_server=DEFAULT;
SELECT @@collation_server;
SET LAST_INSERT_ID=6;
SELECT @@last_insert_id, LAST_INSERT_ID();
SET INSERT_ID=0;
SELECT @@insert_id;
SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE;
SET @@SESSION.PSEUDO_SLAVE_MODE=0;
SET @@session.pseudo_thread_id=DEFAULT;
ROLLBACK /* added by mysqlbinlog */;
/*!*/;
DROP DATABASE pitrg;
