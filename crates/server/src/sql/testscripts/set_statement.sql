# max_statement_time and SET STATEMENT … FOR (issue 21). Recorded from MariaDB 10.11 with
# mariadb_golden.py: edit this file, then regenerate set_statement.test. Only statements whose
# answer does not depend on timing (a 0.1 s limit on a 1 s SLEEP always ends it). Not here:
# the column type of @@max_statement_time (MariaDB: DOUBLE, Cohort: DECIMAL(.,6)) and the
# 1292 warning of a negative value inside SET STATEMENT (Cohort clamps it silently).
SELECT @@max_statement_time;
SELECT @@session.max_statement_time, @@global.max_statement_time;
SHOW VARIABLES LIKE 'max_statement_time';
SET STATEMENT max_statement_time=2.5 FOR SELECT @@max_statement_time;
SELECT @@max_statement_time;
SET STATEMENT max_statement_time=0.1 FOR SELECT SLEEP(1);
SELECT @@max_statement_time;
SET STATEMENT max_statement_time='abc' FOR SELECT 1;
SET STATEMENT max_statement_time=1, sql_mode='' FOR SELECT @@max_statement_time, @@sql_mode;
SELECT @@sql_mode = '';
SET STATEMENT sql_mode='NO_ZERO_DATE' FOR SELECT "a";
SET STATEMENT `max_statement_time` = 3 for select 'for', (SELECT 1) AS `for`;
SET STATEMENT autocommit=0 FOR SELECT 1;
SET STATEMENT character_set_client=latin1 FOR SELECT 1;
SET STATEMENT collation_connection=latin1_swedish_ci FOR SELECT 1;
SET STATEMENT tx_isolation='READ-COMMITTED' FOR SELECT 1;
SET STATEMENT @x=1 FOR SELECT 1;
SET STATEMENT @@max_statement_time=1 FOR SELECT 1;
SET STATEMENT global.max_statement_time=1 FOR SELECT 1;
SET STATEMENT session.max_statement_time=1 FOR SELECT 1;
SET STATEMENT nope=1 FOR SELECT 1;
SET STATEMENT max_statement_time=1 FOR;
SELECT @@max_statement_time;
SET max_statement_time = 1.25;
SELECT @@max_statement_time, @@global.max_statement_time;
SET STATEMENT max_statement_time=0 FOR SELECT @@max_statement_time;
SELECT @@max_statement_time;
SET max_statement_time = -1;
SHOW WARNINGS;
SELECT @@max_statement_time;
SET max_statement_time = DEFAULT;
SELECT @@max_statement_time;
CREATE DATABASE sst;
USE sst;
CREATE TABLE t (id INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1), (2, 2);
SET STATEMENT max_statement_time=10 FOR UPDATE t SET v = v + 10;
SELECT * FROM t;
SET STATEMENT max_statement_time=1 FOR SELECT * FROM nope;
SELECT @@max_statement_time;
SET STATEMENT max_statement_time=1 FOR SET STATEMENT max_statement_time=2 FOR SELECT @@max_statement_time;
DROP DATABASE sst;
