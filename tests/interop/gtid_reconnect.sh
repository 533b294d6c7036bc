#!/bin/bash
# A MariaDB GTID replica (MASTER_USE_GTID=slave_pos) of Cohort, reconnecting after Cohort
# stops cleanly (odd rounds) or is killed -9 (even rounds) while the replica's I/O thread is
# inside a transaction group.
#
# The groups are ~2.5 MB multi-row transactions, larger than --max-binlog-size (1 MiB), so each
# one opens its binlog file. The replica reaches Cohort through throttle_proxy.py: at most SPEED
# KB/s, slower than Cohort writes, and its connection reset as soon as Cohort's side ends (see
# the proxy's doc: over plain loopback the replica would get whole groups from its socket
# buffers after Cohort had gone). So when Cohort goes away the replica holds the first part of
# a group ("GTID event skip K" in its error log). It reconnects with
# COM_BINLOG_DUMP naming the file and the position inside that group *and* @slave_connect_state
# (its last complete GTID); it expects the group again from its GTID event and skips the K
# events it has. A primary that honoured the file and position there (Cohort before the fix)
# sent the group's middle first, and the replica stopped with 1595 "The current group of
# events starts with a non-GTID Write_rows_v1 event". MariaDB ignores the file and position
# when @slave_connect_state is set (replication/start.rs).
#
# Checks: the replica runs without error through every round, the tables are equal at the end,
# and (when REPLICA_LOG, the replica's error log, is given) at least one clean stop and one
# kill -9 happened inside a group, so the skip path was exercised.
#
# Usage: COHORT_BIN=target/debug/cohort P=3541 R=3414 N=6 tests/interop/gtid_reconnect.sh
# R: a running MariaDB 10.11 with --server-id != 1, e.g.
#   tools/mariadb.sh start DIR R --server-id=2 --skip-log-bin   (REPLICA_LOG=DIR/err.log)
# The replica's replication settings, gtid_slave_pos and database r are reset.
# Environment: X [a free port] the proxy's, SPEED [1000] KB/s, LOAD_SECONDS [4] per round,
#   COHORT_SERVE_FLAGS [], REPLICA_LOG [], INTEROP_WORKDIR [a new /tmp directory].
# Prints PASS:/FAIL: lines; exits non-zero when anything failed.
B=${COHORT_BIN:-target/debug/cohort}; P=${P:-3541}; R=${R:-3414}; N=${N:-6}
SPEED=${SPEED:-1000}; LOAD_SECONDS=${LOAD_SECONDS:-4}; REPLICA_LOG=${REPLICA_LOG:-}
W=${INTEROP_WORKDIR:+$INTEROP_WORKDIR/gtid-reconnect}; W=${W:-$(mktemp -d /tmp/gtid-reconnect.XXXXXX)}
rm -rf "$W/data"; mkdir -p "$W"; D=$W/data
FAILED=0
pass() { echo "PASS: gtid-reconnect/$*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL: gtid-reconnect/$1: $2"; }
on() { timeout 120 mariadb -h127.0.0.1 -P"$1" -uroot --protocol=TCP -N -B -e "$2" </dev/null; }
CP=""
start() {
  # shellcheck disable=SC2086
  "$B" serve --port "$P" --bind 127.0.0.1 --datadir "$D" --root-password "" --server-id 1 \
    --max-binlog-size 1048576 $COHORT_SERVE_FLAGS >>"$W/cohort.log" 2>&1 &
  CP=$!
  for _ in $(seq 300); do on "$P" "SELECT 1" >/dev/null 2>&1 && return 0; sleep 0.2; done
  return 1
}
HERE=$(cd "$(dirname "$0")" && pwd)
X=${X:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
python3 "$HERE/throttle_proxy.py" "$X" "$P" "$SPEED" "$W/fast" 2>>"$W/proxy.log" &
PROXY=$!
for _ in $(seq 50); do (: >"/dev/tcp/127.0.0.1/$X") 2>/dev/null && break; sleep 0.1; done
kill -0 "$PROXY" 2>/dev/null || { fail "proxy started" "see $W/proxy.log"; exit 1; }
cleanup() {
  kill "$PROXY" 2>/dev/null
  [ -n "$CP" ] && kill -9 "$CP" 2>/dev/null
}
trap cleanup EXIT
skips() { [ -n "$REPLICA_LOG" ] && tr -d '\000' <"$REPLICA_LOG" 2>/dev/null | grep -c ', GTID event skip '; }
status() {
  timeout 60 mariadb -h127.0.0.1 -P"$R" -uroot --protocol=TCP -E -e "SHOW SLAVE STATUS" </dev/null |
    sed -n 's/^ *\(Slave_IO_Running\|Slave_SQL_Running\|Last_IO_Error\|Last_SQL_Error\): \(.*\)$/\2/p' | tr '\n' '|'
}

start || { fail "cohort started" "see $W/cohort.log"; exit 1; }
on "$P" "CREATE DATABASE r; CREATE TABLE r.t (id INT PRIMARY KEY AUTO_INCREMENT, k INT, s VARCHAR(200))"
rm -f "$W/fast"
on "$R" "STOP SLAVE; RESET SLAVE ALL; SET GLOBAL gtid_slave_pos=''; DROP DATABASE IF EXISTS r;
  CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$X, MASTER_USER='root', MASTER_PASSWORD='',
    MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1; START SLAVE" ||
  { fail "replica set up" "on port $R"; exit 1; }
load() { # for $1 seconds: a 2.5 MB transaction (20 INSERTs of 400 rows), then a short pause
  python3 - "$P" "$1" <<'PY'
import pymysql, random, sys, time
port, until = int(sys.argv[1]), time.time() + float(sys.argv[2])
try:
    c = pymysql.connect(host='127.0.0.1', port=port, user='root', password='', autocommit=False)
    cur = c.cursor()
    while time.time() < until:
        rows = ",".join("(%d,'%s')" % (random.randint(0, 1000), 'x' * 150) for _ in range(400))
        for _ in range(20):
            cur.execute("INSERT INTO r.t (k, s) VALUES " + rows)
        c.commit()
        time.sleep(0.3)
except Exception:
    pass  # Cohort went away
PY
}
clean=0 killed=0 errors=""
for i in $(seq "$N"); do
  before=$(skips)
  load 60 &
  L=$!
  sleep "$LOAD_SECONDS"
  if [ $((i % 2)) = 1 ]; then how=stop; kill "$CP"; else how="kill -9"; kill -9 "$CP"; fi
  wait "$CP" 2>/dev/null
  wait "$L"
  start || { fail "cohort restarted" "round $i, see $W/cohort.log"; exit 1; }
  sleep 1
  s=$(status)
  inside="between groups"
  if [ -n "$REPLICA_LOG" ] && [ "$(skips)" -gt "$before" ]; then
    inside="inside a group"
    if [ "$how" = stop ]; then clean=$((clean + 1)); else killed=$((killed + 1)); fi
  fi
  echo "round $i ($how, $inside): $s"
  # Connecting (with the refused connections as Last_IO_Error) is fine; a thread stopped is not.
  case "$s" in No\|* | *\|No\|*) errors="$errors round $i: $s" ;; esac
done
touch "$W/fast"
POS=$(on "$P" "SELECT @@gtid_binlog_pos")
# (A replica thread already stopped will not catch up: no long wait then.)
on "$R" "SELECT MASTER_GTID_WAIT('$POS', $([ -z "$errors" ] && echo 90 || echo 5))" >/dev/null
s=$(status)
case "$s" in Yes\|Yes\|\|\|) ;; *) errors="$errors at the end: $s" ;; esac
if [ -z "$errors" ]; then pass "replica ran without error through $N restarts"; else fail "replica ran without error" "$errors"; fi
if [ -n "$REPLICA_LOG" ]; then
  if [ $clean -gt 0 ] && [ $killed -gt 0 ]; then
    pass "the replica was inside a group at $clean clean stops and $killed kills -9"
  else
    fail "the replica was inside a group" "at $clean clean stops and $killed kills -9 (want at least one of each)"
  fi
fi
a=$(on "$P" 'SELECT COUNT(*), SUM(k) FROM r.t'); b=$(on "$R" 'SELECT COUNT(*), SUM(k) FROM r.t')
kill "$CP"; wait "$CP" 2>/dev/null; CP=""
if [ -n "$a" ] && [ "$a" == "$b" ]; then pass "replica equals primary ($(echo $a))"; else fail "replica equals primary" "primary $a, replica $b (logs in $W)"; fi
[ $FAILED -eq 0 ] && [ -z "$INTEROP_WORKDIR" ] && rm -rf "$W"
exit $((FAILED > 0))
