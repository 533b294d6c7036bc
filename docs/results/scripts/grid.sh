#!/bin/bash
# A grid of sysbench tests x thread counts on two (or more) Cohort binaries and MariaDB, in
# alternating rounds, with the server's own CPU per transaction and the memory a loaded row costs.
#   docs/results/scripts/grid.sh "TESTS" SECONDS "THREADS" ROUNDS NAME=BIN... [-- sysbench args]
# Like before-after.sh (same servers, durable defaults, 4 tables x 100k rows, ports from 3700),
# but every server is prepared once for all TESTS, and each round runs every test, thread count
# and server in turn. A test may carry sysbench flags after @, e.g.
# oltp_point_select@--db-ps-mode=disable (text protocol). WARMUP (seconds, default 2) runs before each point with statistics off
# (sysbench 1.0 has no --warmup-time: the run lasts WARMUP + SECONDS with a report checkpoint
# at WARMUP, which resets the counters, and the final report covers the SECONDS after it); the server's CPU (utime+stime, /proc/PID/stat) is read from the end
# of the warm-up to the end of the run, and divided by the run's transactions.
# Memory: VmRSS of each server with the empty sbtest database, and again 5 s after the prepare
# (4 x 100k rows); (after - empty) / rows is printed (TABLES, TABLE_SIZE override the size) as bytes per row.
set -u
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
TOOLS=${TOOLS:-$REPO/../shared/tools}
WORK=${WORK:-/work/before-after}
WARMUP=${WARMUP:-2}
TESTS=$1; S=$2; TH=$3; ROUNDS=$4; shift 4
servers=(); while [ $# -gt 0 ] && [ "$1" != "--" ]; do servers+=("$1"); shift; done
[ "${1:-}" == "--" ] && shift
TABLES=${TABLES:-4}; TABLE_SIZE=${TABLE_SIZE:-100000}; ROWS=$((TABLES * TABLE_SIZE))
SB=(--mysql-host=127.0.0.1 --mysql-user=sb --mysql-password=sb --mysql-db=sbtest
  --tables="$TABLES" --table-size="$TABLE_SIZE" "$@")
ulimit -n "$(ulimit -Hn)"
TICK=$(getconf CLK_TCK)
declare -A PORT PID RES
port=${PORT0:-3700}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
for s in "${servers[@]}"; do
  name=${s%%=*}; bin=${s#*=}; d="$WORK/$name"; rm -rf "$d"; mkdir -p "$d"
  if [ "$bin" == mariadb ]; then
    "$TOOLS/mariadb.sh" start "$d" "$port" >/dev/null
    PID[$name]=$(cat "$d/mysqld.pid")
  else
    extra=""; "$bin" serve --help 2>/dev/null | grep -q max-prepared-stmt-count &&
      extra="--max-prepared-stmt-count 1000000"
    # shellcheck disable=SC2086
    "$bin" serve --datadir "$d" --port "$port" --max-connections 10000 \
      $extra ${COHORT_ARGS:-} >"$d.log" 2>&1 &
    PID[$name]=$!
    for _ in $(seq 1 100); do mariadb -uroot -h127.0.0.1 -P"$port" -e 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done
  fi
  mariadb -uroot -h127.0.0.1 -P"$port" -e "create database if not exists sbtest;
    create user if not exists 'sb'@'%' identified by 'sb'; grant all on *.* to 'sb'@'%';"
  sleep 2; r0=$(rss_kb "${PID[$name]}")
  t0=$(date +%s.%N)
  sysbench oltp_read_write "${SB[@]}" --mysql-port="$port" --threads=4 prepare >/dev/null 2>&1
  t1=$(date +%s.%N)
  sleep 5; r1=$(rss_kb "${PID[$name]}")
  awk -v n="$name" -v a="$r0" -v b="$r1" -v r=$ROWS -v t="$(echo "$t1 - $t0" | bc)" 'BEGIN {
    printf "memory server=%s rss_empty_kb=%d rss_loaded_kb=%d bytes_per_row=%.0f prepare_s=%.1f\n", n, a, b, (b - a) * 1024 / r, t }'
  PORT[$name]=$port; port=$((port + 1))
done
for r in $(seq 1 "$ROUNDS"); do
  for T in $TESTS; do
    for th in $TH; do
      for s in "${servers[@]}"; do
        name=${s%%=*}; pid=${PID[$name]}
        f=$(mktemp)
        # shellcheck disable=SC2086
        sysbench "${T%%@*}" "${SB[@]}" $([[ "$T" == *@* ]] && echo "${T#*@}" | tr '@' ' ') --mysql-port="${PORT[$name]}" --threads="$th" \
          --time=$((S + WARMUP)) --report-checkpoints="$WARMUP" --report-interval=0 run >"$f" 2>&1 &
        sb=$!
        sleep "$WARMUP"; c0=$(cpu_ticks "$pid")
        wait $sb
        c1=$(cpu_ticks "$pid")
        out=$(cat "$f"); rm -f "$f"
        txn=$(echo "$out" | awk '/transactions:/ { n = $2 } END { print n }')
        tps=$(echo "$out" | awk '/transactions:/ { t = $3; sub(/\(/, "", t) } END { print t }')
        p95=$(echo "$out" | awk '/95th percentile:/ { p = $3 } END { print p }')
        err=$(echo "$out" | awk '/ignored errors:/ { e = $3 } END { print e }')
        us=$(awk -v c=$((c1 - c0)) -v n="${txn:-0}" -v k="$TICK" 'BEGIN { if (n > 0) printf "%.1f", c / k * 1e6 / n; else print 0 }')
        echo "round=$r test=$T server=$name threads=$th tps=${tps:-0} p95_ms=${p95:--} errors=${err:-?} srv_us_per_txn=$us"
        [ -z "$tps" ] && echo "$out" | tail -5
        RES["$T,$name,$th"]+="${tps:-0}/$us "
      done
    done
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
for T in $TESTS; do
  printf "\n%s, %ss points (+%ss warm-up), %s rounds: median tps (server µs CPU per txn)\n| threads |" "$T" "$S" "$WARMUP" "$ROUNDS"
  for s in "${servers[@]}"; do printf " %s |" "${s%%=*}"; done; printf "\n|---:|"
  for _ in "${servers[@]}"; do printf -- "---:|"; done; printf "\n"
  for th in $TH; do
    printf "| %s |" "$th"
    for s in "${servers[@]}"; do
      name=${s%%=*}
      tps=$(echo "${RES[$T,$name,$th]}" | tr ' ' '\n' | cut -d/ -f1 | median)
      us=$(echo "${RES[$T,$name,$th]}" | tr ' ' '\n' | cut -d/ -f2 | median)
      printf " %.0f (%s) |" "$tps" "$us"
    done
    printf "\n"
  done
done
if [ -z "${KEEP:-}" ]; then
  for s in "${servers[@]}"; do
    name=${s%%=*}; bin=${s#*=}
    if [ "$bin" == mariadb ]; then "$TOOLS/mariadb.sh" stop "$WORK/$name" >/dev/null
    else kill "${PID[$name]}"; wait "${PID[$name]}" 2>/dev/null; fi
    rm -rf "${WORK:?}/$name"
  done
fi
