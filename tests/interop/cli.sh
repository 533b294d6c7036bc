#!/bin/bash
# The `mariadb` command-line client (Debian package mariadb-client 10.11), batch and interactive.
#
# Batch:
#   cli/NN-name.sql is piped into `mariadb -h -P -u -p --force DB`; stdout must equal
#   cli/NN-name.expected byte for byte (tab-separated, column names, NULL, escaping of \ and tab),
#   and the stderr lines "ERROR <code> (<sqlstate>) at line <n>" (the message after it is not
#   compared) must equal cli/NN-name.expected-errors (empty when that file is absent).
#   Plus: `-e "stmt; stmt"`, `-t` table output, `-N`, the exit status and stderr of a failing
#   statement without --force, and an unknown database on the command line (1049).
# Interactive (tmux on a private socket; no -A, so auto-rehash is on):
#   the prompt appears; `use DB` prints "Database changed" and the prompt shows the database;
#   Tab completes a table name and a column name (needs SHOW TABLES + COM_FIELD_LIST column
#   definitions); a query prints a boxed result table and "N rows in set"; an error prints
#   "ERROR 1146 (42S02)"; `quit` prints "Bye" and the client exits.
#
# Environment: see lib.sh. Regenerate expected files against a reference server with
#   CLI_REGENERATE=1 tests/interop/cli.sh
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"
: "${INTEROP_WORKDIR:=$(mktemp -d /tmp/interop-cli.XXXXXX)}"
mkdir -p "$INTEROP_WORKDIR"
W=$INTEROP_WORKDIR

CLI=(timeout 60 mariadb -h "$COHORT_HOST" -P "$COHORT_PORT" -u "$COHORT_USER" --password="$COHORT_PASSWORD" --protocol=TCP)
errlines() { grep '^ERROR' "$1" | sed -E 's/^(ERROR [0-9]+ \([0-9A-Z]+\) at line [0-9]+).*/\1/'; }

echo "== mariadb CLI, batch"
for sql in "$HERE"/cli/*.sql; do
  base=${sql%.sql}; name=cli/batch/$(basename "$base")
  "${CLI[@]}" --force "$COHORT_DB" <"$sql" >"$W/$(basename "$base").out" 2>"$W/$(basename "$base").err"
  rc=$?
  errlines "$W/$(basename "$base").err" >"$W/$(basename "$base").errlines"
  if [ "${CLI_REGENERATE:-0}" == 1 ]; then
    cp "$W/$(basename "$base").out" "$base.expected"
    if [ -s "$W/$(basename "$base").errlines" ]; then cp "$W/$(basename "$base").errlines" "$base.expected-errors"; fi
    echo "regenerated $base.expected"
    continue
  fi
  if [ $rc -gt 1 ]; then fail "$name" "client exit $rc: $(head -c 300 "$W/$(basename "$base").err")"; continue; fi
  if d=$(diff "$base.expected" "$W/$(basename "$base").out"); then
    pass "$name/stdout"
  else
    fail "$name/stdout" "differs from $(basename "$base").expected: $(echo "$d" | head -20 | tr '\n' '|')"
  fi
  exp_err=/dev/null; [ -f "$base.expected-errors" ] && exp_err=$base.expected-errors
  if d=$(diff "$exp_err" "$W/$(basename "$base").errlines"); then
    pass "$name/errors"
  else
    fail "$name/errors" "stderr errors differ: $(echo "$d" | head -20 | tr '\n' '|') full stderr: $(grep -v -- '^---' "$W/$(basename "$base").err" | grep . | head -10 | tr '\n' '|')"
  fi
done

# -e with two statements, -N (no column names), -B.
out=$("${CLI[@]}" -N -B "$COHORT_DB" -e "SELECT 1 + 1; SELECT 'x' AS a, NULL AS b" 2>&1)
check_eq cli/batch/-e-two-statements "$(echo "$out" | tr '\t\n' ',;')" "2;x,NULL;"

# -t: boxed table output, as humans see it.
# (numbers right-aligned, strings left-aligned: the client decides from the column types)
out=$("${CLI[@]}" -t "$COHORT_DB" -e "SELECT 42 AS answer, 'forty-two' AS spelled" 2>&1)
want='+--------+-----------+
| answer | spelled   |
+--------+-----------+
|     42 | forty-two |
+--------+-----------+'
check_eq cli/batch/-t-table "$out" "$want"

# LOAD DATA LOCAL INFILE with --local-infile=1: the client sends the file; without it, 4166.
printf '1,alpha\n2,"be,ta"\n3,\\N\n' >"$W/local.csv"
out=$(sqlq "DROP TABLE IF EXISTS cli_local; CREATE TABLE cli_local (id INT PRIMARY KEY, s VARCHAR(10));
  LOAD DATA LOCAL INFILE '$W/local.csv' INTO TABLE cli_local FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"';
  SELECT id, IFNULL(s, 'null') FROM cli_local ORDER BY id; DROP TABLE cli_local" --local-infile=1 2>&1)
check_eq cli/batch/load-data-local "$(echo "$out" | tr '\t\n' ',;')" "1,alpha;2,be,ta;3,null;"
out=$(sqlq "LOAD DATA LOCAL INFILE '$W/local.csv' INTO TABLE nosuch" --local-infile=0 2>&1)
check_eq cli/batch/load-data-local-disabled "$(echo "$out" | grep -o '^ERROR 4166')" "ERROR 4166"

# Without --force the client stops at the first error, exits 1 and prints the error on stderr.
out=$("${CLI[@]}" -N "$COHORT_DB" -e "SELECT 'before'; SELECT * FROM cli_no_such_table; SELECT 'after'" 2>"$W/stop.err")
rc=$?
err=$(grep '^ERROR' "$W/stop.err")
if [ $rc -eq 1 ] && [ "$out" == before ] && [[ $err == "ERROR 1146 (42S02) at line 1: "*cli_no_such_table* ]]; then
  pass cli/batch/stop-on-error
else
  fail cli/batch/stop-on-error "exit $rc, stdout '$out', stderr '$err'"
fi

# Unknown database on the command line.
out=$("${CLI[@]}" cli_no_such_db -e "SELECT 1" 2>&1)
rc=$?
if [ $rc -eq 1 ] && [[ $out == "ERROR 1049 (42000)"*cli_no_such_db* ]]; then
  pass cli/batch/unknown-database
else
  fail cli/batch/unknown-database "exit $rc, output '$out'"
fi

# Wrong password.
out=$(timeout 60 mariadb -h "$COHORT_HOST" -P "$COHORT_PORT" -u "$COHORT_USER" --password="wrong$COHORT_PASSWORD" --protocol=TCP -e "SELECT 1" 2>&1 </dev/null)
rc=$?
if [ $rc -eq 1 ] && [[ $out == "ERROR 1045 (28000)"* ]]; then
  pass cli/batch/wrong-password
else
  fail cli/batch/wrong-password "exit $rc, output '$out'"
fi

# ---------------------------------------------------------------------------------------------
echo "== mariadb CLI, interactive (tmux)"
if ! command -v tmux >/dev/null; then
  fail cli/interactive "tmux is not installed"
  echo "cli: $INTEROP_PASSED passed, $INTEROP_FAILED failed"
  exit 1
fi
SOCK=interop-cli-$$
S=cli
tmx() { timeout 10 tmux -L "$SOCK" "$@"; }
screen() { tmx capture-pane -p -J -t "$S" -S -300 2>/dev/null; }
# wait_for REGEX [SECONDS]: poll the screen until an extended regex matches (bounded).
wait_for() {
  local re=$1 limit=${2:-15} i
  for ((i = 0; i < limit * 10; i++)); do
    screen | grep -Eq -- "$re" && return 0
    sleep 0.1
  done
  return 1
}
# The number of lines on the screen matching REGEX.
count_of() { screen | grep -Ec -- "$1"; }
# tmux takes an argument ending in ';' as a command separator, so text goes in ';'-free pieces
# and each ';' is sent as hex 3b.
type_text() {
  local rest=$1 piece
  while [ -n "$rest" ]; do
    piece=${rest%%;*}
    [ -n "$piece" ] && tmx send-keys -t "$S" -l "$piece"
    if [ "$piece" != "$rest" ]; then
      tmx send-keys -t "$S" -H 3b
      rest=${rest#*;}
    else
      rest=""
    fi
  done
}
type_line() { type_text "$1" && tmx send-keys -t "$S" Enter; }
cleanup_tmux() { tmx kill-server >/dev/null 2>&1 || true; }
trap cleanup_tmux EXIT

# A table with distinctive table and column names for completion.
sqlq "DROP TABLE IF EXISTS interactive_widgets; CREATE TABLE interactive_widgets (id INT NOT NULL PRIMARY KEY, widget_colour VARCHAR(20)); INSERT INTO interactive_widgets VALUES (1, 'red'), (2, NULL)" >"$W/interactive-setup.log" 2>&1 ||
  fail cli/interactive/setup "$(cat "$W/interactive-setup.log")"

cat >"$W/interactive.sh" <<EOF
#!/bin/bash
export MYSQL_HISTFILE=/dev/null
exec mariadb -h "$COHORT_HOST" -P "$COHORT_PORT" -u "$COHORT_USER" --password="$COHORT_PASSWORD" --protocol=TCP
EOF
chmod +x "$W/interactive.sh"
TERM=${TERM:-xterm} tmx new-session -d -s "$S" -x 200 -y 60 "$W/interactive.sh; echo CLIENT-EXITED rc=\$?; sleep 30"

if wait_for '\[\(none\)\]> ?$'; then pass cli/interactive/prompt; else fail cli/interactive/prompt "no '[(none)]>' prompt; screen: $(screen | grep . | tail -5 | tr '\n' '|')"; fi

type_line "use $COHORT_DB"
if wait_for "Database changed" && wait_for "\\[$COHORT_DB\\]> ?\$"; then
  pass cli/interactive/use-database
else
  fail cli/interactive/use-database "screen: $(screen | grep . | tail -6 | tr '\n' '|')"
fi

# Table-name completion: "interactive_wid<Tab>" must become "interactive_widgets" (the client
# adds a space only after a word that is complete and unique, hence " +" below).
type_text "SELECT id FROM interactive_wid"
tmx send-keys -t "$S" Tab
sleep 0.5
type_line " ORDER BY id;"
if wait_for "SELECT id FROM interactive_widgets +ORDER BY id;" 5 && wait_for "^2 rows in set" 5; then
  pass cli/interactive/complete-table-name
else
  fail cli/interactive/complete-table-name "Tab did not complete 'interactive_wid'; screen: $(screen | grep . | tail -6 | tr '\n' '|')"
fi

# Column-name completion (auto-rehash reads columns with COM_FIELD_LIST).
type_text "SELECT id, widget_col"
tmx send-keys -t "$S" Tab
sleep 0.5
type_line " FROM interactive_widgets WHERE id = 1;"
if wait_for "SELECT id, widget_colour +FROM interactive_widgets WHERE id = 1;" 5 && wait_for "^1 row in set" 5; then
  pass cli/interactive/complete-column-name
else
  fail cli/interactive/complete-column-name "Tab did not complete 'widget_col'; screen: $(screen | grep . | tail -6 | tr '\n' '|')"
fi

# A boxed result table with a NULL.
n=$(count_of '^2 rows in set')
type_line "SELECT id, widget_colour FROM interactive_widgets ORDER BY id;"
for ((i = 0; i < 50; i++)); do [ "$(count_of '^2 rows in set')" -gt "$n" ] && break; sleep 0.1; done
if [ "$(count_of '^2 rows in set')" -gt "$n" ] && wait_for '^\| +2 \| NULL +\|' 1 && wait_for '^\| id \| widget_colour \|' 1; then
  pass cli/interactive/result-table
else
  fail cli/interactive/result-table "screen: $(screen | grep . | tail -8 | tr '\n' '|')"
fi

type_line "SELECT * FROM interactive_nope;"
if wait_for "^ERROR 1146 \\(42S02\\)" 5; then
  pass cli/interactive/error
else
  fail cli/interactive/error "screen: $(screen | grep . | tail -4 | tr '\n' '|')"
fi

type_line "quit"
if wait_for "^Bye" 5 && wait_for "CLIENT-EXITED rc=0" 5; then
  pass cli/interactive/quit
else
  fail cli/interactive/quit "screen: $(screen | grep . | tail -4 | tr '\n' '|')"
fi
screen >"$W/interactive.screen"
cleanup_tmux
sqlq "DROP TABLE IF EXISTS interactive_widgets" >/dev/null 2>&1

echo "cli: $INTEROP_PASSED passed, $INTEROP_FAILED failed"
[ "$INTEROP_FAILED" -eq 0 ]
