# CAST(x AS FLOAT) is a 32-bit float (type FLOAT): rounded to its precision, past its range the
# nearest limit with Note 1264; as a string it shows the float's shortest digits. Found by the
# differential tester.
SELECT CAST(20210501 AS FLOAT), CAST(0.1 AS FLOAT), CAST('1.5x' AS FLOAT), CAST(1e-50 AS FLOAT), CAST(NULL AS FLOAT);
SELECT CAST(123456789 AS FLOAT) + 0, CAST(0.1 AS FLOAT) * 1, CAST(CAST(0.1 AS FLOAT) AS DOUBLE);
SELECT CAST(2.5 AS FLOAT) = 2.5, CAST(0.1 AS FLOAT) = 0.1, CONCAT(CAST(0.1 AS FLOAT)), CONCAT(CAST(20210501 AS FLOAT));
SELECT CAST(-1e300 AS FLOAT) < -3e38, CAST('1e39' AS FLOAT) > 3e38;
CREATE DATABASE cflt;
USE cflt;
CREATE TABLE t (f FLOAT);
INSERT INTO t VALUES (20210501), (3.4e38), (0.1);
SELECT f, CONCAT(f), CAST(f AS FLOAT) FROM t;
DROP DATABASE cflt;
