# information_schema.COLLATION_CHARACTER_SET_APPLICABILITY: Doctrine DBAL's schema manager joins it
# to TABLES.TABLE_COLLATION for a table's options. Only the collations Cohort has are asked for;
# a table's own default collation is not kept by Cohort yet (it reports utf8mb4_general_ci).
# Recorded from MariaDB 10.11 with mariadb_golden.py.
CREATE DATABASE iscdb;
USE iscdb;
CREATE TABLE t1 (a INT) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT 'one';
CREATE TABLE t2 (a INT) DEFAULT CHARSET=utf8mb4;
SELECT * FROM information_schema.COLLATION_CHARACTER_SET_APPLICABILITY WHERE COLLATION_NAME IN ('binary', 'latin1_swedish_ci', 'utf8mb3_general_ci', 'utf8mb4_bin', 'utf8mb4_general_ci') ORDER BY ID;
SELECT t.TABLE_NAME, t.ENGINE, t.AUTO_INCREMENT, t.TABLE_COMMENT, t.CREATE_OPTIONS, t.TABLE_COLLATION, ccsa.CHARACTER_SET_NAME FROM information_schema.TABLES t INNER JOIN information_schema.COLLATION_CHARACTER_SET_APPLICABILITY ccsa ON ccsa.COLLATION_NAME = t.TABLE_COLLATION WHERE t.TABLE_TYPE = 'BASE TABLE' AND t.TABLE_SCHEMA = 'iscdb' ORDER BY t.TABLE_NAME;
SELECT COLLATION_NAME, IS_DEFAULT FROM information_schema.COLLATION_CHARACTER_SET_APPLICABILITY WHERE CHARACTER_SET_NAME = 'utf8mb4' AND COLLATION_NAME IN ('utf8mb4_bin', 'utf8mb4_general_ci') ORDER BY COLLATION_NAME;
DROP DATABASE iscdb;
