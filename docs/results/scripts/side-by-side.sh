#!/bin/bash
# Side by side in one run: sysbench against MariaDB 10.11 and Cohort variants, one table.
#   docs/results/scripts/side-by-side.sh TEST SECONDS "THREADS" VARIANT... [-- sysbench args]
# A VARIANT is `KIND:NAME[:server args]`, KIND mariadb (args for mariadbd) or cohort (args for
# `cohort serve`), e.g.
#   side-by-side.sh oltp_update_non_index 10 "1 16 64 256 1024" \
#     mariadb:mariadb cohort:one-log "cohort:classic:--commit-mode classic"
# Each server gets a fresh data directory on the work disk (durable settings: binlog on,
# sync every group), 4 tables x 100k rows unless overridden; prints one line per point and a
# table of tps with ratios to the first variant.
# CLIENT=cohort drives the points with `cohort bench run` (CLIENT_THREADS event-loop threads,
# default 2) instead of sysbench: a light client, for when sysbench's own CPU on this shared
# host decides the result (thousands of connections). The tables are prepared by sysbench
# either way.
# WARMUP=auto (or a number of seconds) runs each sysbench point for WARMUP + SECONDS and
# counts only the last SECONDS (`--report-checkpoints`; sysbench 1.0.20 has no --warmup-time).
# Sysbench runs a LuaJIT state per thread, each of which compiles its own traces: at 2048
# threads every thread runs only ~10 events a second, and the client's CPU per transaction
# falls by half over the first ~30 s (measured). `auto` warms for 2 + threads/64 seconds.
set -u
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
TOOLS=${TOOLS:-$REPO/../shared/tools}
BIN=${COHORT_BIN:-$REPO/target/release/cohort}
WORK=${WORK:-/work/side-by-side}
T=$1; S=$2; TH=$3; shift 3
variants=(); while [ $# -gt 0 ] && [ "$1" != "--" ]; do variants+=("$1"); shift; done
[ "${1:-}" == "--" ] && shift
SB_ARGS=("--tables=4" "--table-size=100000" "$@")
ulimit -n "$(ulimit -Hn)"
port=3600
declare -A TPS
start_server() { # kind name args -> sets PID
  local kind=$1 name=$2 args=$3 d="$WORK/$name"
  rm -rf "$d"; mkdir -p "$d"
  if [ "$kind" == mariadb ]; then
    # shellcheck disable=SC2086
    "$TOOLS/mariadb.sh" start "$d" "$port" $args >/dev/null
  else
    # shellcheck disable=SC2086
    "$BIN" serve --datadir "$d" --port "$port" --max-connections 10000 $args >"$d.log" 2>&1 &
    PID=$!
    for _ in $(seq 1 100); do mariadb -uroot -h127.0.0.1 -P"$port" -e 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done
    mariadb -uroot -h127.0.0.1 -P"$port" -e "create database if not exists sbtest; create user if not exists 'sb'@'%' identified by 'sb'; grant all on *.* to 'sb'@'%';"
  fi
}
stop_server() {
  local kind=$1 name=$2
  if [ "$kind" == mariadb ]; then "$TOOLS/mariadb.sh" stop "$WORK/$name" >/dev/null; else kill "$PID"; wait "$PID" 2>/dev/null; fi
}
cohort_bench_sweep() { # port -> one `threads=N tps=X` line per point, like sysbench-sweep.sh
  local conns; conns=$(echo "$TH" | tr ' ' ',')
  "$BIN" bench run "$T" --url "mysql://sb:sb@127.0.0.1:$1/sbtest" --tables 4 --table-size 100000 \
    -c "$conns" --client-threads "${CLIENT_THREADS:-2}" --time "$S" --warmup 2 2>&1 |
    awk '$1 == "run" && $2 ~ /^[0-9]+$/ { printf "threads=%s tps=%s p95_ms=%s srv_cpu=%s%% cli_us_per_txn=%s errors=%s\n", $2, $3, $6, $10, $9, $11 }'
}
sysbench_sweep_warm() { # port -> lines like sysbench-sweep.sh, counting after the warm-up
  local th w out
  for th in $TH; do
    w=${WARMUP}; [ "$w" == auto ] && w=$((2 + th / 64))
    out=$(sysbench "$T" --mysql-host=127.0.0.1 --mysql-port="$1" --mysql-user=sb --mysql-password=sb \
      --mysql-db=sbtest "${SB_ARGS[@]}" --threads="$th" --time=$((S + w)) --report-checkpoints="$w" \
      --report-interval=0 run 2>&1)
    echo "$out" | awk -v th="$th" -v w="$w" '
      /transactions:/ { tps = $3; sub(/\(/, "", tps) }
      /^ +avg:/ { avg = $2 } /95th percentile:/ { p95 = $3 } /ignored errors:/ { err = $3 }
      END { printf "threads=%s tps=%s avg_ms=%s p95_ms=%s ignored_errors=%s warmup_s=%s\n", th, tps + 0, avg, p95, err, w }'
  done
}
for v in "${variants[@]}"; do
  kind=${v%%:*}; rest=${v#*:}; [ "$rest" == "$v" ] && rest=$kind
  name=${rest%%:*}; args=${rest#*:}; [ "$args" == "$rest" ] && args=""
  start_server "$kind" "$name" "$args"
  sysbench "$T" --mysql-host=127.0.0.1 --mysql-port="$port" --mysql-user=sb --mysql-password=sb \
    --mysql-db=sbtest "${SB_ARGS[@]}" --threads=4 prepare >/dev/null 2>&1
  if [ "${CLIENT:-sysbench}" == cohort ]; then sweep=(cohort_bench_sweep "$port");
  elif [ -n "${WARMUP:-}" ]; then sweep=(sysbench_sweep_warm "$port"); else
    sweep=("$TOOLS/sysbench-sweep.sh" "$port" "$T" "$S" "$TH" "${SB_ARGS[@]}"); fi
  while read -r line; do
    echo "$name $line"
    th=$(echo "$line" | sed -E 's/threads=([0-9]+).*/\1/'); tps=$(echo "$line" | sed -E 's/.*tps=([0-9.]+).*/\1/')
    TPS["$name,$th"]=$tps
  done < <("${sweep[@]}")
  stop_server "$kind" "$name"
  names+=("$name")
  port=$((port + 1))
done
printf "\n| threads |"; for n in "${names[@]}"; do printf " %s |" "$n"; done
for n in "${names[@]:1}"; do printf " %s / %s |" "$n" "${names[0]}"; done; printf "\n|---:|"
for _ in "${names[@]}" "${names[@]:1}"; do printf -- "---:|"; done; printf "\n"
for th in $TH; do
  printf "| %s |" "$th"; for n in "${names[@]}"; do printf " %.0f |" "${TPS[$n,$th]:-0}"; done
  for n in "${names[@]:1}"; do awk -v a="${TPS[$n,$th]:-0}" -v b="${TPS[${names[0]},$th]:-0}" 'BEGIN{ if (b>0) printf " %.2f× |", a/b; else printf " - |" }'; done
  printf "\n"
done
