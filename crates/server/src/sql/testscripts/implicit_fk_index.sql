# The key made for a FOREIGN KEY without an index of its own is replaced, in the same
# statement, by a later key that leads with the same columns (CREATE INDEX, ALTER TABLE … ADD
# KEY / UNIQUE / PRIMARY KEY), as MariaDB does; one that serves no foreign key stays. Expected
# outputs recorded from MariaDB 10.11 with mariadb_golden.py: edit implicit_fk_index.sql, then
# regenerate implicit_fk_index.test.
CREATE DATABASE ifkdb;
USE ifkdb;
create table fp(id int primary key, k int, unique(k));
create table fc(id int primary key, pid int, q int, constraint fk1 foreign key (pid) references fp(id), foreign key (q) references fp(k));
show create table fc;
create index i2 on fc(pid, id);
alter table fc add index i3 (q);
show create table fc;
create table fc2(id int, pid int, foreign key (pid) references fp(id));
alter table fc2 add primary key (pid, id);
show create table fc2;
create table fc3(id int primary key, pid int, foreign key (pid) references fp(id));
alter table fc3 add unique u (pid);
create index ip on fc3 (pid);
show create table fc3;
alter table fc3 add constraint f2 foreign key (id) references fp(id);
show create table fc3;
ALTER TABLE fc DROP INDEX i2;
DROP DATABASE ifkdb;
