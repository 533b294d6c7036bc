# The connection's collation and character sets at the SQL level: collation_connection gives
# string literals their collation (coercibility 4), SET NAMES … COLLATE, the collation_*
# variables take every collation Cohort has, CONVERT(x USING cs) / CAST(x AS CHAR CHARACTER
# SET cs) / introducers honour cs, and a column's `CHARSET x` short form.
# (The wire side — handshake, results and query text in other character sets — is
# session/charsets_tests.rs.)
DROP DATABASE IF EXISTS conn_cs;
CREATE DATABASE conn_cs;
USE conn_cs;
SELECT @@collation_connection, COLLATION('a'), COERCIBILITY('a'), 'a' = 'A';
SET NAMES utf8mb4 COLLATE utf8mb4_bin;
SELECT @@collation_connection, @@character_set_connection, COLLATION('a'), COERCIBILITY('a'), 'a' = 'A';
SELECT 'a' = 'A', 'a' < 'B', 'b' IN ('B', 'c');
SELECT STRCMP('a', 'A'), 'abc' LIKE 'A%';
CREATE TABLE t (id INT PRIMARY KEY, ci VARCHAR(10), bin VARCHAR(10) COLLATE utf8mb4_bin);
INSERT INTO t VALUES (1, 'a', 'a'), (2, 'A', 'A');
# A column's collation (implicit, 2) wins over the literal's (coercible, 4).
SELECT id FROM t WHERE ci = 'A' ORDER BY id;
SELECT id FROM t WHERE bin = 'A' ORDER BY id;
SET NAMES utf8mb4;
SELECT @@collation_connection, 'a' = 'A', COLLATION('a');
SET collation_connection = utf8mb4_unicode_ci;
SELECT @@collation_connection, @@character_set_connection, COLLATION('a'), 'a' = 'A', 'ß' = 'ss';
SET collation_connection = utf8mb4_unicode_520_ci;
SELECT COLLATION('x');
SET collation_connection = utf8mb3_general_ci;
SELECT @@character_set_connection, COLLATION('x');
SET collation_connection = 'utf8_bin';
SELECT @@collation_connection, COLLATION('x'), 'a' = 'A';
SET collation_connection = 'foo';
SET collation_connection = 224;
SELECT @@collation_connection;
SET collation_server = utf8mb4_unicode_ci;
SELECT @@collation_server, @@character_set_server;
SET collation_database = utf8mb4_bin;
SELECT @@collation_database, @@character_set_database;
SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci;
SELECT @@collation_connection, COLLATION('x');
SET NAMES binary;
SELECT @@collation_connection, @@character_set_client, COLLATION('a'), 'a' = 'A';
SET NAMES utf8mb4;
# CONVERT(x USING cs): the characters cs lacks become '?'.
SELECT CONVERT('é😀' USING utf8mb3), CONVERT('é😀' USING latin1), CONVERT('é😀' USING ascii), CONVERT('é😀' USING utf8mb4);
SELECT COLLATION(CONVERT('x' USING utf8mb3)), COERCIBILITY(CONVERT('x' USING utf8mb3)), COLLATION(CONVERT('x' USING utf8mb4));
SELECT HEX(CONVERT('é' USING binary)), COLLATION(CONVERT('é' USING binary));
SELECT CONVERT('x' USING nosuch);
SELECT CAST('é😀' AS CHAR CHARACTER SET utf8mb3), CAST('é😀' AS CHAR(1) CHARACTER SET utf8mb4), COLLATION(CAST('x' AS CHAR CHARSET utf8mb3));
SELECT CONVERT('é😀', CHAR CHARACTER SET utf8mb3);
# Introducers: the literal's bytes are in the named character set.
SELECT _utf8mb4'é', COLLATION(_utf8mb3'x'), COERCIBILITY(_utf8mb3'x'), COLLATION(_utf8mb4'x'), _utf8mb3'a' = 'A';
SELECT _latin1 X'E9', HEX(_binary'a'), COLLATION(_binary'a');
SELECT _nosuch'x';
# The column short form CHARSET x.
CREATE TABLE s (a VARCHAR(10) CHARSET utf8mb3, b VARCHAR(10) CHARSET utf8mb4 COLLATE utf8mb4_bin, charset INT) CHARSET utf8mb4;
SHOW CREATE TABLE s;
SELECT CHARSET(a), COLLATION(b) FROM (SELECT a, b FROM s UNION ALL SELECT 'x', 'y') d LIMIT 1;
DROP DATABASE conn_cs;
