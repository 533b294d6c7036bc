# latin1 strings made by an introducer, CONVERT … USING or CAST … CHARACTER SET are of latin1's
# collation, and the functions that read bytes read their latin1 bytes (the connection helper's
# conversions met the latin1 character set at the merge). Recorded from MariaDB 10.11 with
# mariadb_golden.py.
SELECT HEX(_latin1 x'E9'), COLLATION(_latin1 x'E9'), MD5(_latin1 x'E9'), PASSWORD(_latin1 x'E9');
SELECT HEX(_latin1 'é'), LENGTH(_latin1 'é'), CHAR_LENGTH(_latin1 'é');
SELECT HEX(CONVERT('é€' USING latin1)), COLLATION(CONVERT('é' USING latin1)), LENGTH(CONVERT('é€' USING latin1));
SELECT CONVERT('é' USING latin1) = 'É', CONVERT('ß' USING latin1) = 'ss', HEX(CAST('é' AS CHAR CHARACTER SET latin1));
SELECT PASSWORD(CONVERT('é' USING latin1)), SHA1(CONVERT('ÿ' USING latin1)), CRC32(_latin1 x'FF');
SELECT COLLATION(CONVERT('x' USING utf8mb3)), COLLATION(_utf8mb3'x'), HEX(CONVERT('é' USING utf8mb3));
