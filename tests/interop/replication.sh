#!/bin/bash
# Real MariaDB 10.11 replicas and change-data-capture clients following a Cohort primary
# (issue 22). The script starts its own Cohort (it restarts and kills it) and two MariaDB
# replicas on free ports:
#
#   1. replica "gtid" (MASTER_USE_GTID=slave_pos) and replica "file" (file/position from
#      binlog.000001:4, inside TLS: MASTER_SSL=1, the server certificate verified against the CA
#      Cohort generated in its data directory) follow through DDL, a table of every column type Cohort has (extremes,
#      NULLs, UTF-8, binary bytes), sysbench write load, FLUSH BINARY LOGS, STOP/START SLAVE on
#      a replica, a clean restart of Cohort and a kill -9; afterwards every table on each
#      replica equals Cohort's (ordered SELECT output, md5), and both replicas run without error;
#   2. mariadb-binlog --read-from-remote-server: one pass over every file (decodes, same
#      transactions as the files on disk), and --stop-never --raw (closed files byte-identical,
#      new transactions arrive);
#   3. python-mysql-replication (replication_cdc.py), file mode and MariaDB GTID mode: the same
#      rows, unsigned values and column names (binlog_row_metadata=FULL);
#   4. semi-sync crash test: a replica with rpl_semi_sync_slave_enabled (its acknowledgements
#      inside TLS, MASTER_SSL=1), Cohort with rpl_semi_sync_master_enabled (AFTER_SYNC),
#      concurrent inserts (semisync_load.py records every acknowledged one), kill -9 of Cohort
#      under load, the replica promoted (its relay log applied, STOP SLAVE): every acknowledged
#      insert is there, and no commit fell back to asynchronous (Rpl_semi_sync_master_no_tx 0);
#   5. gtid_reconnect.sh: the "gtid" replica, repointed at a Cohort of its own through
#      throttle_proxy.py, reconnects after clean stops and kills -9 of Cohort while it holds the
#      first part of a transaction ("GTID event skip N"), and goes on without error (1595 before
#      the fix in replication/start.rs); the table equals the primary's.
#
# The replicas are MariaDB's own mariadbd (Debian's mariadb-server), started here with
# mariadb-install-db in the work directory.
# Environment: COHORT_BIN [target/release/cohort],
#   COHORT_SERVE_FLAGS [] (extra flags for Cohort, e.g. --thread-handling pool-of-threads),
#   REPL_PORTS ["" = free ports] four ports: Cohort, replica gtid, replica file, spare,
#   INTEROP_WORKDIR, REPL_LOAD_SECONDS [8], REPL_RECONNECT_ROUNDS [6] and
#   REPL_RECONNECT_PORTS ["" = free ports] Cohort's and the proxy's (part 5).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"
: "${COHORT_BIN:=$REPO/target/release/cohort}"
: "${COHORT_SERVE_FLAGS:=}"
: "${INTEROP_WORKDIR:=$(mktemp -d /tmp/interop.XXXXXX)}"
: "${REPL_LOAD_SECONDS:=8}"
W=$INTEROP_WORKDIR/replication
rm -rf "$W"
mkdir -p "$W"

read -r P R1 R2 SPARE <<<"${REPL_PORTS:-$(free_port) $(free_port) $(free_port) $(free_port)}"
COHORT_PID=""

cohort() { timeout 60 mariadb -h127.0.0.1 -P"$P" -uroot --protocol=TCP -N -B -e "$1" </dev/null; }
# `on PORT SQL` (lib.sh) reads in utf8mb4 on both sides: the tables' contents are what is compared.

start_cohort() {
  "$COHORT_BIN" serve --port "$P" --bind 127.0.0.1 --datadir "$W/primary" --root-password "" \
    --server-id 1 --binlog-row-metadata FULL --max-binlog-size 4194304 $COHORT_SERVE_FLAGS "$@" \
    >>"$W/primary.log" 2>&1 &
  COHORT_PID=$!
  for _ in $(seq 1 120); do
    [ "$(cohort 'SELECT 1' 2>/dev/null)" == 1 ] && return 0
    sleep 0.5
  done
  return 1
}
stop_cohort() { # SIGTERM: a clean shutdown
  kill "$COHORT_PID" 2>/dev/null
  wait "$COHORT_PID" 2>/dev/null
}
kill_cohort() {
  kill -9 "$COHORT_PID" 2>/dev/null
  wait "$COHORT_PID" 2>/dev/null
}
start_replica() { # NAME PORT SERVER_ID [mariadbd args]
  local name=$1 port=$2 id=$3 d=$W/$1
  shift 3
  mkdir -p "$d"
  mariadb-install-db --user="$(id -un)" --datadir="$d" --auth-root-authentication-method=normal \
    >"$W/$name-start.log" 2>&1 || return 1
  mariadbd --no-defaults --user="$(id -un)" --datadir="$d" --port="$port" --bind-address=127.0.0.1 \
    --socket="$d/mysqld.sock" --pid-file="$d/mysqld.pid" --server-id="$id" --skip-log-bin \
    --innodb-buffer-pool-size=128M --innodb-log-file-size=48M --max-connections=100 \
    --skip-name-resolve "$@" >>"$W/$name-start.log" 2>&1 &
  for _ in $(seq 1 120); do
    on "$port" "SELECT 1" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  return 1
}
stop_replica() {
  local pid
  pid=$(cat "$W/$1/mysqld.pid" 2>/dev/null) || return 0
  kill "$pid" 2>/dev/null
  for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null
}
cleanup() {
  [ -n "$COHORT_PID" ] && kill -9 "$COHORT_PID" 2>/dev/null
  for r in gtid file semi; do [ -f "$W/$r/mysqld.pid" ] && stop_replica "$r"; done
}
trap cleanup EXIT

# The replica's SHOW SLAVE STATUS field.
slave_field() {
  timeout 60 mariadb -h127.0.0.1 -P"$1" -uroot --protocol=TCP -E -e "SHOW SLAVE STATUS" </dev/null | sed -n "s/^ *$2: //p"
}
# Wait (up to $3 s) until replica port $1 has applied GTID position $2.
caught_up() { [ "$(on "$1" "SELECT MASTER_GTID_WAIT('$2', ${3:-120})")" == 0 ]; }
# Every table of every database the primary has (not the system ones), sorted.
tables() {
  cohort "SELECT CONCAT(TABLE_SCHEMA, '.', TABLE_NAME) FROM information_schema.TABLES WHERE TABLE_SCHEMA NOT IN ('mysql','information_schema','performance_schema','sys') ORDER BY 1" 2>/dev/null ||
    for d in $(cohort "SHOW DATABASES" | grep -v -E '^(mysql|information_schema|performance_schema|sys)$'); do
      for t in $(cohort "SHOW TABLES FROM \`$d\`"); do echo "$d.$t"; done
    done
}
# md5 of a table's rows in primary-key order.
table_md5() { # PORT DB.TABLE
  local pk
  pk=$(on "$P" "SHOW COLUMNS FROM $2" | head -1 | cut -f1)
  on "$1" "SELECT * FROM $2 ORDER BY \`$pk\`" | md5sum | cut -d' ' -f1
}
compare_tables() { # REPLICA_PORT NAME
  local port=$1 name=$2 t a b n=0 bad=0
  for t in $(tables); do
    a=$(table_md5 "$P" "$t")
    b=$(table_md5 "$port" "$t" 2>&1)
    n=$((n + 1))
    if [ "$a" != "$b" ]; then
      bad=$((bad + 1))
      # Keep both sides' rows for the log: what differs, not only that it does.
      local pk
      pk=$(on "$P" "SHOW COLUMNS FROM $t" | head -1 | cut -f1)
      diff <(on "$P" "SELECT * FROM $t ORDER BY \`$pk\`") <(on "$port" "SELECT * FROM $t ORDER BY \`$pk\`" 2>&1) \
        >"$W/differs-$name-$t.diff" 2>&1
      fail "replication/$name/table $t" "replica differs from the primary (rows: $W/differs-$name-$t.diff)"
    fi
  done
  [ $n -gt 0 ] && [ $bad -eq 0 ] && pass "replication/$name: all $n tables equal the primary's (ordered rows, md5)"
}
replica_healthy() { # PORT NAME
  local io sql err
  io=$(slave_field "$1" Slave_IO_Running)
  sql=$(slave_field "$1" Slave_SQL_Running)
  err="$(slave_field "$1" Last_IO_Error)$(slave_field "$1" Last_SQL_Error)"
  check_eq "replication/$2/running without error" "$io $sql ${err:-none}" "Yes Yes none"
}

echo "=== replication: Cohort on $P, replicas on $R1 (gtid), $R2 (file); logs in $W"
start_cohort && pass "replication/cohort started" || { fail "replication/cohort started" "see $W/primary.log"; exit 1; }
start_replica gtid "$R1" 2 && start_replica file "$R2" 3 && pass "replication/replicas started" ||
  { fail "replication/replicas started" "see $W/*-start.log"; exit 1; }

# --- 1. DDL and every column type, before and after the replicas connect -----------------------
cohort "CREATE DATABASE rt; CREATE TABLE rt.types (
  id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED,
  mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED,
  d1 DECIMAL(10,2), d2 DECIMAL(65,30), d3 DECIMAL(5,0), f FLOAT, dbl DOUBLE,
  c CHAR(10), cb CHAR(5) COLLATE utf8mb4_bin, vc VARCHAR(300), vb VARBINARY(20), bn BINARY(4),
  tt TINYTEXT, tx TEXT, mt MEDIUMTEXT, lt LONGTEXT, tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB,
  dt DATE, dtm DATETIME, dt6 DATETIME(6), ts TIMESTAMP NULL, ts3 TIMESTAMP(3) NULL, yr YEAR,
  en ENUM('a','b') NOT NULL, st SET('x','y','z','w','v','u','t','s','r','m9','m10','m11','m12','m13','m14','m15','m16','m17','m18','m19','m20','m21','m22','m23','m24','m25','m26','m27','m28','m29','m30','m31','m32','m33','m34','m35','m36','m37','m38','m39'), js JSON)" &&
  cohort "INSERT INTO rt.types VALUES
  (1, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295, -9223372036854775808, 18446744073709551615,
   -99999999.99, 12345678901234567890123456789012345.123456789012345678901234567890, 99999, 1.5, -2.25e300,
   'abc', 'AbC', 'ünïcødé ✓ 日本', x'00ff10', x'01020304', 'tiny', 'text', 'medium', 'long', x'00', x'0102', x'ff', x'fe',
   '2024-02-29', '1999-12-31 23:59:59', '2000-01-01 00:00:00.123456', '2020-06-15 12:00:00', '2038-01-19 03:14:07.999', 2155,
   'b', 'r,y,x', '{\"a\": [1, \"ü\"]}'),
  (2, 127, 0, 32767, 0, 8388607, 0, 2147483647, 0, 9223372036854775807, 0,
   0.01, -0.000000000000000000000000000001, -99999, -0.5, 1e-300,
   '', '', '', '', x'00000000', '', '', '', '', '', '', '', '',
   '1000-01-01', '9999-12-31 23:59:59', '9999-12-31 23:59:59.999999', '1970-01-01 00:00:01', '1999-01-01 00:00:00.5', 0,
   'a', '', '[]'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   'a', NULL, NULL)" &&
  pass "replication/DDL and every column type on the primary" || fail "replication/DDL and every column type on the primary" "statements failed"

# utf8mb3 columns: a VARCHAR(80) has a 1-byte length in the row image (240 bytes at most), a
# CHAR(5) pads to 15 bytes; the replica, which built the table from the DDL text, must read them.
cohort "CREATE TABLE rt.mb3 (id INT PRIMARY KEY, v VARCHAR(80) CHARACTER SET utf8mb3, c CHAR(5) CHARACTER SET utf8mb3,
  w VARCHAR(90) COLLATE utf8mb3_bin, t TEXT, m VARCHAR(10) CHARACTER SET utf8mb4) DEFAULT CHARSET=utf8mb3;
  INSERT INTO rt.mb3 VALUES (1, REPEAT('é', 80), 'ééééé', REPEAT('€', 90), 'ünïcødé ✓ 日本', '😀'), (2, 'x', '', '', '', ''),
  (3, NULL, NULL, NULL, NULL, NULL)" &&
  pass "replication/utf8mb3 columns on the primary" || fail "replication/utf8mb3 columns on the primary" "statements failed"

# latin1 columns: row images carry latin1 bytes (one a character: a VARCHAR(300) has a 2-byte
# length, a CHAR(5) pads to 5 bytes), the table map latin1's collation ids and ENUM members.
cohort "CREATE TABLE rt.l1 (id INT PRIMARY KEY, v VARCHAR(300), c CHAR(5) COLLATE latin1_bin,
  g VARCHAR(20) COLLATE latin1_general_cs, t TEXT, e ENUM('a','ä'), m VARCHAR(10) CHARACTER SET utf8mb4,
  UNIQUE KEY (g)) DEFAULT CHARSET=latin1;
  INSERT INTO rt.l1 VALUES (1, REPEAT('é', 300), 'ÿŸ€‚ƒ', 'Größe', 'Œuvre ™ ‰', 'ä', 'ł😀'), (2, 'x', '', '', '', 'a', ''),
  (3, NULL, NULL, NULL, NULL, NULL, NULL)" &&
  pass "replication/latin1 columns on the primary" || fail "replication/latin1 columns on the primary" "statements failed"

cohort "CREATE DATABASE repl; CREATE TABLE rt.u (id INT PRIMARY KEY AUTO_INCREMENT, n BIGINT UNSIGNED NOT NULL, s VARCHAR(20))"
on "$R1" "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$P, MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1, MASTER_HEARTBEAT_PERIOD=1; START SLAVE" &&
  on "$R2" "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$P, MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=no, MASTER_LOG_FILE='binlog.000001', MASTER_LOG_POS=4, MASTER_CONNECT_RETRY=1, MASTER_SSL=1, MASTER_SSL_CA='$W/primary/ca.pem', MASTER_SSL_VERIFY_SERVER_CERT=1; START SLAVE" &&
  pass "replication/CHANGE MASTER TO Cohort, gtid and file mode (MASTER_SSL=1)" || fail "replication/CHANGE MASTER" "failed"

# DDL the replicas apply while they follow (Query events with their status variables).
cohort "ALTER TABLE rt.u ADD INDEX n_idx (n); CREATE UNIQUE INDEX s_idx ON rt.u (s); ALTER TABLE rt.u AUTO_INCREMENT = 1000;
  INSERT INTO rt.u (n, s) VALUES (1, 'a'), (18446744073709551615, 'max'); UPDATE rt.types SET vc = CONCAT(vc, '!') WHERE id = 1;
  DELETE FROM rt.types WHERE id = 3; UPDATE rt.l1 SET c = 'Äé', g = 'GRÖSSE' WHERE id = 2; DELETE FROM rt.l1 WHERE id = 3;
  INSERT INTO rt.l1 (id, v) VALUES (4, '€'); CREATE TABLE rt.gone (a INT PRIMARY KEY); INSERT INTO rt.gone VALUES (1); DROP TABLE rt.gone;
  DROP INDEX s_idx ON rt.u; CREATE TABLE rt.later (k VARCHAR(30) PRIMARY KEY, v DOUBLE); INSERT INTO rt.later VALUES ('x', 0.25)" &&
  pass "replication/DDL while the replicas follow" || fail "replication/DDL while the replicas follow" "statements failed"
# ALTER TABLE and RENAME TABLE (issue 21): rebuilds with converted values, a swap by renames.
cohort "ALTER TABLE rt.later ADD COLUMN w INT NOT NULL DEFAULT 3 FIRST, MODIFY v DECIMAL(10,3), RENAME COLUMN k TO key1, ADD KEY kv (v);
  INSERT INTO rt.later (key1, v) VALUES ('y', 1.5); ALTER TABLE rt.later DROP COLUMN w, ALGORITHM=COPY, LOCK=EXCLUSIVE;
  CREATE TABLE rt.swap (a INT PRIMARY KEY); RENAME TABLE rt.later TO rt.tmp, rt.swap TO rt.later, rt.tmp TO rt.swap;
  ALTER TABLE rt.swap RENAME TO rt.swapped, COMMENT = 'renamed'" &&
  pass "replication/ALTER TABLE and RENAME TABLE while the replicas follow" || fail "replication/ALTER TABLE and RENAME TABLE while the replicas follow" "statements failed"
# An ALTER filling rows from the statement's clock in a session time zone: the Query event
# carries the time (Q_HRNOW) and the zone, so the replicas fill the same values.
cohort "SET time_zone = '+03:00'; ALTER TABLE rt.u ADD COLUMN at6 DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6),
  ADD COLUMN nextday DATETIME DEFAULT (NOW() + INTERVAL 1 DAY), ADD COLUMN ts6 TIMESTAMP(6) NULL DEFAULT CURRENT_TIMESTAMP(6)" &&
  pass "replication/ALTER filling rows from the clock in a time zone" || fail "replication/ALTER filling rows from the clock in a time zone" "statement failed"

# FOREIGN KEY cascades (issue 21): a replica's engine cascades them itself, so the binlog must
# not give it the cascaded rows a second time (one-log mode keeps them for recovery, in events
# marked ignorable); rows written with foreign_key_checks = 0 carry NO_FOREIGN_KEY_CHECKS_F, so
# the replica applies an orphan row as the primary did.
cohort "CREATE TABLE rt.fkp (id INT PRIMARY KEY, code INT UNIQUE);
  CREATE TABLE rt.fkc (id INT PRIMARY KEY, p INT, pc INT, KEY (p),
    FOREIGN KEY (p) REFERENCES rt.fkp (id) ON DELETE CASCADE ON UPDATE CASCADE,
    FOREIGN KEY (pc) REFERENCES rt.fkp (code) ON DELETE SET NULL);
  CREATE TABLE rt.fktree (id INT PRIMARY KEY, parent INT, KEY (parent),
    FOREIGN KEY (parent) REFERENCES rt.fktree (id) ON DELETE CASCADE);
  INSERT INTO rt.fkp VALUES (1, 10), (2, 20), (3, 30);
  INSERT INTO rt.fkc VALUES (1, 1, 10), (2, 1, 20), (3, 2, 20), (4, 3, 30);
  INSERT INTO rt.fktree VALUES (1, NULL), (2, 1), (3, 2), (4, 2), (5, NULL);
  DELETE FROM rt.fkp WHERE id = 1; UPDATE rt.fkp SET id = 22 WHERE id = 2; DELETE FROM rt.fkp WHERE code = 30;
  BEGIN; UPDATE rt.fkc SET pc = NULL WHERE id = 3; DELETE FROM rt.fktree WHERE id = 1; INSERT INTO rt.fktree VALUES (6, 5); COMMIT;
  SET foreign_key_checks = 0; INSERT INTO rt.fkc VALUES (9, 99, NULL); SET foreign_key_checks = 1" &&
  pass "replication/FOREIGN KEY cascades and foreign_key_checks = 0 while the replicas follow" ||
  fail "replication/FOREIGN KEY cascades while the replicas follow" "statements failed"

# --- sysbench write load with rotations and a replica stopped and started --------------------
SB="sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$P --mysql-user=root --mysql-password= --mysql-db=repl --tables=2 --table-size=5000 --mysql-ignore-errors=1213,1205"
$SB oltp_write_only prepare >"$W/sb-prepare.log" 2>&1 && pass "replication/sysbench prepare" || fail "replication/sysbench prepare" "see $W/sb-prepare.log"
$SB --threads=8 --time="$REPL_LOAD_SECONDS" --report-interval=0 oltp_write_only run >"$W/sb-run1.log" 2>&1 &
SBPID=$!
sleep 2
cohort "FLUSH BINARY LOGS"
on "$R1" "STOP SLAVE"
sleep 2
cohort "FLUSH BINARY LOGS"
on "$R1" "START SLAVE"
wait $SBPID && pass "replication/sysbench write load (rotations, STOP/START SLAVE)" || fail "replication/sysbench write load" "see $W/sb-run1.log"

# --- a clean restart, then a kill -9, each followed by more writes ----------------------------
stop_cohort
start_cohort && pass "replication/clean restart" || fail "replication/clean restart" "Cohort did not come back"
$SB --threads=4 --time=3 --report-interval=0 oltp_write_only run >"$W/sb-run2.log" 2>&1 &
SBPID=$!
sleep 2
kill_cohort
wait $SBPID
start_cohort && pass "replication/restart after kill -9" || fail "replication/restart after kill -9" "Cohort did not come back"
cohort "INSERT INTO rt.u (n, s) VALUES (42, 'after kill -9')"
$SB --threads=4 --time=2 --report-interval=0 oltp_write_only run >"$W/sb-run3.log" 2>&1

POS=$(cohort "SELECT @@gtid_binlog_pos")
for r in "$R1:gtid" "$R2:file"; do
  port=${r%%:*} name=${r#*:}
  if caught_up "$port" "$POS" 180; then pass "replication/$name caught up with $POS"; else fail "replication/$name caught up" "$(slave_field "$port" Gtid_IO_Pos) / $(slave_field "$port" Last_IO_Error) $(slave_field "$port" Last_SQL_Error)"; fi
  replica_healthy "$port" "$name"
  compare_tables "$port" "$name"
done
check_eq "replication/file replica inside TLS (Master_SSL_Allowed, verified certificate)" \
  "$(slave_field "$R2" Master_SSL_Allowed) $(slave_field "$R2" Master_SSL_Verify_Server_Cert)" "Yes Yes"
check_eq "replication/SHOW SLAVE HOSTS lists both replicas" "$(cohort 'SHOW SLAVE HOSTS' | cut -f1,3 | tr '\t\n' ': ')" "2:$R1 3:$R2 "

# --- 2. mariadb-binlog --read-from-remote-server ---------------------------------------------
first=$(cohort "SHOW BINARY LOGS" | head -1 | cut -f1)
if timeout 120 mariadb-binlog --read-from-remote-server --to-last-log -h127.0.0.1 -P"$P" -uroot "$first" >"$W/remote.txt" 2>"$W/remote.err"; then
  pass "replication/mariadb-binlog remote: one pass over every file"
else
  fail "replication/mariadb-binlog remote one pass" "$(tail -2 "$W/remote.err")"
fi
local_gtids=0
for f in $(cohort "SHOW BINARY LOGS" | cut -f1); do
  local_gtids=$((local_gtids + $(mariadb-binlog "$W/primary/$f" 2>/dev/null | grep -c "GTID [0-9]*-[0-9]*-[0-9]*")))
done
check_eq "replication/mariadb-binlog remote: as many transactions as the files on disk" "$(grep -c "GTID [0-9]*-[0-9]*-[0-9]*" "$W/remote.txt")" "$local_gtids"
mkdir -p "$W/raw"
last=$(cohort "SHOW MASTER STATUS" | cut -f1)
(cd "$W/raw" && exec timeout 120 mariadb-binlog --read-from-remote-server --raw --stop-never --stop-never-slave-server-id=77 -h127.0.0.1 -P"$P" -uroot "$first" >"$W/raw.log" 2>&1) &
RAWPID=$!
sleep 3
cohort "INSERT INTO rt.u (n, s) VALUES (4242, 'stop-never'); FLUSH BINARY LOGS; INSERT INTO rt.u (n, s) VALUES (4243, 'next file')"
# The client copies every file first (tens of MB): wait until the transaction written after
# the rotation arrives in the newest file it writes, or it ends, or 90 s pass.
followed=0
for _ in $(seq 1 90); do
  newest=$(ls "$W/raw" | sort | tail -1)
  if [ -n "$newest" ] && mariadb-binlog -vv --base64-output=decode-rows "$W/raw/$newest" 2>/dev/null | grep -q "@2=4243"; then
    followed=1
    break
  fi
  kill -0 "$RAWPID" 2>/dev/null || break
  sleep 1
done
if [ $followed -eq 1 ] && kill -0 "$RAWPID" 2>/dev/null; then
  pass "replication/mariadb-binlog --stop-never follows new transactions into the next file"
else
  fail "replication/mariadb-binlog --stop-never" "the transaction written after the rotation is not in ${newest:-any file} ($(tail -1 "$W/raw.log"))"
fi
kill "$RAWPID" 2>/dev/null
wait "$RAWPID" 2>/dev/null
# Byte-identical, except that a dump clears the Format_description's in-use flag (byte 22,
# LOG_EVENT_BINLOG_IN_USE_F; its CRC is computed without it), as MariaDB's does: the file
# that was open when Cohort was killed -9 keeps it set on disk.
same_file() {
  [ "$(stat -c %s "$1")" == "$(stat -c %s "$2")" ] || return 1
  local d
  d=$(cmp -l "$1" "$2" | awk '!($1 == 22 && $2 == 0 && $3 == 1)' | wc -l)
  [ "$d" -eq 0 ]
}
same=0 differ=0
for f in $(cohort "SHOW BINARY LOGS" | cut -f1 | head -n -1); do
  if same_file "$W/raw/$f" "$W/primary/$f"; then same=$((same + 1)); else differ=$((differ + 1)); fi
done
check_eq "replication/mariadb-binlog --stop-never --raw: closed files byte-identical" "$differ" 0 "$same identical"

# --- 3. python-mysql-replication ---------------------------------------------------------------
if python3 -c 'import pymysqlreplication' 2>/dev/null; then
  python3 "$HERE/replication_cdc.py" --port "$P" --first "$first" 2>&1
else
  fail "replication/python-mysql-replication" "not installed (pip install mysql-replication)"
fi

# --- 4. semi-sync: kill -9 of the primary under load, the replica promoted ---------------------
start_replica semi "$SPARE" 4 --rpl-semi-sync-slave-enabled=ON && pass "replication/semi-sync replica started" || fail "replication/semi-sync replica" "see $W/semi-start.log"
# The replica starts at the primary's current position (nothing earlier to apply), once
# semi-sync is on (a replica asks at connect whether the primary has it).
cohort "SET GLOBAL rpl_semi_sync_master_timeout = 10000; SET GLOBAL rpl_semi_sync_master_enabled = ON"
POS=$(cohort "SELECT @@gtid_binlog_pos")
on "$SPARE" "SET GLOBAL gtid_slave_pos = '$POS'; CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$P, MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1, MASTER_SSL=1, MASTER_SSL_CA='$W/primary/ca.pem'; START SLAVE"
for _ in $(seq 1 40); do
  [ "$(cohort "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_clients'" | cut -f2)" == 1 ] && break
  sleep 0.5
done
cohort "CREATE DATABASE semi; CREATE TABLE semi.acked (id BIGINT PRIMARY KEY, t VARCHAR(20))"
POS=$(cohort "SELECT @@gtid_binlog_pos")
caught_up "$SPARE" "$POS" 120 || fail "replication/semi-sync replica caught up" "$(slave_field "$SPARE" Last_IO_Error)"
check_eq "replication/semi-sync status ON with the replica" "$(cohort "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_status'" | cut -f2)" ON
NO_TX0=$(cohort "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_no_tx'" | cut -f2)
python3 "$HERE/semisync_load.py" --port "$P" --threads 16 --out "$W/acked.txt" >"$W/semisync-load.log" 2>&1 &
LOADPID=$!
sleep 4
YES_TX=$(cohort "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_yes_tx'" | cut -f2)
NO_TX=$(cohort "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_no_tx'" | cut -f2)
kill_cohort
wait $LOADPID
# Promote: let the SQL thread apply what the I/O thread received, then stop replicating.
on "$SPARE" "STOP SLAVE IO_THREAD"
for _ in $(seq 1 120); do
  [ "$(slave_field "$SPARE" Slave_SQL_Running_State)" == "Slave has read all relay log; waiting for more updates" ] && break
  sleep 0.5
done
on "$SPARE" "STOP SLAVE"
on "$SPARE" "SELECT id FROM semi.acked" | sort >"$W/on-replica.txt"
acked=$(wc -l <"$W/acked.txt")
missing=$(sort "$W/acked.txt" | comm -23 - "$W/on-replica.txt" | wc -l)
if [ "$acked" -gt 100 ] && [ "$missing" -eq 0 ]; then
  pass "replication/semi-sync: all $acked acknowledged commits are on the promoted replica ($(wc -l <"$W/on-replica.txt") rows there)"
else
  fail "replication/semi-sync crash" "$missing of $acked acknowledged commits missing on the replica"
fi
check_eq "replication/semi-sync: no commit fell back to asynchronous under load ($YES_TX acknowledged by the replica)" "$NO_TX" "$NO_TX0"

# --- 5. a GTID replica reconnecting inside a group after Cohort stops or is killed -----------
# gtid_reconnect.sh: its own Cohort (1 MiB binlog files, 2.5 MB transactions), the "gtid"
# replica repointed at it through a throttling proxy, REPL_RECONNECT_ROUNDS clean stops and
# kills -9 while the replica holds part of a group; the replica must skip what it has and go on.
on "$R2" "STOP SLAVE" >/dev/null 2>&1 # it followed the Cohort killed above; nothing more to read
read -r RP RX <<<"${REPL_RECONNECT_PORTS:-$(free_port) $(free_port)}"
COHORT_BIN="$COHORT_BIN" COHORT_SERVE_FLAGS="$COHORT_SERVE_FLAGS" INTEROP_WORKDIR="$W" \
  P="$RP" X="$RX" R="$R1" N="${REPL_RECONNECT_ROUNDS:-6}" REPLICA_LOG="$W/gtid-start.log" \
  "$HERE/gtid_reconnect.sh" >"$W/gtid-reconnect.log" 2>&1
grep -v '^PASS: \|^FAIL: ' "$W/gtid-reconnect.log"
while read -r line; do
  case "$line" in
  PASS:*) pass "replication/${line#PASS: }" ;;
  FAIL:*) line=${line#FAIL: } && fail "replication/${line%%: *}" "${line#*: }" ;;
  esac
done < <(grep '^PASS: \|^FAIL: ' "$W/gtid-reconnect.log")
grep -q '^PASS: ' "$W/gtid-reconnect.log" || fail "replication/gtid-reconnect" "no result, see $W/gtid-reconnect.log"

echo "replication: $INTEROP_PASSED passed, $INTEROP_FAILED failed"
[ "$INTEROP_FAILED" -eq 0 ]
