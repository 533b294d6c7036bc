#!/bin/bash
# TPC-C in CI (issue 20): `cohort bench run tpcc` (crates/bench/src/tpcc), written from the
# specification, at test scale.
#   1. the smoke test against a throwaway MariaDB (the oracle): the mix runs, the consistency
#      conditions hold, and a corrupted database is caught by the check;
#   2. against a fresh Cohort, with the specification's SQL (joins included): every
#      transaction type runs, none is refused (1235), conditions 1-4 hold;
#   3. kill -9 during the run, restart on the same data directory: every acknowledged
#      New-Order is there and the conditions still hold, and again after a second run.
# Needs COHORT_BIN (a release `cohort`); prints PASS:/FAIL: lines.
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${COHORT_BIN:-$REPO/target/release/cohort}
WORK=${INTEROP_WORKDIR:-$(mktemp -d /tmp/cohort-tpcc.XXXXXX)}
mkdir -p "$WORK"
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# 1. MariaDB smoke test (builds the test with the mariadb-tests feature).
if (cd "$REPO" && cargo test -q -p cohort-bench --features mariadb-tests --test tpcc_smoke) \
  >"$WORK/smoke.log" 2>&1; then
  pass "tpcc smoke test against MariaDB"
else
  fail "tpcc smoke test against MariaDB (see $WORK/smoke.log)"; tail -30 "$WORK/smoke.log"
fi

# 2. A run against a fresh Cohort.
PORT=$(free_port)
"$BIN" serve --datadir "$WORK/data" --port "$PORT" --max-connections 1000 >"$WORK/server.log" 2>&1 &
PID=$!
for _ in $(seq 1 100); do
  mariadb -uroot -h127.0.0.1 -P"$PORT" -e 'CREATE DATABASE IF NOT EXISTS tpcc' >/dev/null 2>&1 && break
  sleep 0.2
done
if "$BIN" bench run tpcc --url "mysql://root@127.0.0.1:$PORT/tpcc" --test-scale --prepare \
  -c 8 --duration 5 >"$WORK/run.log" 2>&1; then
  pass "tpcc on Cohort: the run and its consistency check"
else
  fail "tpcc on Cohort: the run or its check failed"; tail -40 "$WORK/run.log"
fi
refused=$(awk '/^    (new_order|payment|order_status|delivery|stock_level) / { s += $6 } END { print s + 0 }' "$WORK/run.log")
types=$(awk '/^    (new_order|payment|order_status|delivery|stock_level) / && $2 > 0 { n++ } END { print n + 0 }' "$WORK/run.log")
if [ "$refused" -eq 0 ] && [ "$types" -eq 5 ]; then
  pass "tpcc on Cohort: all five transactions ran, none refused"
else
  fail "tpcc on Cohort: $types transaction types ran, $refused refused statements"
  grep -A8 'transaction       count' "$WORK/run.log"
fi
kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null

# 3. kill -9 during the run, restart, check, run again, check.
if (cd "$WORK" && "$BIN" bench run tpcc --test-scale -c 8 --kill-after 4 --duration 3 \
  --cohort-bin "$BIN") >"$WORK/crash.log" 2>&1; then
  pass "tpcc on Cohort: kill -9 during the run, acknowledged New-Orders kept, conditions hold"
else
  fail "tpcc on Cohort: kill -9 run (see $WORK/crash.log)"; tail -40 "$WORK/crash.log"
fi
