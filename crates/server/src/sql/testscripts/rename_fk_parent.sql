# RENAME TABLE / ALTER TABLE … RENAME TO of a table other tables' FOREIGN KEYs reference: the
# references follow the table (SHOW CREATE TABLE, information_schema, enforcement, cascades),
# as in MariaDB. Expected outputs recorded from MariaDB 10.11 with mariadb_golden.py: edit
# rename_fk_parent.sql, then regenerate rename_fk_parent.test.
CREATE DATABASE rfkdb;
USE rfkdb;
create table rp1 (id int primary key);
create table rc1 (id int primary key, p int, foreign key (p) references rp1(id) on delete cascade);
create table rc2 (id int primary key, p int, constraint cf foreign key (p) references rp1(id));
insert into rp1 values (1), (2);
insert into rc1 values (1, 1), (2, 2);
insert into rc2 values (1, 1);
rename table rp1 to rp2;
show create table rc1;
show create table rc2;
insert into rc1 values (3, 3);
delete from rp2 where id = 2;
select * from rc1;
alter table rp2 rename to rp1;
show create table rc2;
select table_name, referenced_table_name from information_schema.referential_constraints where constraint_schema = database() order by table_name;
rename table rp1 to tmp, rc1 to rp1, tmp to rc1;
show create table rc2;
show create table rp1;
DROP DATABASE rfkdb;
