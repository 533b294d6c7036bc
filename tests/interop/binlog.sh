#!/bin/bash
# The binlog a Cohort server wrote, decoded by the real `mariadb-binlog`.
#   1. A known set of changes (insert, update, delete over several types) is made in a fresh
#      database; the current binlog file must decode (-c: checksums verified) with exit 0 and
#      show exactly those row images.
#   2. Every binlog file in the data directory (everything the suite wrote: all sysbench runs)
#      decodes with exit 0.
# Needs COHORT_DATADIR (the server's data directory); skipped when it is not set.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
if [ -z "${COHORT_DATADIR:-}" ]; then
  echo "SKIP: binlog: COHORT_DATADIR not set (not a Cohort server run)"
  exit 0
fi
decode() { mariadb-binlog -c -vv --base64-output=decode-rows "$@"; }

sqlq "DROP DATABASE IF EXISTS binlogcheck" >/dev/null 2>&1
if sqlq "CREATE DATABASE binlogcheck; CREATE TABLE binlogcheck.t (id INT PRIMARY KEY, name VARCHAR(20), amount DECIMAL(10,2), born DATE, big BIGINT UNSIGNED); INSERT INTO binlogcheck.t VALUES (1, 'alice', 12.50, '2001-02-03', 18446744073709551615), (2, 'bob', NULL, NULL, 0); UPDATE binlogcheck.t SET name = 'carol' WHERE id = 2; DELETE FROM binlogcheck.t WHERE id = 1" >/dev/null; then
  pass "binlog/known changes made"
else
  fail "binlog/known changes could not be made"
fi
file=$(sqlq "SHOW MASTER STATUS" | cut -f1)
decoded="${INTEROP_WORKDIR:-/tmp}/binlog-current.txt"
# The live file is followed by zero-filled space (binlog_preallocate); FLUSH BINARY LOGS
# closes it at its exact size, as a rotation does.
sqlq "FLUSH BINARY LOGS" >/dev/null && pass "binlog/FLUSH BINARY LOGS" || fail "binlog/FLUSH BINARY LOGS failed"
next=$(sqlq "SHOW MASTER STATUS" | cut -f1)
[ "$next" != "$file" ] && pass "binlog/FLUSH BINARY LOGS rotated $file -> $next" || fail "binlog/FLUSH BINARY LOGS did not rotate ($file)"
decode "$COHORT_DATADIR/$file" >"$decoded" 2>&1
rc=$?
[ $rc -eq 0 ] && ! grep -q "^ERROR" "$decoded" && pass "binlog/decode closed file $file" ||
  fail "binlog/decode $file exited $rc: $(grep ERROR "$decoded" | tail -3)"
check() {
  if echo "$out" | grep -qF -- "$1"; then pass "binlog/row image: $1"; else fail "binlog/row image missing: $1"; fi
}
# Only what follows the last CREATE DATABASE binlogcheck (earlier runs may be in the file).
start=$(grep -n "CREATE DATABASE binlogcheck" "$decoded" | tail -1 | cut -d: -f1)
out=$(tail -n +"${start:-1}" "$decoded")
rm -f "$decoded"
check "### INSERT INTO \`binlogcheck\`.\`t\`"
check "###   @2='alice'"
check "###   @3=12.50"
check "###   @4='2001:02:03'"
check "###   @5=-1 (18446744073709551615)"
check "### UPDATE \`binlogcheck\`.\`t\`"
check "###   @2='carol'"
check "### DELETE FROM \`binlogcheck\`.\`t\`"
check "CREATE TABLE binlogcheck.t"
n_ins=$(echo "$out" | grep -c "^### INSERT INTO \`binlogcheck\`")
n_upd=$(echo "$out" | grep -c "^### UPDATE \`binlogcheck\`")
n_del=$(echo "$out" | grep -c "^### DELETE FROM \`binlogcheck\`")
[ "$n_ins $n_upd $n_del" == "2 1 1" ] && pass "binlog/exactly 2 inserts, 1 update, 1 delete" ||
  fail "binlog/expected 2 inserts, 1 update, 1 delete; decoded $n_ins $n_upd $n_del"

n=0
while read -r f; do
  f=${f#./}
  n=$((n + 1))
  # Closed files decode without a complaint; the live one may end in zero-filled space,
  # which mariadb-binlog reports as an invalid empty event after the last real one.
  if res=$(decode "$COHORT_DATADIR/$f" 2>&1 >/dev/null) &&
    ! echo "$res" | grep "^ERROR" | grep -vq "data_len: 0, event_type: 0"; then
    pass "binlog/decode $f ($(stat -c %s "$COHORT_DATADIR/$f") bytes)"
  else
    fail "binlog/decode $f: $(echo "$res" | tail -2)"
  fi
done <"$COHORT_DATADIR/binlog.index"
[ $n -gt 0 ] && pass "binlog/index lists $n files" || fail "binlog/index lists no files"
sqlq "DROP DATABASE binlogcheck" >/dev/null 2>&1
echo "binlog: $INTEROP_PASSED passed, $INTEROP_FAILED failed"
[ "$INTEROP_FAILED" -eq 0 ]
