# UNION / INTERSECT / EXCEPT inside subqueries (IN, NOT IN, EXISTS, scalar, ANY / ALL, FROM),
# correlated too. Expected outputs recorded from MariaDB 10.11 with mariadb_golden.py: edit
# subquery_setops.sql, then regenerate subquery_setops.test.
CREATE DATABASE sqso;
USE sqso;
create table t1 (a int primary key, b int);
create table t2 (x int, y int);
insert into t1 values (1,10),(2,20),(3,30),(4,NULL);
insert into t2 values (1,100),(3,300),(5,500);
select a from t1 where a in (select x from t2 union select 2) order by a;
select a from t1 where a not in (select x from t2 union select 2) order by a;
select a from t1 where a in (select x from t2 intersect select a from t1) order by a;
select a from t1 where a in (select a from t1 except select x from t2) order by a;
select (select 5 union select 5);
select (select x from t2 union select 1 order by 1 desc limit 1);
select (select 1 union select 2);
select exists (select 1 union select 2), not exists (select x from t2 where x > 10 union select a from t1 where a > 10);
select a from t1 where a > any (select x from t2 union select 2) order by a;
select a from t1 where a >= all (select x from t2 where x < 5 union select 2) order by a;
select * from (select x from t2 union select a from t1) d order by 1;
select a from t1 where a in (select x from t2 where t2.x = t1.a union select 4) order by a;
select a, (select y from t2 where x = a union select b) s from t1 where a <> 2 order by a;
select a from t1 where exists (select 1 from t2 where x = a union all select 1 from t2 where x = a + 1) order by a;
select a from t1 where (a, b) in (select x, y / 10 from t2 union select 2, 20) order by a;
select sum(a) from t1 where a in (select 1 union all select 1 union select 3);
select a, (select y from t2 where x = a union select y + 0 from t2 where x = a) s from t1 order by a;
update t1 set b = 0 where a in (select x from t2 union select 4);
select * from t1 order by a;
delete from t1 where a in (select x from t2 except select 3);
select * from t1 order by a;
select a from t1 where a in (select x from t2 union (select 2 union select 4)) order by a;
DROP DATABASE sqso;
