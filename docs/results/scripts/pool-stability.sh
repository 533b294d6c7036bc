#!/bin/bash
# Pool stability: RUNS back-to-back SECONDS-s runs of text oltp_point_select at CONNS connections
# on one fresh Cohort with --thread-handling pool-of-threads (4 tables x 100k rows), 3 s reports.
#   docs/results/scripts/pool-stability.sh BIN [RUNS] [SECONDS] [CONNS] [PORT]
set -u
BIN=$1; RUNS=${2:-5}; S=${3:-12}; C=${4:-64}; P=${5:-3750}
D=/tmp/meas-pool; rm -rf "$D"; mkdir -p "$D"
ulimit -n "$(ulimit -Hn)"
"$BIN" serve --datadir "$D" --port "$P" --thread-handling pool-of-threads >"$D.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do mariadb -uroot -h127.0.0.1 -P"$P" -e 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done
mariadb -uroot -h127.0.0.1 -P"$P" -e "create database sbtest; create user 'sb'@'%' identified by 'sb'; grant all on *.* to 'sb'@'%';"
SB=(--mysql-host=127.0.0.1 --mysql-port="$P" --mysql-user=sb --mysql-password=sb --mysql-db=sbtest --tables=4 --table-size=100000)
sysbench oltp_point_select "${SB[@]}" --threads=4 prepare >/dev/null 2>&1
TICK=$(getconf CLK_TCK)
for r in $(seq 1 "$RUNS"); do
  c0=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
  out=$(sysbench oltp_point_select "${SB[@]}" --db-ps-mode=disable --threads="$C" --time="$S" --report-interval=3 run 2>&1)
  c1=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
  txn=$(echo "$out" | awk '/transactions:/ { print $2 }')
  tps=$(echo "$out" | awk '/transactions:/ { t = $3; sub(/\(/, "", t); print t }')
  iv=$(echo "$out" | awk '/^\[ [0-9]+s \]/ { printf "%s ", $7 }')
  us=$(awk -v c=$((c1 - c0)) -v n="$txn" -v k="$TICK" 'BEGIN { printf "%.1f", c / k * 1e6 / n }')
  echo "run=$r tps=$tps srv_us_per_stmt=$us intervals_3s=[ $iv]"
done
kill $pid; wait $pid 2>/dev/null; rm -rf "$D" "$D.log"
