#!/bin/bash
# Per-transaction costs of a natively running Cohort server that do not need hardware
# counters: CPU time (task-clock), context switches and system calls, from `perf stat -p`
# attached while sysbench runs each point.
#   docs/results/scripts/native-per-txn.sh NAME=BIN PORT SECONDS POINT...
# POINT is TEST:THREADS[:sysbench args, comma-separated]. Same preparation as
# instr-per-txn.sh (4 tables x 100k rows, durable defaults, user sb/sb, db sbtest).
set -u
WORK=${WORK:-/work/instr-per-txn}
spec=$1; port=$2; secs=$3; shift 3
name=${spec%%=*}; bin=${spec#*=}
d="$WORK/native-$name"; rm -rf "$d"; mkdir -p "$d"
SB=(--mysql-host=127.0.0.1 --mysql-user=sb --mysql-password=sb --mysql-db=sbtest
  --mysql-port="$port" --tables=4 --table-size=100000)
ARGS=(serve --datadir "$d/data" --port "$port" --max-connections 10000 ${COHORT_ARGS:-})
"$bin" serve --help 2>/dev/null | grep -q max-prepared-stmt-count &&
  ARGS+=(--max-prepared-stmt-count 1000000)
"$bin" "${ARGS[@]}" >"$d/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do
  mariadb -uroot -h127.0.0.1 -P"$port" -e 'select 1' >/dev/null 2>&1 && break; sleep 0.1
done
mariadb -uroot -h127.0.0.1 -P"$port" -e "create database if not exists sbtest;
  create user if not exists 'sb'@'%' identified by 'sb'; grant all on *.* to 'sb'@'%';"
for p in "$@"; do
  sysbench "${p%%:*}" "${SB[@]}" --threads=4 prepare >/dev/null 2>&1 && break
done
for p in "$@"; do
  IFS=: read -r t th extra <<<"$p"
  IFS=, read -r -a xs <<<"${extra:-}"
  sysbench "$t" "${SB[@]}" "${xs[@]}" --threads="$th" --time=1 run >/dev/null 2>&1
  perf stat -x, -e task-clock,context-switches,raw_syscalls:sys_enter -p "$pid" \
    -o "$d/stat" -- sleep $((secs + 1)) &
  ppid=$!
  sleep 0.5
  out=$(sysbench "$t" "${SB[@]}" "${xs[@]}" --threads="$th" --time="$secs" \
    --report-interval=0 run 2>&1)
  wait "$ppid"
  txn=$(echo "$out" | awk '/transactions:/ { print $2 }')
  tps=$(echo "$out" | awk '/transactions:/ { t = $3; sub(/\(/, "", t); print t }')
  awk -F, -v n="$txn" -v tag="server=$name point=${t}_${th}${extra:+_$extra} tps=$tps" '
    $3 == "task-clock" { cpu = $1 } $3 == "context-switches" { cs = $1 }
    $3 == "raw_syscalls:sys_enter" { sc = $1 }
    END { printf "%s cpu_us_per_txn=%.1f cs_per_txn=%.2f syscalls_per_txn=%.2f\n", tag, cpu * 1000 / n, cs / n, sc / n }' "$d/stat"
done
kill "$pid"; wait "$pid" 2>/dev/null
rm -rf "$d"
