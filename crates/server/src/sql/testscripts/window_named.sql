# Named windows (WINDOW w AS (…)): MariaDB 10.11 binds and checks every definition, in order,
# even one no window function uses. Recorded with mariadb_golden.py.
CREATE DATABASE winnamed;
USE winnamed;
CREATE TABLE t (id INT PRIMARY KEY, g INT, a INT);
INSERT INTO t VALUES (1, 1, 10), (2, 1, 20), (3, 2, 30);

# Unknown columns in an unused window: 1054 ('GROUP BY' for PARTITION BY).
SELECT id FROM t WINDOW w AS (ORDER BY nosuch);
SELECT id FROM t WINDOW w AS (PARTITION BY nosuch);
SELECT id FROM t WINDOW w AS (ORDER BY SUM(nosuch));
SELECT id FROM t WINDOW w AS (ORDER BY (SELECT nosuch));
SELECT id FROM t WINDOW w AS (PARTITION BY nosuch ORDER BY nosuch3), w2 AS (ORDER BY nosuch4);
SELECT id, SUM(a) OVER w FROM t WINDOW w AS (ORDER BY x);
SELECT id AS x FROM t WINDOW w AS (ORDER BY x) ORDER BY id;
SELECT id FROM t WINDOW w AS (ORDER BY id), w2 AS (PARTITION BY g ORDER BY a) ORDER BY id;
# A window function in a window definition; an aggregate there groups the query.
SELECT id FROM t WINDOW w AS (ORDER BY ROW_NUMBER() OVER ());
SELECT COUNT(*) FROM t WINDOW w AS (ORDER BY SUM(a));
SELECT id FROM t WINDOW w AS (ORDER BY (SELECT MAX(a) FROM t)) ORDER BY id;

# Errors in the definitions themselves: the first one in order wins.
SELECT id, SUM(a) OVER w2 FROM t WINDOW w AS (ORDER BY id);
SELECT id, SUM(a) OVER w FROM t WINDOW w AS (ORDER BY id), w AS (ORDER BY a);
SELECT id FROM t WINDOW w AS (), w AS ();
SELECT id FROM t WINDOW w AS (ORDER BY nosuch), w AS (ORDER BY id);
SELECT id FROM t WINDOW w AS (ORDER BY id), w2 AS (w ORDER BY nosuch);
SELECT id FROM t WINDOW w AS (ORDER BY nosuch), w2 AS (w ORDER BY a);
SELECT id FROM t WINDOW w2 AS (nosuch);
SELECT id FROM t WINDOW w1 AS (w2), w2 AS (w1);
SELECT id FROM t WINDOW w1 AS (w1);
SELECT id FROM t WINDOW w1 AS (w2), w2 AS (ORDER BY id);
SELECT id, SUM(a) OVER w1 FROM t WINDOW w1 AS (w2), w2 AS (ORDER BY id);
SELECT id FROM t WINDOW w AS (PARTITION BY g), w2 AS (w PARTITION BY a);
SELECT id FROM t WINDOW w1 AS (ORDER BY id), w2 AS (w1 ORDER BY a);
SELECT id FROM t WINDOW w1 AS (ORDER BY id ROWS 1 PRECEDING), w2 AS (w1);
SELECT id, SUM(a) OVER w2 FROM t WINDOW w AS (PARTITION BY g), w2 AS (w ORDER BY a) ORDER BY id;

# Frames of unused windows.
SELECT id FROM t WINDOW w AS (ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 1 PRECEDING) ORDER BY id;
SELECT id FROM t WINDOW w AS (ORDER BY id RANGE 1 PRECEDING) ORDER BY id;
SELECT id FROM t WINDOW w AS (RANGE 1 PRECEDING);
SELECT id FROM t WINDOW w AS (ORDER BY id, a RANGE 1 PRECEDING);
SELECT id FROM t WINDOW w AS (ORDER BY id ROWS 1.5 PRECEDING);
SELECT id FROM t WINDOW w AS (ORDER BY id ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW);
SELECT id FROM t WINDOW w AS (ORDER BY CAST(id AS CHAR) RANGE 1 PRECEDING);
SELECT id FROM t WINDOW w AS (PARTITION BY g), w2 AS (w RANGE 1 PRECEDING);
SELECT id FROM t WINDOW w AS (ORDER BY a), w2 AS (w RANGE 1 PRECEDING) ORDER BY id;

# Errors outside the WINDOW clause come first.
SELECT nosuch2 FROM t WINDOW w AS (ORDER BY nosuch);
SELECT id FROM t WHERE nosuch2 = 1 WINDOW w AS (ORDER BY nosuch);
SELECT id FROM t WINDOW w AS (ORDER BY nosuch) ORDER BY nosuch2;
SELECT id FROM t GROUP BY nosuch2 WINDOW w AS (ORDER BY nosuch);
SELECT id FROM t WINDOW w AS (ORDER BY id) UNION SELECT id FROM t WINDOW w AS (ORDER BY nosuch);
