-- Errors, run with --force: each must reach stderr as "ERROR <code> (<sqlstate>) at line <n>",
-- and the session must go on.
DROP TABLE IF EXISTS cli_err;
CREATE TABLE cli_err (id INT NOT NULL PRIMARY KEY, v INT);
INSERT INTO cli_err VALUES (1, 10);
SELECT * FROM cli_no_such_table;
SELECT no_such_column FROM cli_err;
INSERT INTO cli_err (id, v) VALUES (1, 11);
SELEC 1;
CREATE TABLE cli_err (id INT);
DROP TABLE cli_no_such_table;
INSERT INTO cli_err (id, v) VALUES (NULL, 12);
SELECT id, v FROM cli_err;
DROP TABLE cli_err;
SELECT 'still here' AS status;
