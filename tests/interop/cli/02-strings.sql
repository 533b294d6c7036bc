-- String literals: a ';' inside quotes, '' and \' escapes, backslash, \t, double-quoted strings
-- (MySQL default sql_mode), and UTF-8 text. Batch output escapes \ and tab as \\ and \t.
DROP TABLE IF EXISTS cli_strings;
CREATE TABLE cli_strings (id INT NOT NULL PRIMARY KEY, s VARCHAR(60));
INSERT INTO cli_strings VALUES (1, 'semi;colon'), (2, 'O''Brien'), (3, 'it\'s'), (4, 'a\\b');
INSERT INTO cli_strings VALUES (5, 'tab\there'), (6, "double \"quoted\""), (7, 'héllo wörld ☃'), (8, '');
SELECT id, s FROM cli_strings ORDER BY id;
SELECT id, CHAR_LENGTH(s) AS chars FROM cli_strings WHERE id IN (4, 7, 8) ORDER BY id;
DROP TABLE cli_strings;
