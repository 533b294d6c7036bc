# A number under 1 read as a datetime is the zero datetime and that fraction of a second, as
# MariaDB: CAST(0.5 AS DATETIME(1)) is 0000-00-00 00:00:00.5, so a failed date conversion (the
# zero date in a comparison) does not equal 7/11. A date-only number's fraction is still dropped.
# Found by the differential tester; the comparisons are a unit test in func/mod.rs (MariaDB
# warns for the number there, Cohort not yet).
SELECT CAST(0.5 AS DATETIME(1)), CAST(0.5 AS DATE), DATE(0.5), CAST(0 AS DATETIME), CAST(0.5e0 AS DATETIME(2));
CREATE DATABASE dfn;
CREATE TABLE dfn.t (d DATETIME(1), e DATE);
INSERT INTO dfn.t VALUES (0.5, 0.5);
SELECT * FROM dfn.t;
DROP DATABASE dfn;
