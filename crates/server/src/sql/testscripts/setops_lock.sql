# `… UNION SELECT … FOR UPDATE` / `LOCK IN SHARE MODE`: as MariaDB, the clause belongs to the
# last SELECT, which alone locks the rows it reads; with a derived table or CTE, only the
# tables of the locking SELECT's own FROM are locked. Expected outputs recorded from MariaDB
# 10.11 with mariadb_golden.py: edit setops_lock.sql, then regenerate setops_lock.test.
CREATE DATABASE sldb;
USE sldb;
CREATE TABLE t1 (a INT PRIMARY KEY, b INT);
CREATE TABLE t2 (x INT PRIMARY KEY, y INT);
INSERT INTO t1 VALUES (1,10),(2,20),(3,30);
INSERT INTO t2 VALUES (1,100),(3,300),(5,500);
[s2] SET SESSION innodb_lock_wait_timeout = 1;
BEGIN;
SELECT a FROM t1 UNION SELECT x FROM t2 ORDER BY 1 FOR UPDATE;
[s2] UPDATE sldb.t1 SET b = b + 1 WHERE a = 1;
[s2] UPDATE sldb.t2 SET y = y + 1 WHERE x = 1;
[s2] SELECT * FROM sldb.t2 WHERE x = 3 LOCK IN SHARE MODE;
ROLLBACK;
BEGIN;
SELECT a FROM t1 INTERSECT SELECT x FROM t2 WHERE x > 2 LOCK IN SHARE MODE;
[s2] SELECT * FROM sldb.t2 WHERE x = 3 LOCK IN SHARE MODE;
[s2] UPDATE sldb.t2 SET y = y + 1 WHERE x = 3;
[s2] UPDATE sldb.t2 SET y = y + 1 WHERE x = 1;
[s2] UPDATE sldb.t1 SET b = b + 1 WHERE a = 3;
ROLLBACK;
SELECT a FROM t1 EXCEPT SELECT x FROM t2 FOR UPDATE NOWAIT;
BEGIN;
SELECT * FROM (SELECT * FROM t1) d ORDER BY a FOR UPDATE;
[s2] UPDATE sldb.t1 SET b = b + 1 WHERE a = 2;
ROLLBACK;
BEGIN;
SELECT * FROM t1 JOIN (SELECT x FROM t2) d ON d.x = t1.a ORDER BY a FOR UPDATE;
[s2] UPDATE sldb.t2 SET y = y + 1 WHERE x = 3;
[s2] UPDATE sldb.t1 SET b = b + 1 WHERE a = 3;
ROLLBACK;
BEGIN;
WITH c AS (SELECT x FROM t2 WHERE x = 1) SELECT * FROM t1 JOIN c ON c.x = t1.a LOCK IN SHARE MODE;
[s2] UPDATE sldb.t2 SET y = y + 1 WHERE x = 1;
[s2] UPDATE sldb.t1 SET b = b + 1 WHERE a = 1;
ROLLBACK;
SELECT * FROM t1 ORDER BY a;
SELECT * FROM t2 ORDER BY x;
DROP DATABASE sldb;
