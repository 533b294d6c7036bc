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
