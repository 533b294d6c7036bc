#!/bin/bash
# Kernel work per transaction, load-independent: syscalls (by kind), context switches and
# server CPU per sysbench transaction, for two or more Cohort binaries in alternating rounds.
#   docs/results/scripts/kernel-cost.sh TEST EVENTS "THREADS" ROUNDS NAME=BIN... [-- sysbench args]
# Each server runs `cohort serve` (extra flags from COHORT_ARGS) on a fresh data directory under
# $WORK (default /dev/shm/perf-kc), prepared with 4 tables x 100k rows. Every round runs a fixed
# number of transactions (EVENTS) per thread count on every server in turn, under
# `perf stat -p PID` (syscall tracepoints and context switches of all the server's threads),
# and reads utime+stime from /proc/PID/stat. Output: one line per point, then medians per txn.
set -u
T=$1; EV=$2; TH=$3; ROUNDS=$4; shift 4
servers=(); while [ $# -gt 0 ] && [ "$1" != "--" ]; do servers+=("$1"); shift; done
[ "${1:-}" == "--" ] && shift
WORK=${WORK:-/dev/shm/perf-kc}
PORT0=${PORT0:-3661}
SB=(--mysql-host=127.0.0.1 --mysql-user=sb --mysql-password=sb --mysql-db=sbtest
  --tables=4 --table-size=100000 "$@")
ulimit -n "$(ulimit -Hn)"
TICK=$(getconf CLK_TCK)
EVENTS=raw_syscalls:sys_enter,context-switches,cpu-migrations
KINDS="read write writev sendto recvfrom epoll_wait epoll_pwait epoll_ctl futex getsockopt clock_gettime mmap munmap madvise fdatasync fsync pwrite64 sched_yield"
for k in $KINDS; do EVENTS="$EVENTS,syscalls:sys_enter_$k"; done
declare -A PORT PID RES
port=$PORT0
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# Voluntary and involuntary context switches of all the server's threads now.
ctx_sw() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt/ { v += $2 } /^nonvoluntary_ctxt/ { n += $2 } END { print v, n }'; }
for s in "${servers[@]}"; do
  name=${s%%=*}; bin=${s#*=}; d="$WORK/$name"; rm -rf "$d"; mkdir -p "$d"
  # shellcheck disable=SC2086
  "$bin" serve --datadir "$d" --port "$port" --max-connections 10000 \
    --max-prepared-stmt-count 1000000 ${COHORT_ARGS:-} >"$d.log" 2>&1 &
  PID[$name]=$!
  for _ in $(seq 1 100); do mariadb -uroot -h127.0.0.1 -P"$port" -e 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done
  mariadb -uroot -h127.0.0.1 -P"$port" -e "create database if not exists sbtest;
    create user if not exists 'sb'@'%' identified by 'sb'; grant all on *.* to 'sb'@'%';"
  sysbench "$T" "${SB[@]}" --mysql-port="$port" --threads=4 prepare >/dev/null 2>&1
  # Warm up (threads created, caches filled).
  sysbench "$T" "${SB[@]}" --mysql-port="$port" --threads=16 --time=3 run >/dev/null 2>&1
  PORT[$name]=$port; port=$((port + 1))
  # Optional experiment hook, run on each started server: $AFTER_START NAME PID.
  [ -n "${AFTER_START:-}" ] && $AFTER_START "$name" "${PID[$name]}"
done
for r in $(seq 1 "$ROUNDS"); do
  for th in $TH; do
    for s in "${servers[@]}"; do
      name=${s%%=*}; pid=${PID[$name]}; f=$WORK/perf-$name.csv
      perf stat -x, -e "$EVENTS" -p "$pid" -o "$f" 2>/dev/null &
      pp=$!; sleep 0.3
      c0=$(cpu_ticks "$pid"); read -r v0 n0 <<<"$(ctx_sw "$pid")"
      out=$(sysbench "$T" "${SB[@]}" --mysql-port="${PORT[$name]}" --threads="$th" --time=0 \
        --events="$EV" --report-interval=0 run 2>&1)
      c1=$(cpu_ticks "$pid"); read -r v1 n1 <<<"$(ctx_sw "$pid")"
      kill -INT $pp; wait $pp 2>/dev/null
      txn=$(echo "$out" | awk '/transactions:/ { print $2 }')
      tps=$(echo "$out" | awk '/transactions:/ { t = $3; sub(/\(/, "", t); print t }')
      us=$(awk -v c=$((c1 - c0)) -v n="${txn:-0}" -v k="$TICK" 'BEGIN { if (n > 0) printf "%.1f", c / k * 1e6 / n; else print 0 }')
      per=$(awk -F, -v n="${txn:-1}" '$3 != "" && $1 ~ /^[0-9]/ { e = $3; sub(/syscalls:sys_enter_/, "", e); sub(/raw_syscalls:sys_enter/, "sys", e); sub(/context-switches/, "cs", e); sub(/cpu-migrations/, "mig", e); printf "%s=%.2f ", e, $1 / n }' "$f")
      vol=$(awk -v d=$((v1 - v0)) -v n="${txn:-1}" 'BEGIN { printf "%.2f", d / n }')
      invol=$(awk -v d=$((n1 - n0)) -v n="${txn:-1}" 'BEGIN { printf "%.2f", d / n }')
      echo "round=$r server=$name threads=$th txn=${txn:-0} tps=${tps:-0} us=$us vcs=$vol ivcs=$invol $per"
      RES["$name,$th"]+="tps=${tps:-0} us=$us vcs=$vol ivcs=$invol $per;"
    done
  done
done
echo
echo "$T, $EV txn per point, $ROUNDS rounds: medians per transaction"
for th in $TH; do
  for s in "${servers[@]}"; do
    name=${s%%=*}
    echo "${RES[$name,$th]}" | tr ';' '\n' | grep -v '^$' | python3 -c '
import sys, statistics
rows = [dict(kv.split("=") for kv in l.split()) for l in sys.stdin]
keys = [k for k in rows[0] if any(float(r.get(k, 0)) for r in rows)]
print("threads='"$th"' server='"$name"' " + " ".join(
  "%s=%.2f" % (k, statistics.median(float(r.get(k, 0)) for r in rows)) for k in keys))'
  done
done
for s in "${servers[@]}"; do
  name=${s%%=*}
  kill "${PID[$name]}"; wait "${PID[$name]}" 2>/dev/null
  rm -rf "${WORK:?}/$name"
done
