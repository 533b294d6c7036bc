# The collation of a JSON function's text result, as MariaDB's: of the document for the
# functions that read one (a JSON column's utf8mb4_bin), always utf8mb4_bin for JSON_UNQUOTE,
# the connection's for a builder of literals. Sequelize (mysql2 connects in utf8mb4_unicode_ci)
# compares json_unquote(json_extract(col, …)) with a literal: 1267 until this.
SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE DATABASE jc;
USE jc;
CREATE TABLE u (id INT PRIMARY KEY, prefs JSON);
INSERT INTO u VALUES (1, '{"theme":"dark","n":1}'), (2, '{"theme":"Dark"}');
SELECT id FROM u WHERE json_unquote(json_extract(prefs, '$."theme"')) = 'dark' ORDER BY id;
SELECT id FROM u WHERE json_value(prefs, '$.theme') = 'DARK' ORDER BY id;
SELECT COLLATION(json_unquote(json_extract(prefs, '$.theme'))), COERCIBILITY(json_unquote(json_extract(prefs, '$.theme'))), COLLATION(json_extract(prefs, '$.theme')), COERCIBILITY(json_extract(prefs, '$.theme')) FROM u WHERE id = 1;
SELECT COLLATION(json_unquote('"x"')), COERCIBILITY(json_unquote('"x"')), COLLATION(json_extract('{"a":1}', '$.a')), COLLATION(json_object('a', 1)), COERCIBILITY(json_object('a', 1)), COLLATION(json_array(1, 'x')), COLLATION(json_set(prefs, '$.a', 1)) FROM u WHERE id = 1;
SELECT json_unquote(json_extract('{"a":"dark"}', '$.a')) = 'DARK', json_object('a', 1) = '{"a": 1}';
DROP DATABASE jc;
SET NAMES utf8mb4;
