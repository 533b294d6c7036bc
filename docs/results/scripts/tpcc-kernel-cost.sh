#!/bin/bash
# TPC-C kernel work per transaction: `cohort bench run --workload tpcc` against two or more
# Cohort binaries (pool of threads) in alternating rounds, each point under `perf stat -p PID`
# (syscalls, context switches) with utime+stime from /proc/PID/stat.
#   docs/results/scripts/tpcc-kernel-cost.sh WAREHOUSES CONNS SECONDS ROUNDS NAME=BIN...
# The bench client is the first binary. Data under $WORK (default /tmp/perf-tpcc: a real disk,
# so fsync and group commit behave as in production).
set -u
W=$1; C=$2; S=$3; ROUNDS=$4; shift 4
servers=("$@")
WORK=${WORK:-/tmp/perf-tpcc}
PORT0=${PORT0:-3664}
ulimit -n "$(ulimit -Hn)"
TICK=$(getconf CLK_TCK)
CLIENT=${servers[0]#*=}
EVENTS=raw_syscalls:sys_enter,context-switches
KINDS="sendto recvfrom epoll_wait epoll_ctl futex getsockopt fdatasync pwrite64 mmap munmap madvise sched_yield"
for k in $KINDS; do EVENTS="$EVENTS,syscalls:sys_enter_$k"; done
declare -A PORT PID RES
port=$PORT0
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# Voluntary and involuntary context switches of all the server's threads now.
ctx_sw() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt/ { v += $2 } /^nonvoluntary_ctxt/ { n += $2 } END { print v, n }'; }
for s in "${servers[@]}"; do
  name=${s%%=*}; bin=${s#*=}; d="$WORK/$name"; rm -rf "$d"; mkdir -p "$d"
  "$bin" serve --datadir "$d" --port "$port" --thread-handling pool-of-threads \
    --max-connections 10000 ${COHORT_ARGS:-} >"$d.log" 2>&1 &
  PID[$name]=$!
  for _ in $(seq 1 100); do mariadb -uroot -h127.0.0.1 -P"$port" -e 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done
  mariadb -h127.0.0.1 -P"$port" -uroot -e "create database if not exists tpcc"
  "$CLIENT" bench prepare --workload tpcc --warehouses "$W" \
    --url "mysql://root@127.0.0.1:$port/tpcc" >/dev/null 2>&1
  PORT[$name]=$port; port=$((port + 1))
done
for r in $(seq 1 "$ROUNDS"); do
  for s in "${servers[@]}"; do
    name=${s%%=*}; pid=${PID[$name]}; f=$WORK/perf-$name.csv
    # Warm-up outside the measured window, then the window.
    "$CLIENT" bench run --workload tpcc --warehouses "$W" -c "$C" --time 2 --warmup 0 \
      --url "mysql://root@127.0.0.1:${PORT[$name]}/tpcc" >/dev/null 2>&1
    perf stat -x, -e "$EVENTS" -p "$pid" -o "$f" 2>/dev/null &
    pp=$!; sleep 0.3
    c0=$(cpu_ticks "$pid"); read -r v0 n0 <<<"$(ctx_sw "$pid")"
    out=$("$CLIENT" bench run --workload tpcc --warehouses "$W" -c "$C" --time "$S" --warmup 0 \
      --url "mysql://root@127.0.0.1:${PORT[$name]}/tpcc" 2>&1)
    c1=$(cpu_ticks "$pid"); read -r v1 n1 <<<"$(ctx_sw "$pid")"
    kill -INT $pp; wait $pp 2>/dev/null
    echo "$out" > "$WORK/out-$name-$r.txt"
    txn=$(echo "$out" | awk '/^ *transactions:/ { print $2; exit }')
    nopm=$(echo "$out" | awk -F': ' '/NOPM/ { print $2; exit }')
    us=$(awk -v c=$((c1 - c0)) -v n="${txn:-0}" -v k="$TICK" 'BEGIN { if (n > 0) printf "%.1f", c / k * 1e6 / n; else print 0 }')
    per=$(awk -F, -v n="${txn:-1}" '$3 != "" && $1 ~ /^[0-9]/ { e = $3; sub(/syscalls:sys_enter_/, "", e); sub(/raw_syscalls:sys_enter/, "sys", e); sub(/context-switches/, "cs", e); printf "%s=%.2f ", e, $1 / n }' "$f")
    vol=$(awk -v d=$((v1 - v0)) -v n="${txn:-1}" 'BEGIN { printf "%.2f", d / n }')
    invol=$(awk -v d=$((n1 - n0)) -v n="${txn:-1}" 'BEGIN { printf "%.2f", d / n }')
    echo "round=$r server=$name conns=$C txn=${txn:-0} nopm=${nopm:-?} us=$us vcs=$vol ivcs=$invol $per"
    RES["$name"]+="nopm=${nopm:-0} us=$us vcs=$vol ivcs=$invol $per;"
  done
done
echo
echo "tpcc ${W}wh, $C connections, ${S}s points, $ROUNDS rounds: medians per transaction"
for s in "${servers[@]}"; do
  name=${s%%=*}
  echo "${RES[$name]}" | tr ';' '\n' | grep -v '^$' | python3 -c '
import sys, statistics
rows = [dict(kv.split("=") for kv in l.split()) for l in sys.stdin]
keys = [k for k in rows[0] if any(float(r.get(k, 0)) for r in rows)]
print("server='"$name"' " + " ".join(
  "%s=%.2f" % (k, statistics.median(float(r.get(k, 0)) for r in rows)) for k in keys))'
done
for s in "${servers[@]}"; do
  name=${s%%=*}
  kill "${PID[$name]}"; wait "${PID[$name]}" 2>/dev/null
  rm -rf "${WORK:?}/$name"
done
