//! The session driven as a scheduler drives it, bytes in and bytes out: deferred commits
//! (the pool of threads) hold the response until the commit's outcome is given back.

use super::{Flow, Session};
use crate::accounts::Accounts;
use crate::error::Result;
use crate::log::binlog::BinlogFiles;
use crate::log::device::{Faults, LogDir, SimDir};
use crate::log::CommitPipeline;
use crate::session::ServerContext;
use crate::status::StatusCounter;
use crate::storage::Engine;
use crate::vars::SystemVariables;
use cohort_protocol::{
    encode_query, parse_text_row, write_packet, ErrorCode, Handshake, HandshakeResponse,
    PacketReader, ResponseDecoder, ResponseEvent,
};
use parking_lot::Mutex;
use std::sync::Arc;

/// A context whose binlog is on the simulated device `dir`.
pub(super) fn context_on(dir: &SimDir) -> Arc<ServerContext> {
    let engine = Engine::new();
    let logdir: Arc<dyn LogDir> = Arc::new(dir.clone());
    let binlog = BinlogFiles::open(logdir, "binlog", 1, Default::default()).unwrap();
    let pipeline = Arc::new(CommitPipeline::one_log(engine.clone(), binlog, 1));
    Arc::new(ServerContext::with_pipeline(
        engine,
        pipeline,
        SystemVariables::new(),
        Accounts::in_memory(""),
    ))
}

/// A logged-in session whose commits are deferred; the notifier's calls are recorded.
fn deferred_session(ctx: &Arc<ServerContext>) -> (Session, Arc<Mutex<Vec<Result<()>>>>) {
    let (mut s, greeting) = Session::start(ctx.clone(), 1, "127.0.0.1".into(), false);
    let outcomes = Arc::new(Mutex::new(Vec::new()));
    let seen = outcomes.clone();
    s.defer_commits(Arc::new(move |r| seen.lock().push(r)));
    let mut reader = PacketReader::new(1 << 24);
    reader.feed(&greeting);
    let hs = Handshake::parse(reader.next_packet().unwrap().unwrap().payload).unwrap();
    let mut payload = Vec::new();
    HandshakeResponse::native("root", "", None, &hs).encode(&mut payload);
    let mut bytes = Vec::new();
    write_packet(&mut bytes, &mut 1, &payload);
    let mut out = Vec::new();
    assert_eq!(s.on_bytes(&bytes, &mut out), Flow::Authenticated);
    (s, outcomes)
}

/// COM_QUERY packets for `sqls`, back to back (pipelined).
pub(super) fn queries(sqls: &[&str]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for sql in sqls {
        let mut payload = Vec::new();
        encode_query(&mut payload, sql);
        write_packet(&mut bytes, &mut 0, &payload);
    }
    bytes
}

/// The responses in `out`, one per command: "ok", "err CODE", or "rows V" (the first
/// column of the first row), with the sequence id of the response's first packet.
pub(super) fn responses(out: &[u8]) -> Vec<(String, u8)> {
    let mut found = Vec::new();
    let mut decoder: Option<ResponseDecoder> = None;
    let mut at = 0;
    while at + 4 <= out.len() {
        let len = u32::from_le_bytes([out[at], out[at + 1], out[at + 2], 0]) as usize;
        let seq = out[at + 3];
        let payload = &out[at + 4..at + 4 + len];
        at += 4 + len;
        let first = decoder.is_none();
        let d = decoder.get_or_insert_with(ResponseDecoder::new);
        match d.decode(payload).unwrap() {
            ResponseEvent::Ok(_) if first => found.push(("ok".to_string(), seq)),
            ResponseEvent::Err(e) if first => found.push((format!("err {}", e.code), seq)),
            ResponseEvent::ColumnCount(_) => found.push(("rows".to_string(), seq)),
            ResponseEvent::Row(row) => {
                let v = parse_text_row(row, 1).unwrap()[0]
                    .unwrap_or(b"NULL")
                    .to_vec();
                let last = found.last_mut().expect("a result set");
                if last.0 == "rows" {
                    last.0 = format!("rows {}", String::from_utf8(v).unwrap());
                }
            }
            _ => {}
        }
        if d.is_done() {
            decoder = None;
        }
    }
    assert_eq!(at, out.len(), "whole packets only");
    found
}

fn setup(s: &mut Session) {
    let mut out = Vec::new();
    let bytes = queries(&["CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY)"]);
    assert_eq!(
        s.on_bytes(&bytes, &mut out),
        Flow::Continue,
        "DDL commits block"
    );
    assert_eq!(responses(&out).len(), 2);
}

#[test]
fn a_deferred_commit_holds_its_response_and_what_follows() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let (mut s, outcomes) = deferred_session(&ctx);
    setup(&mut s);
    let mut out = Vec::new();
    let bytes = queries(&["INSERT INTO d.t VALUES (1)", "SELECT COUNT(*) FROM d.t"]);
    assert_eq!(s.on_bytes(&bytes, &mut out), Flow::AwaitCommit);
    assert!(
        out.is_empty(),
        "nothing is sent before the commit is durable"
    );
    assert!(s.awaiting_commit());
    assert_eq!(ctx.status.get(StatusCounter::ThreadsRunning), 1);
    // Alone in the queue, the session led its own group: the outcome is already known.
    let outcome = outcomes.lock().pop().expect("notified");
    assert_eq!(outcome, Ok(()));
    assert_eq!(s.on_commit_done(outcome, &mut out), Flow::Continue);
    let got = responses(&out);
    assert_eq!(got[0], ("ok".to_string(), 1));
    assert_eq!(
        got[1].0, "rows 1",
        "the pipelined SELECT ran after the commit"
    );
    assert_eq!(ctx.status.get(StatusCounter::ThreadsRunning), 0);
    assert!(!s.awaiting_commit());
}

#[test]
fn a_failed_deferred_commit_answers_err_instead_of_ok() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let (mut s, outcomes) = deferred_session(&ctx);
    setup(&mut s);
    dir.set_faults(Faults {
        fail_next_sync: true,
        ..Faults::default()
    });
    let mut out = Vec::new();
    let bytes = queries(&["INSERT INTO d.t VALUES (2)"]);
    assert_eq!(s.on_bytes(&bytes, &mut out), Flow::AwaitCommit);
    let outcome = outcomes.lock().pop().expect("notified");
    assert_eq!(
        outcome.as_ref().unwrap_err().code(),
        ErrorCode::ErrorOnWrite
    );
    assert_eq!(s.on_commit_done(outcome, &mut out), Flow::Continue);
    let got = responses(&out);
    assert_eq!(
        got,
        vec![(format!("err {}", ErrorCode::ErrorOnWrite.number()), 1)]
    );
    // The pipeline rolled it back: the row is not there; the connection still serves.
    out.clear();
    let bytes = queries(&["SELECT COUNT(*) FROM d.t WHERE id = 2"]);
    assert_eq!(s.on_bytes(&bytes, &mut out), Flow::Continue);
    assert_eq!(responses(&out), vec![("rows 0".to_string(), 1)]);
}

#[test]
fn explicit_commit_and_begin_defer_but_ddl_does_not() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let (mut s, outcomes) = deferred_session(&ctx);
    setup(&mut s);
    let mut out = Vec::new();
    let bytes = queries(&["BEGIN", "INSERT INTO d.t VALUES (3)"]);
    assert_eq!(
        s.on_bytes(&bytes, &mut out),
        Flow::Continue,
        "nothing to commit yet"
    );
    assert!(outcomes.lock().is_empty());
    out.clear();
    // BEGIN inside a transaction commits it implicitly: deferred like COMMIT.
    assert_eq!(
        s.on_bytes(&queries(&["BEGIN"]), &mut out),
        Flow::AwaitCommit
    );
    let outcome = outcomes.lock().pop().expect("notified");
    assert_eq!(s.on_commit_done(outcome, &mut out), Flow::Continue);
    assert_eq!(responses(&out), vec![("ok".to_string(), 1)]);
    out.clear();
    let bytes = queries(&["INSERT INTO d.t VALUES (4)", "COMMIT"]);
    assert_eq!(s.on_bytes(&bytes, &mut out), Flow::AwaitCommit);
    assert_eq!(
        responses(&out),
        vec![("ok".to_string(), 1)],
        "the INSERT's OK is not held"
    );
    out.clear();
    let outcome = outcomes.lock().pop().expect("notified");
    assert_eq!(s.on_commit_done(outcome, &mut out), Flow::Continue);
    assert_eq!(responses(&out), vec![("ok".to_string(), 1)]);
    // An implicit commit before DDL blocks (the DDL must see it done).
    out.clear();
    let bytes = queries(&[
        "BEGIN",
        "INSERT INTO d.t VALUES (5)",
        "CREATE TABLE d.u (a INT)",
    ]);
    assert_eq!(s.on_bytes(&bytes, &mut out), Flow::Continue);
    assert!(outcomes.lock().is_empty());
    assert_eq!(responses(&out).len(), 3);
}
