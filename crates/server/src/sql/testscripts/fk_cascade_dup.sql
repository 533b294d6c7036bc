# ON UPDATE CASCADE that duplicates a child's unique key: MariaDB 10.11 (InnoDB) answers 1761,
# naming the updated table and its row's primary key, the child table and its key. The
# cascade runs before the parent's own duplicate is found. Recorded with mariadb_golden.py.
CREATE DATABASE fkdup;
USE fkdup;
CREATE TABLE p (k VARCHAR(10) PRIMARY KEY) ENGINE=InnoDB;
CREATE TABLE c (id INT PRIMARY KEY, k VARCHAR(10), UNIQUE KEY uk (k), FOREIGN KEY (k) REFERENCES p(k) ON UPDATE CASCADE) ENGINE=InnoDB;
INSERT INTO p VALUES ('a'), ('b');
INSERT INTO c VALUES (1, 'a'), (2, 'b');
UPDATE p SET k = 'B' WHERE k = 'a';
UPDATE IGNORE p SET k = 'B' WHERE k = 'a';
UPDATE p SET k = 'A' WHERE k = 'a';
SELECT * FROM c ORDER BY id;
UPDATE p, c SET p.k = 'b' WHERE p.k = 'A' AND c.id = 1;
SELECT * FROM p ORDER BY k;

# A parent duplicate whose cascade passes: 1062, the cascade undone.
CREATE TABLE p1 (k VARCHAR(10) PRIMARY KEY) ENGINE=InnoDB;
CREATE TABLE c1 (id INT PRIMARY KEY, k VARCHAR(10), FOREIGN KEY (k) REFERENCES p1(k) ON UPDATE CASCADE) ENGINE=InnoDB;
INSERT INTO p1 VALUES ('a'), ('b');
INSERT INTO c1 VALUES (1, 'a'), (2, 'b');
UPDATE p1 SET k = 'b' WHERE k = 'a';
UPDATE IGNORE p1 SET k = 'b' WHERE k = 'a';
SELECT * FROM c1 ORDER BY id;

# The record is the updated table's primary key (several columns joined by '-').
CREATE TABLE p2 (k1 VARCHAR(10), k2 INT, PRIMARY KEY (k1, k2)) ENGINE=InnoDB;
CREATE TABLE c2 (id INT PRIMARY KEY, k1 VARCHAR(10), UNIQUE KEY uk (k1), FOREIGN KEY (k1) REFERENCES p2(k1) ON UPDATE CASCADE) ENGINE=InnoDB;
INSERT INTO p2 VALUES ('a', 1), ('b', 2);
INSERT INTO c2 VALUES (1, 'a'), (2, 'b');
UPDATE p2 SET k1 = 'B' WHERE k2 = 1;
SELECT * FROM c2 ORDER BY id;
CREATE TABLE p3 (id INT PRIMARY KEY, k1 VARCHAR(10), k2 INT, UNIQUE KEY pk3 (k1, k2)) ENGINE=InnoDB;
CREATE TABLE c3 (id INT PRIMARY KEY, k1 VARCHAR(10), k2 INT, UNIQUE KEY uk3 (k1), FOREIGN KEY fk3 (k1, k2) REFERENCES p3(k1, k2) ON UPDATE CASCADE) ENGINE=InnoDB;
INSERT INTO p3 VALUES (1, 'a', 1), (2, 'b', 2);
INSERT INTO c3 VALUES (1, 'a', 1), (2, 'b', 2);
UPDATE p3 SET k1 = 'B', k2 = 5 WHERE id = 1;
UPDATE p3 SET k1 = 'b', k2 = 2 WHERE id = 1;
UPDATE p3 SET k1 = 'c', k2 = 5 WHERE id = 1;
SELECT * FROM c3 ORDER BY id;

# Two levels: the child's primary key (PAD SPACE: 'b ' is 'b').
CREATE TABLE g (k VARCHAR(10) PRIMARY KEY) ENGINE=InnoDB;
CREATE TABLE m (k VARCHAR(10) PRIMARY KEY, FOREIGN KEY (k) REFERENCES g(k) ON UPDATE CASCADE) ENGINE=InnoDB;
CREATE TABLE n (id INT PRIMARY KEY, k VARCHAR(10), x INT, UNIQUE KEY ux (x, k), FOREIGN KEY (k) REFERENCES m(k) ON UPDATE CASCADE) ENGINE=InnoDB;
INSERT INTO g VALUES ('a'), ('b'), ('q');
INSERT INTO m VALUES ('a'), ('b');
INSERT INTO n VALUES (1, 'a', 1), (2, 'b', 2);
UPDATE g SET k = 'b ' WHERE k = 'a';
UPDATE g SET k = 'B' WHERE k = 'b';
UPDATE n SET x = 1 WHERE id = 2;
UPDATE m SET k = 'q' WHERE k = 'a';
UPDATE g SET k = 'Q' WHERE k = 'b';
SELECT * FROM n ORDER BY id;
