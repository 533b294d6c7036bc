#!/bin/bash
# The differential isolation suite against both servers (what .ci/run does):
#   1. a throwaway MariaDB (mariadb-install-db + mariadbd on a free port, temporary datadir)
#      runs every scenario and must still give the recorded expectations (expected/*.out were
#      recorded from it with `isolation.py --record`: this checks the oracle did not move);
#   2. the Cohort server at COHORT_HOST:COHORT_PORT runs every scenario and must give the same.
# Prints one PASS/FAIL line per scenario and server, then "N passed, N failed"; exits non-zero
# on any failure.
#   COHORT_PORT (required), COHORT_HOST [127.0.0.1], COHORT_ROOT_USER [root],
#   COHORT_ROOT_PASSWORD [""], MARIADB_PORT: use a running MariaDB instead of starting one,
#   ISOLATION_ONLY: scenario names (space separated), COHORT_JOBS [4] / MARIADB_JOBS [1]:
#   scenarios run at once against each server (the two servers are checked at the same time).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${COHORT_HOST:=127.0.0.1}" "${COHORT_ROOT_USER:=root}" "${COHORT_ROOT_PASSWORD:=}"
: "${COHORT_PORT:?COHORT_PORT is required}"
ONLY=()
[ -n "${ISOLATION_ONLY:-}" ] && read -r -a ONLY <<<"$ISOLATION_ONLY"
ONLY_ARGS=()
[ ${#ONLY[@]} -gt 0 ] && ONLY_ARGS=(--only "${ONLY[@]}")

MDB_PID=""
MDB_DIR=""
cleanup() {
  if [ -n "$MDB_PID" ]; then
    kill "$MDB_PID" 2>/dev/null
    wait "$MDB_PID" 2>/dev/null
  fi
  [ -n "$MDB_DIR" ] && rm -rf "$MDB_DIR"
}
trap cleanup EXIT

start_mariadb() {
  local mariadbd
  mariadbd=$(command -v mariadbd || ls /usr/sbin/mariadbd 2>/dev/null) || {
    echo "mariadbd is not installed (apt-get install mariadb-server)"
    return 1
  }
  MDB_DIR=$(mktemp -d /tmp/cohort-isolation-mdb.XXXXXX)
  MARIADB_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mariadb-install-db --user=root --datadir="$MDB_DIR" --auth-root-authentication-method=normal >/dev/null 2>&1 || {
    echo "mariadb-install-db failed"
    return 1
  }
  "$mariadbd" --no-defaults --user=root --datadir="$MDB_DIR" --port="$MARIADB_PORT" \
    --bind-address=127.0.0.1 --socket="$MDB_DIR/mysqld.sock" --skip-name-resolve \
    --innodb-buffer-pool-size=128M >"$MDB_DIR/err.log" 2>&1 &
  MDB_PID=$!
  local i
  for i in $(seq 1 120); do
    mariadb -uroot -h127.0.0.1 -P"$MARIADB_PORT" -e 'SELECT 1' >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "MariaDB did not start; its log:"
  tail -20 "$MDB_DIR/err.log"
  return 1
}

PASSED=0
FAILED=0
# run_against LABEL PORT USER PASSWORD JOBS LOG: the runner against one server, into LOG.
run_against() {
  local label=$1 port=$2 user=$3 password=$4 jobs=$5 log=$6
  python3 "$HERE/isolation.py" --host "$COHORT_HOST" --port "$port" --user "$user" \
    --password "$password" --jobs "$jobs" "${ONLY_ARGS[@]}" 2>&1 |
    sed "s/^\(PASS\|FAIL\): isolation /\1: isolation[$label] /" >"$log"
}
# count LABEL LOG: print a runner's log and add its summary to the totals.
count() {
  local label=$1 log=$2 line p f
  cat "$log"
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
  if [ -z "$line" ]; then
    echo "FAIL: isolation[$label]: the runner printed no summary"
    FAILED=$((FAILED + 1))
    return
  fi
  p=${line%% passed*}
  f=${line#*passed, }
  PASSED=$((PASSED + p))
  FAILED=$((FAILED + ${f%% failed}))
}

# Both servers at once (the runs are mostly waits). Cohort runs several scenarios at a time,
# each in its own database; MariaDB one at a time: its INNODB_TRX, which decides "blocked",
# lags behind under parallel scenarios on a small host.
LOGS=$(mktemp -d /tmp/cohort-isolation-logs.XXXXXX)
MDB_OK=1
if [ -z "${MARIADB_PORT:-}" ]; then
  start_mariadb || MDB_OK=0
fi
RUNNER=""
if [ $MDB_OK -eq 1 ]; then
  run_against mariadb "$MARIADB_PORT" root "" "${MARIADB_JOBS:-1}" "$LOGS/mariadb" &
  RUNNER=$!
fi
run_against cohort "$COHORT_PORT" "$COHORT_ROOT_USER" "$COHORT_ROOT_PASSWORD" "${COHORT_JOBS:-4}" "$LOGS/cohort"
[ -n "$RUNNER" ] && wait "$RUNNER"
if [ $MDB_OK -eq 1 ]; then
  count mariadb "$LOGS/mariadb"
else
  echo "FAIL: isolation[mariadb]: no MariaDB to check the expectations against"
  FAILED=$((FAILED + 1))
fi
count cohort "$LOGS/cohort"
rm -rf "$LOGS"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
