#!/bin/bash
# User-space instructions per sysbench transaction of a Cohort server, counted by callgrind.
#   docs/results/scripts/instr-per-txn.sh NAME=BIN PORT POINT...
# POINT is TEST:THREADS:EVENTS[:sysbench args, comma-separated], e.g.
#   oltp_point_select:16:4000  oltp_point_select:1:3000:--db-ps-mode=disable
# Wall-clock throughput on a shared host is noise, and this VM has no hardware counters, so
# the metric is instructions: the server runs under `valgrind --tool=callgrind` (which
# serialises its threads but counts every user-space instruction of the process), a data
# directory is prepared natively first (4 tables x 100k rows, durable defaults, user sb/sb,
# db sbtest), then for each point the counters are zeroed, sysbench runs a fixed number of
# events (connections, prepares and the background threads in that window included), and the
# dump's total is divided by the transactions sysbench reports. Kernel instructions are not
# counted (perf cannot count them here either). Output: one line per point; the dumps stay in
# $WORK/NAME (annotate them with callgrind_annotate).
set -u
WORK=${WORK:-/work/instr-per-txn}
spec=$1; port=$2; shift 2
name=${spec%%=*}; bin=${spec#*=}
d="$WORK/$name"; rm -rf "$d"; mkdir -p "$d"
SB=(--mysql-host=127.0.0.1 --mysql-user=sb --mysql-password=sb --mysql-db=sbtest
  --mysql-port="$port" --tables=4 --table-size=100000)
ARGS=(serve --datadir "$d/data" --port "$port" --max-connections 10000 ${COHORT_ARGS:-})
"$bin" serve --help 2>/dev/null | grep -q max-prepared-stmt-count &&
  ARGS+=(--max-prepared-stmt-count 1000000)
wait_up() {
  for _ in $(seq 1 1200); do
    mariadb -uroot -h127.0.0.1 -P"$port" -e 'select 1' >/dev/null 2>&1 && return 0; sleep 0.25
  done
  echo "server did not start" >&2; exit 1
}
# Prepare natively.
"$bin" "${ARGS[@]}" >"$d/native.log" 2>&1 &
pid=$!
wait_up
mariadb -uroot -h127.0.0.1 -P"$port" -e "create database if not exists sbtest;
  create user if not exists 'sb'@'%' identified by 'sb'; grant all on *.* to 'sb'@'%';"
for p in "$@"; do
  t=${p%%:*}
  sysbench "$t" "${SB[@]}" --threads=4 prepare >/dev/null 2>&1 && break
done
kill "$pid"; wait "$pid"
# Then under callgrind.
(cd "$d" && exec valgrind --tool=callgrind --dump-instr=no --collect-systime=no \
  --callgrind-out-file="$d/cg.%p" "$bin" "${ARGS[@]}" >"$d/valgrind.log" 2>&1) &
vpid=$!
wait_up
cgpid=$(pgrep -P "$vpid" -f callgrind || echo "$vpid")
for p in "$@"; do
  IFS=: read -r t th ev extra <<<"$p"
  IFS=, read -r -a xs <<<"${extra:-}"
  # Warm up (statement cache, buffers), then count.
  sysbench "$t" "${SB[@]}" "${xs[@]}" --threads="$th" --events=$((th * 20)) --time=0 run >/dev/null 2>&1
  callgrind_control -z "$cgpid" >/dev/null
  out=$(sysbench "$t" "${SB[@]}" "${xs[@]}" --threads="$th" --events="$ev" --time=0 \
    --report-interval=0 run 2>&1)
  tag="${t}_${th}${extra:+_$(echo "$extra" | tr -c 'a-z0-9\n' '_')}"
  callgrind_control -d "$tag" "$cgpid" >/dev/null
  txn=$(echo "$out" | awk '/transactions:/ { print $2 }')
  f=$(ls -t "$d"/cg.* | head -1); mv "$f" "$d/$tag.cg"
  ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$d/$tag.cg")
  echo "server=$name point=$tag txn=$txn instr=$ir instr_per_txn=$(awk -v a="$ir" -v b="$txn" 'BEGIN { if (b > 0) printf "%.0f", a / b; else print 0 }')"
done
kill "$cgpid" 2>/dev/null; wait "$vpid" 2>/dev/null
rm -rf "$d/data"
