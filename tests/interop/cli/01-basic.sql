-- DDL, multi-row INSERT, SELECT with NULLs, UPDATE, DELETE, aggregates.
DROP TABLE IF EXISTS cli_items;
CREATE TABLE cli_items (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(40),
  qty INT,
  price DECIMAL(8,2),
  note VARCHAR(40) NOT NULL DEFAULT ''
);
INSERT INTO cli_items (id, name, qty, price) VALUES (1, 'apple', 3, 1.50), (2, NULL, NULL, 2.00), (3, 'cherry', 0, NULL);
INSERT INTO cli_items VALUES (4, 'pear', 7, 0.25, 'ripe');
SELECT id, name, qty, price, note FROM cli_items ORDER BY id;
SELECT id FROM cli_items WHERE name IS NULL;
SELECT id FROM cli_items WHERE price IS NULL;
SELECT COUNT(*) FROM cli_items;
UPDATE cli_items SET qty = qty + 1 WHERE id = 1;
SELECT name, qty FROM cli_items WHERE id = 1;
DELETE FROM cli_items WHERE id = 3;
SELECT COUNT(*) AS n, SUM(qty) AS total_qty FROM cli_items;
SELECT id, name FROM cli_items WHERE id BETWEEN 2 AND 4 ORDER BY id DESC;
DROP TABLE cli_items;
SELECT 'done' AS status;
