# Accounts that require a secure transport: REQUIRE NONE / SSL / X509 in CREATE USER,
# ALTER USER and GRANT, as SHOW GRANTS and SHOW CREATE USER show them. Recorded from
# MariaDB 10.11 with mariadb_golden.py from require_ssl.sql; the forms Cohort refuses
# (ISSUER, SUBJECT, CIPHER: 1235) are in require_ssl_refused.test.
CREATE USER tls_a@'%' IDENTIFIED BY 'pw' REQUIRE SSL;
SHOW GRANTS FOR tls_a@'%';
SHOW CREATE USER tls_a@'%';
CREATE USER tls_b, tls_c@'%' IDENTIFIED BY 'pw' REQUIRE X509;
SHOW CREATE USER tls_b;
SHOW CREATE USER tls_c;
CREATE USER tls_d REQUIRE NONE;
SHOW CREATE USER tls_d;
# ALTER USER without IDENTIFIED keeps the password.
ALTER USER tls_a REQUIRE NONE;
SHOW CREATE USER tls_a;
ALTER USER tls_a IDENTIFIED BY 'other' REQUIRE X509;
SHOW GRANTS FOR tls_a;
# GRANT without REQUIRE keeps it; with REQUIRE changes it.
GRANT ALL ON *.* TO tls_a;
SHOW GRANTS FOR tls_a;
GRANT ALL ON golden_src.* TO tls_d REQUIRE SSL;
SHOW GRANTS FOR tls_d;
GRANT ALL ON *.* TO tls_d REQUIRE NONE;
SHOW GRANTS FOR tls_d;
# REQUIRE needs an option (SSL AND X509, REQUIRE TLS: parse.rs tests, 1064 too).
CREATE USER tls_e REQUIRE;
GRANT ALL ON *.* TO tls_nobody REQUIRE SSL;
SHOW CREATE USER tls_nobody;
DROP USER tls_a, tls_b, tls_c, tls_d;
