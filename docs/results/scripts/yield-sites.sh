#!/bin/bash
# Where a running server's sched_yield calls come from: records the syscall's entry with call
# stacks (DWARF unwinding, so a release build with debug info) while a command runs, then
# counts the calls by the innermost cohort_server frame that is not the mutex itself (the lock
# site: the function that took the contended mutex), with yield-sites.py.
#   docs/results/scripts/yield-sites.sh PID OUT.data COMMAND...   (the output of COMMAND: OUT.data.out)
set -u
PID=$1; OUT=$2; shift 2
perf record -q -e syscalls:sys_enter_sched_yield --call-graph dwarf,16384 -p "$PID" -o "$OUT" \
  2>/dev/null &
pp=$!
sleep 0.5
"$@" >"$OUT.out" 2>&1
kill -INT $pp; wait $pp 2>/dev/null
perf script -i "$OUT" 2>/dev/null | "$(dirname "$0")/yield-sites.py"
