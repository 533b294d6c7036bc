#!/bin/bash
# Point-in-time recovery the MariaDB way: `mariadb-binlog <datadir>/binlog.00000N [--start-position
# | --stop-position | --stop-datetime] | mariadb` replays a binlog into a fresh Cohort, which then
# holds the same tables (CHECKSUM TABLE, computed as MariaDB computes it) as the primary had at
# that point. The script starts its own Cohorts and one MariaDB 10.11 (binlog_format=ROW):
#
#   (a) a workload on a Cohort primary — DDL (CREATE DATABASE / TABLE, ALTER ADD COLUMN), inserts,
#       updates and deletes of every column type (integers signed and unsigned at their
#       extremes, DECIMAL, DOUBLE, FLOAT, VARCHAR, CHAR, BLOB, TEXT, DATE, DATETIME(3),
#       TIMESTAMP(6), TIME(2), ENUM, SET, JSON, YEAR, BIT, NULLs), multi-statement
#       transactions, a table without a primary key (rows found by their whole image), FOREIGN
#       KEYs (and a row written with foreign_key_checks=0, whose rows event says so), a
#       rotation (FLUSH BINARY LOGS) — is replayed whole into a fresh Cohort: equal;
#   (b) --stop-position at a transaction boundary in the middle, and inside the next
#       transaction (mariadb-binlog closes with ROLLBACK: the partial transaction is undone),
#       and --stop-datetime between the two phases: the state at that point; then
#       --start-position from there replays the rest: the final state;
#   (c) the same workload run on MariaDB with binlog_format=ROW, its binlog replayed into a fresh
#       Cohort: the same checksums as MariaDB's tables;
#   (a') the same through --read-from-remote-server; the target's own binlog (the replayed rows are logged as any DML) replays again;
#   (d) BINLOG needs SUPER or BINLOG REPLAY (1227), as SET @@session.gtid_seq_no does.
#
# Environment: COHORT_BIN [target/release/cohort], INTEROP_WORKDIR.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"
: "${COHORT_BIN:=$REPO/target/release/cohort}"
: "${COHORT_SERVE_FLAGS:=}"
: "${INTEROP_WORKDIR:=$(mktemp -d /tmp/interop.XXXXXX)}"
W=$INTEROP_WORKDIR/pitr
rm -rf "$W"
mkdir -p "$W"

trap stop_throwaways EXIT
TABLES="pitr.t1, pitr.nopk, pitr.parent, pitr.child"
sums() { on "$1" "CHECKSUM TABLE $TABLES" | tr '\t' ' ' | tr '\n' ';'; }
# replay NAME PORT MARIADB-BINLOG-ARGS...: a fresh Cohort NAME on PORT, the binlog piped into it.
replay() {
  local name=$1 port=$2; shift 2
  start_cohort "$name" "$port" || return 1
  mariadb-binlog "$@" 2>"$W/$name-binlog.err" | timeout 300 mariadb -h127.0.0.1 -P"$port" -uroot \
    --protocol=TCP >"$W/$name-replay.out" 2>&1
}

phase_a() {
  cat <<'SQL'
CREATE DATABASE pitr;
USE pitr;
CREATE TABLE t1 (id INT PRIMARY KEY AUTO_INCREMENT, a TINYINT, b SMALLINT UNSIGNED, c BIGINT,
  d DECIMAL(12,3), e DOUBLE, f FLOAT, s VARCHAR(40), ch CHAR(5), bl BLOB, tx TEXT, dt DATE,
  dtm DATETIME(3), ts TIMESTAMP(6) NULL, tm TIME(2), en ENUM('x','y','z'), st SET('a','b','c'),
  js JSON, yr YEAR, bt BIT(10), mi MEDIUMINT UNSIGNED, bu BIGINT UNSIGNED);
INSERT INTO t1 (a,b,c,d,e,f,s,ch,bl,tx,dt,dtm,ts,tm,en,st,js,yr,bt,mi,bu) VALUES
 (1,2,3,4.5,6.25,7.5,'hello','ab',x'00ff10','text one','2024-02-29','2024-01-02 03:04:05.678',
  '2024-05-06 07:08:09.123456','-12:34:56.78','y','a,c','{"k": [1,2]}',2024,b'1010101010',
  16777215,18446744073709551615),
 (-128,65535,-9223372036854775808,-99999999.999,-1e300,-3.5,'wörld 😀','',x'','','1000-01-01',
  '9999-12-31 23:59:59.999',NULL,'838:59:59','x','','null',1901,0,0,0),
 (NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,
  NULL,NULL);
START TRANSACTION;
UPDATE t1 SET s='updated', d=d+1 WHERE id=1;
DELETE FROM t1 WHERE id=2;
INSERT INTO t1 (s) VALUES ('in txn');
COMMIT;
CREATE TABLE nopk (a INT, b VARCHAR(10));
INSERT INTO nopk VALUES (1,'a'),(1,'a'),(2,'b'),(3,NULL);
DELETE FROM nopk WHERE a=1 LIMIT 1;
UPDATE nopk SET b='c' WHERE a=2;
ALTER TABLE t1 ADD COLUMN extra INT DEFAULT 7;
UPDATE t1 SET extra=extra+id;
CREATE TABLE parent (id INT PRIMARY KEY);
CREATE TABLE child (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES parent(id));
INSERT INTO parent VALUES (1),(2),(3);
INSERT INTO child VALUES (10,1),(20,2);
DELETE FROM child WHERE id=20;
DELETE FROM parent WHERE id=2;
INSERT INTO t1 (s, bl) VALUES (REPEAT('z',40), REPEAT('blob',3000));
SQL
}
phase_b() {
  cat <<'SQL'
USE pitr;
START TRANSACTION;
INSERT INTO parent VALUES (4),(5);
INSERT INTO child VALUES (30,4),(40,5);
UPDATE t1 SET tm='01:02:03.45', js='[1, "two"]', en='z', st='b', bt=b'1' WHERE id=1;
DELETE FROM nopk WHERE a=3;
COMMIT;
SET foreign_key_checks=0;
INSERT INTO child VALUES (50,77);
SET foreign_key_checks=1;
FLUSH BINARY LOGS;
UPDATE t1 SET c=c*2 WHERE c IS NOT NULL;
START TRANSACTION;
DELETE FROM child WHERE id=30;
UPDATE parent SET id=6 WHERE id=3;
INSERT INTO nopk VALUES (9,'rotated');
COMMIT;
SQL
}

P1=$(free_port)
start_cohort primary "$P1" || { fail "pitr/primary starts" "$(tail -5 "$W/primary.log")"; exit 1; }
phase_a | timeout 120 mariadb -h127.0.0.1 -P"$P1" -uroot --protocol=TCP --default-character-set=utf8mb4 || fail "pitr/phase a runs" ""
SUMS_A=$(sums "$P1")
POS_A=$(on "$P1" "SHOW MASTER STATUS" | cut -f2)
sleep 2
STOP_AT=$(date '+%Y-%m-%d %H:%M:%S')
sleep 2
phase_b | timeout 120 mariadb -h127.0.0.1 -P"$P1" -uroot --protocol=TCP --default-character-set=utf8mb4 || fail "pitr/phase b runs" ""
SUMS_B=$(sums "$P1")
on "$P1" "FLUSH BINARY LOGS"
B1=$W/primary/binlog.000001
B2=$W/primary/binlog.000002
[ -f "$B2" ] || fail "pitr/the primary's binlog has two files" "$(ls "$W/primary")"

# (a) everything
P=$(free_port)
replay full "$P" "$B1" "$B2"
check_eq "pitr/whole binlog replayed into a fresh Cohort: same checksums" "$(sums "$P")" "$SUMS_B" \
  "$(tail -3 "$W/full-replay.out")"

# The same read from the running primary (--read-from-remote-server).
P=$(free_port)
replay remote "$P" --read-from-remote-server -h127.0.0.1 -P"$P1" -uroot binlog.000001 binlog.000002
check_eq "pitr/mariadb-binlog --read-from-remote-server | mariadb: same checksums" "$(sums "$P")" \
  "$SUMS_B" "$(tail -3 "$W/remote-replay.out")"

# The replayed rows are in the target's own binlog like any DML: replaying that binlog again
# into another fresh Cohort gives the same tables.
on "$P" "FLUSH BINARY LOGS"
P=$(free_port)
replay again "$P" "$W/full/binlog.000001" "$W/full/binlog.000002"
check_eq "pitr/the target's own binlog replays into another Cohort: same checksums" \
  "$(sums "$P")" "$SUMS_B" "$(tail -3 "$W/again-replay.out")"

# (b) --stop-position at a boundary, and inside the next transaction; --stop-datetime
P=$(free_port)
replay stop "$P" --stop-position="$POS_A" "$B1"
check_eq "pitr/--stop-position=$POS_A: the state at that point" "$(sums "$P")" "$SUMS_A" \
  "$(tail -3 "$W/stop-replay.out")"
# The first transaction of phase b: its GTID, Table_map and rows events; stop after its first
# rows event (the next event starts there), before its Xid.
MID=$(mariadb-binlog --start-position="$POS_A" "$B1" 2>/dev/null | grep -E '^# at [0-9]+' |
  sed -n '4p' | awk '{print $3}')
P=$(free_port)
replay mid "$P" --stop-position="$MID" "$B1"
check_eq "pitr/--stop-position=$MID inside a transaction: it is rolled back" "$(sums "$P")" \
  "$SUMS_A" "$(tail -3 "$W/mid-replay.out")"
CUT=$(mariadb-binlog --start-position="$POS_A" --stop-position="$MID" "$B1" 2>/dev/null)
if grep -q "^START TRANSACTION" <<<"$CUT" && grep -q "^BINLOG '" <<<"$CUT" &&
  ! grep -q "^COMMIT" <<<"$CUT" && grep -q "^ROLLBACK /\* added by mysqlbinlog \*/" <<<"$CUT"; then
  pass "pitr/the cut replay has a transaction's rows without its COMMIT, then ROLLBACK"
else
  fail "pitr/the cut replay has a transaction's rows without its COMMIT, then ROLLBACK" "$CUT"
fi
P=$(free_port)
replay when "$P" --stop-datetime="$STOP_AT" "$B1" "$B2"
check_eq "pitr/--stop-datetime between the phases: the state then" "$(sums "$P")" "$SUMS_A" \
  "$(tail -3 "$W/when-replay.out")"
# --start-position from the stop point into the Cohort already at it: the final state.
mariadb-binlog --start-position="$POS_A" "$B1" "$B2" 2>/dev/null |
  timeout 300 mariadb -h127.0.0.1 -P"$P" -uroot --protocol=TCP >"$W/rest-replay.out" 2>&1
check_eq "pitr/--start-position=$POS_A on top: the final state" "$(sums "$P")" "$SUMS_B" \
  "$(tail -3 "$W/rest-replay.out")"

# (c) MariaDB's binlog into Cohort
PM=$(free_port)
if start_mariadb mariadb "$PM" --log-bin="$W/mariadb/binlog" --server-id=1 --binlog-format=ROW; then
  on "$PM" "RESET MASTER"
  { phase_a; phase_b; } | timeout 120 mariadb -h127.0.0.1 -P"$PM" -uroot --protocol=TCP \
    --default-character-set=utf8mb4 ||
    fail "pitr/workload runs on MariaDB" ""
  SUMS_M=$(sums "$PM")
  on "$PM" "FLUSH BINARY LOGS"
  check_eq "pitr/MariaDB and Cohort primaries agree" "$SUMS_M" "$SUMS_B"
  P=$(free_port)
  replay frommariadb "$P" "$W/mariadb/binlog.000001" "$W/mariadb/binlog.000002"
  check_eq "pitr/MariaDB's ROW binlog replayed into a fresh Cohort: MariaDB's checksums" \
    "$(sums "$P")" "$SUMS_M" "$(tail -3 "$W/frommariadb-replay.out")"
else
  fail "pitr/MariaDB starts" "$(tail -5 "$W/mariadb-start.log")"
fi

# (d) privileges
on "$P1" "CREATE USER plain@'%'; GRANT ALL ON pitr.* TO plain@'%'"
FDE=$(mariadb-binlog "$B1" 2>/dev/null | awk "/^BINLOG '/{f=1;next} f&&/^'/{exit} f" | tr -d '\n')
got=$(timeout 30 mariadb -h127.0.0.1 -P"$P1" -uplain --protocol=TCP -e "BINLOG '$FDE'" 2>&1 </dev/null | grep ERROR)
check_eq "pitr/BINLOG without SUPER or BINLOG REPLAY: 1227" "$got" \
  "ERROR 1227 (42000) at line 1: Access denied; you need (at least one of) the SUPER, BINLOG REPLAY privilege(s) for this operation"
on "$P1" "GRANT BINLOG REPLAY ON *.* TO plain@'%'"
got=$(timeout 30 mariadb -h127.0.0.1 -P"$P1" -uplain --protocol=TCP -e "BINLOG '$FDE'; SET @@session.gtid_seq_no=5; SELECT @@gtid_seq_no" -N -B 2>&1 </dev/null)
check_eq "pitr/BINLOG and SET gtid_seq_no with BINLOG REPLAY" "$got" "5"

echo "pitr: $INTEROP_PASSED passed, $INTEROP_FAILED failed"
[ "$INTEROP_FAILED" -eq 0 ]
