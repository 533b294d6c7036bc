#!/bin/bash
# TLS with real clients: the mariadb CLI (OpenSSL), PyMySQL (Python's ssl), the Rust `mysql`
# crate (rustls), sysbench (libmariadb) and Connector/J, against the server under test and
# against a second Cohort started here with an OpenSSL-made RSA certificate and a client CA.
#
#   cli/*          the 10.11 CLI uses TLS by default; --ssl-verify-server-cert with --ssl-ca
#                  (the CA the server generated in its data directory) for 127.0.0.1 and
#                  localhost; without the CA verification fails (2026); --skip-ssl is clear
#   require-ssl/*  an account with REQUIRE SSL: 1045 in clear, OK inside TLS; SHOW GRANTS
#   rst/*          SET GLOBAL require_secure_transport=ON: 3159 in clear (CLI, sysbench, PyMySQL
#                  with ssl_disabled), OK inside TLS; OFF again
#   pymysql/*      verified (CA + hostname), 5 MB result, a transaction; ssl_disabled is clear
#   mysql-crate    interop-mysql in full (bank, pool, types, errors) inside TLS (COHORT_SSL_CA)
#   sysbench/*     oltp_read_write with --mysql-ssl=on: every connection inside TLS
#                  (Ssl_finished_accepts), no error
#   connector-j/*  MariaDB Connector/J (Debian libmariadb-java, installed when missing) with
#                  useSsl and serverSslCert: Ssl_version, a prepared INSERT/SELECT
#   x509/*         the second server: --ssl-cert/--ssl-key from OpenSSL (RSA, PKCS#8) and
#                  --ssl-ca; REQUIRE X509 needs the CLI's --ssl-cert/--ssl-key (1045 without);
#                  TLSv1.2 gives ECDHE-RSA-AES256-GCM-SHA384
#
# Environment: see lib.sh, plus COHORT_SSL_CA [$COHORT_DATADIR/ca.pem], COHORT_BIN
# [target/release/cohort], INTEROP_MYSQL_BIN, COHORT_SERVE_FLAGS, INTEROP_WORKDIR.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

: "${COHORT_SSL_CA:=${COHORT_DATADIR:-}/ca.pem}"
: "${COHORT_BIN:=$REPO/target/release/cohort}"
: "${COHORT_SERVE_FLAGS:=}"
: "${INTEROP_WORKDIR:=$(mktemp -d /tmp/interop-tls.XXXXXX)}"
W=$INTEROP_WORKDIR/tls
mkdir -p "$W"

if [ ! -f "$COHORT_SSL_CA" ]; then
  fail tls/ca "no CA file '$COHORT_SSL_CA' (set COHORT_SSL_CA or COHORT_DATADIR)"
  echo "$INTEROP_PASSED passed, $INTEROP_FAILED failed"
  exit 1
fi
CA=$COHORT_SSL_CA
# The CLI as the test user (stdin closed, never a password prompt): cli ARGS... -e SQL
cli() { timeout 60 mariadb -h "$COHORT_HOST" -P "$COHORT_PORT" -u "$COHORT_USER" --password="$COHORT_PASSWORD" --protocol=TCP -N -B "$@" </dev/null 2>&1; }
ssl_version_of() { cli "$@" -e "SHOW STATUS LIKE 'Ssl_version'" | awk '{print $2}'; }
status_of() { sqlq_root "SHOW GLOBAL STATUS LIKE '$1'" | awk '{print $2}'; }

# --- the mariadb CLI --------------------------------------------------------------------------
check_eq cli/tls-by-default "$(ssl_version_of)" TLSv1.3
check_eq cli/verify-server-cert-127.0.0.1 "$(ssl_version_of --ssl-verify-server-cert --ssl-ca="$CA")" TLSv1.3
check_eq cli/verify-server-cert-localhost \
  "$(timeout 60 mariadb -h localhost -P "$COHORT_PORT" -u "$COHORT_USER" --password="$COHORT_PASSWORD" --protocol=TCP -N -B \
    --ssl-verify-server-cert --ssl-ca="$CA" -e "SHOW STATUS LIKE 'Ssl_version'" </dev/null 2>&1 | awk '{print $2}')" TLSv1.3
out=$(cli --ssl-verify-server-cert -e "SELECT 1")
check_cond cli/verify-fails-without-the-ca "got: $out" grep -q "ERROR 2026" <<<"$out"
check_eq cli/skip-ssl-is-clear "$(ssl_version_of --skip-ssl)" ""
out=$(cli --ssl -e "SELECT REPEAT('x', 3000000)" | wc -c)
check_eq cli/large-result-inside-tls "$out" 3000001

# --- REQUIRE SSL ------------------------------------------------------------------------------
sqlq_root "DROP USER IF EXISTS tls_req; CREATE USER tls_req IDENTIFIED BY 'pw' REQUIRE SSL; GRANT ALL ON $COHORT_DB.* TO tls_req" >/dev/null
req() { timeout 60 mariadb -h "$COHORT_HOST" -P "$COHORT_PORT" -u tls_req --password=pw --protocol=TCP -N -B "$@" "$COHORT_DB" -e "SELECT CURRENT_USER()" </dev/null 2>&1; }
out=$(req --skip-ssl)
check_cond require-ssl/clear-is-refused-1045 "got: $out" grep -q "ERROR 1045 (28000)" <<<"$out"
check_eq require-ssl/tls-logs-in "$(req --ssl)" "tls_req@%"
out=$(sqlq_root "SHOW GRANTS FOR tls_req" | head -1)
check_cond require-ssl/show-grants "got: $out" grep -q "REQUIRE SSL$" <<<"$out"
sqlq_root "DROP USER tls_req" >/dev/null

# --- require_secure_transport -----------------------------------------------------------------
rst_off() { sqlq_root "SET GLOBAL require_secure_transport = OFF" >/dev/null 2>&1; }
trap rst_off EXIT
sqlq_root "SET GLOBAL require_secure_transport = ON" >/dev/null
out=$(cli --skip-ssl -e "SELECT 1")
check_cond rst/cli-clear-is-refused-3159 "got: $out" grep -q "ERROR 3159 (HY000): Connections using insecure transport are prohibited while --require_secure_transport=ON." <<<"$out"
check_eq rst/cli-tls-is-served "$(ssl_version_of --ssl)" TLSv1.3
out=$(timeout 60 sysbench oltp_point_select --mysql-host="$COHORT_HOST" --mysql-port="$COHORT_PORT" --mysql-user="$COHORT_USER" \
  --mysql-password="$COHORT_PASSWORD" --mysql-db="$COHORT_DB" --tables=1 --table-size=10 --time=1 run 2>&1 </dev/null)
check_cond rst/sysbench-clear-is-refused "got: $(tail -3 <<<"$out")" grep -q "3159" <<<"$out"
out=$(python3 - <<PY 2>&1
import pymysql
try:
    pymysql.connect(host="$COHORT_HOST", port=$COHORT_PORT, user="$COHORT_USER", password="$COHORT_PASSWORD", ssl_disabled=True)
    print("connected")
except pymysql.err.OperationalError as e:
    print(e.args[0])
PY
)
check_eq rst/pymysql-clear-is-refused "$out" 3159
rst_off
check_eq rst/off-again "$(ssl_version_of --skip-ssl)" ""

# --- PyMySQL ----------------------------------------------------------------------------------
out=$(python3 - <<PY 2>&1
import pymysql
c = pymysql.connect(host="$COHORT_HOST", port=$COHORT_PORT, user="$COHORT_USER", password="$COHORT_PASSWORD",
                    database="$COHORT_DB", ssl={"ca": "$CA", "check_hostname": True}, autocommit=False)
cur = c.cursor()
cur.execute("SHOW STATUS LIKE 'Ssl_version'"); version = cur.fetchone()[1]
cur.execute("SELECT REPEAT('y', 5000000)"); big = cur.fetchone()[0]
cur.execute("DROP TABLE IF EXISTS tls_py"); cur.execute("CREATE TABLE tls_py (id INT PRIMARY KEY, v VARCHAR(20))")
cur.executemany("INSERT INTO tls_py VALUES (%s, %s)", [(i, "v%d" % i) for i in range(500)])
c.commit()
cur.execute("SELECT COUNT(*), SUM(id) FROM tls_py"); n, s = cur.fetchone()
cur.execute("DROP TABLE tls_py")
plain = pymysql.connect(host="$COHORT_HOST", port=$COHORT_PORT, user="$COHORT_USER", password="$COHORT_PASSWORD", ssl_disabled=True)
pc = plain.cursor(); pc.execute("SHOW STATUS LIKE 'Ssl_version'"); clear = pc.fetchone()[1]
print(version, len(big), n, s, repr(clear))
PY
)
check_eq pymysql/verified-transaction-and-5mb "$out" "TLSv1.3 5000000 500 124750 ''"

# --- the mysql crate: the whole interop-mysql inside TLS ---------------------------------------
bin=${INTEROP_MYSQL_BIN:-}
[ -z "$bin" ] && for b in "$REPO/target/release/interop-mysql" "$REPO/target/debug/interop-mysql"; do [ -x "$b" ] && { bin=$b; break; }; done
if [ -n "$bin" ] && [ -x "$bin" ]; then
  COHORT_SSL_CA=$CA RUST_BANK_TRANSFERS=50 timeout 300 "$bin" >"$W/mysql-crate.log" 2>&1
  rc=$?
  n_fail=$(grep -c '^FAIL: ' "$W/mysql-crate.log")
  n_tls=$(grep -c '^PASS: mysql-crate/tls/' "$W/mysql-crate.log")
  check_cond mysql-crate/all-checks-inside-tls "exit $rc, $n_fail failed, $n_tls tls checks (log $W/mysql-crate.log): $(grep '^FAIL' "$W/mysql-crate.log" | head -3)" \
    test "$rc" -eq 0 -a "$n_fail" -eq 0 -a "$n_tls" -eq 2
else
  fail mysql-crate/all-checks-inside-tls "no interop-mysql binary (set INTEROP_MYSQL_BIN or build -p interop)"
fi

# --- sysbench --mysql-ssl=on ------------------------------------------------------------------
# sysbench 1.0.20 hands libmariadb fixed file names, relative to its working directory:
# cacert.pem (our CA), client-cert.pem and client-key.pem (loaded; this server asks for none).
SBD=$W/sysbench-certs
mkdir -p "$SBD" && cp "$CA" "$SBD/cacert.pem"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$SBD/client-key.pem" -out "$SBD/client-cert.pem" \
  -days 2 -subj "/CN=sysbench" >/dev/null 2>&1
sqlq_root "DROP DATABASE IF EXISTS tls_sb; CREATE DATABASE tls_sb" >/dev/null
sb() {
  (cd "$SBD" && timeout 120 sysbench oltp_read_write --mysql-host="$COHORT_HOST" --mysql-port="$COHORT_PORT" --mysql-user="$COHORT_USER" \
    --mysql-password="$COHORT_PASSWORD" --mysql-db=tls_sb --tables=1 --table-size=1000 --threads=4 --time=3 \
    --mysql-ssl=on --mysql-ignore-errors=1213,1205 "$@" </dev/null >>"$W/sysbench.log" 2>&1)
}
before=$(status_of Ssl_finished_accepts)
if sb prepare && sb run && sb cleanup; then
  after=$(status_of Ssl_finished_accepts)
  tps=$(grep -E '^ +transactions:' "$W/sysbench.log" | tail -1 | awk '{print $2}')
  check_cond sysbench/oltp-read-write-ssl-on "only $((after - before)) TLS handshakes, $tps transactions" \
    test "$((after - before))" -ge 5 -a "${tps:-0}" -gt 0
  errs=$(grep -cE 'FATAL|ALERT|error [0-9]+' "$W/sysbench.log")
  check_eq sysbench/no-errors "$errs" 0 "log $W/sysbench.log"
else
  fail sysbench/oltp-read-write-ssl-on "sysbench failed: $(tail -5 "$W/sysbench.log" | tr '\n' ' ')"
fi
sqlq_root "DROP DATABASE IF EXISTS tls_sb" >/dev/null

# --- Connector/J ------------------------------------------------------------------------------
JAR=/usr/share/java/mariadb-java-client.jar
if [ ! -f "$JAR" ] && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libmariadb-java >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libmariadb-java >/dev/null 2>&1; }
fi
if [ -f "$JAR" ] && command -v javac >/dev/null && command -v java >/dev/null; then
  mkdir -p "$W/java"
  cat >"$W/java/TlsCheck.java" <<'JAVA'
import java.sql.*;
public class TlsCheck {
    public static void main(String[] a) throws Exception {
        String url = "jdbc:mariadb://" + a[0] + ":" + a[1] + "/" + a[2]
            + "?useSsl=true&serverSslCert=" + a[5];
        try (Connection c = DriverManager.getConnection(url, a[3], a[4]); Statement s = c.createStatement()) {
            ResultSet r = s.executeQuery("SHOW STATUS LIKE 'Ssl_version'");
            r.next();
            String version = r.getString(2);
            s.execute("DROP TABLE IF EXISTS tls_j");
            s.execute("CREATE TABLE tls_j (id INT PRIMARY KEY, v VARCHAR(50))");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO tls_j VALUES (?, ?)")) {
                for (int i = 0; i < 100; i++) { p.setInt(1, i); p.setString(2, "j" + i); p.executeUpdate(); }
            }
            r = s.executeQuery("SELECT COUNT(*), MAX(v) FROM tls_j");
            r.next();
            System.out.println(version + " " + r.getInt(1) + " " + r.getString(2));
            s.execute("DROP TABLE tls_j");
        }
    }
}
JAVA
  if javac -d "$W/java" "$W/java/TlsCheck.java" >"$W/java/javac.log" 2>&1; then
    out=$(timeout 120 java -cp "$W/java:$JAR" TlsCheck "$COHORT_HOST" "$COHORT_PORT" "$COHORT_DB" "$COHORT_USER" "$COHORT_PASSWORD" "$CA" 2>&1 | tail -1)
    check_eq connector-j/verified-tls-prepared "$out" "TLSv1.3 100 j99"
  else
    fail connector-j/compile "$(head -5 "$W/java/javac.log")"
  fi
else
  echo "SKIP: connector-j (no $JAR or no JDK)"
fi

# --- a second server: an OpenSSL RSA certificate, and client certificates (REQUIRE X509) --------
X=$W/x509
rm -rf "$X" && mkdir -p "$X"
(
  cd "$X" &&
    openssl req -x509 -newkey rsa:2048 -nodes -keyout server-ca-key.pem -out server-ca.pem -days 2 -subj "/CN=interop server CA" &&
    openssl req -newkey rsa:2048 -nodes -keyout server-key.pem -out server.csr -subj "/CN=localhost" &&
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >server.ext &&
    openssl x509 -req -in server.csr -CA server-ca.pem -CAkey server-ca-key.pem -CAcreateserial -out server-cert.pem -days 2 -extfile server.ext &&
    openssl req -x509 -newkey rsa:2048 -nodes -keyout client-ca-key.pem -out client-ca.pem -days 2 -subj "/CN=interop client CA" &&
    openssl req -newkey rsa:2048 -nodes -keyout client-key.pem -out client.csr -subj "/CN=client" &&
    printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n' >client.ext &&
    openssl x509 -req -in client.csr -CA client-ca.pem -CAkey client-ca-key.pem -CAcreateserial -out client-cert.pem -days 2 -extfile client.ext
) >"$X/openssl.log" 2>&1 || fail x509/openssl "$(tail -3 "$X/openssl.log")"
P2=$(free_port)
# shellcheck disable=SC2086 # COHORT_SERVE_FLAGS is a list of flags
"$COHORT_BIN" serve --port "$P2" --bind 127.0.0.1 --datadir "$X/data" --root-password x509pw \
  --ssl-cert "$X/server-cert.pem" --ssl-key "$X/server-key.pem" --ssl-ca "$X/client-ca.pem" $COHORT_SERVE_FLAGS \
  >"$X/server.log" 2>&1 &
pid2=$!
up=0
for _ in $(seq 1 60); do
  if [ "$(timeout 5 mariadb -h 127.0.0.1 -P "$P2" -u root --password=x509pw --protocol=TCP -N -B -e 'SELECT 1' </dev/null 2>/dev/null)" == 1 ]; then up=1; break; fi
  sleep 0.5
done
if [ $up -eq 1 ]; then
  x() { timeout 60 mariadb -h 127.0.0.1 -P "$P2" --protocol=TCP -N -B "$@" </dev/null 2>&1; }
  x -u root --password=x509pw -e "CREATE USER certuser IDENTIFIED BY 'pw' REQUIRE X509" >/dev/null
  check_eq x509/rsa-cert-verified "$(x -u root --password=x509pw --ssl-verify-server-cert --ssl-ca="$X/server-ca.pem" -e "SHOW STATUS LIKE 'Ssl_version'" | awk '{print $2}')" TLSv1.3
  out=$(x -u certuser --password=pw --ssl -e "SELECT CURRENT_USER()")
  check_cond x509/no-client-cert-is-refused-1045 "got: $out" grep -q "ERROR 1045 (28000)" <<<"$out"
  check_eq x509/client-cert-logs-in "$(x -u certuser --password=pw --ssl-cert="$X/client-cert.pem" --ssl-key="$X/client-key.pem" -e "SELECT CURRENT_USER()")" "certuser@%"
  out=$(x -u certuser --password=pw --ssl-cert="$X/server-cert.pem" --ssl-key="$X/server-key.pem" -e "SELECT 1")
  check_cond x509/cert-from-another-ca-fails "got: $out" grep -q "ERROR 2026" <<<"$out"
  check_eq x509/tls12-rsa-cipher "$(x -u root --password=x509pw --tls-version=TLSv1.2 -e "SHOW STATUS LIKE 'Ssl_cipher'" | awk '{print $2}')" ECDHE-RSA-AES256-GCM-SHA384
  check_eq x509/ssl-variables "$(x -u root --password=x509pw -e "SELECT @@ssl_cert = '$X/server-cert.pem', @@ssl_ca = '$X/client-ca.pem', @@have_ssl" | tr '\t' ' ')" "1 1 YES"
  check_cond x509/no-generated-files "found $(ls "$X/data" | tr '\n' ' ')" test ! -e "$X/data/ca.pem"
else
  fail x509/server "the second server did not answer (log $X/server.log: $(tail -3 "$X/server.log" | tr '\n' ' '))"
fi
kill "$pid2" 2>/dev/null
for _ in $(seq 1 50); do kill -0 "$pid2" 2>/dev/null || break; sleep 0.2; done
kill -9 "$pid2" 2>/dev/null
wait "$pid2" 2>/dev/null

echo "$INTEROP_PASSED passed, $INTEROP_FAILED failed"
[ "$INTEROP_FAILED" -eq 0 ]
