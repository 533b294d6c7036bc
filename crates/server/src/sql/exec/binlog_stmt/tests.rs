//! BINLOG statements built from events the binlog crate encodes: rows applied, transactions,
//! and every malformed payload an error, never a panic.

use crate::error::Result;
use crate::session::{ServerContext, SessionState};
use crate::sql::QueryResult;
use crate::testkit::{rows, run};
use crate::types::Value;
use cohort_binlog::{
    BinValue, BinlogPos, ColumnDef, ColumnKind, Event, EventWriter, FormatDescription, QueryEvent,
    RowChange, RowsEvent, RowsKind, ServerId, TableId, TableMap, TableMeta, STMT_END_F,
};
use cohort_protocol::ErrorCode;
use std::borrow::Cow;

fn setup() -> (ServerContext, SessionState) {
    let ctx = ServerContext::for_tests();
    let mut sess = SessionState::new(1, "root", "%", None);
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(10))",
        "CREATE TABLE n (a INT NOT NULL, b VARCHAR(10))",
    ] {
        run(&ctx, &mut sess, sql).unwrap();
    }
    (ctx, sess)
}

fn code(r: Result<QueryResult>) -> u16 {
    match r {
        Ok(_) => 0,
        Err(e) => e.code().number(),
    }
}

fn b64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= c.len() {
                out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn writer() -> EventWriter {
    EventWriter::new(BinlogPos(4), ServerId(1), 0)
}

fn fde() -> Vec<u8> {
    let mut w = writer();
    w.write_event(&Event::FormatDescription(FormatDescription::mariadb_10_11(
        "10.11.0-test",
    )))
    .unwrap();
    w.into_bytes()
}

fn map(id: u64, table: &str, kinds: &[ColumnKind]) -> TableMap {
    TableMap {
        table_id: TableId(id),
        db: "d".into(),
        table: table.into(),
        columns: kinds
            .iter()
            .map(|&kind| ColumnDef {
                kind,
                nullable: true,
            })
            .collect(),
        meta: TableMeta::default(),
    }
}

fn t_map() -> TableMap {
    map(
        7,
        "t",
        &[
            ColumnKind::Long { unsigned: false },
            ColumnKind::VarString { max_bytes: 40 },
        ],
    )
}

fn row(id: i64, s: Option<&str>) -> Vec<BinValue<'static>> {
    vec![
        BinValue::Int(id),
        match s {
            Some(s) => BinValue::Bytes(Cow::Owned(s.as_bytes().to_vec())),
            None => BinValue::Null,
        },
    ]
}

/// A Table_map and one rows event of `changes`, as one BINLOG payload.
fn rows_payload(m: &TableMap, kind: RowsKind, changes: Vec<RowChange<'static>>) -> Vec<u8> {
    let mut w = writer();
    w.write_event(&Event::TableMap(m.clone())).unwrap();
    let n = m.columns.len();
    w.write_event(&Event::Rows(RowsEvent {
        kind,
        table_id: m.table_id,
        flags: STMT_END_F,
        column_count: n,
        columns_present: vec![true; n],
        columns_present_after: match kind {
            RowsKind::Update => vec![true; n],
            _ => Vec::new(),
        },
        rows: changes,
    }))
    .unwrap();
    w.into_bytes()
}

fn binlog(ctx: &ServerContext, sess: &mut SessionState, bytes: &[u8]) -> Result<QueryResult> {
    run(ctx, sess, &format!("BINLOG '{}'", b64(bytes)))
}

fn t_rows(ctx: &ServerContext, sess: &mut SessionState) -> Vec<Vec<Value>> {
    rows(ctx, sess, "SELECT id, s FROM t ORDER BY id")
}

#[test]
fn rows_events_insert_update_and_delete() {
    let (ctx, mut sess) = setup();
    binlog(&ctx, &mut sess, &fde()).unwrap();
    let ins = rows_payload(
        &t_map(),
        RowsKind::Write,
        vec![
            RowChange::Insert(row(1, Some("a"))),
            RowChange::Insert(row(2, None)),
        ],
    );
    binlog(&ctx, &mut sess, &ins).unwrap();
    assert_eq!(
        t_rows(&ctx, &mut sess),
        vec![
            vec![Value::Int(1), Value::str("a")],
            vec![Value::Int(2), Value::Null]
        ]
    );
    let upd = rows_payload(
        &t_map(),
        RowsKind::Update,
        vec![RowChange::Update {
            before: row(2, None),
            after: row(3, Some("three")),
        }],
    );
    binlog(&ctx, &mut sess, &upd).unwrap();
    let del = rows_payload(
        &t_map(),
        RowsKind::Delete,
        vec![RowChange::Delete(row(1, Some("a")))],
    );
    binlog(&ctx, &mut sess, &del).unwrap();
    assert_eq!(
        t_rows(&ctx, &mut sess),
        vec![vec![Value::Int(3), Value::str("three")]]
    );
    // Again: the rows are gone (1032) or there (1062); nothing of a failed statement stays.
    assert_eq!(code(binlog(&ctx, &mut sess, &del)), 1032);
    assert_eq!(code(binlog(&ctx, &mut sess, &upd)), 1032);
    let dup = rows_payload(
        &t_map(),
        RowsKind::Write,
        vec![
            RowChange::Insert(row(9, Some("new"))),
            RowChange::Insert(row(3, Some("dup"))),
        ],
    );
    assert_eq!(code(binlog(&ctx, &mut sess, &dup)), 1062);
    assert_eq!(t_rows(&ctx, &mut sess).len(), 1, "the statement is undone");
}

#[test]
fn a_table_without_primary_key_matches_the_whole_image() {
    let (ctx, mut sess) = setup();
    binlog(&ctx, &mut sess, &fde()).unwrap();
    let m = map(
        3,
        "n",
        &[
            ColumnKind::Long { unsigned: false },
            ColumnKind::VarString { max_bytes: 40 },
        ],
    );
    let two = |a: i64, b: &str| RowChange::Insert(row(a, Some(b)));
    binlog(
        &ctx,
        &mut sess,
        &rows_payload(
            &m,
            RowsKind::Write,
            vec![two(1, "x"), two(1, "x"), two(1, "y")],
        ),
    )
    .unwrap();
    let del = rows_payload(
        &m,
        RowsKind::Delete,
        vec![RowChange::Delete(row(1, Some("x")))],
    );
    binlog(&ctx, &mut sess, &del).unwrap();
    binlog(&ctx, &mut sess, &del).unwrap();
    assert_eq!(code(binlog(&ctx, &mut sess, &del)), 1032);
    assert_eq!(
        rows(&ctx, &mut sess, "SELECT a, b FROM n"),
        vec![vec![Value::Int(1), Value::str("y")]]
    );
    // NULL into a NOT NULL column.
    let null = rows_payload(
        &m,
        RowsKind::Write,
        vec![RowChange::Insert(vec![BinValue::Null, BinValue::Null])],
    );
    assert_eq!(code(binlog(&ctx, &mut sess, &null)), 1048);
}

#[test]
fn rows_join_the_open_transaction() {
    let (ctx, mut sess) = setup();
    binlog(&ctx, &mut sess, &fde()).unwrap();
    let ins = rows_payload(
        &t_map(),
        RowsKind::Write,
        vec![RowChange::Insert(row(1, Some("a")))],
    );
    run(&ctx, &mut sess, "START TRANSACTION").unwrap();
    binlog(&ctx, &mut sess, &ins).unwrap();
    run(&ctx, &mut sess, "ROLLBACK").unwrap();
    assert!(t_rows(&ctx, &mut sess).is_empty());
    run(&ctx, &mut sess, "START TRANSACTION").unwrap();
    binlog(&ctx, &mut sess, &ins).unwrap();
    run(&ctx, &mut sess, "COMMIT").unwrap();
    assert_eq!(t_rows(&ctx, &mut sess).len(), 1);
}

#[test]
fn fragments_in_two_user_variables() {
    let (ctx, mut sess) = setup();
    binlog(&ctx, &mut sess, &fde()).unwrap();
    let text = b64(&rows_payload(
        &t_map(),
        RowsKind::Write,
        vec![RowChange::Insert(row(5, Some("frag")))],
    ));
    let (a, b) = text.split_at(text.len() / 2);
    run(
        &ctx,
        &mut sess,
        &format!("SET @binlog_fragment_0='{a}', @binlog_fragment_1='{b}'"),
    )
    .unwrap();
    run(
        &ctx,
        &mut sess,
        "BINLOG @binlog_fragment_0, @binlog_fragment_1",
    )
    .unwrap();
    assert_eq!(t_rows(&ctx, &mut sess).len(), 1);
    let e = run(&ctx, &mut sess, "BINLOG @binlog_fragment_0, @nothing");
    assert_eq!(code(e), 1232);
}

#[test]
fn malformed_payloads_are_errors() {
    let (ctx, mut sess) = setup();
    // Not base64; empty.
    assert_eq!(code(run(&ctx, &mut sess, "BINLOG 'abc'")), 1575);
    assert_eq!(code(run(&ctx, &mut sess, "BINLOG '!!!!'")), 1575);
    assert_eq!(code(run(&ctx, &mut sess, "BINLOG 'A==='")), 1575);
    assert_eq!(code(run(&ctx, &mut sess, "BINLOG ''")), 1149);
    // A Table_map before any Format_description.
    let ins = rows_payload(
        &t_map(),
        RowsKind::Write,
        vec![RowChange::Insert(row(1, Some("a")))],
    );
    let e = binlog(&ctx, &mut sess, &ins).unwrap_err();
    assert_eq!(
        e.code(),
        ErrorCode::NoFormatDescriptionEventBeforeBinlogStatement
    );
    assert!(e.message().contains("type Table_map"), "{}", e.message());
    // A truncated Format_description.
    let f = fde();
    assert_eq!(code(binlog(&ctx, &mut sess, &f[..f.len() - 7])), 1149);
    binlog(&ctx, &mut sess, &f).unwrap();
    // Every truncation of a good payload: an error, nothing applied (but at the end of the
    // Table_map: a payload of a Table_map alone is good).
    let tm_len = u32::from_le_bytes(ins[9..13].try_into().unwrap()) as usize;
    for cut in (1..ins.len()).filter(|&c| c != tm_len) {
        assert_ne!(
            code(binlog(&ctx, &mut sess, &ins[..cut])),
            0,
            "cut at {cut}"
        );
    }
    assert!(t_rows(&ctx, &mut sess).is_empty());
    // A rows event whose table id has no Table_map.
    let mut w = writer();
    w.write_event(&Event::TableMap(map(
        99,
        "t",
        &[ColumnKind::Long { unsigned: false }],
    )))
    .unwrap();
    let orphan = {
        let bytes = rows_payload(
            &t_map(),
            RowsKind::Write,
            vec![RowChange::Insert(row(1, None))],
        );
        // Point the rows event (after the Table_map) at table id 12345.
        let tm_len = u32::from_le_bytes(bytes[9..13].try_into().unwrap()) as usize;
        let mut rows_ev = bytes[tm_len..].to_vec();
        rows_ev[19..25].copy_from_slice(&12345u64.to_le_bytes()[..6]);
        rows_ev
    };
    run(&ctx, &mut sess, "USE d").unwrap();
    assert_eq!(code(binlog(&ctx, &mut sess, &orphan)), 1149);
    // Another column count (1532), another column type (1677), a value too long (1677).
    let three = map(
        7,
        "t",
        &[
            ColumnKind::Long { unsigned: false },
            ColumnKind::VarString { max_bytes: 40 },
            ColumnKind::Long { unsigned: false },
        ],
    );
    let r = vec![RowChange::Insert(vec![
        BinValue::Int(1),
        BinValue::Null,
        BinValue::Int(2),
    ])];
    assert_eq!(
        code(binlog(
            &ctx,
            &mut sess,
            &rows_payload(&three, RowsKind::Write, r)
        )),
        1532
    );
    let wrong = map(
        7,
        "t",
        &[
            ColumnKind::Long { unsigned: false },
            ColumnKind::Long { unsigned: false },
        ],
    );
    let r = vec![RowChange::Insert(vec![BinValue::Int(1), BinValue::Int(2)])];
    assert_eq!(
        code(binlog(
            &ctx,
            &mut sess,
            &rows_payload(&wrong, RowsKind::Write, r)
        )),
        1677
    );
    let wide = map(
        7,
        "t",
        &[
            ColumnKind::Long { unsigned: false },
            ColumnKind::VarString { max_bytes: 400 },
        ],
    );
    let long = "x".repeat(50);
    let r = vec![RowChange::Insert(row(1, Some(&long)))];
    assert_eq!(
        code(binlog(
            &ctx,
            &mut sess,
            &rows_payload(&wide, RowsKind::Write, r)
        )),
        1677
    );
    // A table that does not exist.
    let ghost = map(8, "ghost", &[ColumnKind::Long { unsigned: false }]);
    let r = vec![RowChange::Insert(vec![BinValue::Int(1)])];
    assert_eq!(
        code(binlog(
            &ctx,
            &mut sess,
            &rows_payload(&ghost, RowsKind::Write, r)
        )),
        1146
    );
    // Events other than Format_description, Table_map and rows: 1730.
    let mut w = writer();
    w.write_event(&Event::Query(QueryEvent::new(1, "d", "DROP TABLE t")))
        .unwrap();
    assert_eq!(code(binlog(&ctx, &mut sess, &w.into_bytes())), 1730);
    assert!(t_rows(&ctx, &mut sess).is_empty());
}

#[test]
fn random_damage_never_panics() {
    let (ctx, mut sess) = setup();
    binlog(&ctx, &mut sess, &fde()).unwrap();
    let good = rows_payload(
        &t_map(),
        RowsKind::Write,
        vec![
            RowChange::Insert(row(1, Some("a"))),
            RowChange::Insert(row(2, None)),
        ],
    );
    // A small deterministic generator: flip bytes, and write random bytes of random lengths.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..400 {
        let mut b = good.clone();
        for _ in 0..1 + next() % 4 {
            let i = (next() % b.len() as u64) as usize;
            b[i] = next() as u8;
        }
        let _ = binlog(&ctx, &mut sess, &b);
        run(&ctx, &mut sess, "DELETE FROM t").unwrap();
    }
    for _ in 0..200 {
        let len = 1 + (next() % 300) as usize;
        let b: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let _ = binlog(&ctx, &mut sess, &b);
    }
    // A random FDE-less session too.
    let mut fresh = SessionState::new(2, "root", "%", Some("d".into()));
    for _ in 0..100 {
        let len = 1 + (next() % 300) as usize;
        let b: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let _ = binlog(&ctx, &mut fresh, &b);
    }
}

#[test]
fn privilege_and_prepared_statements() {
    let (ctx, mut sess) = setup();
    run(&ctx, &mut sess, "CREATE USER u@'%'").unwrap();
    run(&ctx, &mut sess, "GRANT ALL ON d.* TO u@'%'").unwrap();
    let mut u = SessionState::new(2, "u", "%", Some("d".into()));
    let f = b64(&fde());
    assert_eq!(code(run(&ctx, &mut u, &format!("BINLOG '{f}'"))), 1227);
    assert_eq!(
        code(run(&ctx, &mut u, "SET @@session.gtid_seq_no = 3")),
        1227
    );
    assert_eq!(code(run(&ctx, &mut u, "SET pseudo_thread_id = 3")), 1227);
    run(&ctx, &mut sess, "GRANT BINLOG REPLAY ON *.* TO u@'%'").unwrap();
    assert_eq!(code(run(&ctx, &mut u, &format!("BINLOG '{f}'"))), 0);
    let e = crate::sql::prepare(&ctx, &mut sess, &format!("BINLOG '{f}'"));
    assert_eq!(e.err().map(|e| e.code()), Some(ErrorCode::UnsupportedPs));
}

#[test]
fn rows_written_without_foreign_key_checks_are_applied_without() {
    let (ctx, mut sess) = setup();
    run(&ctx, &mut sess, "CREATE TABLE p (id INT PRIMARY KEY)").unwrap();
    run(
        &ctx,
        &mut sess,
        "CREATE TABLE c (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES p (id))",
    )
    .unwrap();
    binlog(&ctx, &mut sess, &fde()).unwrap();
    let m = map(
        4,
        "c",
        &[
            ColumnKind::Long { unsigned: false },
            ColumnKind::Long { unsigned: false },
        ],
    );
    let orphan = |flags: u16| {
        let mut w = writer();
        w.write_event(&Event::TableMap(m.clone())).unwrap();
        w.write_event(&Event::Rows(RowsEvent {
            kind: RowsKind::Write,
            table_id: m.table_id,
            flags: STMT_END_F | flags,
            column_count: 2,
            columns_present: vec![true; 2],
            columns_present_after: Vec::new(),
            rows: vec![RowChange::Insert(vec![BinValue::Int(1), BinValue::Int(9)])],
        }))
        .unwrap();
        w.into_bytes()
    };
    assert_eq!(code(binlog(&ctx, &mut sess, &orphan(0))), 1452);
    binlog(
        &ctx,
        &mut sess,
        &orphan(cohort_binlog::NO_FOREIGN_KEY_CHECKS_F),
    )
    .unwrap();
    assert_eq!(
        rows(&ctx, &mut sess, "SELECT COUNT(*) FROM c"),
        vec![vec![Value::Int(1)]]
    );
    assert_eq!(
        rows(&ctx, &mut sess, "SELECT @@foreign_key_checks"),
        vec![vec![Value::Int(1)]],
        "the session's setting is back"
    );
}
