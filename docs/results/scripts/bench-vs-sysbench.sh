#!/bin/bash
# cohort bench run vs sysbench on the same workloads against a MariaDB on port 3316 (tools/mariadb.sh start), 4 x 100k prepared.
cd "$(dirname "$0")/../../.."
S="--mysql-host=127.0.0.1 --mysql-port=3316 --mysql-user=sb --mysql-password=sb --mysql-db=sbtest --tables=4 --table-size=100000"
for w in oltp_point_select oltp_read_write oltp_update_non_index; do for t in 16 64; do for round in 1 2; do
o=$(/usr/bin/time -f "CPU %U %S" sysbench $w $S --threads=$t --time=10 run 2>&1)
tps=$(echo "$o" | grep transactions: | sed -E 's/.*\(([0-9.]+) per sec.*/\1/')
cpu=$(echo "$o" | grep "^CPU" | awk '{print $2+$3}')
echo "sysbench $w t=$t tps=$tps cpu_us_per_txn=$(echo "$cpu $tps" | awk '{printf "%.1f", $1/($2*10)*1e6}')"
o=$(target/release/cohort bench run $w --url mysql://sb:sb@127.0.0.1:3316/sbtest --tables 4 --table-size 100000 -c $t --time 10 2>&1)
tps=$(echo "$o" | grep "transactions:" | sed -E 's/.*\(([0-9.]+) per sec.*/\1/')
cpu=$(echo "$o" | grep "client:" | sed -E 's/.* ([0-9.]+) µs per transaction.*/\1/')
echo "cohort-bench $w t=$t tps=$tps cpu_us_per_txn=$cpu"
done; done; done
