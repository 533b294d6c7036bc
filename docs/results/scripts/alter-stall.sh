#!/bin/bash
# ALTER TABLE on a large table, and the stall it causes to concurrent DML.
#   docs/results/scripts/alter-stall.sh PORT ROWS "STATEMENT;..."
# The server on 127.0.0.1:PORT (user sb/sb, database sbtest) must hold sbtest1 with ROWS rows
# (sysbench oltp_update_non_index --tables=1 --table-size=ROWS prepare). For each statement
# (separated by ';'): sysbench oltp_update_non_index at 4 threads runs with one report a second
# and --percentile=100 (so each line's latency is that second's maximum); 4 s in, the statement
# runs through the mariadb client and is timed; 4 s after it returns sysbench is stopped. Prints
# the statement's wall time, the steady tps before it, the lowest and mean tps of the seconds it
# ran, the seconds with zero transactions, and the largest per-second max latency, then the
# sysbench lines.
set -u
P=$1; ROWS=$2; STMTS=$3
SB=(--mysql-host=127.0.0.1 --mysql-port="$P" --mysql-user=sb --mysql-password=sb
  --mysql-db=sbtest --tables=1 --table-size="$ROWS")
IFS=';' read -ra list <<<"$STMTS"
for st in "${list[@]}"; do
  st=$(echo "$st" | sed 's/^ *//')
  [ -z "$st" ] && continue
  f=$(mktemp)
  sysbench oltp_update_non_index "${SB[@]}" --threads=4 --time=3600 --report-interval=1 \
    --percentile=100 run >"$f" 2>&1 &
  sb=$!
  sleep 4
  t0=$(date +%s.%N)
  msg=$(mariadb -usb -psb -h127.0.0.1 -P"$P" sbtest -e "$st" 2>&1)
  t1=$(date +%s.%N)
  sleep 4
  kill -INT $sb 2>/dev/null; sleep 0.5; kill $sb 2>/dev/null; wait $sb 2>/dev/null
  # report lines: [ Ns ] thds: 4 tps: X qps: ... lat (ms,100%): Y err/s: ...
  awk -v st="$st" -v d="$(echo "$t1 - $t0" | bc)" -v msg="$msg" '
    /^\[ [0-9]+s \]/ { s = $2 + 0; tps[s] = $7 + 0; lat[s] = $14 + 0; if (s > n) n = s }
    END {
      # the statement started ~4 s in and ran d seconds: its seconds are 5 .. 4 + ceil(d)
      a = 5; b = 4 + int(d) + ((d > int(d)) ? 1 : 0)
      base = (tps[2] + tps[3] + tps[4]) / 3
      lo = 1e18; sum = 0; k = 0; zero = 0; mx = 0
      for (s = a; s <= b && s <= n; s++) { if (tps[s] < lo) lo = tps[s]; sum += tps[s]; k++; if (tps[s] == 0) zero++ }
      for (s = 1; s <= n; s++) if (lat[s] > mx) mx = lat[s]
      printf "alter: %s | %.2f s | tps before %.0f | during: min %.0f, mean %.0f | zero-tps seconds %d | max latency %.1f ms | %s\n",
        st, d, base, lo, (k ? sum / k : 0), zero, mx, (msg == "" ? "ok" : msg)
    }' "$f"
  grep -E '^\[ [0-9]+s \]' "$f" | sed 's/^/    /'
  rm -f "$f"
done
