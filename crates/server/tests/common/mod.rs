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
