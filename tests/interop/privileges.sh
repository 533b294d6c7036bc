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
# shellcheck source=lib.sh
. "$HERE/lib.sh"
: "${COHORT_BIN:=$REPO/target/release/cohort}"
: "${COHORT_SERVE_FLAGS:=}"
: "${INTEROP_WORKDIR:=$(mktemp -d /tmp/interop.XXXXXX)}"
W=$INTEROP_WORKDIR/privileges
rm -rf "$W"
mkdir -p "$W"

trap stop_throwaways EXIT

MPORT=$(free_port)
if ! start_mariadb mariadb "$MPORT"; then
  echo "FAIL: privileges: MariaDB did not start (see $W/mariadb-start.log)"
  exit 1
fi
CPORT=$(free_port)
if ! start_cohort cohort "$CPORT"; then
  echo "FAIL: privileges: Cohort did not start (see $W/cohort.log)"
  exit 1
fi

python3 "$HERE/privileges.py" --mariadb-port "$MPORT" --cohort-port "$CPORT"
