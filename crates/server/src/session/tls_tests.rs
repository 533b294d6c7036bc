//! The session inside TLS, driven as a scheduler drives it (ciphertext in, ciphertext out), with
//! a rustls client on the other side: the SSLRequest and the ClientHello in one read, every
//! byte fed alone, a deferred commit's held response sealed when it is released, and a broken
//! record closing the connection with an alert.

use super::tests::{context_on, queries, responses};
use super::{Flow, Session};
use crate::log::device::SimDir;
use crate::session::ServerContext;
use crate::status::StatusCounter;
use crate::tls::{Settings, Tls, TLS_VERSIONS};
use cohort_protocol::{
    capability, write_packet, Handshake, HandshakeResponse, PacketReader, SslRequest,
};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// `ctx` with TLS from a certificate generated in a scratch directory (returned, for its CA).
fn with_tls(ctx: &ServerContext, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cohort-sess-tls-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    crate::datadir::create_dir_all(&dir).unwrap();
    let settings = Settings {
        versions: TLS_VERSIONS.into(),
        ..Default::default()
    };
    let tls = Tls::load(&settings, &dir, "127.0.0.1").unwrap();
    ctx.set_tls(Some(Arc::new(tls)));
    dir
}

/// The client's side: a rustls client trusting the generated CA.
struct Client {
    tls: rustls::ClientConnection,
}

impl Client {
    fn new(dir: &std::path::Path) -> Client {
        let roots = crate::tls::certs::read_roots(&dir.join("ca.pem")).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
        Client {
            tls: rustls::ClientConnection::new(Arc::new(config), name).unwrap(),
        }
    }

    /// What the client has to send now (handshake records, or sealed `plain`).
    fn wire(&mut self, plain: &[u8]) -> Vec<u8> {
        self.tls.writer().write_all(plain).unwrap();
        let mut out = Vec::new();
        while self.tls.wants_write() {
            self.tls.write_tls(&mut out).unwrap();
        }
        out
    }

    /// Decrypt what the server sent; returns the plaintext.
    fn open(&mut self, mut wire: &[u8]) -> Vec<u8> {
        let mut plain = Vec::new();
        while !wire.is_empty() {
            self.tls.read_tls(&mut wire).unwrap();
            self.tls.process_new_packets().unwrap();
            let _ = self.tls.reader().read_to_end(&mut plain);
        }
        plain
    }
}

/// Feed `bytes` to the session whole, or one byte at a time.
fn feed(s: &mut Session, bytes: &[u8], bytewise: bool, out: &mut Vec<u8>) -> Flow {
    if !bytewise {
        return s.on_bytes(bytes, out);
    }
    let mut flow = Flow::Continue;
    for b in bytes {
        let f = s.on_bytes(std::slice::from_ref(b), out);
        if f != Flow::Continue {
            flow = f;
        }
    }
    flow
}

/// Greeting, SSLRequest + ClientHello in one read, the handshake, the login inside TLS.
fn login_inside_tls(
    ctx: &Arc<ServerContext>,
    dir: &std::path::Path,
    bytewise: bool,
) -> (Session, Client) {
    let (mut s, greeting) = Session::start(ctx.clone(), 7, "127.0.0.1".into(), false);
    let mut reader = PacketReader::new(1 << 24);
    reader.feed(&greeting);
    let hs = Handshake::parse(reader.next_packet().unwrap().unwrap().payload).unwrap();
    assert_ne!(hs.capabilities & capability::SSL, 0);
    let mut resp = HandshakeResponse::native("root", "", None, &hs);
    resp.capabilities |= capability::SSL;
    let mut req = Vec::new();
    SslRequest::before(&resp).encode(&mut req);
    let mut first = Vec::new();
    write_packet(&mut first, &mut 1, &req);
    let mut client = Client::new(dir);
    first.extend(client.wire(&[]));
    let mut out = Vec::new();
    assert_eq!(feed(&mut s, &first, bytewise, &mut out), Flow::Continue);
    // ServerHello … Finished; the client answers with its Finished and, in the same flight,
    // the HandshakeResponse41 (sequence id 2).
    assert_eq!(out[0], 0x16, "a TLS handshake record");
    assert!(client.open(&out).is_empty());
    let mut payload = Vec::new();
    resp.encode(&mut payload);
    let mut login = Vec::new();
    write_packet(&mut login, &mut 2, &payload);
    let wire = client.wire(&login);
    out.clear();
    assert_eq!(feed(&mut s, &wire, bytewise, &mut out), Flow::Authenticated);
    let plain = client.open(&out);
    assert_eq!(&plain[3..5], &[3, 0], "OK with sequence id 3: {plain:?}");
    let info = s.tls_info().unwrap();
    assert_eq!(info.version, "TLSv1.3");
    assert_eq!(
        s.state.as_ref().unwrap().tls,
        Some(info),
        "Ssl_cipher source"
    );
    (s, client)
}

#[test]
fn an_ssl_request_and_the_client_hello_in_one_read_or_byte_by_byte() {
    for bytewise in [false, true] {
        let dir = SimDir::new();
        let ctx = context_on(&dir);
        let certs = with_tls(&ctx, &format!("onread-{bytewise}"));
        let (mut s, mut client) = login_inside_tls(&ctx, &certs, bytewise);
        let wire = client.wire(&queries(&["SELECT 40 + 2", "SELECT 'inside'"]));
        let mut out = Vec::new();
        assert_eq!(feed(&mut s, &wire, bytewise, &mut out), Flow::Continue);
        assert!(!out.windows(6).any(|w| w == b"inside"), "sealed");
        let got = responses(&client.open(&out));
        assert_eq!(got[0].0, "rows 42");
        assert_eq!(got[1].0, "rows inside");
        assert_eq!(ctx.status.get(StatusCounter::SslAccepts), 1);
        assert_eq!(ctx.status.get(StatusCounter::SslFinishedAccepts), 1);
        std::fs::remove_dir_all(&certs).unwrap();
    }
}

#[test]
fn a_deferred_commits_response_is_sealed_when_released() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let certs = with_tls(&ctx, "deferred");
    let (mut s, mut client) = login_inside_tls(&ctx, &certs, false);
    let outcomes = Arc::new(parking_lot::Mutex::new(Vec::new()));
    let seen = outcomes.clone();
    s.defer_commits(Arc::new(move |r| seen.lock().push(r)));
    let mut out = Vec::new();
    let wire = client.wire(&queries(&[
        "CREATE DATABASE d",
        "CREATE TABLE d.t (id INT)",
    ]));
    assert_eq!(s.on_bytes(&wire, &mut out), Flow::Continue);
    assert_eq!(responses(&client.open(&out)).len(), 2);
    out.clear();
    let wire = client.wire(&queries(&[
        "INSERT INTO d.t VALUES (1)",
        "SELECT COUNT(*) FROM d.t",
    ]));
    assert_eq!(s.on_bytes(&wire, &mut out), Flow::AwaitCommit);
    assert!(client.open(&out).is_empty(), "nothing before the commit");
    // Bytes that arrive while the response is held wait, decrypted, in the reader.
    let more = client.wire(&queries(&["SELECT 7"]));
    out.clear();
    assert_eq!(s.on_bytes(&more, &mut out), Flow::AwaitCommit);
    assert!(client.open(&out).is_empty());
    let outcome = outcomes.lock().pop().expect("notified");
    out.clear();
    assert_eq!(s.on_commit_done(outcome, &mut out), Flow::Continue);
    let got = responses(&client.open(&out));
    assert_eq!(
        got,
        vec![
            ("ok".to_string(), 1),
            ("rows 1".to_string(), 1),
            ("rows 7".to_string(), 1)
        ]
    );
    std::fs::remove_dir_all(&certs).unwrap();
}

/// What a binlog dump streams from outside the command loop is sealed too.
#[test]
fn output_from_outside_the_command_loop_is_sealed_inside_tls() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let certs = with_tls(&ctx, "stream");
    let (mut s, mut client) = login_inside_tls(&ctx, &certs, false);
    let mut events = Vec::new();
    write_packet(&mut events, &mut 1, b"\0binlog event bytes");
    let mut out = Vec::new();
    s.seal_output(&events, &mut out);
    assert!(!out.windows(6).any(|w| w == b"binlog"), "sealed");
    assert_eq!(client.open(&out), events);
    std::fs::remove_dir_all(&certs).unwrap();
}

#[test]
fn a_broken_record_closes_with_an_alert() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let certs = with_tls(&ctx, "broken");
    let (mut s, mut client) = login_inside_tls(&ctx, &certs, false);
    let mut wire = client.wire(&queries(&["SELECT 1"]));
    let last = wire.len() - 1;
    wire[last] ^= 0x55; // the record's authentication tag no longer matches
    let mut out = Vec::new();
    assert_eq!(s.on_bytes(&wire, &mut out), Flow::Close);
    // After the handshake the alert is encrypted too; the client reads it.
    let mut rd = &out[..];
    client.tls.read_tls(&mut rd).unwrap();
    let e = client.tls.process_new_packets().unwrap_err();
    assert!(matches!(e, rustls::Error::AlertReceived(_)), "{e:?}");
    let mut out = Vec::new();
    assert_eq!(
        s.on_bytes(b"more", &mut out),
        Flow::Close,
        "closed stays closed"
    );
    s.on_disconnect();
    std::fs::remove_dir_all(&certs).unwrap();
}

#[test]
fn a_second_ssl_request_inside_tls_is_a_bad_handshake() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let certs = with_tls(&ctx, "second");
    let (mut s, greeting) = Session::start(ctx.clone(), 8, "127.0.0.1".into(), false);
    let mut reader = PacketReader::new(1 << 24);
    reader.feed(&greeting);
    let hs = Handshake::parse(reader.next_packet().unwrap().unwrap().payload).unwrap();
    let resp = HandshakeResponse::native("root", "", None, &hs);
    let mut req = Vec::new();
    SslRequest::before(&resp).encode(&mut req);
    let mut first = Vec::new();
    write_packet(&mut first, &mut 1, &req);
    let mut client = Client::new(&certs);
    first.extend(client.wire(&[]));
    let mut out = Vec::new();
    s.on_bytes(&first, &mut out);
    client.open(&out);
    let mut again = Vec::new();
    write_packet(&mut again, &mut 2, &req);
    let wire = client.wire(&again);
    out.clear();
    assert_eq!(s.on_bytes(&wire, &mut out), Flow::Close);
    let plain = client.open(&out);
    assert_eq!(plain[4], 0xff);
    assert_eq!(u16::from_le_bytes([plain[5], plain[6]]), 1043);
    std::fs::remove_dir_all(&certs).unwrap();
}

/// Inside TLS the packet reader's bound holds as in clear: a header announcing more than
/// max_allowed_packet is answered 1153 (sealed) and the connection closes.
#[test]
fn a_packet_over_max_allowed_packet_inside_tls_gets_1153() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let certs = with_tls(&ctx, "toolarge");
    ctx.vars
        .set_global("max_allowed_packet", crate::types::Value::UInt(1 << 20))
        .unwrap();
    let (mut s, mut client) = login_inside_tls(&ctx, &certs, false);
    let mut header = vec![0xff, 0xff, 0xff, 0]; // a 16 MiB piece
    header.extend_from_slice(&[b'x'; 1000]);
    let wire = client.wire(&header);
    let mut out = Vec::new();
    assert_eq!(s.on_bytes(&wire, &mut out), Flow::Close);
    let plain = client.open(&out);
    assert_eq!(plain[4], 0xff);
    assert_eq!(u16::from_le_bytes([plain[5], plain[6]]), 1153);
    std::fs::remove_dir_all(&certs).unwrap();
}

/// A binlog dump asked for inside TLS stays inside TLS: the session hands its TLS to the dump
/// (`take_dump`), whose socket seals the stream — the fake Rotate, the Format_description and
/// the EOF of a non-blocking dump reach the client as TLS records it opens, nothing in clear
/// — and ends with close_notify.
#[test]
fn a_binlog_dump_inside_tls_streams_sealed_events() {
    use cohort_protocol::replication::{dump_flags, BinlogDump};
    use std::net::{TcpListener, TcpStream};
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let certs = with_tls(&ctx, "dump");
    let (mut s, mut client) = login_inside_tls(&ctx, &certs, false);
    let setup = queries(&[
        "SET @mariadb_slave_capability = 4",
        "SET @master_binlog_checksum = @@global.binlog_checksum",
    ]);
    let mut out = Vec::new();
    assert_eq!(s.on_bytes(&client.wire(&setup), &mut out), Flow::Continue);
    let got = responses(&client.open(&out));
    assert_eq!(got, vec![("ok".to_string(), 1), ("ok".to_string(), 1)]);
    let mut dump = vec![0x12];
    BinlogDump {
        pos: 4,
        flags: dump_flags::NON_BLOCK,
        server_id: 9,
        file: String::new(),
    }
    .encode(&mut dump);
    let mut packet = Vec::new();
    write_packet(&mut packet, &mut 0, &dump);
    out.clear();
    assert_eq!(s.on_bytes(&client.wire(&packet), &mut out), Flow::Dump);
    let mut req = s.take_dump().expect("the dump");
    let tls = req.tls.take();
    assert!(tls.is_some(), "the session's TLS goes with the dump");
    assert!(s.tls_info().is_none(), "the session no longer has it");

    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let mut wire_end = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (server_end, _) = listener.accept().unwrap();
    let dump_ctx = ctx.clone();
    let dumper = std::thread::spawn(move || {
        let timeout = std::time::Duration::from_secs(5);
        let mut sock = crate::replication::socket::for_stream(server_end, tls, timeout).unwrap();
        crate::replication::serve(&dump_ctx, req, sock.as_mut());
        sock.shutdown();
    });
    wire_end
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let mut wire = Vec::new();
    wire_end.read_to_end(&mut wire).unwrap();
    dumper.join().unwrap();
    assert!(
        !wire.windows(5).any(|w| w == b"10.11"),
        "no server version in clear"
    );
    let plain = client.open(&wire);
    assert!(
        client.tls.process_new_packets().unwrap().peer_has_closed(),
        "close_notify"
    );
    let mut reader = PacketReader::new(1 << 24);
    reader.feed(&plain);
    reader.set_next_seq(1); // the dump answers COM_BINLOG_DUMP (sequence id 0)
    let mut kinds = Vec::new();
    while let Ok(Some(p)) = reader.next_packet() {
        // `00 | event` (type at byte 4 of the event header), or EOF.
        kinds.push(if p.payload[0] == 0 {
            p.payload[5]
        } else {
            p.payload[0]
        });
    }
    assert_eq!(
        kinds.first(),
        Some(&0x04),
        "the fake Rotate first: {kinds:x?}"
    );
    assert_eq!(
        kinds.get(1),
        Some(&0x0f),
        "then the Format_description: {kinds:x?}"
    );
    assert_eq!(kinds.last(), Some(&0xfe), "EOF (non-blocking): {kinds:x?}");
    std::fs::remove_dir_all(&certs).unwrap();
}
