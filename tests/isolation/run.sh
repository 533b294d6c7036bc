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
#   ISOLATION_ONLY: scenario names (space separated), COHORT_JOBS [4]: scenarios run at once
#   against Cohort, MARIADB_SERVERS [3]: throwaway MariaDBs that share the scenarios, each
#   running one at a time (Cohort and the MariaDBs are checked at the same time).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${COHORT_HOST:=127.0.0.1}" "${COHORT_ROOT_USER:=root}" "${COHORT_ROOT_PASSWORD:=}"
: "${COHORT_PORT:?COHORT_PORT is required}"
ONLY=()
[ -n "${ISOLATION_ONLY:-}" ] && read -r -a ONLY <<<"$ISOLATION_ONLY"
ONLY_ARGS=()
[ ${#ONLY[@]} -gt 0 ] && ONLY_ARGS=(--only "${ONLY[@]}")

MDB_PIDS=()
MDB_DIRS=()
cleanup() {
  local p d
  for p in "${MDB_PIDS[@]}"; do
    kill "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  for d in "${MDB_DIRS[@]}"; do rm -rf "$d"; done
}
trap cleanup EXIT

# start_mariadb: one more throwaway MariaDB; appends to MDB_PIDS / MDB_DIRS, sets MDB_PORT.
start_mariadb() {
  local mariadbd dir
  mariadbd=$(command -v mariadbd || ls /usr/sbin/mariadbd 2>/dev/null) || {
    echo "mariadbd is not installed (apt-get install mariadb-server)"
    return 1
  }
  dir=$(mktemp -d /tmp/cohort-isolation-mdb.XXXXXX)
  MDB_DIRS+=("$dir")
  MDB_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mariadb-install-db --user=root --datadir="$dir" --auth-root-authentication-method=normal >/dev/null 2>&1 || {
    echo "mariadb-install-db failed"
    return 1
  }
  "$mariadbd" --no-defaults --user=root --datadir="$dir" --port="$MDB_PORT" \
    --bind-address=127.0.0.1 --socket="$dir/mysqld.sock" --skip-name-resolve \
    --innodb-buffer-pool-size=64M >"$dir/err.log" 2>&1 &
  MDB_PIDS+=($!)
  local i
  for i in $(seq 1 120); do
    mariadb -uroot -h127.0.0.1 -P"$MDB_PORT" -e 'SELECT 1' >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "MariaDB did not start; its log:"
  tail -20 "$dir/err.log"
  return 1
}

PASSED=0
FAILED=0
# run_against LABEL PORT USER PASSWORD JOBS LOG: the runner against one server, into LOG.
# Scenario names after LOG restrict the run to them (else ONLY_ARGS applies).
run_against() {
  local label=$1 port=$2 user=$3 password=$4 jobs=$5 log=$6
  shift 6
  local only=("${ONLY_ARGS[@]}")
  [ $# -gt 0 ] && only=(--only "$@")
  python3 "$HERE/isolation.py" --host "$COHORT_HOST" --port "$port" --user "$user" \
    --password "$password" --jobs "$jobs" "${only[@]}" 2>&1 |
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

# All servers at once (the runs are mostly waits). Cohort runs several scenarios at a time,
# each in its own database. A MariaDB runs one at a time: its INNODB_TRX, which decides
# "blocked", lags behind under parallel scenarios on one server (two jobs on one MariaDB made
# lock waits invisible for 20 s), so the scenarios are dealt round-robin to MARIADB_SERVERS
# separate MariaDBs instead: with three the step takes 110 s instead of 275 s on this 2-core
# host (MariaDB's share bounds it).
LOGS=$(mktemp -d /tmp/cohort-isolation-logs.XXXXXX)
MDB_OK=1
MDB_PORTS=()
if [ -n "${MARIADB_PORT:-}" ]; then
  MDB_PORTS=("$MARIADB_PORT")
else
  for _ in $(seq 1 "${MARIADB_SERVERS:-3}"); do
    start_mariadb || { MDB_OK=0; break; }
    MDB_PORTS+=("$MDB_PORT")
  done
fi
NAMES=()
if [ ${#ONLY[@]} -gt 0 ]; then
  NAMES=("${ONLY[@]}")
else
  for f in "$HERE"/scenarios/*.txt; do NAMES+=("$(basename "$f" .txt)"); done
fi
RUNNERS=()
if [ $MDB_OK -eq 1 ]; then
  n=${#MDB_PORTS[@]}
  for k in $(seq 0 $((n - 1))); do
    share=()
    for i in "${!NAMES[@]}"; do
      [ $((i % n)) -eq "$k" ] && share+=("${NAMES[$i]}")
    done
    [ ${#share[@]} -eq 0 ] && continue
    run_against mariadb "${MDB_PORTS[$k]}" root "" 1 "$LOGS/mariadb-$k" "${share[@]}" &
    RUNNERS+=($!)
  done
fi
run_against cohort "$COHORT_PORT" "$COHORT_ROOT_USER" "$COHORT_ROOT_PASSWORD" "${COHORT_JOBS:-4}" "$LOGS/cohort"
for r in "${RUNNERS[@]}"; do wait "$r"; done
if [ $MDB_OK -eq 1 ]; then
  for log in "$LOGS"/mariadb-*; do count mariadb "$log"; done
else
  echo "FAIL: isolation[mariadb]: no MariaDB to check the expectations against"
  FAILED=$((FAILED + 1))
fi
count cohort "$LOGS/cohort"
rm -rf "$LOGS"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
