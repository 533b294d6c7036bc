# A string of 5, 7, 9-11 or 13 digits read as a date (found by the difftest, seed 8 1:229:
# CAST(CONCAT(c + 3.0e10 - 1e0, 'ZßZ') AS DATE) is 2030-00-00 in MariaDB): a two-digit year,
# then two digits per field, the last one or two (13 digits: MariaDB warns for the dropped
# fraction digit, Cohort does not: left out). Recorded from MariaDB 10.11.
CREATE DATABASE digitsdate;
USE digitsdate;
SELECT CAST('30011' AS DATETIME) l5, CAST('3001011' AS DATETIME) l7, CAST('300101123' AS DATETIME) l9, CAST('3001011234' AS DATETIME) l10, CAST('30010112345' AS DATETIME) l11, CAST('200101123456789' AS DATETIME) l15, CAST('1234' AS DATETIME) l4;
SELECT CAST('30000000004' AS DATE) a, CAST('3000000000' AS DATE) b, CAST('300000000' AS DATE) c, CAST('30013' AS DATE) x, CAST('3001019' AS DATETIME) y, DATE('30011') z;
SELECT '30011' = DATE'2030-01-01', CAST('30000000004ZßZ' AS DATE), CAST(CONCAT(5 + (3.0e10 - 1e0), 'ZßZ') AS DATE);
CREATE TABLE td (d DATE, t DATETIME);
INSERT INTO td VALUES ('30011', '30010112345');
SELECT * FROM td;
