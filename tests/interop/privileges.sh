#!/bin/bash
# Privileges, differentially (issue 21): tests/interop/privileges.py runs the same statements as
# several users against a MariaDB 10.11 (the oracle) and a Cohort, both started here on free
# ports, and compares every outcome (error code and message, or rows). One PASS:/FAIL: line per
# statement.
#
# Environment: COHORT_BIN [target/release/cohort], COHORT_SERVE_FLAGS [], INTEROP_WORKDIR.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
: "${COHORT_BIN:=$REPO/target/release/cohort}"
: "${COHORT_SERVE_FLAGS:=}"
: "${INTEROP_WORKDIR:=$(mktemp -d /tmp/interop.XXXXXX)}"
W=$INTEROP_WORKDIR/privileges
rm -rf "$W"
mkdir -p "$W"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
}
trap cleanup EXIT
wait_up() { # PORT
  for _ in $(seq 1 120); do
    [ "$(timeout 5 mariadb -h127.0.0.1 -P"$1" -uroot --protocol=TCP -N -B -e 'SELECT 1' </dev/null 2>/dev/null)" == 1 ] && return 0
    sleep 0.5
  done
  return 1
}

MPORT=$(free_port)
mkdir -p "$W/mariadb"
if ! mariadb-install-db --user="$(id -un)" --datadir="$W/mariadb" --auth-root-authentication-method=normal \
  >"$W/mariadb-start.log" 2>&1; then
  echo "FAIL: privileges: mariadb-install-db (see $W/mariadb-start.log)"
  exit 1
fi
mariadbd --no-defaults --user="$(id -un)" --datadir="$W/mariadb" --port="$MPORT" --bind-address=127.0.0.1 \
  --socket="$W/mariadb/mysqld.sock" --pid-file="$W/mariadb/mysqld.pid" --skip-log-bin \
  --innodb-buffer-pool-size=64M --skip-name-resolve >>"$W/mariadb-start.log" 2>&1 &
PIDS+=($!)
if ! wait_up "$MPORT"; then
  echo "FAIL: privileges: MariaDB did not start (see $W/mariadb-start.log)"
  exit 1
fi

CPORT=$(free_port)
# shellcheck disable=SC2086
"$COHORT_BIN" serve --port "$CPORT" --bind 127.0.0.1 --datadir "$W/cohort" --root-password "" \
  --ssl OFF $COHORT_SERVE_FLAGS >>"$W/cohort.log" 2>&1 &
PIDS+=($!)
if ! wait_up "$CPORT"; then
  echo "FAIL: privileges: Cohort did not start (see $W/cohort.log)"
  exit 1
fi

python3 "$HERE/privileges.py" --mariadb-port "$MPORT" --cohort-port "$CPORT"
