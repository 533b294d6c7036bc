#!/bin/bash
# Wait summary top 10 for oltp_update_non_index at 256 threads, targeted vs broadcast wakeups.
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
BIN=${COHORT_BIN:-$REPO/target/release/cohort}; P=${1:-3491}
for mode in targeted broadcast; do
  D=/tmp/cohort-waittop-$mode; rm -rf $D
  $BIN serve --datadir $D --port $P --max-connections 2000 --commit-wakeup $mode > $D.log 2>&1 & SP=$!
  sleep 1
  mariadb -uroot -h127.0.0.1 -P$P -e "create database sbtest"
  S="--mysql-host=127.0.0.1 --mysql-port=$P --mysql-user=root --mysql-password= --tables=4 --table-size=100000"
  sysbench oltp_update_non_index $S --threads=4 prepare > /dev/null
  mariadb -uroot -h127.0.0.1 -P$P -e "TRUNCATE TABLE performance_schema.events_waits_summary_global_by_event_name"
  echo "== commit_wakeup=$mode: $(sysbench oltp_update_non_index $S --threads=256 --time=15 run | grep transactions:)"
  mariadb -uroot -h127.0.0.1 -P$P -t -e "SELECT EVENT_NAME, COUNT_STAR, ROUND(SUM_TIMER_WAIT/1e12,2) AS sum_s, ROUND(AVG_TIMER_WAIT/1e6,1) AS avg_us, ROUND(MAX_TIMER_WAIT/1e9,1) AS max_ms FROM performance_schema.events_waits_summary_global_by_event_name ORDER BY SUM_TIMER_WAIT DESC LIMIT 10"
  kill $SP; wait $SP; rm -rf $D
done
