# SET of a system variable to NULL: a bare NULL is NULL, not the string 'NULL' (a bare word is a
# string: SET sql_mode = ANSI). A variable that takes no NULL answers 1231 (time_zone too, not
# its unknown-zone 1298), a number 1232; character_set_results takes NULL. Recorded from
# MariaDB 10.11 with mariadb_golden.py.
SET time_zone = NULL;
SET @@session.time_zone = NULL;
SET time_zone = (NULL);
SET time_zone = 'NULL';
SET sql_mode = NULL;
SET sql_mode = null, time_zone = '+01:00';
SELECT @@time_zone;
SET autocommit = NULL;
SET tx_isolation = NULL;
SET collation_connection = NULL;
SET character_set_client = NULL;
SET character_set_connection = NULL;
SET default_storage_engine = NULL;
SET max_statement_time = NULL;
SET character_set_results = NULL;
SELECT @@character_set_results IS NULL;
SET character_set_results = utf8mb4;
SELECT @@character_set_results;
SET @u = NULL;
SELECT @u IS NULL;
