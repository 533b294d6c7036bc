# shellcheck shell=bash
# Common helpers for the interop suite. Source it; do not run it.
#
# Connection settings (environment; defaults in brackets):
#   COHORT_HOST [127.0.0.1]  COHORT_PORT [3306]
#   COHORT_USER [sb]  COHORT_PASSWORD [sb]  COHORT_DB [sbtest]   -- the account every client test uses
#   COHORT_ROOT_USER [root]  COHORT_ROOT_PASSWORD []              -- used only to create the account above
# Every check prints exactly one line "PASS: <name>" or "FAIL: <name>: <why>"; run-all.sh counts them.

: "${COHORT_HOST:=127.0.0.1}"
: "${COHORT_PORT:=3306}"
: "${COHORT_USER:=sb}"
: "${COHORT_PASSWORD:=sb}"
: "${COHORT_DB:=sbtest}"
: "${COHORT_ROOT_USER:=root}"
: "${COHORT_ROOT_PASSWORD:=}"
export COHORT_HOST COHORT_PORT COHORT_USER COHORT_PASSWORD COHORT_DB COHORT_ROOT_USER COHORT_ROOT_PASSWORD

INTEROP_PASSED=${INTEROP_PASSED:-0}
INTEROP_FAILED=${INTEROP_FAILED:-0}

pass() { INTEROP_PASSED=$((INTEROP_PASSED + 1)); echo "PASS: $*"; }
fail() {
  local name=$1; shift
  INTEROP_FAILED=$((INTEROP_FAILED + 1))
  echo "FAIL: $name: $*"
}
# check NAME GOT WANT [DETAIL]: string equality.
check_eq() {
  if [ "$2" == "$3" ]; then pass "$1"; else fail "$1" "got '$2', want '$3'${4:+ ($4)}"; fi
}
# check_cond NAME DETAIL CMD...: PASS if CMD succeeds.
check_cond() {
  local name=$1 detail=$2; shift 2
  if "$@"; then pass "$name"; else fail "$name" "$detail"; fi
}

# The mariadb CLI as the test user, batch mode, no column names: sqlq "SQL" [extra args].
# stdin is closed so that nothing ever waits for a password prompt.
sqlq() {
  local q=$1; shift
  timeout 60 mariadb -h "$COHORT_HOST" -P "$COHORT_PORT" -u "$COHORT_USER" --password="$COHORT_PASSWORD" \
    --protocol=TCP -N -B "$@" "$COHORT_DB" -e "$q" </dev/null
}
# The same as root, without a default database.
sqlq_root() {
  local q=$1; shift
  timeout 60 mariadb -h "$COHORT_HOST" -P "$COHORT_PORT" -u "$COHORT_ROOT_USER" --password="$COHORT_ROOT_PASSWORD" \
    --protocol=TCP -N -B "$@" -e "$q" </dev/null
}
# Does the server answer SELECT 1 for the test user?
server_alive() { [ "$(sqlq 'SELECT 1' 2>/dev/null)" == "1" ]; }

# --- Throwaway servers: a script that starts its own Cohorts and MariaDBs (dump.sh, pitr.sh,
# privileges.sh, replication.sh…). The caller sets W (its work directory), COHORT_BIN and
# COHORT_SERVE_FLAGS, and `trap stop_throwaways EXIT`.

# An unused TCP port on loopback.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The pids of the servers started below, stopped by stop_throwaways.
PIDS=()
stop_throwaways() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
}

# on PORT SQL [args]: the mariadb CLI as root on PORT, batch mode, utf8mb4 results (the CLI's
# own default, utf8mb3, would turn characters outside the BMP into '?').
on() {
  local port=$1 q=$2; shift 2
  timeout 120 mariadb -h127.0.0.1 -P"$port" -uroot --protocol=TCP --default-character-set=utf8mb4 \
    -N -B "$@" -e "$q" </dev/null
}
# wait_up PORT: wait up to 60 s until PORT answers SELECT 1 as root.
wait_up() {
  local _
  for _ in $(seq 1 120); do
    [ "$(on "$1" "SELECT 1" 2>/dev/null)" == 1 ] && return 0
    sleep 0.5
  done
  return 1
}
# start_cohort NAME PORT [serve args]: a Cohort with data directory $W/NAME, log $W/NAME.log.
start_cohort() {
  local name=$1 port=$2; shift 2
  # shellcheck disable=SC2086
  "$COHORT_BIN" serve --port "$port" --bind 127.0.0.1 --datadir "$W/$name" --root-password "" \
    --ssl OFF $COHORT_SERVE_FLAGS "$@" >>"$W/$name.log" 2>&1 &
  PIDS+=($!)
  wait_up "$port"
}
# start_mariadb NAME PORT [mariadbd args]: a fresh MariaDB 10.11 in $W/NAME (utf8mb4 server
# defaults, no binlog unless the args ask for one), log $W/NAME-start.log.
start_mariadb() {
  local name=$1 port=$2 d=$W/$1
  shift 2
  mkdir -p "$d"
  mariadb-install-db --user="$(id -un)" --datadir="$d" --auth-root-authentication-method=normal \
    >"$W/$name-start.log" 2>&1 || return 1
  mariadbd --no-defaults --user="$(id -un)" --datadir="$d" --port="$port" --bind-address=127.0.0.1 \
    --socket="$d/mysqld.sock" --pid-file="$d/mysqld.pid" --innodb-buffer-pool-size=64M \
    --skip-name-resolve --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
    "$@" >>"$W/$name-start.log" 2>&1 &
  PIDS+=($!)
  wait_up "$port"
}
