# REVOKE from an account that does not exist: 1141 at every level, and 1269 for REVOKE ALL
# PRIVILEGES, GRANT OPTION (the existing accounts in the list are still cleared). Expected
# outputs recorded from MariaDB 10.11 with mariadb_golden.py.
CREATE DATABASE rvk;
CREATE TABLE rvk.t (id INT PRIMARY KEY);
CREATE USER 'rv1'@'%';
GRANT SELECT ON rvk.* TO 'rv1'@'%';
REVOKE ALL ON *.* FROM 'nobody_here'@'%';
REVOKE SELECT ON rvk.* FROM 'nobody_here'@'%';
REVOKE SELECT ON rvk.t FROM 'nobody_here'@'%';
REVOKE SELECT ON rvk.t FROM 'rv1'@'%';
REVOKE ALL PRIVILEGES, GRANT OPTION FROM 'nobody_here'@'%';
REVOKE ALL PRIVILEGES, GRANT OPTION FROM 'rv1'@'%', 'nobody_here'@'%';
SHOW GRANTS FOR 'rv1'@'%';
DROP USER 'rv1'@'%';
DROP DATABASE rvk;
