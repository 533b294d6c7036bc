#!/bin/bash
# The cost of TLS: sysbench against one Cohort server, in clear and with --mysql-ssl=on, in
# alternating order, several rounds; medians of tps and of the server's CPU per transaction
# (utime + stime from /proc/PID/stat over the run, divided by the transactions).
#   docs/results/scripts/tls-cost.sh [ROUNDS] [SECONDS] ["THREADS"] [TESTS]
# defaults: 3 rounds, 8 s, "16 64", "oltp_point_select oltp_update_non_index".
# The server: `cohort serve` with the pool of threads and its defaults (durable: binlog on, one
# fsync per group, on the work disk), 4 tables x 10 000 rows. sysbench (libmariadb, OpenSSL)
# runs on the same 2 cores and pays its own side of TLS: tps is the whole system's; the
# server's µs/txn is the server's alone. SERVER_FLAGS adds `cohort serve` flags.
set -u
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
BIN=${COHORT_BIN:-$REPO/target/release/cohort}
WORK=${WORK:-/tmp/tls-cost}
ROUNDS=${1:-3}
SECS=${2:-8}
THREADS=${3:-"16 64"}
TESTS=${4:-"oltp_point_select oltp_update_non_index"}
PORT=${PORT:-4589}
TICK=$(getconf CLK_TCK)
ulimit -n "$(ulimit -Hn)"
rm -rf "$WORK" && mkdir -p "$WORK"
# shellcheck disable=SC2086 # SERVER_FLAGS is a list of flags
"$BIN" serve --datadir "$WORK/data" --port "$PORT" --max-connections 10000 \
  --thread-handling pool-of-threads ${SERVER_FLAGS:-} >"$WORK/server.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null' EXIT
for _ in $(seq 1 100); do mariadb -uroot -h127.0.0.1 -P"$PORT" --skip-ssl -e 'select 1' >/dev/null 2>&1 && break; sleep 0.2; done
mariadb -uroot -h127.0.0.1 -P"$PORT" -e "create database sbtest; create user 'sb'@'%' identified by 'sb'; grant all on *.* to 'sb'@'%';"
# sysbench 1.0.20 loads cacert.pem, client-cert.pem and client-key.pem from its working
# directory when --mysql-ssl=on.
cp "$WORK/data/ca.pem" "$WORK/cacert.pem"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/client-key.pem" -out "$WORK/client-cert.pem" \
  -days 2 -subj "/CN=sysbench" >/dev/null 2>&1
cd "$WORK" || exit 1
SB=(--mysql-host=127.0.0.1 --mysql-port="$PORT" --mysql-user=sb --mysql-password=sb --mysql-db=sbtest
  --tables=4 --table-size=10000 --mysql-ignore-errors=1213,1205)
sysbench oltp_read_write "${SB[@]}" --threads=4 prepare >"$WORK/prepare.log" 2>&1 || { tail "$WORK/prepare.log"; exit 1; }
cpu() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
point() { # test threads mode -> "tps us_per_txn"
  local t=$1 n=$2 mode=$3 c0 c1 log="$WORK/$1-$2-$3.log"
  c0=$(cpu)
  sysbench "$t" "${SB[@]}" --threads="$n" --time="$SECS" --mysql-ssl="$mode" run >"$log" 2>&1
  c1=$(cpu)
  local txn tps
  txn=$(awk '/^ +transactions:/ {print $2}' "$log")
  tps=$(awk '/^ +transactions:/ {gsub(/\(/, "", $3); print $3}' "$log")
  awk -v tps="$tps" -v txn="$txn" -v c="$((c1 - c0))" -v tick="$TICK" \
    'BEGIN { printf "%.0f %.1f\n", tps, (txn > 0 ? c / tick * 1e6 / txn : 0) }'
}
declare -A R
for r in $(seq 1 "$ROUNDS"); do
  for t in $TESTS; do
    for n in $THREADS; do
      order="off on"
      [ $((r % 2)) -eq 0 ] && order="on off"
      for mode in $order; do
        res=$(point "$t" "$n" "$mode")
        R[$t/$n/$mode]+="$res;"
        echo "round $r $t threads=$n ssl=$mode tps/us_per_txn: $res"
      done
    done
  done
done
median() { tr ';' '\n' | grep -v '^$' | awk -v f="$1" '{print $f}' | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo
echo "| test | threads | tps clear | tps TLS | TLS/clear | server µs/txn clear | server µs/txn TLS | extra µs/txn |"
echo "|---|---|---|---|---|---|---|---|"
for t in $TESTS; do
  for n in $THREADS; do
    a=$(median 1 <<<"${R[$t/$n/off]}"); b=$(median 1 <<<"${R[$t/$n/on]}")
    ca=$(median 2 <<<"${R[$t/$n/off]}"); cb=$(median 2 <<<"${R[$t/$n/on]}")
    awk -v t="$t" -v n="$n" -v a="$a" -v b="$b" -v ca="$ca" -v cb="$cb" \
      'BEGIN { printf "| %s | %s | %.0f | %.0f | %.2f | %.1f | %.1f | %+.1f |\n", t, n, a, b, b / a, ca, cb, cb - ca }'
  done
done
grep -E "Ssl|TLS" "$WORK/server.log" | head -2
