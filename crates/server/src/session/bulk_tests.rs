//! COM_STMT_BULK_EXECUTE (see `bulk.rs`), driven with raw packets; expected answers are
//! MariaDB 10.11's (recorded with a raw-protocol client against the oracle).

use super::memory_tests::{command, error_of, prepare, session};
use super::Session;
use crate::session::ServerContext;
use cohort_protocol::{capability, mariadb_capability};
use std::sync::Arc;

/// A logged-in session whose client negotiated MARIADB_CLIENT_STMT_BULK_OPERATIONS (MariaDB
/// reads the extended capabilities only with CLIENT_MYSQL, bit 0, clear).
fn bulk_session() -> (Arc<ServerContext>, Session) {
    let ctx = Arc::new(ServerContext::for_tests());
    let s = super::multi_kill_tests::session_with(&ctx, 1, "root", |resp, _| {
        resp.capabilities &= !capability::LONG_PASSWORD;
        resp.mariadb_capabilities = mariadb_capability::STMT_BULK_OPERATIONS;
    });
    (ctx, s)
}

fn query(s: &mut Session, sql: &str) -> Vec<Vec<u8>> {
    let mut p = vec![0x03];
    p.extend_from_slice(sql.as_bytes());
    command(s, &p)
}

fn ok(s: &mut Session, sql: &str) {
    assert_eq!(error_of(&query(s, sql)), None, "{sql}");
}

/// The text rows of a result set (column count, definitions, EOF, rows, EOF).
fn text_rows(r: &[Vec<u8>]) -> Vec<Vec<u8>> {
    assert_eq!(error_of(r), None);
    let cols = r[0][0] as usize;
    r[cols + 2..r.len() - 1].to_vec()
}

/// A bulk packet: header, then the types (sent if `types` is Some), then `body`.
fn bulk(id: u32, types: Option<&[u8]>, body: &[u8]) -> Vec<u8> {
    let mut p = vec![0xFA];
    p.extend_from_slice(&id.to_le_bytes());
    p.extend_from_slice(&(if types.is_some() { 128u16 } else { 0 }).to_le_bytes());
    p.extend_from_slice(types.unwrap_or(&[]));
    p.extend_from_slice(body);
    p
}

/// One LONGLONG value with its NONE indicator.
fn int(v: i64) -> Vec<u8> {
    let mut b = vec![0];
    b.extend_from_slice(&v.to_le_bytes());
    b
}

fn ints(vs: &[i64]) -> Vec<u8> {
    vs.iter().flat_map(|v| int(*v)).collect()
}

/// (affected rows, last insert id, info) of an OK packet.
fn ok_packet(r: &[Vec<u8>]) -> (u8, u8, String) {
    assert_eq!(error_of(r), None);
    let p = &r[0];
    assert_eq!(p[0], 0);
    // Small values: one byte each; then status, warnings, the info string.
    (p[1], p[2], String::from_utf8_lossy(&p[7..]).into_owned())
}

#[test]
fn bulk_execute_is_refused_without_the_capability() {
    let (_ctx, mut s) = session(&[]);
    let id = prepare(&mut s, "SELECT ?").unwrap();
    let (code, msg) = error_of(&command(&mut s, &bulk(id, Some(&[8, 0]), &int(1)))).unwrap();
    assert_eq!(code, 1295);
    assert!(msg.ends_with("This command is not supported in the prepared statement protocol yet"));
    assert!(error_of(&command(&mut s, b"\x03SELECT 1")).is_none());
}

#[test]
fn rows_insert_with_one_ok() {
    let (_ctx, mut s) = bulk_session();
    ok(&mut s, "CREATE DATABASE d");
    ok(
        &mut s,
        "CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT, w VARCHAR(5))",
    );
    let id = prepare(&mut s, "INSERT INTO d.t (v, w) VALUES (?, ?)").unwrap();
    // (1, 'a'), (NULL, 'b'): LONGLONG and VAR_STRING.
    let mut body = int(1);
    body.extend_from_slice(&[0, 1, b'a', 1, 0, 1, b'b']);
    let r = command(&mut s, &bulk(id, Some(&[8, 0, 253, 0]), &body));
    let (affected, insert_id, info) = ok_packet(&r);
    assert_eq!((affected, insert_id), (2, 1));
    assert!(
        info.ends_with("Records: 2  Duplicates: 0  Warnings: 0"),
        "{info}"
    );
    // The types are remembered.
    let r = command(
        &mut s,
        &bulk(id, None, &[&int(5)[..], &[0, 1, b'c']].concat()),
    );
    assert_eq!(ok_packet(&r).0..ok_packet(&r).1, 1..3);
    let rows = text_rows(&query(&mut s, "SELECT id, v, w FROM d.t ORDER BY id"));
    assert_eq!(
        rows,
        vec![
            b"\x011\x011\x01a".to_vec(),
            b"\x012\xfb\x01b".to_vec(),
            b"\x013\x015\x01c".to_vec()
        ]
    );
    // UPDATE sums its rows' info.
    let up = prepare(&mut s, "UPDATE d.t SET v = v + 1 WHERE id = ?").unwrap();
    let r = command(&mut s, &bulk(up, Some(&[8, 0]), &ints(&[1, 3, 9])));
    let (affected, _, info) = ok_packet(&r);
    assert_eq!(affected, 2);
    assert!(
        info.ends_with("Rows matched: 2  Changed: 2  Warnings: 0"),
        "{info}"
    );
}

#[test]
fn a_failing_row_undoes_the_rows_before_it() {
    let (_ctx, mut s) = bulk_session();
    ok(&mut s, "CREATE DATABASE d");
    ok(&mut s, "CREATE TABLE d.k (id INT PRIMARY KEY)");
    let id = prepare(&mut s, "INSERT INTO d.k VALUES (?)").unwrap();
    let dup = bulk(id, Some(&[8, 0]), &ints(&[1, 2, 1, 3]));
    let (code, msg) = error_of(&command(&mut s, &dup)).unwrap();
    assert_eq!(code, 1062, "{msg}");
    assert!(text_rows(&query(&mut s, "SELECT id FROM d.k")).is_empty());
    // In a transaction: the statement's rows go, the transaction's earlier ones stay.
    ok(&mut s, "BEGIN");
    ok(&mut s, "INSERT INTO d.k VALUES (10)");
    assert_eq!(error_of(&command(&mut s, &dup)).unwrap().0, 1062);
    ok(&mut s, "COMMIT");
    let rows = text_rows(&query(&mut s, "SELECT id FROM d.k"));
    assert_eq!(rows, vec![b"\x0210".to_vec()]);
    // A row cut short after good rows: 1210, nothing kept.
    let mut cut = ints(&[4, 5]);
    cut.extend_from_slice(&[0, 1, 2]);
    let (code, msg) = error_of(&command(&mut s, &bulk(id, None, &cut))).unwrap();
    assert_eq!(code, 1210);
    assert!(msg.ends_with("Incorrect arguments to mysqld_stmt_bulk_execute"));
    assert_eq!(text_rows(&query(&mut s, "SELECT id FROM d.k")).len(), 1);
}

#[test]
fn refusals_as_mariadb() {
    let (_ctx, mut s) = bulk_session();
    let sel = prepare(&mut s, "SELECT ?").unwrap();
    let do_ = prepare(&mut s, "DO ?").unwrap();
    let no_types = prepare(&mut s, "DO ?").unwrap();
    let cases: Vec<(Vec<u8>, u16)> = vec![
        (bulk(sel, Some(&[8, 0]), &int(1)), 1295),
        (bulk(999, Some(&[8, 0]), &int(1)), 1243),
        (bulk(no_types, None, &int(1)), 1210),
        (bulk(do_, Some(&[8, 0]), &[]), 1210),
        (bulk(do_, Some(&[8]), &[]), 1210),
        (bulk(do_, Some(&[8, 0]), &[7]), 1210),
        (bulk(do_, Some(&[8, 0]), &[2]), 1235),
        (bulk(do_, Some(&[8, 0]), &[3]), 1235),
        (vec![0xFA, 1, 0], 1210),
        // SEND_UNIT_RESULTS: MariaDB 10.11 has no BULK_UNIT_RESULTS.
        (
            [&[0xFA][..], &do_.to_le_bytes(), &[192, 0, 8, 0, 1]].concat(),
            1295,
        ),
    ];
    for (packet, code) in cases {
        let r = command(&mut s, &packet);
        assert_eq!(error_of(&r).map(|e| e.0), Some(code), "{packet:?}");
    }
    let (code, msg) = error_of(&command(&mut s, &bulk(999, Some(&[8, 0]), &int(1)))).unwrap();
    assert_eq!(code, 1243);
    assert!(msg.ends_with("Unknown prepared statement handler (999) given to mysqld_stmt_execute"));
    // Every byte string after a good header: an answer, never a panic.
    let mut seed = 7u64;
    for _ in 0..2000 {
        let len = (seed % 24) as usize;
        let body: Vec<u8> = (0..len)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (seed >> 56) as u8
            })
            .collect();
        let r = command(&mut s, &bulk(do_, Some(&[8, 0]), &body));
        assert!(!r.is_empty());
    }
    assert!(error_of(&query(&mut s, "SELECT 1")).is_none());
}

#[test]
fn many_rows_hold_one_row_at_a_time() {
    let (_ctx, mut s) = bulk_session();
    let id = prepare(&mut s, "DO ?").unwrap();
    // 100 000 rows of NULL: two bytes a row in the packet, no per-row state kept.
    let body = vec![1u8; 100_000];
    // The first packet of that size grows the connection's buffers; the second keeps nothing.
    command(&mut s, &bulk(id, Some(&[8, 0]), &body));
    let held = s.state.as_ref().unwrap().memory.held();
    let start = crate::memory::thread_net();
    let r = command(&mut s, &bulk(id, Some(&[8, 0]), &body));
    assert_eq!(ok_packet(&r).0, 0);
    let kept = crate::memory::kept_since(start);
    assert!(kept < 4096, "{kept}");
    assert_eq!(s.state.as_ref().unwrap().memory.held(), held);
}
