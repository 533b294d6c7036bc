# COLLATE on an expression that can only be NULL: MariaDB types CONCAT(NULL) binary with
# IGNORABLE derivation, and any COLLATE applies to it; a binary string that is not of NULLs
# is 1253. Found by the differential tester (`CONCAT(NULL) COLLATE utf8mb4_bin`). Recorded
# from MariaDB 10.11 with mariadb_golden.py.
SELECT CONCAT(NULL) COLLATE utf8mb4_bin, CONCAT(NULL, NULL) COLLATE utf8mb4_general_ci;
SELECT COLLATION(CONCAT(NULL)), COERCIBILITY(CONCAT(NULL)), COERCIBILITY(CONCAT(NULL, NULL));
SELECT COLLATION(CONCAT(NULL) COLLATE utf8mb4_unicode_ci), COERCIBILITY(CONCAT(NULL) COLLATE utf8mb4_bin);
SELECT IF(1, NULL, NULL) COLLATE utf8mb4_bin, LOWER(NULL) COLLATE utf8mb4_bin;
SELECT CONCAT(NULL) COLLATE utf8mb4_general_ci >= 'zA';
SELECT 'a' = CONCAT(NULL) COLLATE utf8mb4_bin;
SELECT CONCAT(_binary'a') COLLATE utf8mb4_bin;
SELECT CAST(NULL AS BINARY) COLLATE utf8mb4_bin;
SELECT CONCAT(NULL, _binary'x') COLLATE utf8mb4_bin;
SELECT CONCAT(NULL) COLLATE latin1_bin, CONCAT(NULL) COLLATE latin1_swedish_ci = 'a';
