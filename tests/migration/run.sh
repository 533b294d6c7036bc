#!/bin/bash
# The schema-migration crash test (issue 21) in every log mode: schema_kill9.py runs ALTERs
# under writers and kills the server with SIGKILL at random moments (see its docstring).
# Needs COHORT_BIN (a release `cohort`), PyMySQL and mariadb-binlog; prints PASS:/FAIL: lines.
set -u
DIR=$(cd "$(dirname "$0")" && pwd)
BIN=${COHORT_BIN:?COHORT_BIN: a release cohort binary}
SEED=${MIGRATION_SEED:-$(date +%Y%m%d)}
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
rc=0
for mode in one-log classic redo-only; do
  echo "== $mode (seed $SEED)"
  python3 "$DIR/schema_kill9.py" --bin "$BIN" --mode "$mode" --rounds "${MIGRATION_ROUNDS:-5}" \
    --rows 5000 --seed "$SEED" --port "$(port)" || rc=1
done
exit $rc
