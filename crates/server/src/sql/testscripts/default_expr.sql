# DEFAULT expressions evaluated for each row (MariaDB 10.2+): how they are kept and shown
# (SHOW CREATE TABLE, SHOW COLUMNS, information_schema.COLUMNS), the order they are computed
# in, `SET c = DEFAULT`, DEFAULT(col), ALTER TABLE, and the definition errors (4029, 1901, 1054, 1067).
# Literal defaults of TEXT / BLOB columns. Expected outputs recorded from MariaDB 10.11 with
# mariadb_golden.py: edit default_expr.sql, then regenerate default_expr.test.
CREATE DATABASE dfx;
USE dfx;
CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, a INT DEFAULT (1+1), b VARCHAR(40) DEFAULT (uuid()), c DATETIME DEFAULT (now() + INTERVAL 1 DAY), d TEXT DEFAULT 'hello', e BLOB DEFAULT (concat('x','y')), f INT DEFAULT (a*10), g DATE DEFAULT (curdate()), h VARCHAR(10) DEFAULT (concat(a,'-',f)), i DOUBLE DEFAULT (rand()), j TEXT DEFAULT NULL, k INT DEFAULT 5);
SHOW CREATE TABLE t;
SELECT COLUMN_NAME, COLUMN_DEFAULT, IS_NULLABLE, EXTRA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'dfx' AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION;
INSERT INTO t (id) VALUES (1);
INSERT INTO t (id, a) VALUES (2, 7);
INSERT INTO t VALUES (3, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT);
INSERT INTO t (id, a, f) VALUES (4, 3, 1), (5, NULL, DEFAULT);
INSERT INTO t (id, a) SELECT 6, 100 UNION ALL SELECT 7, 200;
SELECT id, a, length(b), c > now(), d, e, f, g = curdate(), h, i < 1, j, k FROM t ORDER BY id;
SELECT count(DISTINCT b) FROM t;
UPDATE t SET a = 9 WHERE id = 1;
UPDATE t SET f = DEFAULT, h = DEFAULT WHERE id IN (1, 2);
SELECT id, a, f, h FROM t WHERE id IN (1, 2) ORDER BY id;
INSERT INTO t (id, a) VALUES (2, 50) ON DUPLICATE KEY UPDATE f = DEFAULT;
SELECT id, a, f FROM t WHERE id = 2;
CREATE TABLE u (id INT PRIMARY KEY, v INT);
INSERT INTO u VALUES (1, 1), (3, 3);
UPDATE t JOIN u ON t.id = u.id SET t.f = DEFAULT, t.a = 4 WHERE u.v > 0;
SELECT id, a, f FROM t WHERE id IN (1, 3) ORDER BY id;
DESCRIBE t;
# A default may read any earlier column and a later one with a plain default.
CREATE TABLE e1 (a INT DEFAULT (b+1), b INT DEFAULT 5, c INT DEFAULT (2*3), d INT DEFAULT (c+a));
INSERT INTO e1 () VALUES ();
INSERT INTO e1 (b) VALUES (10);
SELECT * FROM e1;
CREATE TABLE e2 (a INT, b INT DEFAULT (a), c INT GENERATED ALWAYS AS (b+1));
INSERT INTO e2 (a) VALUES (4);
SELECT * FROM e2;
# Errors in the definition.
CREATE TABLE bad (a INT DEFAULT (SELECT 1));
CREATE TABLE bad (a INT DEFAULT (zz+1));
CREATE TABLE bad (a INT DEFAULT (a+1));
CREATE TABLE bad (a INT DEFAULT (b+1), b INT DEFAULT (a+1));
CREATE TABLE bad (a INT DEFAULT (b+1), b INT AS (c*2), c INT);
CREATE TABLE bad (id INT AUTO_INCREMENT PRIMARY KEY, a INT DEFAULT (id+1));
CREATE TABLE bad (a INT DEFAULT (sum(1)));
CREATE TABLE bad (a INT NOT NULL DEFAULT (NULL));
CREATE TABLE bad (a INT NOT NULL DEFAULT (if(1, NULL, 1)));
CREATE TABLE bad (a TINYINT DEFAULT (1000));
CREATE TABLE bad (a VARCHAR(5) DEFAULT ('abcdefgh'));
CREATE TABLE bad (a INT DEFAULT ('abc'));
CREATE TABLE bad (a INT DEFAULT (last_insert_id()));
CREATE TABLE bad (a INT DEFAULT (sleep(0)));
CREATE TABLE bad (a INT DEFAULT (values(a)));
# NULL into NOT NULL from a default is 1048.
CREATE TABLE nn (a INT DEFAULT 1, b INT NOT NULL DEFAULT (a+1));
INSERT INTO nn (a) VALUES (NULL);
INSERT INTO nn () VALUES ();
SELECT * FROM nn;
SHOW CREATE TABLE nn;
# How expressions are printed.
CREATE TABLE p1 (a INT, b INT DEFAULT ((a+1)*2), c INT AS ((a+1)*2), d INT DEFAULT (-a), e INT DEFAULT (a BETWEEN 1 AND 2), f VARCHAR(9) DEFAULT (CASE WHEN a>1 THEN 'x' ELSE 'y' END), g INT DEFAULT (-1), h INT DEFAULT -1, i VARCHAR(9) DEFAULT concat('a','b'), j INT DEFAULT (abs(a)), k INT DEFAULT (CAST(a AS SIGNED)), l VARCHAR(5) DEFAULT ('x'), m INT DEFAULT (1), n DOUBLE DEFAULT (1.5e0), o INT DEFAULT (a IN (1,2)), p INT DEFAULT (NOT a), q INT DEFAULT (a IS NULL), r VARCHAR(40) DEFAULT (@x), s VARCHAR(40) DEFAULT (@@sql_mode), t INT DEFAULT (+2), u DATE DEFAULT (current_date), v DATETIME(3) DEFAULT (current_timestamp(3)));
SHOW CREATE TABLE p1;
SHOW COLUMNS FROM p1;
# TEXT / BLOB take literal defaults too.
CREATE TABLE lob (a TEXT DEFAULT ('abc'), b BLOB DEFAULT 'x', c JSON DEFAULT ('{}'), d MEDIUMTEXT DEFAULT '', e TEXT NOT NULL DEFAULT 'q');
SHOW CREATE TABLE lob;
INSERT INTO lob () VALUES ();
SELECT * FROM lob;
# ALTER TABLE: an added column is computed over the existing rows; SET DEFAULT; a rename is
# followed; a column a default reads cannot be dropped.
CREATE TABLE q (a INT, b INT DEFAULT (a+1));
INSERT INTO q (a) VALUES (5), (6);
ALTER TABLE q ADD COLUMN c INT DEFAULT (a*100);
SELECT * FROM q;
ALTER TABLE q ALTER COLUMN c SET DEFAULT (a*1000);
INSERT INTO q (a) VALUES (2);
ALTER TABLE q MODIFY c VARCHAR(20) DEFAULT (concat(a,'!'));
INSERT INTO q (a) VALUES (3);
SELECT * FROM q;
ALTER TABLE q RENAME COLUMN a TO z;
SHOW CREATE TABLE q;
ALTER TABLE q DROP COLUMN z;
ALTER TABLE q CHANGE z y BIGINT;
INSERT INTO q (y) VALUES (8);
SELECT * FROM q;
SHOW CREATE TABLE q;
# DEFAULT(col): the column's default over the row read; 1364 without one.
CREATE TABLE dd (id INT PRIMARY KEY AUTO_INCREMENT, a INT DEFAULT (1+1), f INT DEFAULT (a*10), k INT DEFAULT 5, n INT NOT NULL, ts DATETIME DEFAULT CURRENT_TIMESTAMP, e ENUM('x','y') NOT NULL, z INT);
INSERT INTO dd (id, a, n) VALUES (1, 4, 1), (2, 7, 2);
SELECT id, DEFAULT(a), DEFAULT(f), DEFAULT(k), DEFAULT(z), DEFAULT(ts) > '2000-01-01' FROM dd ORDER BY id;
SELECT DEFAULT(e) FROM dd;
SELECT DEFAULT(id) FROM dd;
SELECT DEFAULT(n) FROM dd;
INSERT INTO dd SET id = 8, a = 3, f = DEFAULT(a), n = 1;
SELECT id, a, f FROM dd WHERE id = 8;
UPDATE dd SET k = DEFAULT(f) + 1 WHERE id = 2;
SELECT id, k FROM dd WHERE id = 2;
CREATE TABLE w (a INT DEFAULT 3, b INT DEFAULT (a + 1));
INSERT INTO w VALUES (10, 20);
SELECT DEFAULT(w.b), DEFAULT(dd.f) FROM dd JOIN w ON dd.id = 1;
SELECT DEFAULT(w.b), DEFAULT(a) FROM dd JOIN w ON 1;
DROP DATABASE dfx;
