//! Protocol tests: multi-statement queries, CLIENT_FOUND_ROWS, COM_STATISTICS, KILL and
//! COM_PROCESS_KILL, driven as a scheduler drives a session (bytes in, bytes out).

use super::tests::{context_on, queries};
use super::{Flow, Session};
use crate::log::device::SimDir;
use crate::session::ServerContext;
use cohort_protocol::{
    capability, command_code, parse_text_row, status, write_packet, Handshake, HandshakeResponse,
    PacketReader, ResponseDecoder, ResponseEvent,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A logged-in session for `user` with the client capabilities `add` on top of the usual.
pub(super) fn session(ctx: &Arc<ServerContext>, id: u32, user: &str, add: u32) -> Session {
    session_with(ctx, id, user, |resp, hs| {
        resp.capabilities |= add & hs.capabilities
    })
}

/// A logged-in session for `user` whose HandshakeResponse `tweak` changed first (capabilities,
/// collation id…).
pub(super) fn session_with(
    ctx: &Arc<ServerContext>,
    id: u32,
    user: &str,
    tweak: impl FnOnce(&mut HandshakeResponse, &Handshake),
) -> Session {
    let (mut s, greeting) = Session::start(ctx.clone(), id, "127.0.0.1".into(), false);
    let mut reader = PacketReader::new(1 << 24);
    reader.feed(&greeting);
    let hs = Handshake::parse(reader.next_packet().unwrap().unwrap().payload).unwrap();
    let mut resp = HandshakeResponse::native(user, "", None, &hs);
    tweak(&mut resp, &hs);
    let mut payload = Vec::new();
    resp.encode(&mut payload);
    let mut bytes = Vec::new();
    write_packet(&mut bytes, &mut 1, &payload);
    let mut out = Vec::new();
    assert_eq!(s.on_bytes(&bytes, &mut out), Flow::Authenticated);
    s
}

/// Each result of one response: "ok N" (affected rows), "err CODE", "rows V" (first column of
/// the first row), with whether it said SERVER_MORE_RESULTS_EXISTS.
pub(super) fn results(out: &[u8]) -> Vec<(String, bool)> {
    let mut found: Vec<(String, bool)> = Vec::new();
    let mut d = ResponseDecoder::new();
    let mut columns = 1;
    let mut at = 0;
    while at + 4 <= out.len() {
        let len = u32::from_le_bytes([out[at], out[at + 1], out[at + 2], 0]) as usize;
        let payload = &out[at + 4..at + 4 + len];
        at += 4 + len;
        match d.decode(payload).unwrap() {
            ResponseEvent::Ok(ok) => found.push((
                format!("ok {}", ok.affected_rows),
                ok.status & status::MORE_RESULTS_EXISTS != 0,
            )),
            ResponseEvent::Err(e) => found.push((format!("err {}", e.code), false)),
            ResponseEvent::ColumnCount(n) => {
                columns = n as usize;
                found.push(("rows".into(), false))
            }
            ResponseEvent::Row(row) => {
                let v = parse_text_row(row, columns).unwrap()[0]
                    .unwrap_or(b"NULL")
                    .to_vec();
                let last = found.last_mut().unwrap();
                if last.0 == "rows" {
                    last.0 = format!("rows {}", String::from_utf8(v).unwrap());
                }
            }
            ResponseEvent::RowsEnd(eof) => {
                found.last_mut().unwrap().1 = eof.status & status::MORE_RESULTS_EXISTS != 0;
            }
            _ => {}
        }
    }
    assert_eq!(at, out.len(), "whole packets only");
    found
}

pub(super) fn run(s: &mut Session, sql: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    s.on_bytes(&queries(&[sql]), &mut out);
    results(&out)
}

fn r(items: &[(&str, bool)]) -> Vec<(String, bool)> {
    items.iter().map(|(a, b)| (a.to_string(), *b)).collect()
}

fn command(s: &mut Session, payload: &[u8]) -> (Flow, Vec<u8>) {
    let mut bytes = Vec::new();
    write_packet(&mut bytes, &mut 0, payload);
    let mut out = Vec::new();
    let flow = s.on_bytes(&bytes, &mut out);
    (flow, out)
}

#[test]
fn multi_statements_answer_each_statement_and_stop_at_the_first_error() {
    let ctx = context_on(&SimDir::new());
    let mut s = session(&ctx, 1, "root", capability::MULTI_STATEMENTS);
    assert_eq!(
        run(
            &mut s,
            "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY);"
        ),
        r(&[("ok 1", true), ("ok 0", false)])
    );
    assert_eq!(
        run(
            &mut s,
            "SELECT 1; SELECT ';' ; INSERT INTO d.t VALUES (1), (2)"
        ),
        r(&[("rows 1", true), ("rows ;", true), ("ok 2", false)])
    );
    // The duplicate fails; what follows it is not run (MariaDB).
    assert_eq!(
        run(
            &mut s,
            "INSERT INTO d.t VALUES (3); INSERT INTO d.t VALUES (1); INSERT INTO d.t VALUES (4)"
        ),
        r(&[("ok 1", true), ("err 1062", false)])
    );
    assert_eq!(
        run(&mut s, "SELECT COUNT(*) FROM d.t"),
        r(&[("rows 3", false)])
    );
}

#[test]
fn without_the_capability_a_second_statement_is_a_syntax_error_until_set_option() {
    let ctx = context_on(&SimDir::new());
    let mut s = session(&ctx, 1, "root", 0);
    assert_eq!(run(&mut s, "SELECT 1; SELECT 2"), r(&[("err 1064", false)]));
    // COM_SET_OPTION 0 turns it on (answered with EOF), 1 off again.
    let (_, out) = command(&mut s, &[command_code::SET_OPTION, 0, 0]);
    assert_eq!(out[4], 0xfe, "EOF");
    assert_eq!(
        run(&mut s, "SELECT 1; SELECT 2"),
        r(&[("rows 1", true), ("rows 2", false)])
    );
    command(&mut s, &[command_code::SET_OPTION, 1, 0]);
    assert_eq!(run(&mut s, "SELECT 1; SELECT 2"), r(&[("err 1064", false)]));
}

#[test]
fn found_rows_counts_matched_rows_of_an_update() {
    let ctx = context_on(&SimDir::new());
    let mut plain = session(&ctx, 1, "root", 0);
    run(&mut plain, "CREATE DATABASE d");
    run(&mut plain, "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)");
    run(&mut plain, "INSERT INTO d.t VALUES (1, 5), (2, 5), (3, 6)");
    assert_eq!(
        run(&mut plain, "UPDATE d.t SET v = 5 WHERE id < 3"),
        r(&[("ok 0", false)])
    );
    let mut found = session(&ctx, 2, "root", capability::FOUND_ROWS);
    assert_eq!(
        run(&mut found, "UPDATE d.t SET v = 5"),
        r(&[("ok 3", false)])
    );
    assert_eq!(
        run(&mut found, "SELECT ROW_COUNT()"),
        r(&[("rows 3", false)])
    );
    assert_eq!(
        run(
            &mut found,
            "INSERT INTO d.t VALUES (1, 5) ON DUPLICATE KEY UPDATE v = 5"
        ),
        r(&[("ok 1", false)])
    );
    assert_eq!(
        run(
            &mut plain,
            "INSERT INTO d.t VALUES (1, 5) ON DUPLICATE KEY UPDATE v = 5"
        ),
        r(&[("ok 0", false)])
    );
}

#[test]
fn com_statistics_answers_one_status_line() {
    let ctx = context_on(&SimDir::new());
    let mut s = session(&ctx, 1, "root", 0);
    let (flow, out) = command(&mut s, &[command_code::STATISTICS]);
    assert_eq!(flow, Flow::Continue);
    let text = String::from_utf8(out[4..].to_vec()).unwrap();
    assert!(text.starts_with("Uptime: "), "{text}");
    assert!(text.contains("  Threads: 1  Questions: "), "{text}");
    assert!(text.contains("  Queries per second avg: "), "{text}");
}

#[test]
fn kill_query_ends_a_lock_wait_with_1317_and_the_transaction_stays() {
    let ctx = context_on(&SimDir::new());
    let mut a = session(&ctx, 1, "root", 0);
    run(&mut a, "CREATE DATABASE d");
    run(&mut a, "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)");
    run(&mut a, "INSERT INTO d.t VALUES (1, 0)");
    run(&mut a, "BEGIN");
    run(&mut a, "UPDATE d.t SET v = 1 WHERE id = 1");
    let mut b = session(&ctx, 2, "root", 0);
    run(&mut b, "BEGIN");
    run(&mut b, "INSERT INTO d.t VALUES (2, 0)");
    let began = Instant::now();
    let waiter = std::thread::spawn(move || {
        let got = run(&mut b, "UPDATE d.t SET v = 2 WHERE id = 1");
        (b, got)
    });
    let mut killer = session(&ctx, 3, "root", 0);
    wait_for_info(&ctx, 2, "UPDATE");
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(run(&mut killer, "KILL QUERY 2"), r(&[("ok 0", false)]));
    let (mut b, got) = waiter.join().unwrap();
    assert_eq!(got, r(&[("err 1317", false)]));
    assert!(
        began.elapsed() < Duration::from_secs(20),
        "not the lock wait timeout"
    );
    // Only the statement ended: B's transaction still holds its insert, and B is served.
    assert_eq!(
        run(&mut b, "SELECT COUNT(*) FROM d.t"),
        r(&[("rows 2", false)])
    );
    run(&mut b, "COMMIT");
    run(&mut a, "COMMIT");
    assert_eq!(
        run(&mut killer, "SELECT COUNT(*) FROM d.t WHERE v = 1"),
        r(&[("rows 1", false)])
    );
}

/// A long statement (a join reading millions of rows) ends with 1317 at KILL QUERY: scans
/// look at the kill flag between batches.
#[test]
fn kill_query_ends_a_long_scan() {
    let ctx = context_on(&SimDir::new());
    let mut a = session(&ctx, 1, "root", 0);
    run(&mut a, "CREATE DATABASE d");
    run(&mut a, "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)");
    let values: Vec<String> = (1..=2000).map(|i| format!("({i}, {i})")).collect();
    run(
        &mut a,
        &format!("INSERT INTO d.t VALUES {}", values.join(",")),
    );
    let mut b = session(&ctx, 2, "root", 0);
    let began = Instant::now();
    // 2000 x 2000 x 2000 rows: far longer than the test (no index on v).
    let long = "SELECT COUNT(*) FROM d.t x JOIN d.t y JOIN d.t z WHERE x.v + y.v + z.v = -1";
    let waiter = std::thread::spawn(move || run(&mut b, long));
    wait_for_info(&ctx, 2, "SELECT COUNT");
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(run(&mut a, "KILL QUERY 2"), r(&[("ok 0", false)]));
    assert_eq!(waiter.join().unwrap(), r(&[("err 1317", false)]));
    assert!(
        began.elapsed() < Duration::from_secs(60),
        "ended by the kill"
    );
}

/// Wait until connection `id` runs a statement starting with `prefix`.
fn wait_for_info(ctx: &ServerContext, id: u32, prefix: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let running = ctx
            .processes
            .snapshot()
            .into_iter()
            .any(|p| p.id == id && p.shown().info.is_some_and(|i| i.starts_with(prefix)));
        if running {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("connection {id} never ran {prefix}");
}

#[test]
fn kill_connection_ends_a_sleep_and_closes_without_an_answer() {
    let ctx = context_on(&SimDir::new());
    let mut b = session(&ctx, 2, "root", 0);
    let waiter = std::thread::spawn(move || {
        let mut out = Vec::new();
        let flow = b.on_bytes(&queries(&["SELECT SLEEP(60)"]), &mut out);
        (flow, out)
    });
    wait_for_info(&ctx, 2, "SELECT SLEEP");
    let mut killer = session(&ctx, 3, "root", 0);
    // COM_PROCESS_KILL 2.
    let (_, out) = command(&mut killer, &[command_code::PROCESS_KILL, 2, 0, 0, 0]);
    assert_eq!(results(&out), r(&[("ok 0", false)]));
    let (flow, out) = waiter.join().unwrap();
    assert_eq!(flow, Flow::Close);
    assert!(out.is_empty(), "the killed connection gets no answer");
    assert_eq!(run(&mut killer, "KILL 99"), r(&[("err 1094", false)]));
}

#[test]
fn kill_of_another_users_connection_needs_admin_rights() {
    let ctx = context_on(&SimDir::new());
    let mut root = session(&ctx, 1, "root", 0);
    run(&mut root, "CREATE USER u@'%'");
    run(&mut root, "CREATE USER v@'%'");
    let mut u = session(&ctx, 2, "u", 0);
    let mut v = session(&ctx, 3, "v", 0);
    assert_eq!(run(&mut u, "KILL 1"), r(&[("err 1095", false)]));
    assert_eq!(run(&mut u, "KILL QUERY 3"), r(&[("err 1095", false)]));
    // A user sees only its own connections.
    assert_eq!(
        run(
            &mut u,
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST"
        ),
        r(&[("rows 1", false)])
    );
    assert_eq!(
        run(
            &mut root,
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST"
        ),
        r(&[("rows 3", false)])
    );
    // Its own connection: 1927, and it is closed.
    let mut out = Vec::new();
    assert_eq!(s_flow(&mut v, "KILL 3", &mut out), Flow::Close);
    assert_eq!(results(&out), r(&[("err 1927", false)]));
    assert_eq!(run(&mut root, "KILL 2"), r(&[("ok 0", false)]));
}

fn s_flow(s: &mut Session, sql: &str, out: &mut Vec<u8>) -> Flow {
    s.on_bytes(&queries(&[sql]), out)
}
