//! TLS over the wire, under both schedulers, against a real durable server (binlog on, in a
//! temporary data directory, with the certificate it generates there on first start):
//!
//! - the `mysql` crate (rustls) verifying the generated certificate, prepared statements and a
//!   large result inside TLS;
//! - a raw client (rustls over a socket, our codec) that pipelines commands, and durable
//!   commits — deferred in the pool, answered later by another worker — inside TLS;
//! - refusals: `require_secure_transport` (3159), `REQUIRE SSL` (1045), an SSLRequest where
//!   TLS is not offered (1043);
//! - hostile clients: garbage instead of a ClientHello, a client that stops mid-handshake.
//!   Each costs only its own connection.

mod common;

use cohort_protocol::{
    capability, encode_query, write_packet, Handshake, HandshakeResponse, PacketReader, SslRequest,
};
use cohort_server::config::{Config, ServeArgs};
use common::{opts, serve_with, Sched, SCHEDULERS};
use mysql::prelude::*;
use mysql::{Conn, SslOpts};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A durable server with TLS (its generated certificate) under `sched`; returns the port and
/// the data directory (its `ca.pem` verifies the server).
fn start(sched: Sched, name: &str) -> (u16, PathBuf) {
    let dir = std::env::temp_dir().join(format!("cohort-tls-it-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cfg = Config::resolve(&ServeArgs {
        datadir: Some(dir.clone()),
        ..Default::default()
    })
    .unwrap();
    let ctx = cohort_server::net::open_context(&cfg).unwrap();
    (serve_with(sched, ctx), dir)
}

fn tls_conn(port: u16, user: &str, pass: &str, dir: &Path) -> mysql::Result<Conn> {
    let ssl = SslOpts::default().with_root_cert_path(Some(dir.join("ca.pem")));
    Conn::new(opts(port, user, pass, None).ssl_opts(Some(ssl)))
}

fn plain_conn(port: u16, user: &str, pass: &str) -> mysql::Result<Conn> {
    Conn::new(opts(port, user, pass, None))
}

fn server_code(r: mysql::Result<Conn>) -> u16 {
    match r {
        Err(mysql::Error::MySqlError(e)) => e.code,
        Err(e) => panic!("not a server error: {e}"),
        Ok(_) => panic!("the connection was accepted"),
    }
}

fn status(c: &mut Conn, name: &str) -> String {
    let row: Option<(String, String)> =
        c.query_first(format!("SHOW STATUS LIKE '{name}'")).unwrap();
    row.map(|r| r.1).unwrap_or_default()
}

#[test]
fn the_mysql_crate_verifies_the_generated_certificate_and_works_inside_tls() {
    for sched in SCHEDULERS {
        let (port, dir) = start(sched, &format!("crate-{sched:?}"));
        let mut c = tls_conn(port, "root", "", &dir).unwrap();
        assert_eq!(status(&mut c, "Ssl_version"), "TLSv1.3", "{sched:?}");
        assert_eq!(status(&mut c, "Ssl_cipher"), "TLS_AES_256_GCM_SHA384");
        let have: Option<String> = c.query_first("SELECT @@have_ssl").unwrap();
        assert_eq!(have.as_deref(), Some("YES"));
        c.query_drop("CREATE DATABASE d").unwrap();
        c.query_drop("CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(2000))")
            .unwrap();
        let stmt = c.prep("INSERT INTO d.t VALUES (?, ?)").unwrap();
        for i in 0..300 {
            let v = format!("{i:04}").repeat(250);
            c.exec_drop(&stmt, (i, v)).unwrap();
        }
        // A large result: 300 rows of 1000 bytes, and one 6 MB value, many TLS records.
        let rows: Vec<(i32, String)> = c.query("SELECT id, v FROM d.t ORDER BY id").unwrap();
        assert_eq!(rows.len(), 300);
        assert!(rows
            .iter()
            .all(|(i, v)| *v == format!("{i:04}").repeat(250)));
        let big: Option<String> = c.query_first("SELECT REPEAT('ab', 3000000)").unwrap();
        assert_eq!(big.unwrap(), "ab".repeat(3_000_000));
        // Without verification the plain connection still works beside it.
        let mut p = plain_conn(port, "root", "").unwrap();
        assert_eq!(status(&mut p, "Ssl_version"), "");
        let n: Option<i64> = p.query_first("SELECT COUNT(*) FROM d.t").unwrap();
        assert_eq!(n, Some(300));
        drop(c);
        let accepts = status(&mut p, "Ssl_finished_accepts");
        assert!(accepts.parse::<u64>().unwrap() >= 1, "{accepts}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Our codec over rustls over a socket: a client that pipelines.
struct RawTls {
    stream: rustls::StreamOwned<rustls::ClientConnection, TcpStream>,
    reader: PacketReader,
}

impl RawTls {
    /// Greeting in clear, SSLRequest, TLS handshake, HandshakeResponse inside TLS.
    fn login(port: u16, user: &str, password: &str, ca: &Path) -> RawTls {
        let mut tcp = TcpStream::connect(("127.0.0.1", port)).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let greeting = read_greeting(&mut tcp);
        let hs = Handshake::parse(&greeting).unwrap();
        assert_ne!(hs.capabilities & capability::SSL, 0, "TLS offered");
        let mut resp = HandshakeResponse::native(user, password, None, &hs);
        resp.capabilities |= capability::SSL;
        let mut bytes = Vec::new();
        let mut req = Vec::new();
        SslRequest::before(&resp).encode(&mut req);
        write_packet(&mut bytes, &mut 1, &req);
        tcp.write_all(&bytes).unwrap();
        let mut c = RawTls {
            stream: rustls::StreamOwned::new(client_conn(ca), tcp),
            reader: PacketReader::new(1 << 30),
        };
        let mut payload = Vec::new();
        resp.encode(&mut payload);
        let mut bytes = Vec::new();
        write_packet(&mut bytes, &mut 2, &payload);
        c.stream.write_all(&bytes).unwrap();
        c.reader.set_next_seq(3);
        let ok = c.next_payload();
        assert_eq!(ok[0], 0, "login refused: {ok:?}");
        c
    }

    fn next_payload(&mut self) -> Vec<u8> {
        let mut buf = [0u8; 16384];
        loop {
            if let Some(p) = self.reader.next_packet().unwrap() {
                return p.payload.to_vec();
            }
            let n = self.stream.read(&mut buf).unwrap();
            assert!(n > 0, "the server closed");
            self.reader.feed(&buf[..n]);
        }
    }

    /// Read the response to one command: an OK/ERR, or a text result set (until its final
    /// EOF); returns its payloads.
    fn response(&mut self) -> Vec<Vec<u8>> {
        self.reader.set_next_seq(1);
        let first = self.next_payload();
        if matches!(first[0], 0x00 | 0xff) {
            return vec![first];
        }
        let mut all = vec![first];
        let mut eofs = 0;
        while eofs < 2 {
            let p = self.next_payload();
            if p[0] == 0xfe && p.len() < 9 {
                eofs += 1;
            }
            all.push(p);
        }
        all
    }

    /// All `sqls` in one write, before any answer.
    fn pipeline(&mut self, sqls: &[String]) {
        let mut bytes = Vec::new();
        for sql in sqls {
            let mut payload = Vec::new();
            encode_query(&mut payload, sql);
            write_packet(&mut bytes, &mut 0, &payload);
        }
        self.stream.write_all(&bytes).unwrap();
    }
}

fn read_greeting(tcp: &mut TcpStream) -> Vec<u8> {
    let mut reader = PacketReader::new(1 << 20);
    let mut buf = [0u8; 4096];
    loop {
        if let Some(p) = reader.next_packet().unwrap() {
            return p.payload.to_vec();
        }
        let n = tcp.read(&mut buf).unwrap();
        assert!(n > 0, "closed before the greeting");
        reader.feed(&buf[..n]);
    }
}

fn client_conn(ca: &Path) -> rustls::ClientConnection {
    let mut roots = rustls::RootCertStore::empty();
    let pem = std::fs::read(ca).unwrap();
    use rustls::pki_types::pem::PemObject;
    for cert in rustls::pki_types::CertificateDer::pem_slice_iter(&pem) {
        roots.add(cert.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    rustls::ClientConnection::new(Arc::new(config), name).unwrap()
}

#[test]
fn pipelined_commands_and_deferred_durable_commits_inside_tls() {
    for sched in SCHEDULERS {
        let (port, dir) = start(sched, &format!("pipe-{sched:?}"));
        let mut admin = tls_conn(port, "root", "", &dir).unwrap();
        admin.query_drop("CREATE DATABASE p").unwrap();
        admin
            .query_drop("CREATE TABLE p.t (id INT PRIMARY KEY, v INT)")
            .unwrap();
        // Slower syncs: commits queue up and, in the pool, are completed by another worker
        // while the session's response is held.
        admin
            .query_drop("SET GLOBAL log_sync_delay_us = 2000")
            .unwrap();
        let mut c = RawTls::login(port, "root", "", &dir.join("ca.pem"));
        // 60 autocommit INSERTs (each a durable commit) and SELECTs, interleaved, one write.
        let mut sqls = Vec::new();
        for i in 0..60 {
            sqls.push(format!("INSERT INTO p.t VALUES ({i}, {})", i * 7));
            sqls.push(format!("SELECT v FROM p.t WHERE id = {i}"));
        }
        c.pipeline(&sqls);
        for i in 0..60 {
            let ok = c.response();
            assert_eq!(ok[0][0], 0, "{sched:?}: INSERT {i}: {:?}", ok[0]);
            let rows = c.response();
            // column count, column, EOF, row, EOF: the row is the commit's own value.
            let row = &rows[3];
            assert_eq!(&row[1..], (i * 7).to_string().as_bytes(), "{sched:?}: {i}");
        }
        let n: Option<i64> = admin.query_first("SELECT COUNT(*) FROM p.t").unwrap();
        assert_eq!(n, Some(60));
        // A large pipelined burst: responses are written in batches, in order.
        let sqls: Vec<String> = (0..400)
            .map(|i| format!("SELECT {i}, REPEAT('x', 900)"))
            .collect();
        c.pipeline(&sqls);
        for i in 0..400 {
            // column count, 2 columns, EOF, row, EOF.
            let rows = c.response();
            let digits = i.to_string();
            assert_eq!(rows[4][0] as usize, digits.len(), "{i}");
            assert_eq!(&rows[4][1..1 + digits.len()], digits.as_bytes());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn require_secure_transport_and_require_ssl_refuse_clear_connections() {
    for sched in SCHEDULERS {
        let (port, dir) = start(sched, &format!("refuse-{sched:?}"));
        let mut admin = tls_conn(port, "root", "", &dir).unwrap();
        admin
            .query_drop("CREATE USER sec IDENTIFIED BY 'pw' REQUIRE SSL")
            .unwrap();
        admin
            .query_drop("CREATE USER open IDENTIFIED BY 'pw'")
            .unwrap();
        // REQUIRE SSL: in clear the answer is a wrong password's (MariaDB's 1045).
        assert_eq!(
            server_code(plain_conn(port, "sec", "pw")),
            1045,
            "{sched:?}"
        );
        assert_eq!(server_code(tls_conn(port, "sec", "bad", &dir)), 1045);
        let mut sec = tls_conn(port, "sec", "pw", &dir).unwrap();
        let who: Option<String> = sec.query_first("SELECT CURRENT_USER()").unwrap();
        assert_eq!(who.as_deref(), Some("sec@%"));
        let grants: Vec<String> = admin.query("SHOW GRANTS FOR sec").unwrap();
        assert!(grants[0].ends_with("REQUIRE SSL"), "{grants:?}");
        // The requirement persists (accounts file) and REQUIRE NONE lifts it.
        admin.query_drop("ALTER USER sec REQUIRE NONE").unwrap();
        plain_conn(port, "sec", "pw").expect("REQUIRE NONE: clear is fine");
        admin
            .query_drop("GRANT ALL ON *.* TO sec REQUIRE SSL")
            .unwrap();
        assert_eq!(server_code(plain_conn(port, "sec", "pw")), 1045);
        // require_secure_transport: every connection outside TLS is refused with 3159.
        admin
            .query_drop("SET GLOBAL require_secure_transport = ON")
            .unwrap();
        assert_eq!(server_code(plain_conn(port, "open", "pw")), 3159);
        assert_eq!(server_code(plain_conn(port, "root", "")), 3159);
        tls_conn(port, "open", "pw", &dir).expect("TLS is fine");
        admin
            .query_drop("SET GLOBAL require_secure_transport = OFF")
            .unwrap();
        plain_conn(port, "open", "pw").expect("OFF again");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn without_tls_nothing_is_offered_and_require_secure_transport_cannot_be_set() {
    let dir = std::env::temp_dir().join(format!("cohort-tls-it-off-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cfg = Config::resolve(&ServeArgs {
        datadir: Some(dir.clone()),
        ssl: Some("OFF".into()),
        ..Default::default()
    })
    .unwrap();
    let port = serve_with(Sched::Pool, cohort_server::net::open_context(&cfg).unwrap());
    assert!(!dir.join("server-cert.pem").exists(), "nothing generated");
    let mut c = plain_conn(port, "root", "").unwrap();
    let have: Option<String> = c.query_first("SELECT @@have_ssl").unwrap();
    assert_eq!(have.as_deref(), Some("DISABLED"));
    let e = c
        .query_drop("SET GLOBAL require_secure_transport = ON")
        .unwrap_err();
    assert!(
        matches!(e, mysql::Error::MySqlError(ref e) if e.code == 4167),
        "{e}"
    );
    let mut tcp = TcpStream::connect(("127.0.0.1", port)).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let hs = Handshake::parse(&read_greeting(&mut tcp)).unwrap();
    assert_eq!(hs.capabilities & capability::SSL, 0, "TLS not offered");
    // An SSLRequest anyway: Bad handshake.
    let resp = HandshakeResponse::native("root", "", None, &hs);
    let mut req = Vec::new();
    SslRequest::before(&resp).encode(&mut req);
    let mut bytes = Vec::new();
    write_packet(&mut bytes, &mut 1, &req);
    tcp.write_all(&bytes).unwrap();
    let mut answer = Vec::new();
    let _ = tcp.read_to_end(&mut answer);
    assert_eq!(answer[4], 0xff);
    assert_eq!(u16::from_le_bytes([answer[5], answer[6]]), 1043);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Greeting read, SSLRequest sent: the connection is at the start of TLS.
fn at_tls_start(port: u16) -> TcpStream {
    let mut tcp = TcpStream::connect(("127.0.0.1", port)).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let hs = Handshake::parse(&read_greeting(&mut tcp)).unwrap();
    let resp = HandshakeResponse::native("root", "", None, &hs);
    let mut req = Vec::new();
    SslRequest::before(&resp).encode(&mut req);
    let mut bytes = Vec::new();
    write_packet(&mut bytes, &mut 1, &req);
    tcp.write_all(&bytes).unwrap();
    tcp
}

/// Everything until the server closes; how long that took.
fn until_closed(tcp: &mut TcpStream) -> (Vec<u8>, Duration) {
    let t0 = Instant::now();
    let mut all = Vec::new();
    let _ = tcp.read_to_end(&mut all);
    (all, t0.elapsed())
}

#[test]
fn garbage_instead_of_a_client_hello_closes_that_connection_only() {
    for sched in SCHEDULERS {
        let (port, dir) = start(sched, &format!("garbage-{sched:?}"));
        let mut admin = tls_conn(port, "root", "", &dir).unwrap();
        let aborted = |c: &mut Conn| status(c, "Aborted_connects").parse::<u64>().unwrap();
        let before = aborted(&mut admin);
        for garbage in [
            b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
            encode_plain_query("SELECT 1"),
            vec![0x16, 0x03, 0x01, 0xff, 0xff, 1, 2, 3],
            vec![0u8; 70_000],
        ] {
            let mut tcp = at_tls_start(port);
            let _ = tcp.write_all(&garbage);
            let (answer, took) = until_closed(&mut tcp);
            assert!(
                took < Duration::from_secs(5),
                "{sched:?}: closed after {took:?}"
            );
            // A TLS alert record (or nothing), never a MySQL packet in clear.
            assert!(answer.is_empty() || answer[0] == 0x15, "{answer:?}");
        }
        // The server goes on serving, in and outside TLS.
        let one: Option<i32> = admin.query_first("SELECT 1").unwrap();
        assert_eq!(one, Some(1));
        plain_conn(port, "root", "").unwrap();
        assert!(aborted(&mut admin) >= before + 4);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

fn encode_plain_query(sql: &str) -> Vec<u8> {
    let mut payload = Vec::new();
    encode_query(&mut payload, sql);
    let mut bytes = Vec::new();
    write_packet(&mut bytes, &mut 2, &payload);
    bytes
}

/// A client that sends half a ClientHello and waits: it holds no worker, and the connect
/// timeout closes it; everyone else is served meanwhile.
#[test]
fn a_client_that_stops_mid_handshake_is_closed_at_the_connect_timeout() {
    let runs: Vec<_> = SCHEDULERS
        .into_iter()
        .map(|sched| {
            std::thread::spawn(move || {
                let (port, dir) = start(sched, &format!("stall-{sched:?}"));
                let mut hello = Vec::new();
                let mut client = client_conn(&dir.join("ca.pem"));
                client.write_tls(&mut hello).unwrap();
                let mut stalled: Vec<TcpStream> = (0..8).map(|_| at_tls_start(port)).collect();
                for tcp in &mut stalled {
                    tcp.write_all(&hello[..hello.len() / 2]).unwrap();
                }
                // Meanwhile: served, in TLS.
                let mut c = tls_conn(port, "root", "", &dir).unwrap();
                for _ in 0..20 {
                    let one: Option<i32> = c.query_first("SELECT 1").unwrap();
                    assert_eq!(one, Some(1));
                }
                let mut first = stalled.remove(0);
                let (answer, took) = until_closed(&mut first);
                assert!(answer.is_empty(), "{sched:?}: {answer:?}");
                assert!(
                    took < Duration::from_secs(15),
                    "{sched:?}: still open after {took:?}"
                );
                std::fs::remove_dir_all(&dir).unwrap();
            })
        })
        .collect();
    for r in runs {
        r.join().unwrap();
    }
}

/// A CA for client certificates and one client certificate it signed, as PEM files in `dir`:
/// (ca.pem, client-cert.pem, client-key.pem).
fn client_ca(dir: &Path, name: &str) -> (PathBuf, PathBuf, PathBuf) {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
    let mut ca = CertificateParams::default();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, format!("{name} client CA"));
    let ca_key = KeyPair::generate().unwrap();
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca, ca_key);
    let mut client = CertificateParams::new(vec!["client.example".to_string()]).unwrap();
    client
        .distinguished_name
        .push(DnType::CommonName, format!("{name} client"));
    let key = KeyPair::generate().unwrap();
    let cert = client.signed_by(&key, &issuer).unwrap();
    let paths = (
        dir.join(format!("{name}-ca.pem")),
        dir.join(format!("{name}-client-cert.pem")),
        dir.join(format!("{name}-client-key.pem")),
    );
    std::fs::write(&paths.0, ca_cert.pem()).unwrap();
    std::fs::write(&paths.1, cert.pem()).unwrap();
    std::fs::write(&paths.2, key.serialize_pem()).unwrap();
    paths
}

/// REQUIRE X509: only a client certificate that verifies against ssl_ca logs in; one from
/// another CA fails the TLS handshake; without one the login is refused (1045).
#[test]
fn require_x509_needs_a_client_certificate_from_ssl_ca() {
    let scratch = std::env::temp_dir().join(format!("cohort-tls-it-x509c-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let (ca, cert, key) = client_ca(&scratch, "good");
    let (_, other_cert, other_key) = client_ca(&scratch, "other");
    let dir = std::env::temp_dir().join(format!("cohort-tls-it-x509-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cfg = Config::resolve(&ServeArgs {
        datadir: Some(dir.clone()),
        ssl_ca: Some(ca.display().to_string()),
        ..Default::default()
    })
    .unwrap();
    let port = serve_with(Sched::Pool, cohort_server::net::open_context(&cfg).unwrap());
    let mut admin = tls_conn(port, "root", "", &dir).unwrap();
    admin
        .query_drop("CREATE USER cert IDENTIFIED BY 'pw' REQUIRE X509")
        .unwrap();
    let ssl_ca: Option<String> = admin.query_first("SELECT @@ssl_ca").unwrap();
    assert_eq!(ssl_ca.unwrap(), ca.display().to_string());
    let with_identity = |cert: &Path, key: &Path| {
        let identity = mysql::ClientIdentity::new(cert.to_path_buf(), key.to_path_buf());
        let ssl = SslOpts::default()
            .with_root_cert_path(Some(dir.join("ca.pem")))
            .with_client_identity(Some(identity));
        Conn::new(opts(port, "cert", "pw", None).ssl_opts(Some(ssl)))
    };
    assert_eq!(server_code(tls_conn(port, "cert", "pw", &dir)), 1045);
    assert_eq!(server_code(plain_conn(port, "cert", "pw")), 1045);
    let mut c = with_identity(&cert, &key).unwrap();
    let who: Option<String> = c.query_first("SELECT CURRENT_USER()").unwrap();
    assert_eq!(who.as_deref(), Some("cert@%"));
    assert!(
        with_identity(&other_cert, &other_key).is_err(),
        "a certificate from another CA"
    );
    // REQUIRE SSL accounts need no certificate even where client certificates are verified.
    tls_conn(port, "root", "", &dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&scratch).unwrap();
}
