#!/bin/bash
# Before/after on one host: sysbench against two (or more) Cohort binaries and optionally
# MariaDB, in alternating rounds, with the server's own CPU per transaction.
#   docs/results/scripts/before-after.sh TEST SECONDS "THREADS" ROUNDS NAME=BIN... [-- sysbench args]
# NAME=BIN is a Cohort binary (`cohort serve` with durable defaults) or `mariadb` for MariaDB
# 10.11 through ../shared/tools/mariadb.sh (durable: binlog on, sync every group). Extra
# `cohort serve` flags come from COHORT_ARGS. Each server is started once on a fresh data
# directory under $WORK (default /work/before-after), prepared with 4 tables x 100k rows, and
# then every round runs every thread count on every server in turn, so slow drift of this shared
# 2-core host falls on all servers alike. Output: one line per point, then a table of medians:
# tps, and server CPU per transaction in microseconds (utime+stime of the server process from
# /proc/PID/stat over the point, divided by its transactions), which does not depend on the
# client sharing the machine.
set -u
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
TOOLS=${TOOLS:-$REPO/../shared/tools}
WORK=${WORK:-/work/before-after}
T=$1; S=$2; TH=$3; ROUNDS=$4; shift 4
servers=(); while [ $# -gt 0 ] && [ "$1" != "--" ]; do servers+=("$1"); shift; done
[ "${1:-}" == "--" ] && shift
SB=(--mysql-host=127.0.0.1 --mysql-user=sb --mysql-password=sb --mysql-db=sbtest
  --tables=4 --table-size=100000 "$@")
ulimit -n "$(ulimit -Hn)"
TICK=$(getconf CLK_TCK)
declare -A PORT PID RES
port=3700
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
for s in "${servers[@]}"; do
  name=${s%%=*}; bin=${s#*=}; d="$WORK/$name"; rm -rf "$d"; mkdir -p "$d"
  if [ "$bin" == mariadb ]; then
    "$TOOLS/mariadb.sh" start "$d" "$port" >/dev/null
    PID[$name]=$(cat "$d/mysqld.pid")
  else
    # shellcheck disable=SC2086
    "$bin" serve --datadir "$d" --port "$port" --max-connections 10000 \
      --max-prepared-stmt-count 1000000 ${COHORT_ARGS:-} >"$d.log" 2>&1 &
    PID[$name]=$!
    for _ in $(seq 1 100); do mariadb -uroot -h127.0.0.1 -P"$port" -e 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done
  fi
  mariadb -uroot -h127.0.0.1 -P"$port" -e "create database if not exists sbtest;
    create user if not exists 'sb'@'%' identified by 'sb'; grant all on *.* to 'sb'@'%';"
  sysbench "$T" "${SB[@]}" --mysql-port="$port" --threads=4 prepare >/dev/null 2>&1
  PORT[$name]=$port; port=$((port + 1))
done
for r in $(seq 1 "$ROUNDS"); do
  for th in $TH; do
    for s in "${servers[@]}"; do
      name=${s%%=*}; pid=${PID[$name]}
      c0=$(cpu_ticks "$pid")
      out=$(sysbench "$T" "${SB[@]}" --mysql-port="${PORT[$name]}" --threads="$th" --time="$S" \
        --report-interval=0 run 2>&1)
      c1=$(cpu_ticks "$pid")
      txn=$(echo "$out" | awk '/transactions:/ { print $2 }')
      tps=$(echo "$out" | awk '/transactions:/ { t = $3; sub(/\(/, "", t); print t }')
      p95=$(echo "$out" | awk '/95th percentile:/ { print $3 }')
      us=$(awk -v c=$((c1 - c0)) -v n="${txn:-0}" -v k="$TICK" 'BEGIN { if (n > 0) printf "%.1f", c / k * 1e6 / n; else print 0 }')
      echo "round=$r server=$name threads=$th tps=${tps:-0} p95_ms=${p95:--} srv_us_per_txn=$us"
      RES["$name,$th"]+="${tps:-0}/$us "
    done
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
printf "\n%s, %ss points, %s rounds: median tps (server µs CPU per txn)\n| threads |" "$T" "$S" "$ROUNDS"
for s in "${servers[@]}"; do printf " %s |" "${s%%=*}"; done; printf "\n|---:|"
for _ in "${servers[@]}"; do printf -- "---:|"; done; printf "\n"
for th in $TH; do
  printf "| %s |" "$th"
  for s in "${servers[@]}"; do
    name=${s%%=*}
    tps=$(echo "${RES[$name,$th]}" | tr ' ' '\n' | cut -d/ -f1 | median)
    us=$(echo "${RES[$name,$th]}" | tr ' ' '\n' | cut -d/ -f2 | median)
    printf " %.0f (%s) |" "$tps" "$us"
  done
  printf "\n"
done
for s in "${servers[@]}"; do
  name=${s%%=*}; bin=${s#*=}
  if [ "$bin" == mariadb ]; then "$TOOLS/mariadb.sh" stop "$WORK/$name" >/dev/null
  else kill "${PID[$name]}"; wait "${PID[$name]}" 2>/dev/null; fi
  rm -rf "${WORK:?}/$name"
done
