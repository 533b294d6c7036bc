# NULLIF(a, b) compares as `a = b` does: a date conversion that failed (DATE(1), DATE(' z'))
# is the zero date there, and an integer compared with a date is read as a datetime, so
# NULLIF(5, DATE(1)) is NULL; warnings as the comparison's (NULLIF(5, DATE(1)) itself is a
# unit test in func/mod.rs: MariaDB warns once more there, for the 5). Found by the differential tester.
SELECT NULLIF(20200101, DATE('2020-01-01')), NULLIF(20200102, DATE('2020-01-01')), NULLIF(DATE('2020-01-01'), 20200101);
SELECT NULLIF('a', 'A'), NULLIF(1, '1x'), NULLIF(DATE('2020-01-01'), '2020-01-01x'), NULLIF(0.1e0, 0.1), NULLIF(NULL, 1), NULLIF(1, NULL), NULLIF('abc', 0);
SELECT DATE('2020-01-01') = '2020-01-01x', DATE('2020-01-01') = '2020-01-01 00:00:000', DATE('2020-01-01') = '2020-01-01 0x', DATE('2020-01-01') = '2020-02-30', DATE('2020-01-01') = 'abc', DATE('2020-01-01') = '2020-02-30x';
