# The session state tracking variables (CLIENT_SESSION_TRACK, session/track.rs), recorded from
# MariaDB 10.11 with mariadb_golden.py: edit session_track.sql, then regenerate
# session_track.test. What the OK packets carry is checked on the wire (protocol crate tests,
# tests/drivers/mysql2_suite.js). Not here: session_track_transaction_info = STATE or
# CHARACTERISTICS, which Cohort refuses with 1235.
SELECT @@session_track_system_variables, @@session_track_schema, @@session_track_state_change, @@session_track_transaction_info;
SELECT @@global.session_track_system_variables, @@global.session_track_schema;
SHOW VARIABLES LIKE 'session_track%';
SET session_track_system_variables = 'Time_Zone, autocommit,autocommit';
SELECT @@session_track_system_variables;
SET session_track_system_variables = 'foo,autocommit';
SET session_track_system_variables = '*,autocommit';
SET session_track_system_variables = NULL;
SET session_track_system_variables = '*';
SELECT @@session_track_system_variables;
SET session_track_system_variables = '';
SELECT CONCAT('[', @@session_track_system_variables, ']') AS v;
SET session_track_system_variables = DEFAULT;
SELECT @@session_track_system_variables;
SET session_track_schema = OFF;
SELECT @@session_track_schema;
SET session_track_state_change = 'x';
SET session_track_state_change = ON;
SELECT @@session_track_state_change;
SET session_track_transaction_info = 'bogus';
SET session_track_transaction_info = OFF;
SELECT @@session_track_transaction_info;
SET GLOBAL session_track_schema = OFF;
SELECT @@global.session_track_schema, @@session_track_schema;
SET GLOBAL session_track_schema = DEFAULT;
SELECT @@global.session_track_schema;
