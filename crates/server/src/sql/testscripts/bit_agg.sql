# BIT_AND / BIT_OR / BIT_XOR: BIGINT UNSIGNED NOT NULL, 21 wide, as aggregates and as window
# functions. Recorded from MariaDB 10.11 with mariadb_golden.py.
CREATE DATABASE bitagg;
USE bitagg;
CREATE TABLE t (id INT PRIMARY KEY, a INT, b BIGINT UNSIGNED, s VARCHAR(10), d DECIMAL(5,2), f DOUBLE);
INSERT INTO t VALUES (1, 5, 7, '3', 1.5, 2.5), (2, -1, 3, '6', 2.5, 3.5);
meta SELECT BIT_AND(a), BIT_OR(a), BIT_XOR(a) FROM t;
meta SELECT BIT_AND(b), BIT_OR(s), BIT_XOR(d), BIT_OR(f) FROM t;
meta SELECT BIT_AND(a) FROM t WHERE id > 5;
meta SELECT BIT_OR(a) OVER () AS o FROM t ORDER BY id;
meta SELECT id, BIT_AND(a) FROM t GROUP BY id ORDER BY id;
meta SELECT BIT_OR(NULL), BIT_AND(1), BIT_XOR(2.5);
