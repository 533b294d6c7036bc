#!/bin/bash
# ORM and driver suites (issue 21), each against a throwaway MariaDB 10.11 (the oracle: a case
# that fails there is a bug of the test) and against a fresh Cohort (COHORT_BIN):
#   sqlalchemy_orm.py    SQLAlchemy 2 ORM through PyMySQL and mysql-connector-python
#   alembic_suite.py     Alembic: autogenerate / upgrade / downgrade, migrations compared with MariaDB's
#   django_suite.py      Django: migrate / migrate zero / migrate, then the app's `manage.py test`
#   java/DriverSuite     MariaDB Connector/J (libmariadb-java): DatabaseMetaData, isolation,
#                        savepoints, rewriteBatchedStatements batches, server-side prepare
#   mysql2_suite.js      node mysql2: multipleStatements, execute (prepared), transactions, pool
#   connector_python.py  mysql-connector-python, C extension and pure Python
#   sequelize_suite.js   Sequelize 6: sync force / alter, associations, include, transactions, upsert
#   typeorm_suite.js     TypeORM 0.3: synchronize, migration generate / run / revert, relations
#   mariadb_node_suite.js  MariaDB Connector/Node.js 3: execute (prepare + execute -1), batch, pipelining
#   php_suite.php        PHP PDO_mysql (emulated and native prepares) and mysqli (php-mysql)
#   doctrine_suite.php   Doctrine DBAL 3 (php-doctrine-dbal): schema manager, comparator, migration
#   activerecord_suite.rb  Rails' ActiveRecord 6.1 (ruby-activerecord, ruby-mysql2): migrations,
#                        associations, eager loading, savepoints, upsert_all, schema.rb vs MariaDB's
#   dbd_mariadb.pl       Perl DBI: DBD::MariaDB (dbd-mariadb) and DBD::mysql (dbd-mysql)
#   go_sql_driver.go     Go database/sql with go-sql-driver/mysql (Debian's package, GOPATH mode)
# (mariadb-admin status / processlist / kill are covered by tests/interop/dump.sh.)
# Installs what is missing: apt packages (nodejs, npm, libmariadb-java, default-jdk-headless,
# libmariadb-dev, pkg-config, python3-venv), a virtualenv and node_modules under the work dir.
# Prints PASS:/FAIL:/SKIP: lines, each labelled mariadb/… or cohort/…, and "N passed, N failed".
# Environment: COHORT_BIN, INTEROP_WORKDIR (work dir), DRIVERS (a subset: sqlalchemy django java
# mysql2 connector-python alembic sequelize typeorm php doctrine activerecord dbd-mariadb dbd-mysql go
# mariadb-node),
# DRIVERS_TARGETS (mariadb cohort), DRV_VERBOSE=1 (tracebacks).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
: "${COHORT_BIN:=$REPO/target/release/cohort}"
: "${INTEROP_WORKDIR:=$(mktemp -d /tmp/cohort-drivers.XXXXXX)}"
: "${DRIVERS:=sqlalchemy django java mysql2 connector-python alembic sequelize typeorm php doctrine activerecord dbd-mariadb dbd-mysql go mariadb-node}"
: "${DRIVERS_TARGETS:=mariadb cohort}"
export INTEROP_WORKDIR
W=$INTEROP_WORKDIR
mkdir -p "$W"
LOG=$W/drivers.log
: >"$LOG"
export DEBIAN_FRONTEND=noninteractive

PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
say() { echo "$@" | tee -a "$LOG"; }

# --- installs ------------------------------------------------------------------------------------
JAR=/usr/share/java/mariadb-java-client.jar
need_apt=()
command -v node >/dev/null || need_apt+=(nodejs)
command -v npm >/dev/null || need_apt+=(npm)
command -v javac >/dev/null || need_apt+=(default-jdk-headless)
[ -f "$JAR" ] || need_apt+=(libmariadb-java)
command -v mariadb_config >/dev/null || need_apt+=(libmariadb-dev)
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
command -v gcc >/dev/null || need_apt+=(gcc)
python3 -c 'import os, sysconfig; exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' ||
  need_apt+=(python3-dev)
python3 -c 'import venv, ensurepip' 2>/dev/null || need_apt+=(python3-venv)
command -v mariadbd >/dev/null || need_apt+=(mariadb-server)
command -v php >/dev/null || need_apt+=(php-cli)
php -m 2>/dev/null | grep -q '^pdo_mysql$' || need_apt+=(php-mysql)
[ -f /usr/share/php/Doctrine/DBAL/autoload.php ] || need_apt+=(php-doctrine-dbal)
ruby -e 'require "active_record"; require "mysql2"' 2>/dev/null || need_apt+=(ruby-activerecord ruby-mysql2)
perl -MDBD::MariaDB -e 1 2>/dev/null || need_apt+=(libdbd-mariadb-perl)
perl -MDBD::mysql -e 1 2>/dev/null || need_apt+=(libdbd-mysql-perl)
command -v go >/dev/null || need_apt+=(golang-go)
[ -d /usr/share/gocode/src/github.com/go-sql-driver/mysql ] || need_apt+=(golang-github-go-sql-driver-mysql-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "installing: ${need_apt[*]}"
  { apt-get update -qq && apt-get install -y -qq "${need_apt[@]}"; } >"$W/apt.log" 2>&1 || { tail -20 "$W/apt.log"; }
fi
VENV=$W/venv
PY=$VENV/bin/python
if [ ! -x "$PY" ]; then
  python3 -m venv "$VENV" >"$W/venv.log" 2>&1 || tail -5 "$W/venv.log"
fi
# mysql-connector-python 9.0: newer wheels' C extension needs OpenSSL 3.2 (Debian 12 has 3.0).
if ! "$PY" -c 'import sqlalchemy, django, mysql.connector, pymysql, alembic' 2>/dev/null; then
  "$PY" -m pip install -q 'sqlalchemy>=2' 'django>=4.2' 'mysql-connector-python==9.0.0' pymysql alembic \
    >"$W/pip.log" 2>&1 || tail -20 "$W/pip.log"
fi
# mysqlclient (Django's MySQL driver) builds against libmariadb-dev; without it the Django suite
# falls back to PyMySQL posing as MySQLdb (django_app/proj/settings.py).
if ! "$PY" -c 'import MySQLdb' 2>/dev/null; then
  "$PY" -m pip install -q mysqlclient >>"$W/pip.log" 2>&1 || echo "mysqlclient did not build: Django runs on PyMySQL"
fi
"$PY" -c 'import sqlalchemy, django, mysql.connector, pymysql; print("sqlalchemy", sqlalchemy.__version__, "django", django.__version__, "mysql-connector-python", mysql.connector.__version__, "C extension", mysql.connector.HAVE_CEXT, "pymysql", pymysql.__version__)'
NODE_DIR=$W/node
if [ ! -d "$NODE_DIR/node_modules/mysql2" ] || [ ! -d "$NODE_DIR/node_modules/sequelize" ] || [ ! -d "$NODE_DIR/node_modules/typeorm" ] ||
  [ ! -d "$NODE_DIR/node_modules/mariadb" ]; then
  mkdir -p "$NODE_DIR"
  (cd "$NODE_DIR" && npm init -y >/dev/null 2>&1; npm install --silent --no-audit --no-fund mysql2 'sequelize@6' 'typeorm@0.3' reflect-metadata 'mariadb@3') >"$W/npm.log" 2>&1 ||
    tail -20 "$W/npm.log"
fi
nver() { node -p "JSON.parse(require('fs').readFileSync('$NODE_DIR/node_modules/$1/package.json')).version" 2>&1; }
echo "node $(node --version 2>&1), mysql2 $(nver mysql2), sequelize $(nver sequelize), typeorm $(nver typeorm), mariadb $(nver mariadb), $(php --version 2>&1 | head -1)"
GO_BIN=$W/go/drvgo
mkdir -p "$W/go"
(cd "$W/go" && GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$W/go/cache" go build -o "$GO_BIN" "$HERE/go_sql_driver.go") \
  >"$W/go.log" 2>&1 || tail -20 "$W/go.log"
JAVA_OUT=$W/java
mkdir -p "$JAVA_OUT"
javac -d "$JAVA_OUT" -cp "$JAR" "$HERE/java/DriverSuite.java" >"$W/javac.log" 2>&1 || cat "$W/javac.log"

# --- servers -------------------------------------------------------------------------------------
wait_up() { # PORT
  for _ in $(seq 1 120); do
    timeout 5 mariadb -h127.0.0.1 -P"$1" -uroot --protocol=TCP -N -B -e 'SELECT 1' </dev/null >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  return 1
}
start_mariadb() { # PORT
  local d=$W/mariadb
  rm -rf "$d"
  mkdir -p "$d"
  mariadb-install-db --user="$(id -un)" --datadir="$d" --auth-root-authentication-method=normal \
    >"$W/mariadb-start.log" 2>&1 || return 1
  mariadbd --no-defaults --user="$(id -un)" --datadir="$d" --port="$1" --bind-address=127.0.0.1 \
    --socket="$d/mysqld.sock" --pid-file="$d/mysqld.pid" --skip-log-bin --innodb-buffer-pool-size=64M \
    --skip-name-resolve --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
    >>"$W/mariadb-start.log" 2>&1 &
  PIDS+=($!)
  wait_up "$1"
}
start_cohort() { # PORT
  rm -rf "$W/cohort-data"
  "$COHORT_BIN" serve --port "$1" --bind 127.0.0.1 --datadir "$W/cohort-data" --root-password "" --ssl OFF \
    >"$W/cohort.log" 2>&1 &
  PIDS+=($!)
  wait_up "$1"
}

# --- the suites ----------------------------------------------------------------------------------
run_suites() { # TARGET PORT
  local target=$1 port=$2 d
  export DRV_TARGET=$target DRV_HOST=127.0.0.1 DRV_PORT=$port DRV_USER=root DRV_PASSWORD=
  for d in $DRIVERS; do
    case $d in
    sqlalchemy) (cd "$HERE" && timeout 600 "$PY" sqlalchemy_orm.py) ;;
    django) (cd "$HERE" && timeout 900 "$PY" django_suite.py) ;;
    java) timeout 600 java -cp "$JAR:$JAVA_OUT" DriverSuite "$target" 127.0.0.1 "$port" root "" ;;
    mysql2) NODE_PATH=$NODE_DIR/node_modules timeout 600 node "$HERE/mysql2_suite.js" "$target" 127.0.0.1 "$port" root "" ;;
    connector-python) (cd "$HERE" && timeout 600 "$PY" connector_python.py) ;;
    alembic) (cd "$HERE" && timeout 300 "$PY" alembic_suite.py) ;;
    mariadb-node) NODE_PATH=$NODE_DIR/node_modules timeout 300 node "$HERE/mariadb_node_suite.js" "$target" 127.0.0.1 "$port" root "" ;;
    sequelize | typeorm) NODE_PATH=$NODE_DIR/node_modules timeout 300 node "$HERE/${d}_suite.js" "$target" 127.0.0.1 "$port" root "" ;;
    php | doctrine) timeout 300 php "$HERE/${d}_suite.php" "$target" 127.0.0.1 "$port" root "" ;;
    activerecord) timeout 300 ruby "$HERE/activerecord_suite.rb" "$target" 127.0.0.1 "$port" root "" ;;
    dbd-mariadb | dbd-mysql) DBD=${d#dbd-} timeout 300 perl "$HERE/dbd_mariadb.pl" "$target" 127.0.0.1 "$port" root "" ;;
    go) timeout 300 "$GO_BIN" "$target" 127.0.0.1 "$port" root "" ;;
    *) echo "FAIL: $target/$d: unknown suite" ;;
    esac 2>&1 | grep -E '^(PASS|FAIL|SKIP): |^(Traceback|Error|Exception)' | tee -a "$LOG"
    # A suite that died before printing its cases is one failure.
    local label=$d
    case $d in java) label=connector-j ;; sqlalchemy | connector-python) label=$d- ;; go) label=go-mysql ;; esac
    grep -q "^\(PASS\|FAIL\|SKIP\): $target/$label" "$LOG" || say "FAIL: $target/$d: the suite printed no result"
  done
}

for t in $DRIVERS_TARGETS; do
  port=$(free_port)
  case $t in
  mariadb)
    if start_mariadb "$port"; then run_suites mariadb "$port"; else say "FAIL: mariadb/start: see $W/mariadb-start.log"; tail -20 "$W/mariadb-start.log"; fi ;;
  cohort)
    if start_cohort "$port"; then run_suites cohort "$port"; else say "FAIL: cohort/start: see $W/cohort.log"; tail -20 "$W/cohort.log"; fi ;;
  esac
  cleanup
  PIDS=()
done

p=$(grep -c '^PASS: ' "$LOG")
f=$(grep -c '^FAIL: ' "$LOG")
s=$(grep -c '^SKIP: ' "$LOG")
echo "drivers: $p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
