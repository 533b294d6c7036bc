#!/bin/bash
# The before/after runs of docs/results/mvcc/README.md (one benchmark at a time machine-wide:
# each run holds /work/bench.lock).
#   docs/results/mvcc/bench.sh BEFORE_BIN AFTER_BIN [OUT_DIR]
# BEFORE_BIN: main's release build at the merged commit; AFTER_BIN: this branch's.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BA=$HERE/../scripts/before-after.sh
BEFORE=$1; AFTER=$2; OUT=${3:-/tmp/mvcc-bench}
mkdir -p "$OUT"
for t in oltp_point_select oltp_read_only oltp_read_write oltp_update_non_index; do
  flock /work/bench.lock "$BA" "$t" 10 "1 16 64 256" 3 before="$BEFORE" after="$AFTER" |
    tee "$OUT/$t.txt"
done
flock /work/bench.lock "$BA" oltp_update_non_index 10 "16 64 256" 3 after="$AFTER" mariadb=mariadb |
  tee "$OUT/oltp_update_non_index-mariadb.txt"
