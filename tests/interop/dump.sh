#!/bin/bash
# mariadb-dump round trips and the operator tools (issue 21). The script starts its own Cohort
# servers and one MariaDB 10.11 (the oracle) on free ports:
#
#   (a) a database with a table of every column type Cohort has (integers at their extremes,
#       decimals, floats, strings with quotes, backslashes, tabs, newlines and 4-byte UTF-8,
#       a DEFAULT CHARSET=latin1 table of each latin1 collation holding cp1252's characters,
#       BINARY / VARBINARY / BLOB holding all 256 byte values, dates, datetimes, ENUM / SET /
#       JSON, TIME(fsp) and BIT(n) (raw bytes in the dump), NULLs) is
#       created in Cohort; `mariadb-dump --single-transaction` of it restores into a fresh
#       Cohort, and every table there equals the original;
#   (b) the same database created in MariaDB, dumped with mariadb-dump's default options (raw
#       bytes, not --hex-blob: executable comments, LOCK TABLES, DISABLE KEYS, SET
#       unique_checks / foreign_key_checks / sql_notes, TEXT DEFAULT NULL), restores into a
#       fresh Cohort unedited, and every table there equals MariaDB's;
#   (c) mariadb-admin status, processlist and kill: kill ends another connection's
#       SELECT SLEEP, and KILL QUERY ends a lock wait with 1317;
#   (a) and (b) include a FOREIGN KEY with ON DELETE CASCADE and a view over a join (issue 20
#       and 21): the dump's stand-in and final view definitions restore, and the view reads
#       the same rows;
#   (d) mariadb-dump --single-transaction taken while clients transfer money between accounts:
#       every dump, restored, has the right total (a consistent snapshot, issue 19);
#   (e) mariadb-dump with LOCK TABLES and --xml, mariadb-show -v and mariadb-check (-o, -r,
#       --all-databases) on the database with the view answer as on MariaDB;
#   (f) mariadb-admin shutdown: refused without the SHUTDOWN privilege, else a clean stop.
#
# "Equal" is checked twice: a SELECT-based checksum, the md5 of `SELECT * … ORDER BY id` in
# batch mode (every byte of every value, NULL distinct from 'NULL'), with the row count, both
# sides read with the same client and --default-character-set=utf8mb4; and `CHECKSUM TABLE` of
# every base table, whose numbers Cohort computes exactly as MariaDB does for InnoDB (over
# MariaDB's record image of each row: sql/exec/checksum/record_image.rs), so the restored
# tables answer MariaDB's own checksums.
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
W=$INTEROP_WORKDIR/dump
rm -rf "$W"
mkdir -p "$W"

trap stop_throwaways EXIT

TABLES="t_int t_dec t_str t_bin t_date t_enum t_timebit t_latin1 t_parent t_child v_child"
# The schema and rows, as one script (the same on Cohort and MariaDB).
make_data() {
  local all rev
  all=$(python3 -c 'print(bytes(range(256)).hex())')
  # Every latin1 character but the quote and the backslash (MariaDB's cp1252 variant).
  latin1=$(python3 -c 'print(bytes(b for b in range(32, 256) if b not in (39, 92)).decode("cp1252", errors="ignore"))')
  rev=$(python3 -c 'print(bytes(range(255, -1, -1)).hex() * 3)')
  cat <<SQL
CREATE TABLE t_int (id INT PRIMARY KEY AUTO_INCREMENT, ti TINYINT, tu TINYINT UNSIGNED,
  si SMALLINT, su SMALLINT UNSIGNED, mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,
  bi BIGINT, bu BIGINT UNSIGNED, KEY k_i (i));
INSERT INTO t_int VALUES
  (1, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295,
   -9223372036854775808, 18446744073709551615),
  (2, 127, 0, 32767, 0, 8388607, 0, 2147483647, 0, 9223372036854775807, 0),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE t_dec (id INT PRIMARY KEY, d1 DECIMAL(10,2), d2 DECIMAL(30,10), d3 DECIMAL(65,30),
  f FLOAT, dbl DOUBLE, fmd FLOAT(8,2), dmd DOUBLE(10,3) UNSIGNED);
INSERT INTO t_dec VALUES
  (1, -12345678.99, 12345678901234567890.0123456789, 0.000000000000000000000000000001, 1.5, -2.25e100,
   1.555, 2.0005),
  (2, 0, -0.0000000001, -99999999999999999999999999999999999.999999999999999999999999999999,
   -3.25, 1e-300, -999999.99, 9999999.999),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE t_str (id INT PRIMARY KEY, c CHAR(10), v VARCHAR(200), t TEXT DEFAULT NULL,
  u VARCHAR(20) COLLATE utf8mb4_bin, UNIQUE KEY k_v (v));
INSERT INTO t_str VALUES
  (1, 'abc', 'it''s "quoted" \\\\ back \\\\\\' end', 'line1\nline2\ttab\r\0nul', 'héllo 😀'),
  (2, '', 'NULL', '', 'Ω≈ç√∫'),
  (3, NULL, NULL, NULL, NULL);
CREATE TABLE t_bin (id INT PRIMARY KEY, b BINARY(4), vb VARBINARY(300), bl BLOB DEFAULT NULL);
INSERT INTO t_bin VALUES (1, 0x00ff0a27, 0x$all, 0x$rev), (2, '', '', ''), (3, NULL, NULL, NULL);
CREATE TABLE t_date (id INT PRIMARY KEY, d DATE, dt DATETIME, dt6 DATETIME(6),
  ts TIMESTAMP NULL DEFAULT NULL);
INSERT INTO t_date VALUES
  (1, '2024-02-29', '1999-12-31 23:59:59', '2000-01-01 00:00:00.123456', '2020-01-01 00:00:00'),
  (2, '1000-01-01', '9999-12-31 23:59:59', '1970-01-01 00:00:00.000001', '2038-01-19 03:14:07'),
  (3, NULL, NULL, NULL, NULL);
CREATE TABLE t_enum (id INT PRIMARY KEY, e ENUM('lo','it''s','hi') NOT NULL DEFAULT 'hi',
  s SET('a','b','c','d','e','f','g','h','i'), j JSON, KEY (e), UNIQUE KEY (s));
INSERT INTO t_enum VALUES (1, 'lo', 'i,a', '{"k": [1, "two", null]}'), (2, 'it''s', '', '"x"'),
  (3, 'hi', NULL, NULL), (4, 2, 3, 'true');
CREATE TABLE t_timebit (id INT PRIMARY KEY, t TIME, t6 TIME(6) DEFAULT '-01:02:03.5', b BIT,
  b9 BIT(9) DEFAULT b'101', b64 BIT(64), KEY (t), KEY (b9));
INSERT INTO t_timebit VALUES
  (1, '-838:59:59', '838:59:59.999999', 1, b'100101100', 18446744073709551615),
  (2, '00:00:00', '-00:00:00.000001', 0, 0, 0),
  (3, '100:00:01', DEFAULT, b'0', DEFAULT, 39), (4, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE t_latin1 (id INT PRIMARY KEY, c CHAR(10), v VARCHAR(300) COLLATE latin1_bin,
  t TEXT, g VARCHAR(20) COLLATE latin1_general_ci, s VARCHAR(20) COLLATE latin1_general_cs,
  de CHAR(5) COLLATE latin1_german1_ci, u VARCHAR(20) CHARACTER SET utf8mb4,
  e ENUM('a','ä','ö') DEFAULT 'ä', UNIQUE KEY k_g (g), KEY k_c (c), KEY k_de (de))
  DEFAULT CHARSET=latin1;
INSERT INTO t_latin1 VALUES
  (1, 'Ärger', '$latin1', 'Größe €100 ‚quoted‘ ‹x›', 'Émile', 'émile', 'Öl', 'ł😀', 'ö'),
  (2, '', 'it''s \\\\ back', 'line1\nline2\ttab', 'emil', 'EMILE', 'ol', '', 'a'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (4, 'ÿ', 'ŸžŽšŠ', 'œŒ™—–', 'ß', 'ss', 'ß', 'ß', DEFAULT);
CREATE TABLE t_parent (id INT PRIMARY KEY, name VARCHAR(20));
CREATE TABLE t_child (id INT PRIMARY KEY, pid INT, note VARCHAR(20),
  CONSTRAINT fk_child_parent FOREIGN KEY (pid) REFERENCES t_parent (id) ON DELETE CASCADE);
INSERT INTO t_parent VALUES (1, 'one'), (2, 'two');
INSERT INTO t_child VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, NULL), (4, NULL, 'none');
CREATE VIEW v_child AS SELECT c.id, c.note, p.name FROM t_child c
  LEFT JOIN t_parent p ON p.id = c.pid WHERE c.id > 1;
SQL
}

# The SELECT-based checksum of every table of database dt on PORT: "table rows md5" lines.
sums() {
  local t
  for t in $TABLES; do
    printf '%s %s %s\n' "$t" "$(on "$1" "SELECT COUNT(*) FROM dt.$t")" \
      "$(on "$1" "SELECT * FROM dt.$t ORDER BY id" | md5sum | cut -d' ' -f1)"
  done
}
compare() { # NAME PORT_A PORT_B
  local a b
  a=$(sums "$2")
  b=$(sums "$3")
  if [ -n "$a" ] && [ "$a" == "$b" ] && ! grep -q ' 0 ' <<<"$a"; then
    pass "$1"
  else
    fail "$1" "$(diff <(echo "$a") <(echo "$b") | tr '\n' ' ')"
  fi
}
# CHECKSUM TABLE of every base table of dt on PORT_A and PORT_B: the same numbers, none NULL or 0.
CK_TABLES=$(tr ' ' '\n' <<<"$TABLES" | grep -v '^v_' | sed 's/^/dt./' | paste -sd, -)
compare_checksum() { # NAME PORT_A PORT_B
  local a b
  a=$(on "$2" "CHECKSUM TABLE $CK_TABLES")
  b=$(on "$3" "CHECKSUM TABLE $CK_TABLES")
  if [ -n "$a" ] && [ "$a" == "$b" ] && ! grep -qE $'\t(0|NULL)$' <<<"$a"; then
    pass "$1"
  else
    fail "$1" "$(diff <(echo "$a") <(echo "$b") | tr '\n' ' ')"
  fi
}

P1=$(free_port)
P2=$(free_port)
P3=$(free_port)
PM=$(free_port)
start_cohort source "$P1" || { fail "dump/start" "cohort did not start (see $W/source.log)"; exit 1; }

# --- (a) Cohort → mariadb-dump --single-transaction → a fresh Cohort ---------------------------
on "$P1" "CREATE DATABASE dt"
if make_data | timeout 120 mariadb -h127.0.0.1 -P"$P1" -uroot --protocol=TCP \
  --default-character-set=utf8mb4 dt >"$W/load-cohort.log" 2>&1; then
  pass "dump/schema and rows load into Cohort"
else
  fail "dump/schema and rows load into Cohort" "$(tail -3 "$W/load-cohort.log")"
fi
if timeout 120 mariadb-dump -h127.0.0.1 -P"$P1" -uroot --protocol=TCP --single-transaction \
  dt >"$W/cohort.sql" 2>"$W/cohort-dump.err"; then
  pass "dump/mariadb-dump --single-transaction of Cohort"
else
  fail "dump/mariadb-dump --single-transaction of Cohort" "$(tail -2 "$W/cohort-dump.err")"
fi
start_cohort restore-a "$P2" || fail "dump/start" "second cohort did not start"
on "$P2" "CREATE DATABASE dt"
if timeout 120 mariadb -h127.0.0.1 -P"$P2" -uroot --protocol=TCP dt <"$W/cohort.sql" \
  >"$W/restore-a.log" 2>&1; then
  pass "dump/Cohort's dump restores into a fresh Cohort"
else
  fail "dump/Cohort's dump restores into a fresh Cohort" "$(tail -3 "$W/restore-a.log")"
fi
compare "dump/Cohort → dump → Cohort: every table equal" "$P1" "$P2"
compare_checksum "dump/Cohort → dump → Cohort: CHECKSUM TABLE equal" "$P1" "$P2"

# --- (b) MariaDB, default options → a fresh Cohort, unedited -----------------------------------
if start_mariadb oracle "$PM"; then
  on "$PM" "CREATE DATABASE dt"
  make_data | timeout 120 mariadb -h127.0.0.1 -P"$PM" -uroot --protocol=TCP \
    --default-character-set=utf8mb4 dt >"$W/load-mariadb.log" 2>&1
  timeout 120 mariadb-dump -h127.0.0.1 -P"$PM" -uroot --protocol=TCP dt >"$W/mariadb.sql" \
    2>"$W/mariadb-dump.err"
  if grep -q 'LOCK TABLES' "$W/mariadb.sql" && grep -qa 'DISABLE KEYS' "$W/mariadb.sql" \
    && ! grep -q '0x' "$W/mariadb.sql"; then
    pass "dump/MariaDB's default dump has LOCK TABLES, DISABLE KEYS and raw bytes"
  else
    fail "dump/MariaDB's default dump" "not what this test expects to restore ($W/mariadb.sql)"
  fi
  start_cohort restore-b "$P3" || fail "dump/start" "third cohort did not start"
  on "$P3" "CREATE DATABASE dt"
  if timeout 120 mariadb -h127.0.0.1 -P"$P3" -uroot --protocol=TCP dt <"$W/mariadb.sql" \
    >"$W/restore-b.log" 2>&1; then
    pass "dump/MariaDB's default dump restores into Cohort unedited"
  else
    fail "dump/MariaDB's default dump restores into Cohort unedited" "$(tail -3 "$W/restore-b.log")"
  fi
  compare "dump/MariaDB → dump → Cohort: every table equal" "$PM" "$P3"
  compare_checksum "dump/MariaDB → dump → Cohort: CHECKSUM TABLE equals MariaDB's" "$PM" "$P3"
else
  fail "dump/start" "MariaDB did not start (see $W/oracle-start.log)"
fi

# --- (e) the other tools on a database with a view: mariadb-dump with its default LOCK TABLES
# (of the tables and the view), --xml (SHOW KEYS of the view, its columns from
# information_schema), mariadb-show -v (COM_FIELD_LIST of each table and view),
# mariadb-check -o / -r (InnoDB's notes) and --all-databases (USE of each, mysql included):
# Cohort answers as MariaDB ---------------------------------------------------------------------
tools() { # PORT
  local o=(-h127.0.0.1 -P"$1" -uroot --protocol=TCP)
  timeout 60 mariadb-dump "${o[@]}" --skip-dump-date dt >/dev/null 2>"$W/tools-$1.err" || echo "mariadb-dump failed: $(tail -1 "$W/tools-$1.err")"
  timeout 60 mariadb-dump "${o[@]}" --xml dt 2>&1 | grep -c '<field Field='
  timeout 60 mariadb-show "${o[@]}" -v dt 2>&1
  timeout 60 mariadb-check "${o[@]}" -o dt 2>&1
  timeout 60 mariadb-check "${o[@]}" -r dt 2>&1
  timeout 60 mariadb-check "${o[@]}" --all-databases >/dev/null 2>&1 || echo "mariadb-check --all-databases failed"
}
if [ -n "${PM:-}" ] && on "$PM" "SELECT 1" >/dev/null 2>&1; then
  tm=$(tools "$PM")
  tc=$(tools "$P1")
  if [ "$tm" == "$tc" ]; then
    pass "dump/mariadb-dump (LOCK TABLES, --xml), mariadb-show -v, mariadb-check answer as on MariaDB"
  else
    fail "dump/mariadb-dump, mariadb-show, mariadb-check" "$(diff <(echo "$tm") <(echo "$tc") | tr '\n' ' ')"
  fi
fi

# --- (c) mariadb-admin status, processlist, kill -----------------------------------------------
admin() { timeout 60 mariadb-admin -h127.0.0.1 -P"$P1" -uroot --protocol=TCP "$@" </dev/null; }
st=$(admin status 2>&1)
if grep -qE '^Uptime: [0-9]+  Threads: [0-9]+  Questions: [0-9]+' <<<"$st"; then
  pass "dump/mariadb-admin status"
else
  fail "dump/mariadb-admin status" "$st"
fi
on "$P1" "SELECT SLEEP(60)" >"$W/sleeper.out" 2>&1 &
SLEEPER=$!
id=""
for _ in $(seq 1 40); do
  id=$(on "$P1" "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO = 'SELECT SLEEP(60)'")
  [ -n "$id" ] && break
  sleep 0.25
done
if admin processlist | grep -q "SELECT SLEEP(60)"; then
  pass "dump/mariadb-admin processlist shows the running statement"
else
  fail "dump/mariadb-admin processlist" "no SELECT SLEEP(60) in $(admin processlist | tr '\n' ' ')"
fi
t0=$(date +%s)
admin kill "$id" >"$W/kill.out" 2>&1
wait "$SLEEPER"
if [ -n "$id" ] && [ $(($(date +%s) - t0)) -lt 30 ] && grep -q "Lost connection" "$W/sleeper.out"; then
  pass "dump/mariadb-admin kill ends the connection"
else
  fail "dump/mariadb-admin kill" "id '$id': $(cat "$W/kill.out" "$W/sleeper.out" | tr '\n' ' ')"
fi
# KILL QUERY ends a lock wait with 1317; the holder's transaction is untouched.
on "$P1" "CREATE TABLE dt.lk (id INT PRIMARY KEY, v INT); INSERT INTO dt.lk VALUES (1, 0)"
on "$P1" "BEGIN; UPDATE dt.lk SET v = 1 WHERE id = 1; SELECT SLEEP(6); COMMIT" >/dev/null 2>&1 &
HOLDER=$!
sleep 1
on "$P1" "UPDATE dt.lk SET v = 2 WHERE id = 1" >"$W/waiter.out" 2>&1 &
WAITER=$!
wid=""
for _ in $(seq 1 40); do
  wid=$(on "$P1" "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE 'UPDATE dt.lk SET v = 2%'")
  [ -n "$wid" ] && break
  sleep 0.25
done
on "$P1" "KILL QUERY $wid"
wait "$WAITER"
wait "$HOLDER"
if grep -q "ERROR 1317" "$W/waiter.out" && [ "$(on "$P1" "SELECT v FROM dt.lk")" == 1 ]; then
  pass "dump/KILL QUERY ends a lock wait with 1317"
else
  fail "dump/KILL QUERY ends a lock wait" "$(cat "$W/waiter.out") v=$(on "$P1" "SELECT v FROM dt.lk")"
fi

# --- (d) --single-transaction under concurrent transfers: every dump has the right total -------
# (issue 19) 20 accounts of 1000 in two tables (1-10 in bank, 11-20 in bank2, so a dump that
# read each table at a different moment would show a wrong total); four clients move money
# between them in transactions while three dumps are taken; each dump restored into the second
# Cohort must total 20000.
on "$P1" "CREATE TABLE dt.bank (id INT PRIMARY KEY, bal INT NOT NULL)"
on "$P1" "CREATE TABLE dt.bank2 (id INT PRIMARY KEY, bal INT NOT NULL)"
on "$P1" "INSERT INTO dt.bank VALUES $(seq -s, 1 10 | sed -E 's/([0-9]+)/(\1,1000)/g')"
on "$P1" "INSERT INTO dt.bank2 VALUES $(seq -s, 11 20 | sed -E 's/([0-9]+)/(\1,1000)/g')"
cat >"$W/transfers.py" <<'PY'
import random, sys, time, pymysql
port, seconds, seed = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(seed)
c = pymysql.connect(host="127.0.0.1", port=port, user="root", database="dt", autocommit=False)
end, done = time.time() + seconds, 0
while time.time() < end:
    a, b = rnd.sample(range(1, 21), 2)
    amount = rnd.randint(1, 50)
    try:
        with c.cursor() as cur:
            t = lambda i: "bank" if i <= 10 else "bank2"
            cur.execute(f"UPDATE {t(a)} SET bal = bal - %s WHERE id = %s", (amount, a))
            cur.execute(f"UPDATE {t(b)} SET bal = bal + %s WHERE id = %s", (amount, b))
        c.commit()
        done += 1
    except pymysql.err.OperationalError as e:
        c.rollback()
        if e.args[0] not in (1213, 1205):
            raise
print(done)
PY
TRANSFERS=()
for i in 1 2 3 4; do
  python3 "$W/transfers.py" "$P1" 6 "$i" >"$W/transfers-$i.out" 2>&1 &
  TRANSFERS+=($!)
done
sleep 1
bad=""
for n in 1 2 3; do
  timeout 60 mariadb-dump -h127.0.0.1 -P"$P1" -uroot --protocol=TCP --single-transaction \
    dt bank bank2 >"$W/bank-$n.sql" 2>"$W/bank-$n.err" || bad="$bad dump-$n-failed"
  on "$P2" "DROP DATABASE IF EXISTS bank$n; CREATE DATABASE bank$n"
  timeout 60 mariadb -h127.0.0.1 -P"$P2" -uroot --protocol=TCP "bank$n" <"$W/bank-$n.sql" \
    >"$W/bank-$n.restore" 2>&1 || bad="$bad restore-$n-failed"
  sum_a=$(on "$P2" "SELECT SUM(bal), COUNT(*) FROM bank$n.bank")
  sum_b=$(on "$P2" "SELECT SUM(bal), COUNT(*) FROM bank$n.bank2")
  total=$(printf '%s\t%s\n' "$sum_a" "$sum_b" | awk '{ s += $1 + $3; c += $2 + $4 } END { printf "%d\t%d", s, c }')
  [ "$total" == "$(printf '20000\t20')" ] || bad="$bad dump-$n-total:$total"
  sleep 1
done
for p in "${TRANSFERS[@]}"; do wait "$p" || bad="$bad transfer-client-failed"; done
moved=$(cat "$W"/transfers-*.out | awk '{ s += $1 } END { print s + 0 }')
if [ -z "$bad" ] && [ "$moved" -gt 0 ] && [ $(($(on "$P1" "SELECT SUM(bal) FROM dt.bank") + $(on "$P1" "SELECT SUM(bal) FROM dt.bank2"))) == 20000 ]; then
  pass "dump/--single-transaction under $moved concurrent transfers: every dump totals 20000"
else
  fail "dump/--single-transaction under concurrent transfers" "$bad (transfers: $moved)"
fi

# --- (f) mariadb-admin shutdown: 1227 without the SHUTDOWN privilege; with it the server closes
# its logs and exits, and a restart finds every committed row. -----------------------------------
on "$P2" "CREATE USER noshut@'%'; CREATE DATABASE shut; CREATE TABLE shut.t (id INT PRIMARY KEY); INSERT INTO shut.t VALUES (1), (2)"
denied=$(timeout 30 mariadb-admin -h127.0.0.1 -P"$P2" -unoshut --protocol=TCP shutdown 2>&1 </dev/null)
timeout 30 mariadb-admin -h127.0.0.1 -P"$P2" -uroot --protocol=TCP shutdown >"$W/shutdown.out" 2>&1 </dev/null
rc=$?
down=""
for _ in $(seq 1 40); do
  on "$P2" "SELECT 1" >/dev/null 2>&1 || { down=yes; break; }
  sleep 0.25
done
start_cohort restore-a "$P2" || true
if [ "$rc" == 0 ] && [ -n "$down" ] && [[ "$denied" == *"SHUTDOWN privilege"* ]] &&
  grep -q "logs closed" "$W/restore-a.log" && [ "$(on "$P2" "SELECT COUNT(*) FROM shut.t")" == 2 ]; then
  pass "dump/mariadb-admin shutdown stops the server cleanly (1227 without the privilege)"
else
  fail "dump/mariadb-admin shutdown" "rc=$rc down=$down denied='$denied' $(cat "$W/shutdown.out")"
fi

echo "dump: $INTEROP_PASSED passed, $INTEROP_FAILED failed"
[ "$INTEROP_FAILED" -eq 0 ]
