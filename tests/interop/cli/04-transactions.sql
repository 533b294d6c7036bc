-- BEGIN/ROLLBACK, START TRANSACTION/COMMIT, autocommit=0 with ROLLBACK and COMMIT.
DROP TABLE IF EXISTS cli_txn;
CREATE TABLE cli_txn (id INT NOT NULL PRIMARY KEY, name VARCHAR(20));
BEGIN;
INSERT INTO cli_txn VALUES (10, 'rolled back');
SELECT COUNT(*) AS inside_txn FROM cli_txn;
ROLLBACK;
START TRANSACTION;
INSERT INTO cli_txn VALUES (11, 'committed');
COMMIT;
SET autocommit = 0;
INSERT INTO cli_txn VALUES (12, 'rolled back too');
ROLLBACK;
INSERT INTO cli_txn VALUES (13, 'committed too');
COMMIT;
SET autocommit = 1;
UPDATE cli_txn SET name = 'autocommitted' WHERE id = 11;
SELECT id, name FROM cli_txn ORDER BY id;
DROP TABLE cli_txn;
