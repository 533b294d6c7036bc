# utf8mb4_unicode_520_ci (UCA 5.2.0 primary weights, PAD SPACE): comparisons, expansions (ß = ss,
# Æ = AE, ligatures), ORDER BY, GROUP BY, DISTINCT, unique keys (1062 for strings equal under the
# collation), secondary index lookups, LIKE, SHOW CREATE TABLE and information_schema. Recorded
# from MariaDB 10.11 with mariadb_golden.py.
CREATE DATABASE cuca;
USE cuca;
CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(20) COLLATE utf8mb4_unicode_520_ci, KEY ic (c));
SHOW CREATE TABLE t;
INSERT INTO t VALUES (1,'a'),(2,'A'),(3,'á'),(4,'Æ'),(5,'ae'),(6,'ß'),(7,'ss'),(8,'b'),(9,'é'),(10,'E'),(11,'z'),(12,' a'),(13,'a '),(14,'œ'),(15,'oe'),(16,'Ø'),(17,'o'),(18,'ﬁ'),(19,'fi'),(20,'Ǆ'),(21,'dž'),(22,'1'),(23,'½'),(24,'ｆ'),(25,'Straße'),(26,'STRASSE'),(27,'ä'),(28,'Å'),(29,'aa'),(30,'-a'),(31,'a-'),(32,'ı'),(33,'İ'),(34,'i'),(35,'一'),(36,'가'),(37,'😀'),(38,'a\t'),(39,''),(40,'Ω');
SELECT id, c FROM t ORDER BY c, id;
SELECT id, c FROM t ORDER BY c DESC, id;
SELECT MIN(id), COUNT(*), GROUP_CONCAT(id ORDER BY id) FROM t GROUP BY c ORDER BY MIN(id);
SELECT COUNT(DISTINCT c) FROM t;
SELECT id FROM t WHERE c = 'SS' ORDER BY id;
SELECT id FROM t WHERE c = 'AE' ORDER BY id;
SELECT id FROM t WHERE c = 'a' ORDER BY id;
SELECT id FROM t WHERE c > 'o' AND c < 'p' ORDER BY id;
SELECT id FROM t WHERE c LIKE 'a%' ORDER BY id;
SELECT id FROM t WHERE c LIKE 'str_sse' ORDER BY id;
SELECT id FROM t WHERE c LIKE '_' ORDER BY id;
SELECT c, COLLATION(c), CHARSET(c) FROM t WHERE id = 1;
SELECT 'ß' = 'ss' COLLATE utf8mb4_unicode_520_ci, 'Æ' = 'ae' COLLATE utf8mb4_unicode_520_ci, 'ﬁ' = 'FI' COLLATE utf8mb4_unicode_520_ci;
SELECT 'a' = 'a ' COLLATE utf8mb4_unicode_520_ci, 'a\t' < 'a' COLLATE utf8mb4_unicode_520_ci AS tab_lt, 'é' < 'f' COLLATE utf8mb4_unicode_520_ci, 'ß' = 'ss' COLLATE utf8mb4_general_ci;
SELECT 'Straße' LIKE 'strasse' COLLATE utf8mb4_unicode_520_ci, 'É' LIKE 'e' COLLATE utf8mb4_unicode_520_ci, 'ß' LIKE '_' COLLATE utf8mb4_unicode_520_ci;
SELECT COLLATION('x' COLLATE utf8mb4_unicode_520_ci);
SELECT STRCMP('ä' COLLATE utf8mb4_unicode_520_ci, 'A'), 'b' COLLATE utf8mb4_unicode_520_ci BETWEEN 'A' AND 'C', 'Ø' COLLATE utf8mb4_unicode_520_ci IN ('o', 'x');
SELECT DISTINCT c COLLATE utf8mb4_unicode_520_ci AS d FROM t WHERE id IN (6, 7) ORDER BY d;
SELECT column_name, collation_name, character_set_name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 't' ORDER BY ordinal_position;
SELECT collation_name, id, is_default FROM information_schema.collations WHERE collation_name = 'utf8mb4_unicode_520_ci';
SHOW COLLATION LIKE 'utf8mb4_unicode_520_ci';
CREATE TABLE u (id INT PRIMARY KEY, c VARCHAR(10) COLLATE utf8mb4_unicode_520_ci, UNIQUE KEY uc (c));
INSERT INTO u VALUES (1, 'ß');
INSERT INTO u VALUES (2, 'SS');
INSERT INTO u VALUES (3, 'ae');
INSERT INTO u VALUES (4, 'Æ ');
INSERT INTO u VALUES (5, 'oe');
INSERT INTO u VALUES (6, 'Œ');
INSERT INTO u VALUES (7, 'å');
SELECT id, c FROM u ORDER BY c, id;
CREATE TABLE p (c VARCHAR(10) COLLATE utf8mb4_unicode_520_ci PRIMARY KEY);
INSERT INTO p VALUES ('é');
INSERT INTO p VALUES ('E');
SELECT c FROM p WHERE c = 'e';
CREATE TABLE d (c VARCHAR(10)) COLLATE utf8mb4_unicode_520_ci;
INSERT INTO d VALUES ('ß'), ('ss');
SELECT COUNT(DISTINCT c) FROM d;
DROP DATABASE cuca;
