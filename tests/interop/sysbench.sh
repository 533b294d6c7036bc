#!/bin/bash
# sysbench 1.0.20, all nine bundled scripts, each through prepare -> run -> cleanup, with
# --db-ps-mode=auto (server-side prepared statements) and --db-ps-mode=disable (COM_QUERY text).
#
# A run fails on: a non-zero exit, any FATAL/ALERT line, any error other than the ignored
# 1213 (deadlock) / 1205 (lock wait timeout) -- we pass --mysql-ignore-errors=1213,1205
# explicitly, so even 1020 (sysbench's third default) is fatal -- or a broken table invariant.
#
# After prepare we record a baseline per table with the mariadb CLI:
#   COUNT(*), SUM(k), COUNT(DISTINCT id), MIN(id), MAX(id)
# and after run we check what the script must have done. sysbench counts a statement as
# "write" when it returned affected-rows > 0 and as "other" otherwise (BEGIN/COMMIT, a DELETE
# that found no row); reads are "read". Those counts are exact totals over all threads, so:
#
#   oltp_point_select, oltp_read_only  -- read only: every table's count and SUM(k) unchanged;
#                                         write counter 0.
#   oltp_update_non_index              -- UPDATE sbtestN SET c=? WHERE id=? (autocommit): count,
#                                         SUM(k) and the id set unchanged.
#   oltp_update_index                  -- UPDATE sbtestN SET k=k+1 WHERE id=? (autocommit), ids
#                                         always exist, so every successful statement changes
#                                         exactly one row by +1: total SUM(k) after - before ==
#                                         the "write:" counter, which also == transactions.
#                                         Count and id set unchanged.
#   oltp_write_only, oltp_read_write   -- per transaction: UPDATE k=k+1 (id a), UPDATE c (id b),
#                                         DELETE id=X, INSERT id=X with random k. The reinserted
#                                         k is random, so SUM(k) is unpredictable; but the row
#                                         set must be intact: count unchanged, COUNT(DISTINCT id)
#                                         == count, MIN(id) == 1, MAX(id) == table size. Each
#                                         transaction does 4 writes, so write counter ==
#                                         4 x transactions when nothing was retried (ignored
#                                         errors 0), and >= that otherwise (writes of a
#                                         rolled-back attempt are counted too).
#   oltp_delete                        -- DELETE FROM sbtestN WHERE id=? (autocommit): a row goes
#                                         only when the statement reports affected 1 ("write"),
#                                         so total count before - after == write counter exactly;
#                                         no id appears that was not there (MAX(id) <= before).
#   oltp_insert                        -- INSERT ... VALUES (0, k, c, pad) (id 0 -> next
#                                         AUTO_INCREMENT): total count after - before == write
#                                         counter == transactions; ids distinct, MIN(id) still 1,
#                                         MAX(id) >= count.
#   bulk_insert                        -- thread t appends (1,1),(2,2),... to sbtest<t+1> in 512 KiB
#                                         multi-row INSERTs (autocommit) and flushes at the end;
#                                         one event = one row. So over all tables: total count ==
#                                         transactions (events); per table: ids are exactly 1..n
#                                         (COUNT == COUNT(DISTINCT id) == MAX(id), MIN(id) == 1)
#                                         and SUM(k) == n(n+1)/2.
# With --db-ps-mode=auto, sysbench must not fall back to client-side emulation (it does so,
# quietly, when COM_STMT_PREPARE fails with 1295; we run with --verbosity=4 to see it).
# Cleanup must leave no sbtest table behind.
#
# Environment: see lib.sh, plus SYSBENCH_TIME [5] SYSBENCH_THREADS [8] SYSBENCH_TABLES [2]
# SYSBENCH_TABLE_SIZE [10000] SYSBENCH_MODES ["auto disable"] SYSBENCH_SCRIPTS [all nine]
# INTEROP_WORKDIR [a temp dir] (sysbench logs are kept there).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

: "${SYSBENCH_TIME:=5}"
: "${SYSBENCH_THREADS:=8}"
: "${SYSBENCH_TABLES:=2}"
: "${SYSBENCH_TABLE_SIZE:=10000}"
: "${SYSBENCH_MODES:=auto disable}"
: "${SYSBENCH_SCRIPTS:=oltp_read_only oltp_read_write oltp_write_only oltp_point_select oltp_update_index oltp_update_non_index oltp_insert oltp_delete bulk_insert}"
: "${INTEROP_WORKDIR:=$(mktemp -d /tmp/interop-sysbench.XXXXXX)}"
mkdir -p "$INTEROP_WORKDIR"
ulimit -n 65536 2>/dev/null || true

SB=(sysbench --db-driver=mysql --mysql-host="$COHORT_HOST" --mysql-port="$COHORT_PORT"
  --mysql-user="$COHORT_USER" --mysql-password="$COHORT_PASSWORD" --mysql-db="$COHORT_DB"
  --mysql-ignore-errors=1213,1205 --report-interval=0)

# Tables a script uses: oltp_* use --tables, bulk_insert one per thread.
ntables_for() { if [ "$1" == bulk_insert ]; then echo "$SYSBENCH_THREADS"; else echo "$SYSBENCH_TABLES"; fi; }

# table_stats N -> "count sumk distinct min max" (NULL -> 0), or "ERR <message>".
table_stats() {
  local out
  if ! out=$(sqlq "SELECT COUNT(*), SUM(k), COUNT(DISTINCT id), MIN(id), MAX(id) FROM sbtest$1" 2>&1); then
    echo "ERR $(echo "$out" | tr '\n' ' ')"; return
  fi
  echo "$out" | awk -F'\t' '{for(i=1;i<=NF;i++) if($i=="NULL") $i=0; print $1, $2, $3, $4, $5}'
}

# sb_counter LOG NAME: the number after "NAME:" in sysbench's statistics.
sb_counter() { awk -v k="$2:" '$1" "$2==k || $1==k { for(i=1;i<=NF;i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }' "$1"; }

# Scan a sysbench log: exit status must be 0, no FATAL/ALERT, no error lines.
check_log() {
  local name=$1 rc=$2 log=$3 bad
  bad=$(grep -E 'FATAL|ALERT|[Ee]rror [0-9]|returned error|Can.t connect|timed out' "$log" | grep -v 'ignored errors' | head -3 | tr '\n' ' ')
  if [ "$rc" -ne 0 ] || [ -n "$bad" ]; then
    fail "$name" "exit=$rc ${bad:-$(tail -3 "$log" | tr '\n' ' ')} (log $log)"
    return 1
  fi
  pass "$name"
}

drop_all() {
  local i q=""
  for i in $(seq 1 "$SYSBENCH_THREADS"); do q+="DROP TABLE IF EXISTS sbtest$i;"; done
  sqlq "$q" >/dev/null 2>&1
}

run_one() {
  local t=$1 mode=$2 n tag log rc i
  n=$(ntables_for "$t")
  tag="sysbench/$t/ps-$mode"
  local args=(--tables="$SYSBENCH_TABLES" --table-size="$SYSBENCH_TABLE_SIZE" --threads="$SYSBENCH_THREADS"
    --db-ps-mode="$mode")
  drop_all

  local t_prep t_run t_check t_clean
  t_prep=$(date +%s.%N)
  log="$INTEROP_WORKDIR/$t-$mode-prepare.log"
  timeout 180 "${SB[@]}" "$t" "${args[@]}" prepare >"$log" 2>&1; rc=$?
  check_log "$tag/prepare" "$rc" "$log" || { drop_all; return; }

  local -a before after
  for i in $(seq 1 "$n"); do before[i]=$(table_stats "$i"); done
  local b_count=0 b_sum=0 a_count=0 a_sum=0 errs=""
  for i in $(seq 1 "$n"); do
    case ${before[i]} in ERR*) errs+="sbtest$i: ${before[i]} " ;; esac
  done
  if [ -n "$errs" ]; then fail "$tag/baseline" "$errs"; drop_all; return; fi
  # Baseline sanity: oltp prepare fills ids 1..table_size (oltp_insert included); bulk_insert creates empty tables.
  local want_prep="$SYSBENCH_TABLE_SIZE $SYSBENCH_TABLE_SIZE 1 $SYSBENCH_TABLE_SIZE"
  [ "$t" == bulk_insert ] && want_prep="0 0 0 0"
  errs=""
  for i in $(seq 1 "$n"); do
    read -r c s d mi ma <<<"${before[i]}"
    [ "$c $d $mi $ma" == "$want_prep" ] || errs+="sbtest$i count/distinct/min/max='$c $d $mi $ma' want '$want_prep' "
    b_count=$((b_count + c)); b_sum=$((b_sum + s))
  done
  if [ -n "$errs" ]; then fail "$tag/baseline" "$errs"; else pass "$tag/baseline"; fi

  t_run=$(date +%s.%N)
  log="$INTEROP_WORKDIR/$t-$mode-run.log"
  timeout $((SYSBENCH_TIME + 120)) "${SB[@]}" "$t" "${args[@]}" --time="$SYSBENCH_TIME" --verbosity=4 run >"$log" 2>&1; rc=$?
  check_log "$tag/run" "$rc" "$log"
  # --verbosity=4 shows sysbench's fallback to client-side emulation when COM_STMT_PREPARE fails
  # with 1295; in ps-mode auto every statement of these scripts must really be prepared.
  if [ "$mode" == auto ] && [ "$t" != oltp_insert ] && [ "$t" != bulk_insert ]; then
    local emu
    emu=$(grep -m2 'using emulation' "$log" | tr '\n' ' ')
    if [ -z "$emu" ]; then pass "$tag/server-side-prepared"; else fail "$tag/server-side-prepared" "$emu"; fi
  fi
  local reads writes others trx ignored
  t_check=$(date +%s.%N)
  reads=$(sb_counter "$log" read); writes=$(sb_counter "$log" write); others=$(sb_counter "$log" other)
  trx=$(sb_counter "$log" transactions); ignored=$(sb_counter "$log" "ignored errors")
  if [ -z "$writes" ] || [ -z "$trx" ] || [ -z "$ignored" ]; then
    fail "$tag/invariants" "no statistics in sysbench output (log $log)"
  else
    echo "  $tag: transactions=$trx read=$reads write=$writes other=$others ignored_errors=$ignored"
    [ "$trx" -gt 0 ] || fail "$tag/progress" "0 transactions in ${SYSBENCH_TIME}s"
    errs=""
    for i in $(seq 1 "$n"); do
      after[i]=$(table_stats "$i")
      case ${after[i]} in ERR*) errs+="sbtest$i: ${after[i]} " ;; esac
    done
    if [ -n "$errs" ]; then
      fail "$tag/invariants" "$errs"
    else
      local ts=$SYSBENCH_TABLE_SIZE
      for i in $(seq 1 "$n"); do
        read -r c s d mi ma <<<"${after[i]}"
        a_count=$((a_count + c)); a_sum=$((a_sum + s))
        [ "$c" == "$d" ] || errs+="sbtest$i COUNT(*)=$c != COUNT(DISTINCT id)=$d; "
      done
      case $t in
      oltp_point_select | oltp_read_only | oltp_update_non_index)
        for i in $(seq 1 "$n"); do
          [ "${after[i]}" == "${before[i]}" ] || errs+="sbtest$i (count sum distinct min max) '${before[i]}' -> '${after[i]}'; "
        done
        [ "$t" == oltp_update_non_index ] || [ "$writes" == 0 ] || errs+="read-only script reported $writes writes; "
        ;;
      oltp_update_index)
        [ $((a_sum - b_sum)) == "$writes" ] || errs+="SUM(k) grew by $((a_sum - b_sum)), sysbench reports $writes successful k=k+1 updates; "
        [ "$writes" == "$trx" ] || errs+="write counter $writes != transactions $trx (an UPDATE of an existing id reported affected 0?); "
        [ "$a_count" == "$b_count" ] || errs+="row count $b_count -> $a_count; "
        for i in $(seq 1 "$n"); do
          read -r c s d mi ma <<<"${after[i]}"
          [ "$c $d $mi $ma" == "$ts $ts 1 $ts" ] || errs+="sbtest$i count/distinct/min/max '$c $d $mi $ma'; "
        done
        ;;
      oltp_write_only | oltp_read_write)
        for i in $(seq 1 "$n"); do
          read -r c s d mi ma <<<"${after[i]}"
          [ "$c $d $mi $ma" == "$ts $ts 1 $ts" ] || errs+="sbtest$i count/distinct/min/max '$c $d $mi $ma', want '$ts $ts 1 $ts'; "
        done
        if [ "$ignored" == 0 ]; then
          [ "$writes" == $((4 * trx)) ] || errs+="write counter $writes != 4 x $trx transactions; "
        else
          [ "$writes" -ge $((4 * trx)) ] || errs+="write counter $writes < 4 x $trx transactions; "
        fi
        ;;
      oltp_delete)
        [ $((b_count - a_count)) == "$writes" ] || errs+="row count fell by $((b_count - a_count)), sysbench reports $writes DELETEs that removed a row; "
        for i in $(seq 1 "$n"); do
          read -r c s d mi ma <<<"${after[i]}"
          [ "$c" == 0 ] || { [ "$mi" -ge 1 ] && [ "$ma" -le "$ts" ]; } || errs+="sbtest$i ids outside 1..$ts: min $mi max $ma; "
        done
        ;;
      oltp_insert)
        [ $((a_count - b_count)) == "$writes" ] || errs+="row count grew by $((a_count - b_count)), sysbench reports $writes INSERTs; "
        [ "$writes" == "$trx" ] || errs+="write counter $writes != transactions $trx; "
        for i in $(seq 1 "$n"); do
          read -r c s d mi ma <<<"${after[i]}"
          { [ "$mi" == 1 ] && [ "$ma" -ge "$c" ]; } || errs+="sbtest$i min/max id $mi/$ma with $c rows; "
        done
        ;;
      bulk_insert)
        [ "$a_count" == "$trx" ] || errs+="total rows $a_count != $trx events (rows) reported by sysbench; "
        for i in $(seq 1 "$n"); do
          read -r c s d mi ma <<<"${after[i]}"
          [ "$c" == 0 ] && continue
          [ "$mi $ma" == "1 $c" ] || errs+="sbtest$i ids not 1..$c: min $mi max $ma; "
          [ "$s" == $((c * (c + 1) / 2)) ] || errs+="sbtest$i SUM(k)=$s, want $((c * (c + 1) / 2)); "
        done
        ;;
      esac
      if [ -z "$errs" ]; then pass "$tag/invariants"; else fail "$tag/invariants" "$errs"; fi
    fi
  fi

  t_clean=$(date +%s.%N)
  log="$INTEROP_WORKDIR/$t-$mode-cleanup.log"
  timeout 120 "${SB[@]}" "$t" "${args[@]}" cleanup >"$log" 2>&1; rc=$?
  check_log "$tag/cleanup" "$rc" "$log"
  local left
  left=$(sqlq "SHOW TABLES LIKE 'sbtest%'" 2>&1)
  if [ -n "$left" ]; then fail "$tag/cleanup-empty" "tables left: $(echo "$left" | tr '\n' ' ')"; drop_all; fi
  if ! server_alive; then fail "$tag/server-alive" "server does not answer SELECT 1"; fi
  echo "  $tag: seconds: prepare+baseline $(elapsed "$t_prep" "$t_run"), run $(elapsed "$t_run" "$t_check")," \
    "checks $(elapsed "$t_check" "$t_clean"), cleanup $(elapsed "$t_clean" "$(date +%s.%N)")"
}
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

echo "== sysbench: scripts [$SYSBENCH_SCRIPTS] modes [$SYSBENCH_MODES], $SYSBENCH_THREADS threads, $SYSBENCH_TABLES x $SYSBENCH_TABLE_SIZE rows, ${SYSBENCH_TIME}s; logs in $INTEROP_WORKDIR"
for mode in $SYSBENCH_MODES; do
  for t in $SYSBENCH_SCRIPTS; do
    run_one "$t" "$mode"
  done
done
echo "sysbench: $INTEROP_PASSED passed, $INTEROP_FAILED failed"
[ "$INTEROP_FAILED" -eq 0 ]
