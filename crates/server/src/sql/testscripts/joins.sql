# Joins (issue 20): expected outputs recorded from MariaDB 10.11 with mariadb_golden.py (see
# its header): edit joins.sql, then regenerate joins.test.
CREATE DATABASE jdb;
USE jdb;
CREATE TABLE t (a INT PRIMARY KEY, b INT, c VARCHAR(10), KEY kb (b));
CREATE TABLE u (a INT NOT NULL, d INT NOT NULL, e VARCHAR(10), PRIMARY KEY (a, d));
CREATE TABLE v (x INT, y VARCHAR(10), UNIQUE KEY ux (x));
CREATE TABLE w (b INT, z INT);
INSERT INTO t VALUES (1, 10, 'one'), (2, 20, 'two'), (3, NULL, 'three'), (4, 10, 'four');
INSERT INTO u VALUES (1, 1, 'u11'), (1, 2, 'u12'), (2, 1, 'u21'), (5, 1, 'u51');
INSERT INTO v VALUES (10, 'ten'), (20, 'twenty'), (NULL, 'null'), (30, 'thirty');
INSERT INTO w VALUES (10, 1), (10, 2), (NULL, 3), (40, 4);

# Inner joins: ON, WHERE, comma, CROSS JOIN, STRAIGHT_JOIN, self join.
SELECT t.a, u.d, u.e FROM t JOIN u ON t.a = u.a ORDER BY t.a, u.d;
SELECT t.a, u.d FROM t INNER JOIN u ON t.a = u.a AND u.d = 2 ORDER BY 1;
SELECT t.a, u.d FROM t, u WHERE t.a = u.a AND t.c LIKE 't%' ORDER BY 1, 2;
SELECT COUNT(*) FROM t CROSS JOIN u;
SELECT t.a, v.y FROM t STRAIGHT_JOIN v ON t.b = v.x ORDER BY t.a;
SELECT STRAIGHT_JOIN t.a, v.y FROM v, t WHERE t.b = v.x ORDER BY t.a;
SELECT x.a, y.a FROM t x JOIN t y ON x.b = y.b AND x.a < y.a ORDER BY 1, 2;
SELECT t.a, w.z FROM t JOIN w ON t.b = w.b ORDER BY 1, 2;
SELECT t.a FROM t JOIN u ON 1 = 0;
SELECT t.a, u.d, v.y FROM t JOIN u ON t.a = u.a JOIN v ON v.x = t.b ORDER BY 1, 2;
SELECT t.a, u.d, v.y FROM t JOIN (u JOIN v ON u.d * 10 = v.x) ON t.a = u.a ORDER BY 1, 2;

# A constant reaches the other side of a join equality (t.a = 1 and u.a = t.a: u.a = 1),
# in WHERE, in an inner join's ON, in an outer join's ON, and through a chain.
SELECT t.a, u.d FROM t, u WHERE u.a = t.a AND t.a = 1 ORDER BY 2;
SELECT t.a, u.d FROM t JOIN u ON u.a = t.a WHERE t.a = 2.0 ORDER BY 2;
SELECT t.a, u.d FROM t JOIN u ON u.a = t.a WHERE t.a = 1.5;
SELECT t.a, u.d FROM t LEFT JOIN u ON u.a = t.a AND t.a = 1 ORDER BY 1, 2;
SELECT t.a, u.d, v.y FROM t JOIN u ON u.a = t.a JOIN v ON v.x = u.d * 10 WHERE t.a = 1 ORDER BY 2;
SELECT x.a, y.a, z.a FROM t x, t y, t z WHERE x.a = y.a AND y.a = z.a AND z.a = 4;

# Outer joins: NULL-complemented rows; ON filters the inner side, WHERE the result.
SELECT t.a, u.d FROM t LEFT JOIN u ON t.a = u.a ORDER BY t.a, u.d;
SELECT t.a, u.d FROM t LEFT JOIN u ON t.a = u.a AND u.d = 2 ORDER BY t.a;
SELECT t.a, u.d FROM t LEFT JOIN u ON t.a = u.a WHERE u.d = 2 ORDER BY t.a;
SELECT t.a FROM t LEFT JOIN u ON t.a = u.a WHERE u.a IS NULL ORDER BY t.a;
SELECT t.a, u.d FROM t LEFT JOIN u ON t.a = u.a AND t.c = 'one' ORDER BY t.a, u.d;
SELECT t.a, u.d FROM u RIGHT JOIN t ON t.a = u.a ORDER BY t.a, u.d;
SELECT u.a, u.d, t.c FROM t RIGHT JOIN u ON t.a = u.a ORDER BY 1, 2;
SELECT t.a, u.d, v.y FROM t LEFT JOIN u ON t.a = u.a LEFT JOIN v ON v.x = u.d * 10 ORDER BY 1, 2;
SELECT t.a, u.d, v.y FROM t LEFT JOIN (u JOIN v ON v.x = u.d * 10) ON t.a = u.a ORDER BY 1, 2;
SELECT t.a, w.z FROM t LEFT JOIN w ON t.b = w.b ORDER BY 1, 2;
SELECT t.a, u.d, w.z FROM t LEFT JOIN u ON t.a = u.a JOIN w ON w.b = t.b ORDER BY 1, 2, 3;
SELECT COUNT(*), COUNT(u.a), SUM(u.d) FROM t LEFT JOIN u ON t.a = u.a;

# USING and NATURAL: the merged column once, first; `*` and `t.*`.
SELECT * FROM t JOIN u USING (a) ORDER BY a, d;
SELECT * FROM t LEFT JOIN u USING (a) ORDER BY a, d;
SELECT * FROM t RIGHT JOIN u USING (a) ORDER BY a, d;
SELECT * FROM t NATURAL JOIN w ORDER BY a, z;
SELECT * FROM t NATURAL LEFT JOIN w ORDER BY a, z;
SELECT a, t.a, u.a FROM t LEFT JOIN u USING (a) ORDER BY 1, u.d;
SELECT u.*, t.c FROM t JOIN u USING (a) ORDER BY u.a, u.d;
SELECT * FROM t, u WHERE t.a = u.a AND u.d = 1 ORDER BY t.a;

# Grouping, DISTINCT, ORDER BY and LIMIT over joins.
SELECT t.b, COUNT(*), MAX(u.e) FROM t JOIN u ON t.a = u.a GROUP BY t.b ORDER BY t.b;
SELECT DISTINCT t.b FROM t JOIN w ON t.b = w.b ORDER BY 1;
SELECT t.a, u.d FROM t JOIN u ON t.a = u.a ORDER BY u.e DESC LIMIT 2;
SELECT t.a, u.d FROM t JOIN u ON t.a = u.a ORDER BY t.a, u.d LIMIT 1, 2;
SELECT t.c, COUNT(u.a) n FROM t LEFT JOIN u ON t.a = u.a GROUP BY t.c HAVING n > 0 ORDER BY t.c;

# Names: ambiguous and unknown columns, repeated aliases, too many tables.
SELECT a FROM t JOIN u ON t.a = u.a;
SELECT 1 FROM t JOIN u ON t.a = u.a WHERE a = 1;
SELECT 1 FROM t, t;
SELECT 1 FROM t x, u x;
SELECT 1 FROM t JOIN u USING (nope);
SELECT 1 FROM t t1, t t2, t t3, t t4, t t5, t t6, t t7, t t8, t t9, t t10, t t11, t t12, t t13, t t14, t t15, t t16, t t17, t t18, t t19, t t20, t t21, t t22, t t23, t t24, t t25, t t26, t t27, t t28, t t29, t t30, t t31, t t32, t t33, t t34, t t35, t t36, t t37, t t38, t t39, t t40, t t41, t t42, t t43, t t44, t t45, t t46, t t47, t t48, t t49, t t50, t t51, t t52, t t53, t t54, t t55, t t56, t t57, t t58, t t59, t t60, t t61, t t62;
SELECT COUNT(*) FROM t t1, t t2, t t3, t t4, t t5, t t6, t t7, t t8, t t9, t t10, t t11, t t12, t t13, t t14, t t15, t t16, t t17, t t18, t t19, t t20, t t21, t t22, t t23, t t24, t t25, t t26, t t27, t t28, t t29, t t30, t t31, t t32, t t33, t t34, t t35, t t36, t t37, t t38, t t39, t t40, t t41, t t42, t t43, t t44, t t45, t t46, t t47, t t48, t t49, t t50, t t51, t t52, t t53, t t54, t t55, t t56, t t57, t t58, t t59, t t60, t t61 WHERE t1.a = 1 AND t2.a = 1 AND t3.a = 1 AND t4.a = 1 AND t5.a = 1 AND t6.a = 1 AND t7.a = 1 AND t8.a = 1 AND t9.a = 1 AND t10.a = 1 AND t11.a = 1 AND t12.a = 1 AND t13.a = 1 AND t14.a = 1 AND t15.a = 1 AND t16.a = 1 AND t17.a = 1 AND t18.a = 1 AND t19.a = 1 AND t20.a = 1 AND t21.a = 1 AND t22.a = 1 AND t23.a = 1 AND t24.a = 1 AND t25.a = 1 AND t26.a = 1 AND t27.a = 1 AND t28.a = 1 AND t29.a = 1 AND t30.a = 1 AND t31.a = 1 AND t32.a = 1 AND t33.a = 1 AND t34.a = 1 AND t35.a = 1 AND t36.a = 1 AND t37.a = 1 AND t38.a = 1 AND t39.a = 1 AND t40.a = 1 AND t41.a = 1 AND t42.a = 1 AND t43.a = 1 AND t44.a = 1 AND t45.a = 1 AND t46.a = 1 AND t47.a = 1 AND t48.a = 1 AND t49.a = 1 AND t50.a = 1 AND t51.a = 1 AND t52.a = 1 AND t53.a = 1 AND t54.a = 1 AND t55.a = 1 AND t56.a = 1 AND t57.a = 1 AND t58.a = 1 AND t59.a = 1 AND t60.a = 1 AND t61.a = 1;

# Result metadata: table alias, org_table, nullable columns of an outer join's inner side.
meta SELECT x.a, u.d, u.e, x.b FROM t x LEFT JOIN u ON x.a = u.a WHERE x.a = 2;
meta SELECT * FROM t x JOIN v ON x.b = v.x WHERE x.a = 2;

# INSERT … SELECT from a join.
CREATE TABLE j (a INT, e VARCHAR(10));
INSERT INTO j SELECT t.a, u.e FROM t JOIN u ON t.a = u.a;
SELECT * FROM j ORDER BY a, e;
