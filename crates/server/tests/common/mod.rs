//! What the integration tests of this crate share: a server on an ephemeral loopback port,
//! driven by the Rust `mysql` crate.
#![allow(dead_code)] // each test binary uses its own subset

use cohort_server::session::ServerContext;
use mysql::{Conn, OptsBuilder};
use std::net::TcpListener;
use std::sync::Arc;

/// Serve `ctx` one thread per connection on an ephemeral loopback port; returns the port.
pub fn serve_on_loopback(ctx: ServerContext) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let ctx = Arc::new(ctx);
    std::thread::spawn(move || cohort_server::net::accept_loop(ctx, listener));
    port
}

/// Connection options for `user` (TCP, never a socket file).
pub fn opts(port: u16, user: &str, pass: &str, db: Option<&str>) -> OptsBuilder {
    OptsBuilder::new()
        .ip_or_hostname(Some("127.0.0.1"))
        .tcp_port(port)
        .user(Some(user))
        .pass(Some(pass))
        .db_name(db)
        .prefer_socket(false)
}

/// A connection as root (no password).
pub fn root(port: u16) -> Conn {
    Conn::new(opts(port, "root", "", None)).unwrap()
}

/// Serve `ctx` with the pool of threads on an ephemeral loopback port; returns the port.
pub fn serve_pool_on_loopback(ctx: ServerContext) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let ctx = Arc::new(ctx);
    std::thread::spawn(move || {
        let doors = cohort_server::sched::accept::Doors::new(listener, None).unwrap();
        cohort_server::sched::serve_pool(ctx, doors)
    });
    port
}

/// Which scheduler serves a test server.
#[derive(Clone, Copy, Debug)]
pub enum Sched {
    ThreadPerConnection,
    Pool,
}

/// Both schedulers, for tests that must hold under each.
pub const SCHEDULERS: [Sched; 2] = [Sched::ThreadPerConnection, Sched::Pool];

/// Serve `ctx` with `sched` on an ephemeral loopback port; returns the port.
pub fn serve_with(sched: Sched, ctx: ServerContext) -> u16 {
    match sched {
        Sched::ThreadPerConnection => serve_on_loopback(ctx),
        Sched::Pool => serve_pool_on_loopback(ctx),
    }
}

/// A client that speaks raw packets: for what real drivers never send (pipelined commands
/// after COM_QUIT, hostile COM_STMT_SEND_LONG_DATA streams, …).
pub struct RawClient {
    pub stream: std::net::TcpStream,
    pub caps: u32,
}

impl RawClient {
    /// Connect and log in as `user` with `password`.
    pub fn login(port: u16, user: &str, password: &str) -> RawClient {
        use cohort_protocol::{Handshake, HandshakeResponse, PacketReader};
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(20)))
            .unwrap();
        let mut reader = PacketReader::new(1 << 30);
        let mut buf = [0u8; 4096];
        let greeting = loop {
            if let Some(p) = reader.next_packet().unwrap() {
                break p.payload.to_vec();
            }
            let n = stream.read(&mut buf).unwrap();
            assert!(n > 0, "server closed before its greeting");
            reader.feed(&buf[..n]);
        };
        let hs = Handshake::parse(&greeting).unwrap();
        let resp = HandshakeResponse::native(user, password, None, &hs);
        let mut payload = Vec::new();
        resp.encode(&mut payload);
        let mut bytes = Vec::new();
        cohort_protocol::write_packet(&mut bytes, &mut 1, &payload);
        stream.write_all(&bytes).unwrap();
        let mut c = RawClient {
            stream,
            caps: resp.capabilities,
        };
        let answer = c.read_payloads(1);
        assert_eq!(answer[0][0], 0, "login refused: {:?}", answer[0]);
        c
    }

    /// Send `payload` as one command packet (sequence 0), without waiting.
    pub fn frame(payload: &[u8]) -> Vec<u8> {
        let mut bytes = Vec::new();
        cohort_protocol::write_packet(&mut bytes, &mut 0, payload);
        bytes
    }

    /// A COM_QUERY payload.
    pub fn query(sql: &str) -> Vec<u8> {
        let mut p = Vec::new();
        cohort_protocol::encode_query(&mut p, sql);
        p
    }

    pub fn send(&mut self, bytes: &[u8]) {
        use std::io::Write;
        self.stream.write_all(bytes).unwrap();
    }

    /// Read exactly `n` payloads.
    pub fn read_payloads(&mut self, n: usize) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut header = [0u8; 4];
        use std::io::Read;
        while out.len() < n {
            self.stream.read_exact(&mut header).unwrap();
            let len = u32::from_le_bytes([header[0], header[1], header[2], 0]) as usize;
            let mut p = vec![0u8; len];
            self.stream.read_exact(&mut p).unwrap();
            out.push(p);
        }
        out
    }

    /// Everything the server sends until it closes the connection (panics after the read
    /// timeout: the server did not close).
    pub fn read_to_close(&mut self) -> Vec<u8> {
        use std::io::Read;
        let mut all = Vec::new();
        match self.stream.read_to_end(&mut all) {
            Ok(_) => all,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => all,
            Err(e) => panic!("the server did not close the connection: {e}"),
        }
    }
}

/// The payloads framed in `bytes` (whole packets only).
pub fn payloads(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 4 <= bytes.len() {
        let len = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], 0]) as usize;
        out.push(bytes[at + 4..at + 4 + len].to_vec());
        at += 4 + len;
    }
    assert_eq!(at, bytes.len(), "whole packets only");
    out
}
