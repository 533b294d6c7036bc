# BENCHMARK(count, expr) as MariaDB 10.11 answers it (func/benchmark.rs). Expected outputs
# recorded from MariaDB 10.11 with mariadb_golden.py: edit benchmark_fn.sql, then regenerate
# benchmark_fn.test.
meta SELECT BENCHMARK(1000, MD5('a')) AS b;
SELECT BENCHMARK(0, 1), BENCHMARK(NULL, 1), BENCHMARK(10, NULL), BENCHMARK(2.5, 1);
SELECT BENCHMARK(-1, 1);
SHOW WARNINGS;
SELECT BENCHMARK(1, (SELECT 1 UNION SELECT 2));
SELECT BENCHMARK(1);
# Stopped by max_statement_time: still 0, and no error.
SET STATEMENT max_statement_time = 0.2 FOR SELECT BENCHMARK(1000000000, MD5('a'));
