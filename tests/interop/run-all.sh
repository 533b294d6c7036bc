#!/bin/bash
# The real-client interop suite: sysbench, the mariadb CLI, PyMySQL, the Rust `mysql` crate,
# raw-socket bad input and TLS (tls.sh), against one running MySQL-compatible server.
#
#   COHORT_PORT=3316 tests/interop/run-all.sh                       # a MariaDB from shared/tools/mariadb.sh
#   INTEROP_TARGET=cohort COHORT_PORT=P COHORT_ROOT_PASSWORD=PW COHORT_PID=PID \
#     COHORT_BIN=target/release/cohort tests/interop/run-all.sh     # what .ci/run does
#
# Environment (defaults in brackets):
#   COHORT_HOST [127.0.0.1] COHORT_PORT [3306]    the server under test
#   COHORT_ROOT_USER [root] COHORT_ROOT_PASSWORD []  creates the test account if it cannot log in yet:
#       CREATE USER 'sb'@'%' IDENTIFIED BY 'sb'; GRANT ALL ON *.* TO 'sb'@'%'; CREATE DATABASE sbtest;
#   COHORT_USER [sb] COHORT_PASSWORD [sb] COHORT_DB [sbtest]
#   COHORT_PID         server pid, for the VmRSS check after the connection churn
#                      [mariadb target: $MARIADB_DATADIR/mysqld.pid]
#   INTEROP_TARGET [mariadb]  cohort | mariadb: how to get the second, connection-limited server
#     cohort:  starts "$COHORT_BIN serve --max-connections 10" on a free port (temp datadir) and
#              creates the same account there;
#     mariadb: starts "$MARIADB_SH start DIR PORT --max-connections=10" (MariaDB's minimum is 10)
#              and uses a user with privileges on sbtest.* only ('sb_limited'), because MariaDB
#              gives users with CONNECTION ADMIN one extra connection and then refuses *before*
#              the handshake.
#     Or set MAXCONN_PORT (+ MAXCONN_USER, MAXCONN_PASSWORD, MAXCONN_LIMIT) to a running one.
#   COHORT_SERVE_FLAGS []  extra `cohort serve` flags for the servers this script starts (cohort
#       target), e.g. "--thread-handling pool-of-threads" to test the pool of threads; the server
#       under test is started by the caller with the same flags (see .ci/run)
#   COHORT_BIN [target/release/cohort]  MARIADB_SH [../shared/tools/mariadb.sh]
#   MARIADB_DATADIR [/tmp/cohort-mariadb]
#   INTEROP_MYSQL_BIN  the interop-mysql binary [target/{release,debug}/interop-mysql, else cargo build -p interop]
#   INTEROP_PARTS ["sysbench cli pymysql load-data mysql-crate bad-input binlog tls"]
#   COHORT_SSL_CA [$COHORT_DATADIR/ca.pem]  the CA that verifies the server (tls part; cohort
#       target: the one it generated in its data directory)
#   INTEROP_WORKDIR    logs [a new /tmp/interop.XXXXXX]
# Every check prints "PASS: name" or "FAIL: name: why"; the last line is "N passed, N failed",
# and the exit status is non-zero when anything failed.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

: "${INTEROP_TARGET:=mariadb}"
: "${INTEROP_PARTS:=sysbench cli pymysql load-data mysql-crate bad-input binlog tls}"
: "${INTEROP_WORKDIR:=$(mktemp -d /tmp/interop.XXXXXX)}"
: "${COHORT_BIN:=$REPO/target/release/cohort}"
: "${MARIADB_SH:=$REPO/../shared/tools/mariadb.sh}"
: "${MARIADB_DATADIR:=/tmp/cohort-mariadb}"
: "${COHORT_SERVE_FLAGS:=}"
export INTEROP_WORKDIR
mkdir -p "$INTEROP_WORKDIR"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

TOTAL_PASSED=0
TOTAL_FAILED=0
# A failure found by this script itself (not by a part): printed and kept for the summary.
top_fail() {
  echo "FAIL: $*" | tee -a "$INTEROP_WORKDIR/run-all.log"
  TOTAL_FAILED=$((TOTAL_FAILED + 1))
}
top_pass() {
  echo "PASS: $*"
  TOTAL_PASSED=$((TOTAL_PASSED + 1))
}
echo "interop suite against $COHORT_HOST:$COHORT_PORT ($INTEROP_TARGET${COHORT_SERVE_FLAGS:+, $COHORT_SERVE_FLAGS}), parts: $INTEROP_PARTS; logs in $INTEROP_WORKDIR"

# run_part NAME TIMEOUT CMD...: runs a part, shows its output, counts its PASS/FAIL lines.
run_part() {
  local name=$1 limit=$2 log="$INTEROP_WORKDIR/$1.log" rc p f t0
  shift 2
  t0=$(date +%s)
  echo "=== $name"
  timeout --kill-after=10 "$limit" "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  p=$(grep -c '^PASS: ' "$log")
  f=$(grep -c '^FAIL: ' "$log")
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "FAIL: $name: timed out after ${limit}s" | tee -a "$log"
    f=$((f + 1))
  elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL: $name: exited with status $rc without a FAIL line (see $log)" | tee -a "$log"
    f=$((f + 1))
  fi
  TOTAL_PASSED=$((TOTAL_PASSED + p))
  TOTAL_FAILED=$((TOTAL_FAILED + f))
  echo "=== $name: $p passed, $f failed ($(($(date +%s) - t0))s)"
}


# wait_answers PORT USER PASSWORD: up to 60 s for "SELECT 1" to work.
wait_answers() {
  local i
  for i in $(seq 1 120); do
    if [ "$(timeout 5 mariadb -h "$COHORT_HOST" -P "$1" -u "$2" --password="$3" --protocol=TCP -N -B -e 'SELECT 1' </dev/null 2>/dev/null)" == 1 ]; then
      return 0
    fi
    sleep 0.5
  done
  return 1
}

# create_account PORT: the suite's account and database, as root (each statement separately).
create_account() {
  local port=$1 stmt out ok=0
  for stmt in "CREATE USER '$COHORT_USER'@'%' IDENTIFIED BY '$COHORT_PASSWORD'" \
    "GRANT ALL ON *.* TO '$COHORT_USER'@'%'" "CREATE DATABASE $COHORT_DB"; do
    if ! out=$(COHORT_PORT=$port sqlq_root "$stmt" 2>&1); then
      echo "  setup on port $port: $stmt: $out" | tee -a "$INTEROP_WORKDIR/run-all.log"
      ok=1
    fi
  done
  return $ok
}

# --- the account on the server under test ----------------------------------------------------
echo "=== setup"
if server_alive; then
  top_pass "setup/account (already there)"
elif create_account "$COHORT_PORT" && server_alive; then
  top_pass setup/account
else
  top_fail "setup/account: '$COHORT_USER' cannot log in to '$COHORT_DB' on $COHORT_HOST:$COHORT_PORT: $(sqlq 'SELECT 1' 2>&1 | head -2 | tr '\n' ' ')"
fi

if [ -z "${COHORT_PID:-}" ] && [ "$INTEROP_TARGET" == mariadb ] && [ -f "$MARIADB_DATADIR/mysqld.pid" ]; then
  COHORT_PID=$(cat "$MARIADB_DATADIR/mysqld.pid")
fi
export COHORT_PID=${COHORT_PID:-}

# --- parts -----------------------------------------------------------------------------------
for part in $INTEROP_PARTS; do
  case $part in
  sysbench) run_part sysbench 900 "$HERE/sysbench.sh" ;;
  cli) run_part cli 300 "$HERE/cli.sh" ;;
  binlog) run_part binlog 300 "$HERE/binlog.sh" ;;
  tls) run_part tls 600 "$HERE/tls.sh" ;;
  pymysql) run_part pymysql 400 python3 "$HERE/pymysql_bank.py" ;;
  load-data) run_part load-data 300 python3 "$HERE/load_data.py" ;;
  mysql-crate)
    bin=${INTEROP_MYSQL_BIN:-}
    if [ -z "$bin" ]; then
      for b in "$REPO/target/release/interop-mysql" "$REPO/target/debug/interop-mysql"; do
        [ -x "$b" ] && { bin=$b; break; }
      done
    fi
    if [ -z "$bin" ]; then
      echo "=== building interop-mysql (cargo build -p interop)"
      (cd "$REPO" && timeout 1200 cargo build -q -p interop) && bin=$REPO/target/debug/interop-mysql
    fi
    if [ -n "$bin" ] && [ -x "$bin" ]; then
      run_part mysql-crate 400 "$bin"
    else
      top_fail "mysql-crate: no interop-mysql binary (set INTEROP_MYSQL_BIN or build -p interop)"
    fi
    ;;
  bad-input)
    # The second, connection-limited server for the "too many connections" case.
    mc_started="" mc_dir=""
    if [ -z "${MAXCONN_PORT:-}" ]; then
      MAXCONN_PORT=$(free_port)
      mc_dir=$(mktemp -d /tmp/interop-maxconn.XXXXXX)
      if [ "$INTEROP_TARGET" == cohort ]; then
        MAXCONN_LIMIT=10 # MariaDB's minimum max_connections, which Cohort keeps too
        "$COHORT_BIN" serve --port "$MAXCONN_PORT" --bind 127.0.0.1 --datadir "$mc_dir/data" \
          --root-password "$COHORT_ROOT_PASSWORD" --max-connections "$MAXCONN_LIMIT" $COHORT_SERVE_FLAGS >"$INTEROP_WORKDIR/maxconn-server.log" 2>&1 &
        mc_started=$!
        if wait_answers "$MAXCONN_PORT" "$COHORT_ROOT_USER" "$COHORT_ROOT_PASSWORD" && create_account "$MAXCONN_PORT"; then
          export MAXCONN_USER=$COHORT_USER MAXCONN_PASSWORD=$COHORT_PASSWORD
        else
          top_fail "bad-input/max-connections-server: the --max-connections $MAXCONN_LIMIT instance did not come up (log $INTEROP_WORKDIR/maxconn-server.log)"
        fi
      else
        MAXCONN_LIMIT=10 # MariaDB's minimum max_connections
        if bash "$MARIADB_SH" start "$mc_dir" "$MAXCONN_PORT" --max-connections="$MAXCONN_LIMIT" --skip-log-bin \
          --innodb-buffer-pool-size=64M --innodb-log-file-size=48M >"$INTEROP_WORKDIR/maxconn-server.log" 2>&1; then
          mc_started=mariadb
          COHORT_PORT=$MAXCONN_PORT sqlq_root "CREATE USER IF NOT EXISTS 'sb_limited'@'%' IDENTIFIED BY '$COHORT_PASSWORD'; GRANT ALL ON $COHORT_DB.* TO 'sb_limited'@'%'" >/dev/null
          export MAXCONN_USER=sb_limited MAXCONN_PASSWORD=$COHORT_PASSWORD
        else
          top_fail "bad-input/max-connections-server: $MARIADB_SH did not start (log $INTEROP_WORKDIR/maxconn-server.log)"
        fi
      fi
      export MAXCONN_PORT MAXCONN_LIMIT
    fi
    run_part bad-input 600 python3 "$HERE/bad_input.py"
    if [ "$mc_started" == mariadb ]; then
      bash "$MARIADB_SH" stop "$mc_dir" >/dev/null 2>&1
    elif [ -n "$mc_started" ]; then
      kill "$mc_started" 2>/dev/null
      for _ in $(seq 1 50); do kill -0 "$mc_started" 2>/dev/null || break; sleep 0.2; done
      kill -9 "$mc_started" 2>/dev/null
      wait "$mc_started" 2>/dev/null
    fi
    [ -n "$mc_dir" ] && rm -rf "$mc_dir"
    ;;
  *)
    top_fail "unknown part '$part'"
    ;;
  esac
done

if server_alive; then
  top_pass server-alive-at-end
else
  top_fail "server-alive-at-end: the server no longer answers SELECT 1"
fi
echo "failed checks:"
grep -h '^FAIL: ' "$INTEROP_WORKDIR"/*.log 2>/dev/null | cut -c1-300 | sed 's/^/  /' || true
echo "$TOTAL_PASSED passed, $TOTAL_FAILED failed"
[ "$TOTAL_FAILED" -eq 0 ]
