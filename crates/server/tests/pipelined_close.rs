//! Commands a client pipelines behind one that ends the connection are never served, under
//! both schedulers: COM_QUIT, and a failed COM_CHANGE_USER (the server answers ERR 1045 and
//! closes, as MySQL does; see the session module doc).

mod common;

use cohort_protocol::{ChangeUser, ErrorCode};
use cohort_server::session::ServerContext;
use common::{payloads, root, serve_with, RawClient, Sched};
use mysql::prelude::*;

fn database_exists(port: u16, name: &str) -> bool {
    let mut c = root(port);
    let all: Vec<String> = c.query("SHOW DATABASES").unwrap();
    all.iter().any(|d| d == name)
}

const QUIT: u8 = 0x01;
const CHANGE_USER: u8 = 0x11;

#[test]
fn nothing_after_com_quit_is_executed_thread_per_connection() {
    nothing_after_com_quit_is_executed(Sched::ThreadPerConnection);
}

#[test]
fn nothing_after_com_quit_is_executed_pool() {
    nothing_after_com_quit_is_executed(Sched::Pool);
}

fn nothing_after_com_quit_is_executed(sched: Sched) {
    let port = serve_with(sched, ServerContext::for_tests());
    let mut c = RawClient::login(port, "root", "");
    let mut bytes = RawClient::frame(&RawClient::query("CREATE DATABASE before_quit"));
    bytes.extend(RawClient::frame(&[QUIT]));
    bytes.extend(RawClient::frame(&RawClient::query(
        "CREATE DATABASE after_quit",
    )));
    bytes.extend(RawClient::frame(&RawClient::query("SELECT 1")));
    c.send(&bytes);
    let answers = payloads(&c.read_to_close());
    assert_eq!(
        answers.len(),
        1,
        "{sched:?}: only the command before COM_QUIT is answered"
    );
    assert_eq!(answers[0][0], 0x00, "{sched:?}: OK");
    assert!(database_exists(port, "before_quit"), "{sched:?}");
    assert!(
        !database_exists(port, "after_quit"),
        "{sched:?}: a command pipelined after COM_QUIT ran"
    );
}

fn change_user(c: &RawClient, user: &str, token: Vec<u8>) -> Vec<u8> {
    let cu = ChangeUser {
        user: user.into(),
        auth_response: token,
        database: None,
        charset: None,
        auth_plugin: Some("mysql_native_password".into()),
        connect_attrs: Vec::new(),
    };
    let mut payload = vec![CHANGE_USER];
    cu.encode(&mut payload, c.caps);
    payload
}

#[test]
fn a_failed_change_user_closes_before_pipelined_commands_thread_per_connection() {
    a_failed_change_user_closes_before_pipelined_commands(Sched::ThreadPerConnection);
}

#[test]
fn a_failed_change_user_closes_before_pipelined_commands_pool() {
    a_failed_change_user_closes_before_pipelined_commands(Sched::Pool);
}

fn a_failed_change_user_closes_before_pipelined_commands(sched: Sched) {
    let port = serve_with(sched, ServerContext::for_tests());
    let mut admin = root(port);
    admin
        .query_drop("CREATE USER tenant IDENTIFIED BY 'right'")
        .unwrap();
    // The previous user is root; the pipelined statement must not run as root.
    let mut c = RawClient::login(port, "root", "");
    let mut bytes = RawClient::frame(&change_user(&c, "tenant", vec![7; 20]));
    bytes.extend(RawClient::frame(&RawClient::query(
        "CREATE DATABASE after_failed_change_user",
    )));
    c.send(&bytes);
    let answers = payloads(&c.read_to_close());
    assert_eq!(
        answers.len(),
        1,
        "{sched:?}: one ERR, then the connection closes"
    );
    assert_eq!(answers[0][0], 0xFF, "{sched:?}");
    let code = u16::from_le_bytes([answers[0][1], answers[0][2]]);
    assert_eq!(code, ErrorCode::AccessDenied.number(), "{sched:?}");
    assert!(
        !database_exists(port, "after_failed_change_user"),
        "{sched:?}: a command pipelined after a failed COM_CHANGE_USER ran as the previous user"
    );
}

#[test]
fn a_successful_change_user_serves_what_follows_as_the_new_user_thread_per_connection() {
    a_successful_change_user_serves_what_follows_as_the_new_user(Sched::ThreadPerConnection);
}

#[test]
fn a_successful_change_user_serves_what_follows_as_the_new_user_pool() {
    a_successful_change_user_serves_what_follows_as_the_new_user(Sched::Pool);
}

fn a_successful_change_user_serves_what_follows_as_the_new_user(sched: Sched) {
    let port = serve_with(sched, ServerContext::for_tests());
    root(port)
        .query_drop("CREATE USER tenant IDENTIFIED BY ''")
        .unwrap();
    let mut c = RawClient::login(port, "root", "");
    let mut bytes = RawClient::frame(&change_user(&c, "tenant", Vec::new()));
    bytes.extend(RawClient::frame(&RawClient::query(
        "CREATE DATABASE by_tenant",
    )));
    c.send(&bytes);
    let answers = c.read_payloads(2);
    assert_eq!(answers[0][0], 0x00, "{sched:?}: change user OK");
    assert_eq!(
        answers[1][0], 0xFF,
        "{sched:?}: tenant may not create databases"
    );
    assert!(!database_exists(port, "by_tenant"), "{sched:?}");
}
