#!/bin/bash
# Recovery time after kill -9: 1M rows, >= 1 GB of binlog.
set -u
# Usage: docs/results/scripts/recovery-time.sh [DATADIR] [PORT]  (a release build, sysbench)
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
BIN=${COHORT_BIN:-$REPO/target/release/cohort}; D=${1:-/tmp/cohort-rectime}; P=${2:-3494}
rm -rf $D; $BIN serve --datadir $D --port $P --max-connections 2000 > $D.log 2>&1 & PID=$!
sleep 1
mariadb -uroot -h127.0.0.1 -P$P -e "create database sbtest"
S="--mysql-host=127.0.0.1 --mysql-port=$P --mysql-user=root --mysql-password= --tables=1 --table-size=1000000"
sysbench oltp_update_non_index $S prepare > /dev/null
while :; do
  sz=$(du -cb $D/binlog.0* | tail -1 | cut -f1)
  [ "$sz" -ge 1100000000 ] && break
  sysbench oltp_update_non_index $S --threads=32 --time=20 run | grep transactions:
done
echo "binlog bytes: $(du -cb $D/binlog.0* | tail -1 | cut -f1)  files: $(ls $D/binlog.0* | wc -l)"
mariadb -uroot -h127.0.0.1 -P$P -e "show global status like 'Checkpoint%'; select count(*), sum(k) from sbtest.sbtest1" 
sysbench oltp_update_non_index $S --threads=32 --time=5 run > /dev/null &
sleep 3; kill -9 $PID; wait $PID 2>/dev/null; wait
ls -la $D
t0=$(date +%s.%N)
$BIN serve --datadir $D --port $P > $D.log2 2>&1 & PID=$!
for i in $(seq 1 6000); do mariadb -uroot -h127.0.0.1 -P$P -e 'select 1' >/dev/null 2>&1 && break; sleep 0.05; done
t1=$(date +%s.%N)
echo "restart to first answer: $(echo "$t1 - $t0" | bc) s"
grep -E "recovery|checkpoint" $D.log2
mariadb -uroot -h127.0.0.1 -P$P -e "select count(*), sum(k) from sbtest.sbtest1"
kill $PID
