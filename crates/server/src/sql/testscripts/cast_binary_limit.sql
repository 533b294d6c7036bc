# CAST(… AS BINARY(n)) pads with zero bytes up to max_allowed_packet; a longer n is warning
# 1301 (the SQL fuzzer's 4 GB allocation: CAST('x' AS BINARY(4294967295)) aborted the server).
# Expected outputs recorded from MariaDB 10.11 with mariadb_golden.py.
SELECT HEX(CAST('ab' AS BINARY(4))), LENGTH(CAST('ab' AS BINARY(1)));
SELECT LENGTH(CAST('a' AS BINARY(20000000)));
SHOW WARNINGS;
SELECT LENGTH(CAST('a' AS BINARY(2147483648)));
SELECT LENGTH(CAST('a' AS BINARY(4294967295)));
SELECT CAST('a' AS BINARY(4294967296));
