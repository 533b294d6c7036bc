//! The per-connection memory bound (see [`super::memory`]), driven as a hostile client would:
//! raw command packets into a [`Session`], what it holds read back from its accounting and
//! from the thread's allocation counter ([`crate::memory`]; this crate's tests run on the
//! counting allocator). Expected codes and messages are MariaDB 10.11's.

use super::{Flow, Session};
use crate::memory;
use crate::session::ServerContext;
use crate::types::Value;
use cohort_protocol::{write_packet, Handshake, HandshakeResponse, PacketReader};
use std::sync::Arc;

const MIB: usize = 1 << 20;

/// A logged-in session on a context whose global variables `vars` were set first.
pub(super) fn session(vars: &[(&str, u64)]) -> (Arc<ServerContext>, Session) {
    let ctx = ServerContext::for_tests();
    for (name, v) in vars {
        ctx.vars.set_startup(name, Value::UInt(*v)).unwrap();
    }
    let ctx = Arc::new(ctx);
    let (mut s, greeting) = Session::start(ctx.clone(), 1, "127.0.0.1".into(), false);
    let mut reader = PacketReader::new(1 << 24);
    reader.feed(&greeting);
    let hs = Handshake::parse(reader.next_packet().unwrap().unwrap().payload).unwrap();
    let mut payload = Vec::new();
    HandshakeResponse::native("root", "", None, &hs).encode(&mut payload);
    let mut bytes = Vec::new();
    write_packet(&mut bytes, &mut 1, &payload);
    let mut out = Vec::new();
    assert_eq!(s.on_bytes(&bytes, &mut out), Flow::Authenticated);
    (ctx, s)
}

fn frame(payload: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::new();
    write_packet(&mut bytes, &mut 0, payload);
    bytes
}

fn payloads(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let len = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], 0]) as usize;
        out.push(bytes[at + 4..at + 4 + len].to_vec());
        at += 4 + len;
    }
    out
}

/// Send one command; the payloads of its response.
pub(super) fn command(s: &mut Session, payload: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let flow = s.on_bytes(&frame(payload), &mut out);
    assert_ne!(flow, Flow::Close);
    payloads(&out)
}

/// ("ERR", code, message) of an error response, None otherwise.
pub(super) fn error_of(response: &[Vec<u8>]) -> Option<(u16, String)> {
    let p = response.first()?;
    (p[0] == 0xFF).then(|| {
        let code = u16::from_le_bytes([p[1], p[2]]);
        (code, String::from_utf8_lossy(&p[3..]).into_owned())
    })
}

fn query(s: &mut Session, sql: &str) -> Vec<Vec<u8>> {
    let mut p = vec![0x03];
    p.extend_from_slice(sql.as_bytes());
    command(s, &p)
}

fn query_ok(s: &mut Session, sql: &str) {
    let r = query(s, sql);
    assert!(error_of(&r).is_none(), "{sql}: {:?}", error_of(&r));
}

/// COM_STMT_PREPARE: the statement id, or the error.
pub(super) fn prepare(s: &mut Session, sql: &str) -> Result<u32, (u16, String)> {
    let mut p = vec![0x16];
    p.extend_from_slice(sql.as_bytes());
    let r = command(s, &p);
    match error_of(&r) {
        Some(e) => Err(e),
        None => Ok(u32::from_le_bytes([r[0][1], r[0][2], r[0][3], r[0][4]])),
    }
}

pub(super) fn long_data(s: &mut Session, id: u32, param: u16, data: &[u8]) {
    let mut p = vec![0x18];
    p.extend_from_slice(&id.to_le_bytes());
    p.extend_from_slice(&param.to_le_bytes());
    p.extend_from_slice(data);
    assert!(command(s, &p).is_empty(), "no reply to long data");
}

/// COM_STMT_EXECUTE of a one-parameter statement; the parameter is a string given `inline`,
/// or (None) sent as long data before.
pub(super) fn execute(s: &mut Session, id: u32, inline: Option<&[u8]>) -> Vec<Vec<u8>> {
    let mut p = vec![0x17];
    p.extend_from_slice(&id.to_le_bytes());
    p.push(0);
    p.extend_from_slice(&1u32.to_le_bytes());
    p.extend_from_slice(&[0, 1, 0xFE, 0]);
    if let Some(v) = inline {
        assert!(v.len() < 251);
        p.push(v.len() as u8);
        p.extend_from_slice(v);
    }
    command(s, &p)
}

/// The single value of a one-row, one-column binary result.
pub(super) fn binary_int(r: &[Vec<u8>]) -> i64 {
    assert!(error_of(r).is_none(), "{:?}", error_of(r));
    // column count, column def, EOF, row, EOF
    let row = &r[3];
    assert_eq!(row[0], 0, "binary row header");
    i64::from(i32::from_le_bytes(row[2..6].try_into().unwrap()))
}

fn held(s: &Session) -> u64 {
    s.state.as_ref().unwrap().memory.held()
}

fn long_held(s: &Session) -> u64 {
    s.state.as_ref().unwrap().memory.long_data
}

const LONG_DATA_TOO_LONG: &str = "Parameter of prepared statement which is set through \
     mysql_send_long_data() is longer than 'max_allowed_packet' bytes";

#[test]
fn long_data_is_held_to_max_allowed_packet_per_parameter() {
    let (_ctx, mut s) = session(&[("max_allowed_packet", MIB as u64)]);
    let id = prepare(&mut s, "SELECT LENGTH(?)").unwrap();
    // Exactly max_allowed_packet, in two chunks: fine.
    long_data(&mut s, id, 0, &vec![b'a'; MIB - 10]);
    long_data(&mut s, id, 0, &[b'a'; 10]);
    assert_eq!(binary_int(&execute(&mut s, id, None)), MIB as i64);
    assert_eq!(long_held(&s), 0, "consumed by the execute");
    // One byte more: 1105 at execute, and again until COM_STMT_RESET (MariaDB).
    long_data(&mut s, id, 0, &vec![b'a'; MIB / 2]);
    long_data(&mut s, id, 0, &vec![b'a'; MIB / 2]);
    long_data(&mut s, id, 0, b"!");
    assert_eq!(long_held(&s), 0, "refused data is dropped");
    let e = error_of(&execute(&mut s, id, None)).unwrap();
    assert_eq!(e, (1105, format!("#HY000{LONG_DATA_TOO_LONG}")));
    let e = error_of(&execute(&mut s, id, Some(b"abc"))).unwrap();
    assert_eq!(e.0, 1105, "sticky until reset");
    let mut reset = vec![0x1A];
    reset.extend_from_slice(&id.to_le_bytes());
    assert_eq!(command(&mut s, &reset)[0][0], 0x00);
    assert_eq!(binary_int(&execute(&mut s, id, Some(b"abc"))), 3);
    // A parameter the statement does not have: 1210, also sticky.
    long_data(&mut s, id, 3, b"xx");
    let e = error_of(&execute(&mut s, id, Some(b"abc"))).unwrap();
    assert_eq!(
        e,
        (
            1210,
            "#HY000Incorrect arguments to mysqld_stmt_send_long_data".into()
        )
    );
    // An unknown statement: ignored (there is no reply to carry an error).
    long_data(&mut s, 999, 0, b"xx");
}

#[test]
fn a_long_data_flood_holds_at_most_max_allowed_packet() {
    // 64 chunks of 512 KiB (32 MiB) to one parameter, max_allowed_packet 1 MiB: the issue's
    // 64 × 8 MiB at the default 16 MiB, scaled down.
    let (_ctx, mut s) = session(&[("max_allowed_packet", MIB as u64)]);
    let id = prepare(&mut s, "SELECT LENGTH(?)").unwrap();
    let chunk = vec![b'x'; MIB / 2 - 64];
    let start = memory::thread_net();
    memory::reset_peak();
    for _ in 0..64 {
        long_data(&mut s, id, 0, &chunk);
        assert!(long_held(&s) <= MIB as u64 + 64);
    }
    // The packet buffer (one chunk and its copy) comes and goes; the data never passes 1 MiB.
    let peak = memory::peak_since(start);
    assert!(peak < 4 * MIB as u64, "peak {peak}");
    assert_eq!(error_of(&execute(&mut s, id, None)).unwrap().0, 1105);
}

#[test]
fn long_data_across_parameters_is_held_to_max_session_mem_used() {
    let limit = 8 * MIB as u64;
    let (_ctx, mut s) = session(&[
        ("max_session_mem_used", limit),
        ("max_allowed_packet", MIB as u64),
    ]);
    let marks = vec!["?"; 32].join(",");
    let id = prepare(&mut s, &format!("SELECT LENGTH(CONCAT({marks}))")).unwrap();
    let chunk = vec![b'x'; MIB / 2 - 64];
    for param in 0..32 {
        long_data(&mut s, id, param, &chunk);
        long_data(&mut s, id, param, &chunk);
        assert!(held(&s) <= limit, "held {} > {limit}", held(&s));
    }
    let mut p = vec![0x17];
    p.extend_from_slice(&id.to_le_bytes());
    p.push(0);
    p.extend_from_slice(&1u32.to_le_bytes());
    p.extend_from_slice(&[0; 4]);
    p.push(1);
    for _ in 0..32 {
        p.extend_from_slice(&[0xFE, 0]);
    }
    let e = error_of(&command(&mut s, &p)).unwrap();
    assert_eq!(e.0, 1290, "{e:?}");
    assert_eq!(long_held(&s), 0, "refused long data is dropped");
}

#[test]
fn prepared_statements_are_capped_by_max_prepared_stmt_count_with_1461() {
    let ctx = ServerContext::for_tests();
    assert_eq!(ctx.vars.global_u64("max_prepared_stmt_count"), 16382);
    let (ctx, mut s) = session(&[("max_prepared_stmt_count", 3)]);
    let ids: Vec<u32> = (0..3)
        .map(|_| prepare(&mut s, "SELECT 1").unwrap())
        .collect();
    let e = prepare(&mut s, "SELECT 1").unwrap_err();
    assert_eq!(
        e,
        (
            1461,
            "#42000Can't create more than max_prepared_stmt_count statements (current value: 3)"
                .into()
        )
    );
    let mut close = vec![0x19];
    close.extend_from_slice(&ids[0].to_le_bytes());
    assert!(command(&mut s, &close).is_empty());
    prepare(&mut s, "SELECT 1").unwrap();
    let count = ctx
        .status
        .get(crate::status::StatusCounter::PreparedStmtCount);
    assert_eq!(count, 3);
}

#[test]
fn a_prepared_statement_keeps_about_twice_its_text() {
    let (_ctx, mut s) = session(&[]);
    query_ok(&mut s, "CREATE DATABASE d");
    query_ok(
        &mut s,
        "CREATE TABLE d.t (id INT PRIMARY KEY, c VARCHAR(10))",
    );
    // The case: a 1 MiB statement cost 7.4 MiB (syntax tree, select-item text, column
    // names of the whole text, twice).
    let sql = format!("SELECT '{}', id, ? FROM d.t", "a".repeat(MIB));
    let before = held(&s);
    let id = prepare(&mut s, &sql).unwrap();
    let cost = held(&s) - before;
    assert!(
        cost < 5 * MIB as u64 / 2,
        "{cost} bytes for {} of text",
        sql.len()
    );
    // It runs, and after a change of its table it is bound again from its text.
    query_ok(&mut s, "INSERT INTO d.t VALUES (1, 'x')");
    let r = execute(&mut s, id, Some(b"p"));
    assert!(error_of(&r).is_none());
    query_ok(&mut s, "CREATE INDEX kc ON d.t (c)");
    let r = execute(&mut s, id, Some(b"p"));
    assert!(error_of(&r).is_none(), "{:?}", error_of(&r));
    assert_eq!(r.len(), 1 + 3 + 1 + 1 + 1, "3 columns, 1 row");
}

/// A client that tries every way of holding memory the bound covers: prepared statements,
/// long data, user variables, a result too large. The session never holds more than
/// `max_session_mem_used`, and what it keeps across commands (measured by the allocator)
/// stays within it.
#[test]
fn a_hostile_client_cannot_hold_more_than_max_session_mem_used() {
    let limit = 8 * MIB as u64;
    let (_ctx, mut s) = session(&[
        ("max_session_mem_used", limit),
        ("max_allowed_packet", MIB as u64),
    ]);
    let start = memory::thread_net();
    let mut refused = 0;
    for i in 0..200 {
        let sql = format!("SELECT '{}' AS c{i}", "p".repeat(200 << 10));
        match prepare(&mut s, &sql) {
            Ok(id) => long_data(&mut s, id, 0, &[0; 16]),
            Err((code, msg)) => {
                assert_eq!(code, 1290, "{msg}");
                assert!(msg.starts_with("#HY000"), "{msg}");
                assert!(msg.contains("--max-session-mem-used=8388608"), "{msg}");
                refused += 1;
            }
        }
        let r = query(&mut s, &format!("SET @v{i} = REPEAT('v', 200000)"));
        if let Some((code, _)) = error_of(&r) {
            assert_eq!(code, 1290);
            refused += 1;
        }
        assert!(held(&s) <= limit, "held {} > {limit}", held(&s));
    }
    assert!(
        refused > 200,
        "the limit was reached and held ({refused} refusals)"
    );
    // What the session keeps, as the allocator sees it: within the limit (plus the buffers
    // of the connection itself).
    let kept = memory::kept_since(start);
    assert!(kept <= limit + MIB as u64, "kept {kept}");
    // It still serves what fits.
    query_ok(&mut s, "SELECT 1");
}

#[test]
fn a_result_set_larger_than_the_budget_fails_with_1290() {
    let limit = 4 * MIB as u64;
    let (_ctx, mut s) = session(&[("max_session_mem_used", limit)]);
    query_ok(&mut s, "CREATE DATABASE d");
    query_ok(
        &mut s,
        "CREATE TABLE d.t (id INT PRIMARY KEY, c VARCHAR(10000))",
    );
    for i in 0..1000 {
        query_ok(
            &mut s,
            &format!("INSERT INTO d.t VALUES ({i}, REPEAT('c', 9000))"),
        );
    }
    let start = memory::thread_net();
    memory::reset_peak();
    for sql in [
        "SELECT * FROM d.t",
        "SELECT DISTINCT c, id FROM d.t",
        "SELECT id, MAX(c) FROM d.t GROUP BY id",
        "SELECT * FROM d.t ORDER BY c",
        "SELECT * FROM d.t FOR UPDATE",
    ] {
        let e = error_of(&query(&mut s, sql)).expect(sql);
        assert_eq!(e.0, 1290, "{sql}");
    }
    let peak = memory::peak_since(start);
    assert!(peak < limit + MIB as u64, "peak {peak}");
    query_ok(&mut s, "SELECT COUNT(*) FROM d.t");
    assert_eq!(
        query(&mut s, "SELECT * FROM d.t LIMIT 10").len(),
        2 + 1 + 1 + 10 + 1
    );
}

#[test]
fn a_syntax_tree_the_budget_cannot_hold_is_refused_before_it_is_built() {
    let limit = 16 * MIB as u64;
    let (_ctx, mut s) = session(&[("max_session_mem_used", limit)]);
    // About 400 KB of text whose tree would take about 450 MB (11 KB a subquery).
    let mut sql = String::from("SELECT 1");
    for _ in 0..40_000 {
        sql.push_str(",(SELECT 1)");
    }
    let start = memory::thread_net();
    memory::reset_peak();
    for r in [query(&mut s, &sql), {
        let mut p = vec![0x16];
        p.extend_from_slice(sql.as_bytes());
        command(&mut s, &p)
    }] {
        assert_eq!(error_of(&r).unwrap().0, 1290);
    }
    let peak = memory::peak_since(start);
    assert!(peak < limit + 2 * MIB as u64, "peak {peak}");
}

#[test]
fn string_functions_stop_at_max_allowed_packet_with_warning_1301() {
    let (ctx, _s) = session(&[("max_allowed_packet", 1024)]);
    let mut sess = crate::session::SessionState::new(1, "root", "%", None);
    let cases = [
        ("REPEAT('a', 1024)", Some(1024), ""),
        ("REPEAT('a', 1025)", None, "repeat"),
        ("REPEAT('é', 513)", None, "repeat"),
        ("CONCAT(REPEAT('a', 600), REPEAT('b', 600))", None, "concat"),
        (
            "CONCAT_WS(',', REPEAT('a', 600), REPEAT('b', 600))",
            None,
            "concat_ws",
        ),
        ("REPLACE(REPEAT('a', 600), 'a', 'bb')", None, "replace"),
        ("LPAD('a', 256, 'b')", Some(256), ""),
        ("LPAD('a', 257, 'b')", None, "lpad"),
        ("RPAD('a', 257, 'b')", None, "rpad"),
        ("LPAD(REPEAT('a', 600), 300, 'b')", Some(300), ""),
        ("SPACE(1024)", Some(1024), ""),
        ("SPACE(1025)", None, "space"),
        ("HEX(REPEAT('a', 600))", None, "hex"),
    ];
    for (expr, len, func) in cases {
        let r =
            crate::sql::execute_text(&ctx, &mut sess, &format!("SELECT LENGTH({expr})")).unwrap();
        let crate::sql::QueryResult::Rows { rows, .. } = r else {
            panic!()
        };
        let want = len.map_or(Value::Null, |n| Value::Int(n as i64));
        assert_eq!(rows[0][0], want, "{expr}");
        if len.is_none() {
            let w = &sess.warnings[0];
            assert_eq!((w.level, w.code), ("Warning", 1301), "{expr}");
            assert_eq!(
                w.message,
                format!("Result of {func}() was larger than max_allowed_packet (1024) - truncated")
            );
        } else {
            assert!(sess.warnings.is_empty(), "{expr}");
        }
    }
}

#[test]
fn responses_of_pipelined_commands_wait_in_batches() {
    let (_ctx, mut s) = session(&[]);
    let mut bytes = Vec::new();
    for _ in 0..2000 {
        let mut p = vec![0x03];
        p.extend_from_slice(b"SELECT REPEAT('x', 1000)");
        write_packet(&mut bytes, &mut 0, &p);
    }
    let mut responses = 0;
    let mut data = &bytes[..];
    loop {
        let mut out = Vec::new();
        assert_eq!(s.on_bytes(data, &mut out), Flow::Continue);
        data = &[];
        assert!(
            out.len() < super::memory::OUTPUT_BATCH + 2048,
            "{} bytes waiting",
            out.len()
        );
        responses += payloads(&out).iter().filter(|p| p[0] == 0x01).count();
        if !s.has_buffered_commands() {
            break;
        }
    }
    assert_eq!(responses, 2000);
}

#[test]
fn a_statement_keeps_a_bounded_number_of_short_warnings() {
    use crate::sql::env_for_tests;
    let ctx = ServerContext::for_tests();
    let mut sess = crate::session::SessionState::new(1, "root", "%", None);
    let long = "w".repeat(8192);
    let start = memory::thread_net();
    env_for_tests(&ctx, &mut sess, |warn| {
        for _ in 0..70_000 {
            warn(&long);
        }
    });
    assert_eq!(sess.warnings.len(), u16::MAX as usize);
    assert!(sess.warnings.iter().all(|w| w.message.len() <= 512));
    // Two statements' worth can never add up past the cap either.
    env_for_tests(&ctx, &mut sess, |warn| warn("again"));
    assert_eq!(sess.warnings.len(), u16::MAX as usize);
    let kept = memory::kept_since(start);
    assert!(kept < 64 * MIB as u64, "{kept}");
}

#[test]
fn a_session_cannot_raise_its_own_limits() {
    let ctx = ServerContext::for_tests();
    ctx.accounts.create_user("plain", "%", "", false).unwrap();
    let mut plain = crate::session::SessionState::new(1, "plain", "%", None);
    let mut root = crate::session::SessionState::new(2, "root", "%", None);
    let run = |s: &mut crate::session::SessionState, sql: &str| {
        crate::sql::execute_text(&ctx, s, sql)
            .map(|_| ())
            .map_err(|e| (e.code().number(), e.message().to_string()))
    };
    let e = run(&mut plain, "SET SESSION max_session_mem_used = 2000000000").unwrap_err();
    assert_eq!(e.0, 1227, "{e:?}");
    run(&mut plain, "SET SESSION max_session_mem_used = 100000000").unwrap();
    assert_eq!(plain.mem_limit(&ctx), 100_000_000);
    run(&mut root, "SET SESSION max_session_mem_used = 2000000000").unwrap();
    for s in [&mut plain, &mut root] {
        let e = run(s, "SET SESSION max_allowed_packet = 1073741824").unwrap_err();
        assert_eq!(
            e,
            (
                1621,
                "SESSION variable 'max_allowed_packet' is read-only. Use SET GLOBAL to assign the value"
                    .into()
            )
        );
    }
}

/// A command packet over max_allowed_packet is refused with 1153 as soon as its header
/// arrives, and the ERR carries the offending packet's sequence id + 1, as MariaDB's does
/// (found by the protocol fuzzer: Cohort answered with 0, which a client reads as out of
/// order), then the connection closes.
#[test]
fn an_oversize_packet_gets_1153_with_the_next_sequence_id() {
    let (_ctx, mut s) = session(&[("max_allowed_packet", MIB as u64)]);
    let len = MIB + 10;
    let header = [len as u8, (len >> 8) as u8, (len >> 16) as u8, 0];
    let mut out = Vec::new();
    assert_eq!(s.on_bytes(&header, &mut out), Flow::Close);
    assert_eq!(out[3], 1, "sequence id of the ERR");
    let (code, message) = error_of(&payloads(&out)).expect("an ERR");
    assert_eq!(code, 1153);
    assert!(message.ends_with("Got a packet bigger than 'max_allowed_packet' bytes"));
}
