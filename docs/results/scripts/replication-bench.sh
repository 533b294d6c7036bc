#!/bin/bash
# Replication numbers for issue 22: one Cohort primary (pool of threads, defaults: durable, one
# fsync per group), sysbench oltp_update_non_index on 4 tables x 10 000 rows, MariaDB 10.11
# replicas (Debian's mariadbd) on the same machine. Run it under the machine's benchmark lock:
#
#   flock /work/bench.lock docs/results/scripts/replication-bench.sh EXPERIMENT [SECONDS] [ROUNDS]
#
# EXPERIMENT:
#   lag        one replica (GTID mode) applying while 64 threads write at Cohort's durable peak,
#              for each replica setting: slave_parallel_threads 0; 4 optimistic; 4
#              conservative (Cohort writes one commit_id per group, so conservative mode may
#              apply a group's transactions in parallel). Per setting: primary tps, the
#              replica's backlog when the load stops (transactions; Seconds_Behind_Master), the
#              seconds it needs to catch up, and its apply rate over the whole run.
#   apply      the replica's apply rate alone, for the same three settings: 64 threads write at
#              the peak for SECONDS while the replica's SQL thread is stopped (its I/O thread
#              receives), then the SQL thread starts and applies the backlog with the primary
#              idle: backlog / seconds to apply it. On this 2-core machine the replica and the
#              primary share the cores, so `lag` shows what a co-located replica keeps up
#              with; `apply` shows how fast each setting applies Cohort's groups.
#   replicas   primary tps and server CPU per transaction with 0, 1 and 4 replicas attached
#              (their I/O threads: they receive and write relay logs, their SQL threads are
#              stopped so that four appliers do not take the two cores the primary runs on).
#   semisync   asynchronous against semi-synchronous (AFTER_SYNC, one replica's I/O thread
#              acknowledging) at 1, 16, 64 and 256 threads: tps, p95 latency, server CPU.
# Rounds alternate the order of the variants; the tables quote medians. Raw lines go to stdout.
set -u
EXP=${1:?experiment: lag | replicas | semisync}
SECS=${2:-10}
ROUNDS=${3:-3}
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
BIN=${COHORT_BIN:-$REPO/target/release/cohort}
WORK=${WORK:-/tmp/repl-bench}
PORT=${PORT:-4591}
RBASE=${RBASE:-4600}
TICK=$(getconf CLK_TCK)
ulimit -n "$(ulimit -Hn)"
rm -rf "$WORK" && mkdir -p "$WORK"
PID=""
REPLICAS=()
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  for d in "${REPLICAS[@]}"; do
    [ -f "$d/mysqld.pid" ] && kill "$(cat "$d/mysqld.pid")" 2>/dev/null
  done
  sleep 2
}
trap cleanup EXIT

q() { timeout 120 mariadb -uroot -h127.0.0.1 -P"$1" --skip-ssl -N -B -e "$2" </dev/null; }
seq_of() { sed -E 's/.*-([0-9]+)$/\1/; s/^$/0/'; } # the sequence number of a one-domain GTID position
"$BIN" serve --datadir "$WORK/primary" --port "$PORT" --max-connections 10000 --server-id 1 \
  --thread-handling pool-of-threads >"$WORK/server.log" 2>&1 &
PID=$!
for _ in $(seq 1 100); do q "$PORT" 'select 1' >/dev/null 2>&1 && break; sleep 0.2; done
q "$PORT" "create database sbtest"
SB=(--mysql-host=127.0.0.1 --mysql-port="$PORT" --mysql-user=root --mysql-password= --mysql-db=sbtest
  --mysql-ssl=off --tables=4 --table-size=10000 --mysql-ignore-errors=1213,1205)
sysbench oltp_update_non_index "${SB[@]}" --threads=4 prepare >"$WORK/prepare.log" 2>&1 || { tail "$WORK/prepare.log"; exit 1; }

# A replica on RBASE+N following the primary: in GTID mode, or with REPLICA_MODE=file in
# file/position mode. The experiments that stop a replica's SQL thread use file mode: a GTID
# replica's I/O thread restarts from what was applied (gtid_slave_pos) and would fetch the
# whole backlog again, while a file-mode one continues from what it has received.
start_replica() { # N [mariadbd args]
  local n=$1 d=$WORK/replica$1 port=$((RBASE + $1))
  shift
  mkdir -p "$d"
  mariadb-install-db --user="$(id -un)" --datadir="$d" --auth-root-authentication-method=normal >"$d.log" 2>&1
  mariadbd --no-defaults --user="$(id -un)" --datadir="$d" --port="$port" --bind-address=127.0.0.1 \
    --socket="$d/mysqld.sock" --pid-file="$d/mysqld.pid" --server-id=$((10 + n)) --skip-log-bin \
    --innodb-buffer-pool-size=256M --innodb-log-file-size=256M --innodb-flush-log-at-trx-commit=2 \
    --skip-name-resolve --rpl-semi-sync-slave-enabled=ON "$@" >>"$d.log" 2>&1 &
  REPLICAS+=("$d")
  for _ in $(seq 1 120); do q "$port" 'select 1' >/dev/null 2>&1 && break; sleep 0.5; done
  local how="MASTER_USE_GTID=slave_pos"
  [ "${REPLICA_MODE:-gtid}" == file ] && how="MASTER_USE_GTID=no, MASTER_LOG_FILE='binlog.000001', MASTER_LOG_POS=4"
  q "$port" "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$PORT, MASTER_USER='root', MASTER_PASSWORD='', $how, MASTER_CONNECT_RETRY=1; START SLAVE"
}
caught_up() { q "$1" "SELECT MASTER_GTID_WAIT('$(q "$PORT" 'SELECT @@gtid_binlog_pos')', ${2:-600})"; }
cpu() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
# run THREADS LABEL -> "tps p95_ms server_us_per_txn"
run() {
  local n=$1 log=$WORK/$2.log c0 c1
  c0=$(cpu)
  sysbench oltp_update_non_index "${SB[@]}" --threads="$n" --time="$SECS" --percentile=95 run >"$log" 2>&1
  c1=$(cpu)
  awk -v c="$((c1 - c0))" -v tick="$TICK" '
    /^ +transactions:/ { txn = $2; tps = $3; gsub(/\(/, "", tps) }
    /95th percentile:/ { p95 = $3 }
    END { printf "%.0f %.2f %.1f\n", tps, p95, (txn > 0 ? c / tick * 1e6 / txn : 0) }' "$log"
}
median() { tr ';' '\n' | grep -v '^$' | awk -v f="$1" '{print $f}' | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
declare -A R

case "$EXP" in
lag)
  start_replica 1
  R1=$((RBASE + 1))
  caught_up "$R1" >/dev/null
  SETTINGS=("0 optimistic" "4 optimistic" "4 conservative")
  for r in $(seq 1 "$ROUNDS"); do
    for i in 0 1 2; do
      s=${SETTINGS[$(((i + r - 1) % 3))]}
      set -- $s
      q "$R1" "STOP SLAVE; SET GLOBAL slave_parallel_threads = $1; SET GLOBAL slave_parallel_mode = '$2'; START SLAVE"
      caught_up "$R1" >/dev/null
      p0=$(q "$PORT" 'SELECT @@gtid_binlog_pos' | seq_of)
      t0=$(date +%s.%N)
      res=$(run 64 "lag-$1-$2-$r")
      t1=$(date +%s.%N)
      p1=$(q "$PORT" 'SELECT @@gtid_binlog_pos' | seq_of)
      behind=$((p1 - $(q "$R1" 'SELECT @@gtid_slave_pos' | seq_of)))
      sbm=$(timeout 60 mariadb -uroot -h127.0.0.1 -P"$R1" --skip-ssl -E -e "SHOW SLAVE STATUS" </dev/null | sed -n 's/^ *Seconds_Behind_Master: //p')
      caught_up "$R1" 900 >/dev/null
      t2=$(date +%s.%N)
      line=$(awk -v tps="${res%% *}" -v b="$behind" -v sbm="${sbm:-0}" -v n="$((p1 - p0))" -v t0="$t0" -v t1="$t1" -v t2="$t2" \
        'BEGIN { printf "%s %d %s %.1f %.0f\n", tps, b, sbm, t2 - t1, n / (t2 - t0) }')
      R[$1/$2]+="$line;"
      echo "round $r threads=$1 mode=$2: primary_tps backlog_txns seconds_behind catchup_s apply_tps = $line"
    done
  done
  echo
  echo "| slave_parallel_threads | slave_parallel_mode | primary tps (64 thr) | backlog at load end (txns) | Seconds_Behind_Master | catch-up after load (s) | replica apply rate (txn/s) |"
  echo "|---|---|---|---|---|---|---|"
  for s in "${SETTINGS[@]}"; do
    set -- $s
    v=${R[$1/$2]}
    echo "| $1 | $2 | $(median 1 <<<"$v") | $(median 2 <<<"$v") | $(median 3 <<<"$v") | $(median 4 <<<"$v") | $(median 5 <<<"$v") |"
  done
  ;;
apply)
  start_replica 1
  R1=$((RBASE + 1))
  caught_up "$R1" >/dev/null
  SETTINGS=("0 optimistic" "4 optimistic" "4 conservative")
  for r in $(seq 1 "$ROUNDS"); do
    for i in 0 1 2; do
      s=${SETTINGS[$(((i + r - 1) % 3))]}
      set -- $s
      q "$R1" "STOP SLAVE; SET GLOBAL slave_parallel_threads = $1; SET GLOBAL slave_parallel_mode = '$2'; START SLAVE IO_THREAD"
      res=$(run 64 "apply-$1-$2-$r")
      sleep 1
      target=$(q "$PORT" 'SELECT @@gtid_binlog_pos')
      p1=$(echo "$target" | seq_of)
      p0=$(q "$R1" 'SELECT @@gtid_slave_pos' | seq_of)
      t0=$(date +%s.%N)
      q "$R1" "START SLAVE SQL_THREAD"
      q "$R1" "SELECT MASTER_GTID_WAIT('$target', 900)" >/dev/null
      t1=$(date +%s.%N)
      line=$(awk -v tps="${res%% *}" -v n="$((p1 - p0))" -v t0="$t0" -v t1="$t1" \
        'BEGIN { printf "%s %d %.1f %.0f\n", tps, n, t1 - t0, n / (t1 - t0) }')
      R[$1/$2]+="$line;"
      echo "round $r threads=$1 mode=$2: primary_tps backlog_txns apply_s apply_tps = $line"
    done
  done
  echo
  echo "| slave_parallel_threads | slave_parallel_mode | primary tps while receiving | backlog (txns) | seconds to apply | apply rate (txn/s) |"
  echo "|---|---|---|---|---|---|"
  for s in "${SETTINGS[@]}"; do
    set -- $s
    v=${R[$1/$2]}
    echo "| $1 | $2 | $(median 1 <<<"$v") | $(median 2 <<<"$v") | $(median 3 <<<"$v") | $(median 4 <<<"$v") |"
  done
  ;;
replicas)
  REPLICA_MODE=file
  for n in 1 2 3 4; do
    start_replica "$n"
  done
  for n in 1 2 3 4; do caught_up $((RBASE + n)) >/dev/null; done
  attach() { # K: replicas 1..K have their I/O thread running, the others none
    local n
    for n in 1 2 3 4; do
      if [ "$n" -le "$1" ]; then
        q $((RBASE + n)) "STOP SLAVE SQL_THREAD; START SLAVE IO_THREAD" 2>/dev/null
      else
        q $((RBASE + n)) "STOP SLAVE" 2>/dev/null
      fi
    done
    sleep 1
  }
  for r in $(seq 1 "$ROUNDS"); do
    order="0 1 4"
    [ $((r % 2)) -eq 0 ] && order="4 1 0"
    for k in $order; do
      attach "$k"
      dumps=$(q "$PORT" "SHOW SLAVE HOSTS" | wc -l)
      res=$(run 64 "replicas-$k-$r")
      R[$k]+="$res;"
      echo "round $r replicas=$k (dumps registered: $dumps): tps p95_ms us_per_txn = $res"
    done
  done
  echo
  echo "| replicas attached | tps (64 threads) | p95 (ms) | server µs/txn |"
  echo "|---|---|---|---|"
  for k in 0 1 4; do
    echo "| $k | $(median 1 <<<"${R[$k]}") | $(median 2 <<<"${R[$k]}") | $(median 3 <<<"${R[$k]}") |"
  done
  ;;
semisync)
  REPLICA_MODE=file
  start_replica 1
  R1=$((RBASE + 1))
  caught_up "$R1" >/dev/null
  q "$R1" "STOP SLAVE SQL_THREAD"
  q "$PORT" "SET GLOBAL rpl_semi_sync_master_timeout = 10000"
  for r in $(seq 1 "$ROUNDS"); do
    for n in 1 16 64 256; do
      order="OFF ON"
      [ $((r % 2)) -eq 0 ] && order="ON OFF"
      for m in $order; do
        q "$PORT" "SET GLOBAL rpl_semi_sync_master_enabled = $m"
        # The replica learns at connect whether the primary has semi-sync: reconnect it.
        q "$R1" "STOP SLAVE IO_THREAD; START SLAVE IO_THREAD"
        for _ in $(seq 1 40); do
          [ "$m" == OFF ] && break
          [ "$(q "$PORT" "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_clients'" | cut -f2)" == 1 ] &&
            [ "$(q "$PORT" "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_status'" | cut -f2)" == ON ] && break
          sleep 0.25
        done
        no0=$(q "$PORT" "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_no_tx'" | cut -f2)
        res=$(run "$n" "semi-$m-$n-$r")
        no1=$(q "$PORT" "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_no_tx'" | cut -f2)
        R[$m/$n]+="$res;"
        echo "round $r threads=$n semisync=$m: tps p95_ms us_per_txn = $res (fallbacks to async: $((no1 - no0)))"
      done
    done
  done
  echo
  echo "| threads | tps async | tps semi-sync | semi/async | p95 ms async | p95 ms semi-sync | server µs/txn async | server µs/txn semi-sync |"
  echo "|---|---|---|---|---|---|---|---|"
  for n in 1 16 64 256; do
    a=${R[OFF/$n]} b=${R[ON/$n]}
    awk -v n="$n" -v ta="$(median 1 <<<"$a")" -v tb="$(median 1 <<<"$b")" -v pa="$(median 2 <<<"$a")" \
      -v pb="$(median 2 <<<"$b")" -v ca="$(median 3 <<<"$a")" -v cb="$(median 3 <<<"$b")" \
      'BEGIN { printf "| %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.1f | %.1f |\n", n, ta, tb, tb / ta, pa, pb, ca, cb }'
  done
  ;;
*) echo "unknown experiment $EXP"; exit 2 ;;
esac
