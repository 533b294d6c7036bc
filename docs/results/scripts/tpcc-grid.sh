#!/bin/bash
# TPC-C side by side: Cohort (pool of threads, durable defaults) against durable MariaDB 10.11
# (../shared/tools/mariadb.sh), with `cohort bench run --workload tpcc`, in alternating rounds.
#   tpcc-grid.sh OUT_DIR [WAREHOUSES="1 10"] [CONNS="16,64,256,1024"] [ROUNDS=2] [TIME=8]
# For each warehouse count: fresh servers, both loaded, then ROUNDS rounds of
# (Cohort at every connection count, MariaDB at every connection count). Each point prints
# NOPM, errors, the consistency check and the server's CPU per transaction (/proc/PID/stat).
# Raw output: OUT_DIR/raw-tpcc-<W>wh.txt; summary lines: OUT_DIR/tpcc-grid.txt.
set -u
OUT=${1:?out dir}; WHS=${2:-"1 10"}; CONNS=${3:-16,64,256,1024}; ROUNDS=${4:-2}; TIME=${5:-8}
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
COHORT=${COHORT_BIN:-$REPO/target/release/cohort}
MDB=${MARIADB_SH:-$REPO/../shared/tools/mariadb.sh}
CP=${COHORT_PORT:-3780}; MP=${MARIADB_PORT:-3781}
mkdir -p "$OUT"
ulimit -n 20000 2>/dev/null
for W in $WHS; do
  RAW=$OUT/raw-tpcc-${W}wh.txt; : > "$RAW"
  CD=$(mktemp -d /work/tmp/tpcc-cohort.XXXX); MD=$(mktemp -d /work/tmp/tpcc-mdb.XXXX)
  "$COHORT" serve --port "$CP" --datadir "$CD" --thread-handling pool-of-threads >"$CD.log" 2>&1 &
  CPID=$!
  "$MDB" start "$MD" "$MP" >/dev/null
  sleep 1
  for p in $CP $MP; do
    mariadb -h127.0.0.1 -P$p -uroot -e "create database if not exists tpcc"
    "$COHORT" bench prepare --workload tpcc --warehouses "$W" \
      --url "mysql://root@127.0.0.1:$p/tpcc" 2>&1 | tail -1 | sed "s/^/port $p: /" | tee -a "$RAW"
  done
  for r in $(seq 1 "$ROUNDS"); do
    for side in cohort mariadb; do
      p=$CP; [ $side = mariadb ] && p=$MP
      echo "== round $r $side ${W}wh" | tee -a "$RAW"
      "$COHORT" bench run --workload tpcc --warehouses "$W" -c "$CONNS" --time "$TIME" \
        --warmup 2 --url "mysql://root@127.0.0.1:$p/tpcc" >>"$RAW" 2>&1
    done
  done
  kill "$CPID"; wait "$CPID" 2>/dev/null
  "$MDB" stop "$MD" >/dev/null
  rm -rf "$CD" "$MD"
done
# Summary: one line per point (round, side, warehouses, connections, NOPM, errors, µs/txn).
python3 - "$OUT" <<'PY' | tee "$OUT/tpcc-grid.txt"
import re, sys, glob, os
out = sys.argv[1]
for raw in sorted(glob.glob(os.path.join(out, "raw-tpcc-*wh.txt"))):
    head = None; conns = None; nopm = None; err = 0
    for line in open(raw):
        m = re.match(r"== round (\d+) (\w+) (\d+)wh", line)
        if m: head = m.groups(); continue
        m = re.match(r"TPC-C: (\d+) warehouse\(s\), (\d+) connections", line)
        if m: conns = int(m.group(2)); nopm = None; err = 0; continue
        m = re.search(r"NOPM .*: (\d+)", line)
        if m: nopm = int(m.group(1)); continue
        m = re.search(r"ignored errors:\s+(\d+)", line)
        if m: err = int(m.group(1)); continue
        m = re.search(r"server \(pid \d+\):.*, ([\d.]+) µs per transaction", line)
        if m and head:
            print(f"round {head[0]} {head[1]:8} {head[2]:>3} wh {conns:>5} conns  NOPM {nopm:>7}  errors {err:>6}  {m.group(1):>9} µs/txn")
        if line.startswith("Check:") and head and "VIOLATED" in line:
            print(f"round {head[0]} {head[1]} {head[2]} wh CHECK: {line.strip()}")
PY
