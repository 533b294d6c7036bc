# latin1 as a column, table and database character set (MariaDB's cp1252 variant, one byte a
# character): SHOW CREATE, information_schema, the five collations' sort orders over the
# printable bytes (ORDER BY, GROUP BY, DISTINCT, unique keys, LIKE), CHECKSUM TABLE (latin1
# bytes, CHAR padded to n bytes), characters latin1 lacks (1366 / '?'), lengths and key_len,
# LENGTH / HEX in latin1 bytes, coercion against utf8mb4 (1267), ALTER conversions.
# Expected outputs recorded from MariaDB 10.11 with mariadb_golden.py.
DROP DATABASE IF EXISTS l1db;
CREATE DATABASE l1db;
USE l1db;
CREATE TABLE t1 (a CHAR(5) CHARACTER SET latin1, b VARCHAR(80) COLLATE latin1_bin, c TEXT CHARACTER SET latin1, d VARCHAR(3) COLLATE latin1_general_ci, e VARCHAR(3) COLLATE latin1_general_cs, f ENUM('x','é') CHARACTER SET latin1, g VARCHAR(4) CHARACTER SET latin1 COLLATE latin1_german1_ci, h TINYTEXT CHARACTER SET latin1, i VARCHAR(5));
SHOW CREATE TABLE t1;
CREATE TABLE t2 (a CHAR(5), b VARCHAR(80) COLLATE latin1_bin, c TEXT CHARACTER SET utf8mb4, d MEDIUMTEXT, e VARBINARY(3)) DEFAULT CHARSET=latin1;
SHOW CREATE TABLE t2;
CREATE TABLE t3 (a CHAR(5), b CHAR(5) CHARACTER SET latin1) COLLATE latin1_general_cs;
SHOW CREATE TABLE t3;
CREATE TABLE t4 (a CHAR(5)) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
SHOW CREATE TABLE t4;
CREATE TABLE bad1 (a CHAR(5) CHARACTER SET latin1 COLLATE utf8mb4_bin);
CREATE TABLE bad2 (a CHAR(5)) CHARSET utf8mb4 COLLATE latin1_bin;
SELECT COLUMN_NAME, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('t1', 't2') ORDER BY TABLE_NAME, ORDINAL_POSITION;
SELECT TABLE_NAME, TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME;
SHOW FULL COLUMNS FROM t3;
# CHECKSUM TABLE: latin1 bytes, a CHAR(5) pads to 5 bytes.
CREATE TABLE ck (c CHAR(5) CHARACTER SET latin1);
INSERT INTO ck VALUES ('ab');
CHECKSUM TABLE ck;
INSERT INTO ck VALUES ('é€Ÿ');
CHECKSUM TABLE ck;
CREATE TABLE ck2 (c CHAR(5), v VARCHAR(80), t TEXT, d CHAR(3) CHARACTER SET utf8mb4, e ENUM('a','ä'), id INT) DEFAULT CHARSET=latin1;
INSERT INTO ck2 VALUES ('abc', 'héllo wörld', 'ünïcödé €', 'x', 'ä', 1), ('', '', '', '', 'a', 2), (NULL, NULL, NULL, NULL, NULL, 3), ('ÿþ', '‚ƒ„…†‡ˆ‰Š‹Œ', 'Žšœž', 'é', NULL, 4);
CHECKSUM TABLE ck2;
meta SELECT c, v, t, d, e FROM ck2 ORDER BY id;
SELECT id, LENGTH(c), CHAR_LENGTH(c), HEX(c), LENGTH(v), HEX(v), OCTET_LENGTH(t), HEX(t), LENGTH(d), HEX(d) FROM ck2 ORDER BY id;
# Characters latin1 lacks.
CREATE TABLE e (id INT AUTO_INCREMENT PRIMARY KEY, c VARCHAR(10) CHARACTER SET latin1, m VARCHAR(10));
INSERT INTO e (c) VALUES ('ałb');
INSERT INTO e (c) VALUES ('ab€ł🎉xyzxyzxyz');
INSERT INTO e (c, m) VALUES ('plain é', 'ł😀');
SET sql_mode = '';
INSERT INTO e (c) VALUES ('ałb😀'), ('Ω');
SHOW WARNINGS;
UPDATE e SET c = 'x🎉' WHERE id = 2;
SHOW WARNINGS;
INSERT INTO t1 (h) VALUES (REPEAT('é', 300));
SHOW WARNINGS;
SELECT CHAR_LENGTH(h), LENGTH(h) FROM t1;
SET sql_mode = DEFAULT;
INSERT INTO t1 (h) VALUES (REPEAT('é', 256));
SELECT id, c, HEX(c), m FROM e ORDER BY id;
# Lengths: VARCHAR bounds, row size, key lengths, key_len.
CREATE TABLE len1 (a VARCHAR(65533) CHARACTER SET latin1);
CREATE TABLE len2 (a VARCHAR(65532) CHARACTER SET latin1);
CREATE TABLE len3 (a VARCHAR(65532) CHARACTER SET latin1 NOT NULL);
CREATE TABLE len4 (a VARCHAR(65530) CHARACTER SET latin1 NOT NULL, b TINYINT NOT NULL);
CREATE TABLE len5 (a VARCHAR(40000), b VARCHAR(30000)) CHARSET latin1;
CREATE TABLE len6 (a VARCHAR(40000), b VARCHAR(20000)) CHARSET latin1;
SHOW CREATE TABLE len3;
CREATE TABLE k3 (a VARCHAR(255) CHARACTER SET latin1 PRIMARY KEY, b VARCHAR(255) CHARACTER SET latin1, c CHAR(100) CHARACTER SET latin1 NOT NULL, d TEXT CHARACTER SET latin1, KEY (b), KEY (c), KEY (d(50)));
INSERT INTO k3 VALUES ('x', 'x', 'x', 'x'), ('y', 'y', 'y', 'y'), ('z', 'z', 'z', 'z');
mask rows,Extra EXPLAIN SELECT * FROM k3 WHERE a = 'x';
mask rows,Extra EXPLAIN SELECT * FROM k3 WHERE b = 'x';
mask rows,Extra EXPLAIN SELECT * FROM k3 WHERE c = 'x';
meta SELECT a, b, c, d FROM k3 WHERE a = 'y';
# Sort orders: every printable latin1 character (id = its byte), in each collation.
CREATE TABLE chars (id INT PRIMARY KEY, c CHAR(1) CHARACTER SET latin1);
INSERT INTO chars (id, c) VALUES (32, ' '), (33, '!'), (34, '"'), (35, '#'), (36, '$'), (37, '%'), (38, '&'), (40, '('), (41, ')'), (42, '*'), (43, '+'), (44, ','), (45, '-'), (46, '.'), (47, '/'), (48, '0'), (49, '1'), (50, '2'), (51, '3'), (52, '4'), (53, '5'), (54, '6'), (55, '7'), (56, '8'), (57, '9'), (58, ':'), (59, ';'), (60, '<'), (61, '='), (62, '>'), (63, '?'), (64, '@'), (65, 'A'), (66, 'B'), (67, 'C'), (68, 'D'), (69, 'E'), (70, 'F'), (71, 'G'), (72, 'H'), (73, 'I'), (74, 'J'), (75, 'K'), (76, 'L'), (77, 'M'), (78, 'N'), (79, 'O'), (80, 'P'), (81, 'Q'), (82, 'R'), (83, 'S'), (84, 'T'), (85, 'U'), (86, 'V'), (87, 'W'), (88, 'X'), (89, 'Y'), (90, 'Z'), (91, '['), (93, ']'), (94, '^'), (95, '_'), (96, '`'), (97, 'a'), (98, 'b'), (99, 'c'), (100, 'd'), (101, 'e'), (102, 'f'), (103, 'g'), (104, 'h'), (105, 'i'), (106, 'j'), (107, 'k'), (108, 'l'), (109, 'm'), (110, 'n'), (111, 'o'), (112, 'p'), (113, 'q'), (114, 'r'), (115, 's'), (116, 't'), (117, 'u'), (118, 'v'), (119, 'w'), (120, 'x'), (121, 'y'), (122, 'z'), (123, '{'), (124, '|'), (125, '}'), (126, '~'), (128, '€'), (130, '‚'), (131, 'ƒ'), (132, '„'), (133, '…'), (134, '†'), (135, '‡'), (136, 'ˆ'), (137, '‰'), (138, 'Š'), (139, '‹'), (140, 'Œ'), (142, 'Ž'), (145, '‘'), (146, '’'), (147, '“'), (148, '”'), (149, '•'), (150, '–'), (151, '—'), (152, '˜'), (153, '™'), (154, 'š'), (155, '›'), (156, 'œ'), (158, 'ž'), (159, 'Ÿ'), (160, ' '), (161, '¡'), (162, '¢'), (163, '£'), (164, '¤'), (165, '¥'), (166, '¦'), (167, '§'), (168, '¨'), (169, '©'), (170, 'ª'), (171, '«'), (172, '¬'), (173, '­'), (174, '®'), (175, '¯'), (176, '°'), (177, '±'), (178, '²'), (179, '³'), (180, '´'), (181, 'µ'), (182, '¶'), (183, '·'), (184, '¸'), (185, '¹'), (186, 'º'), (187, '»'), (188, '¼'), (189, '½'), (190, '¾'), (191, '¿'), (192, 'À'), (193, 'Á'), (194, 'Â'), (195, 'Ã'), (196, 'Ä'), (197, 'Å'), (198, 'Æ'), (199, 'Ç'), (200, 'È'), (201, 'É'), (202, 'Ê'), (203, 'Ë'), (204, 'Ì'), (205, 'Í'), (206, 'Î'), (207, 'Ï'), (208, 'Ð'), (209, 'Ñ'), (210, 'Ò'), (211, 'Ó'), (212, 'Ô'), (213, 'Õ'), (214, 'Ö'), (215, '×'), (216, 'Ø'), (217, 'Ù'), (218, 'Ú'), (219, 'Û'), (220, 'Ü'), (221, 'Ý'), (222, 'Þ'), (223, 'ß'), (224, 'à'), (225, 'á'), (226, 'â'), (227, 'ã'), (228, 'ä'), (229, 'å'), (230, 'æ'), (231, 'ç'), (232, 'è'), (233, 'é'), (234, 'ê'), (235, 'ë'), (236, 'ì'), (237, 'í'), (238, 'î'), (239, 'ï'), (240, 'ð'), (241, 'ñ'), (242, 'ò'), (243, 'ó'), (244, 'ô'), (245, 'õ'), (246, 'ö'), (247, '÷'), (248, 'ø'), (249, 'ù'), (250, 'ú'), (251, 'û'), (252, 'ü'), (253, 'ý'), (254, 'þ'), (255, 'ÿ');
SELECT COUNT(*) FROM chars;
SELECT GROUP_CONCAT(id ORDER BY c, id) FROM chars;
SELECT GROUP_CONCAT(id ORDER BY c COLLATE latin1_bin, id) FROM chars;
SELECT GROUP_CONCAT(id ORDER BY c COLLATE latin1_general_ci, id) FROM chars;
SELECT GROUP_CONCAT(id ORDER BY c COLLATE latin1_general_cs, id) FROM chars;
SELECT GROUP_CONCAT(id ORDER BY c COLLATE latin1_german1_ci, id) FROM chars;
SELECT COUNT(DISTINCT c) FROM chars;
SELECT MIN(id), GROUP_CONCAT(id ORDER BY id) FROM chars GROUP BY c HAVING COUNT(*) > 1 ORDER BY MIN(id);
SELECT MIN(id), GROUP_CONCAT(id ORDER BY id) FROM chars GROUP BY c COLLATE latin1_general_ci HAVING COUNT(*) > 1 ORDER BY MIN(id);
SELECT MIN(id), GROUP_CONCAT(id ORDER BY id) FROM chars GROUP BY c COLLATE latin1_german1_ci HAVING COUNT(*) > 1 ORDER BY MIN(id);
SELECT COUNT(DISTINCT c COLLATE latin1_general_cs), COUNT(DISTINCT c COLLATE latin1_bin) FROM chars;
# The same orders through secondary keys of each collation.
CREATE TABLE sk (id INT PRIMARY KEY, s CHAR(1) CHARACTER SET latin1, b CHAR(1) COLLATE latin1_bin, g CHAR(1) COLLATE latin1_general_ci, cs CHAR(1) COLLATE latin1_general_cs, de CHAR(1) COLLATE latin1_german1_ci, KEY (s), KEY (b), KEY (g), KEY (cs), KEY (de));
INSERT INTO sk SELECT id, c, c, c, c, c FROM chars;
SELECT GROUP_CONCAT(id ORDER BY s, id) FROM sk FORCE INDEX (s) WHERE s >= 'a' AND s < 'c';
SELECT GROUP_CONCAT(id ORDER BY b, id) FROM sk WHERE b > 'y';
SELECT GROUP_CONCAT(id ORDER BY g, id) FROM sk WHERE g = 'o';
SELECT GROUP_CONCAT(id ORDER BY cs, id) FROM sk WHERE cs BETWEEN 'a' AND 'b';
SELECT GROUP_CONCAT(id ORDER BY de, id) FROM sk WHERE de = 'u';
SELECT COUNT(*) FROM sk WHERE s = 'Ä';
SELECT COUNT(*) FROM sk WHERE b = 'Ä';
SELECT id FROM sk WHERE s LIKE 'É%' ORDER BY id;
SELECT id FROM sk WHERE b LIKE 'É%' ORDER BY id;
SELECT id FROM sk WHERE de LIKE 'ö' ORDER BY id;
# Unique keys.
CREATE TABLE u (id INT PRIMARY KEY, s VARCHAR(10) CHARACTER SET latin1 UNIQUE, b VARCHAR(10) COLLATE latin1_bin UNIQUE);
INSERT INTO u VALUES (1, 'Ärger', 'Ärger');
INSERT INTO u VALUES (2, 'ärger ', 'x');
INSERT INTO u VALUES (3, 'y', 'ärger');
INSERT INTO u VALUES (4, 'Arger', 'Ärger ');
SELECT id, s, b FROM u ORDER BY id;
SELECT id FROM u WHERE s = 'ÄRGER' AND b = 'Ärger';
# Trailing spaces and characters below the space (PAD SPACE).
CREATE TABLE pad (id INT PRIMARY KEY, s VARCHAR(5) CHARACTER SET latin1);
INSERT INTO pad VALUES (1, 'a'), (2, 'a '), (3, 'a\t'), (4, 'a b');
SELECT GROUP_CONCAT(id ORDER BY s, id) FROM pad;
SELECT COUNT(DISTINCT s) FROM pad;
# Mixing latin1 and Unicode operands.
CREATE TABLE mix (l VARCHAR(10) CHARACTER SET latin1, l2 VARCHAR(10) COLLATE latin1_general_ci, lb VARCHAR(10) COLLATE latin1_bin, u VARCHAR(10) CHARACTER SET utf8mb4, u3 VARCHAR(10) CHARACTER SET utf8mb3);
INSERT INTO mix VALUES ('é', 'É', 'e', 'É', 'é');
SELECT l = u, COLLATION(CONCAT(l, u)), COERCIBILITY(CONCAT(l, u)) FROM mix;
SELECT l = 'É', COLLATION(CONCAT(l, 'x')), COLLATION(l), CHARSET(l), COERCIBILITY(l) FROM mix;
SELECT l = '🎉' FROM mix;
SELECT l = 'ł' FROM mix;
SELECT l IN ('x', 'ł') FROM mix;
SELECT l LIKE 'ł%' FROM mix;
SELECT l = l2 FROM mix;
SELECT COLLATION(CONCAT(l, l2)), COERCIBILITY(CONCAT(l, l2)) FROM mix;
SELECT l = lb, COLLATION(CONCAT(l, lb)) FROM mix;
SELECT l COLLATE latin1_bin = u FROM mix;
SELECT l = u COLLATE utf8mb4_bin FROM mix;
SELECT l = u3, COLLATION(CONCAT(l, u3)) FROM mix;
SELECT l COLLATE latin1_german1_ci = l2 FROM mix;
SELECT l IN (u, 'x') FROM mix;
SELECT COLLATION(GREATEST(l, u)), GREATEST(l, u) FROM mix;
SELECT l = USER() FROM mix;
SELECT l < u, l > 'd', l2 < 'F' FROM mix;
# Functions that read bytes see latin1's; UPPER / LOWER use latin1's case map.
CREATE TABLE fx (id INT PRIMARY KEY, c VARCHAR(20) CHARACTER SET latin1, b VARCHAR(20) COLLATE latin1_bin);
INSERT INTO fx VALUES (1, 'ÿŸµßšŠœŒžŽƒ€é', 'Ää'), (2, 'plain', NULL);
SELECT id, UPPER(c), LOWER(c), UPPER(b), LOWER(b), ORD(c), ASCII(c), HEX(CAST(c AS BINARY)), LENGTH(CAST(c AS BINARY)), BIT_LENGTH(c), OCTET_LENGTH(c), CHAR_LENGTH(c) FROM fx ORDER BY id;
SELECT id, CRC32(c), MD5(c), SHA1(c), SHA2(c, 256), TO_BASE64(c), HEX(CAST(b AS BINARY(4))) FROM fx ORDER BY id;
SELECT id, HEX(CONCAT(c, 'x')), LENGTH(CONCAT(c, 'x')), HEX(UPPER(c)), LENGTH(LOWER(c)), HEX(SUBSTRING(c, 2, 3)), HEX(REVERSE(b)) FROM fx ORDER BY id;
SELECT id, c FROM fx WHERE UPPER(c) = 'ÿŸµSSšŠœŒžŽƒ€É' OR c LIKE 'PLA%' ORDER BY id;
SELECT COLLATION(UPPER(c)), COLLATION(CONCAT(c, 'x')), COLLATION(SUBSTRING(b, 1)), CHARSET(CAST(c AS CHAR)) FROM fx LIMIT 1;
SELECT HEX(GROUP_CONCAT(c ORDER BY id)), COLLATION(GROUP_CONCAT(c)) FROM fx;
# Binary strings are latin1 bytes to a latin1 column or comparison.
INSERT INTO fx VALUES (3, X'C4E9', X'80');
SELECT id, c, HEX(c), b FROM fx WHERE id = 3;
SELECT id FROM fx WHERE c = X'C4E9';
SELECT id FROM fx WHERE b LIKE X'25';
SELECT id FROM fx WHERE b BETWEEN X'80' AND X'80';
# ALTER: MODIFY / CONVERT TO between latin1 and utf8mb4.
CREATE TABLE a1 (id INT PRIMARY KEY, c VARCHAR(10), t TEXT, m MEDIUMTEXT, tt TINYTEXT);
INSERT INTO a1 VALUES (1, 'x😀y', 'ab', 'cd', 'ef');
ALTER TABLE a1 MODIFY c VARCHAR(10) CHARACTER SET latin1;
ALTER TABLE a1 CONVERT TO CHARACTER SET latin1;
SELECT id, c FROM a1;
UPDATE a1 SET c = 'xéy€';
ALTER TABLE a1 MODIFY c VARCHAR(10) CHARACTER SET latin1;
SELECT c, HEX(c), LENGTH(c) FROM a1;
SHOW CREATE TABLE a1;
ALTER TABLE a1 CONVERT TO CHARACTER SET latin1;
SHOW CREATE TABLE a1;
CHECKSUM TABLE a1;
ALTER TABLE a1 CONVERT TO CHARACTER SET utf8mb4;
SHOW CREATE TABLE a1;
SELECT c, HEX(c), LENGTH(c) FROM a1;
ALTER TABLE a1 CONVERT TO CHARACTER SET latin1 COLLATE latin1_bin;
SHOW CREATE TABLE a1;
ALTER TABLE a1 DEFAULT CHARSET = utf8mb4;
ALTER TABLE a1 ADD n VARCHAR(5);
SHOW CREATE TABLE a1;
CREATE TABLE a2 (id INT PRIMARY KEY, c VARCHAR(10));
INSERT INTO a2 VALUES (1, 'xłyé');
SET sql_mode = '';
ALTER TABLE a2 CONVERT TO CHARACTER SET latin1;
SHOW WARNINGS;
SET sql_mode = DEFAULT;
SELECT c, HEX(c) FROM a2;
SHOW CREATE TABLE a2;
# Database defaults.
CREATE DATABASE l1_db CHARACTER SET latin1;
SHOW CREATE DATABASE l1_db;
CREATE DATABASE l1_dbb COLLATE latin1_general_cs;
SHOW CREATE DATABASE l1_dbb;
CREATE DATABASE l1_bad CHARACTER SET latin1 COLLATE utf8mb4_bin;
SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'l1\_db%' ORDER BY SCHEMA_NAME;
CREATE TABLE l1_db.t (a CHAR(3), b VARCHAR(5) CHARACTER SET utf8mb4);
SHOW CREATE TABLE l1_db.t;
CREATE TABLE l1_dbb.t (a CHAR(3)) DEFAULT CHARSET = utf8mb4;
SHOW CREATE TABLE l1_dbb.t;
ALTER DATABASE l1_db CHARACTER SET utf8mb4;
SHOW CREATE DATABASE l1_db;
DROP DATABASE l1_db;
DROP DATABASE l1_dbb;
DROP DATABASE l1db;
