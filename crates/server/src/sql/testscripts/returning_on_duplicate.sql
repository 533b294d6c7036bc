# INSERT … ON DUPLICATE KEY UPDATE … RETURNING (TypeORM's upsert on MariaDB sends it): a row
# inserted answers with its values, a duplicate with the row as updated (also when the update
# changed nothing). Recorded from MariaDB 10.11 with mariadb_golden.py.
CREATE DATABASE rodb;
USE rodb;
CREATE TABLE g (id INT AUTO_INCREMENT PRIMARY KEY, label VARCHAR(40) UNIQUE, n INT DEFAULT 0, twice INT AS (n * 2));
INSERT INTO g (label) VALUES ('sf'), ('fantasy');
meta INSERT INTO g (id, label) VALUES (DEFAULT, 'sf'), (DEFAULT, 'horror') ON DUPLICATE KEY UPDATE label = VALUES(label) RETURNING id;
INSERT INTO g (label, n) VALUES ('sf', 5) ON DUPLICATE KEY UPDATE n = n + 10 RETURNING id, label, n, twice, n * 3 AS t;
INSERT INTO g (label, n) VALUES ('sf', 5) ON DUPLICATE KEY UPDATE n = n RETURNING id, n;
INSERT INTO g (label, n) VALUES ('sf', 7), ('new', 8), ('fantasy', 9) ON DUPLICATE KEY UPDATE n = VALUES(n) + 100 RETURNING *;
INSERT INTO g (label, n) SELECT label, 1 FROM g WHERE id < 3 ON DUPLICATE KEY UPDATE n = -1 RETURNING id, label, n;
INSERT INTO g (label) VALUES ('sf') ON DUPLICATE KEY UPDATE label = 'new' RETURNING id;
CREATE TABLE h (v INT);
INSERT INTO h VALUES (40), (41);
INSERT INTO g SET label = 'horror', n = 4 ON DUPLICATE KEY UPDATE n = (SELECT MAX(v) FROM h) RETURNING g.*, n + 1 AS c;
INSERT INTO g SET label = 'fresh', n = 4 ON DUPLICATE KEY UPDATE n = (SELECT MAX(v) FROM h) RETURNING g.*, n + 1 AS c;
SELECT * FROM g ORDER BY id;
DROP DATABASE rodb;
