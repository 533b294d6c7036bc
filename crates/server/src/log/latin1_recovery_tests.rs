//! latin1 columns, tables and databases survive a restart: the ones a checkpoint took (the
//! collation tags of the table definition codec, the Database block's collation) and the rows
//! replayed from the log after it (in one-log mode the binlog row images, whose latin1 bytes
//! are read back as UTF-8), in each log mode; the keys rebuilt on restart still find the rows
//! by their latin1 collation.

use super::device::SimDir;
use super::tests::{classic_context_on, context_on, redo_context_on, run};
use crate::session::{ServerContext, SessionState};
use crate::sql::QueryResult;
use crate::types::Value;

fn text(ctx: &ServerContext, q: &str) -> Vec<String> {
    let mut s = SessionState::new(9, "root", "%", None);
    match run(ctx, &mut s, q).unwrap() {
        QueryResult::Rows { rows, .. } => rows
            .into_iter()
            .map(|r| {
                r.iter()
                    .map(|v| match v {
                        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
                        other => format!("{other:?}"),
                    })
                    .collect::<Vec<_>>()
                    .join(" | ")
            })
            .collect(),
        _ => panic!("no rows from {q}"),
    }
}

/// What a client sees: SHOW CREATE, the checksum (latin1 bytes), the rows, and lookups through
/// the latin1 keys (case- and accent-folded by latin1_swedish_ci, exact by latin1_bin).
fn observe(ctx: &ServerContext) -> Vec<String> {
    let mut out = Vec::new();
    for q in [
        "SHOW CREATE DATABASE d",
        "SHOW CREATE TABLE d.t",
        "SHOW CREATE TABLE d.u",
        "CHECKSUM TABLE d.t, d.u",
        "SELECT * FROM d.t ORDER BY id",
        "SELECT * FROM d.u ORDER BY id",
        "SELECT id FROM d.t WHERE c = 'AE' ORDER BY id",
        "SELECT id FROM d.t WHERE c = 'ÄRGER'",
        "SELECT id FROM d.t WHERE v = 'x€y'",
        "SELECT GROUP_CONCAT(id ORDER BY c, id) FROM d.t",
        "SELECT HEX(c), LENGTH(v) FROM d.t ORDER BY id",
    ] {
        out.extend(text(ctx, q));
    }
    out
}

fn build(ctx: &ServerContext, checkpoint_between: bool) -> Vec<String> {
    let mut s = SessionState::new(1, "root", "%", None);
    for q in [
        "CREATE DATABASE d CHARACTER SET latin1",
        "CREATE TABLE d.t (id INT PRIMARY KEY, c CHAR(8), v VARCHAR(20) COLLATE latin1_bin, \
         m VARCHAR(5) CHARACTER SET utf8mb4, UNIQUE KEY (c), KEY (v))",
        "INSERT INTO d.t VALUES (1, 'ärger', 'x€y', '😀'), (2, 'æ', 'Œuvre', NULL)",
    ] {
        run(ctx, &mut s, q).unwrap();
    }
    if checkpoint_between {
        super::checkpointer::run_checkpoint(ctx).unwrap().unwrap();
    }
    for q in [
        "CREATE TABLE d.u (id INT PRIMARY KEY, a CHAR(3), e ENUM('a', 'b')) \
         DEFAULT CHARSET = utf8mb4",
        "INSERT INTO d.u VALUES (1, 'ŸÿŽ', 'b')",
        "ALTER TABLE d.u CONVERT TO CHARACTER SET latin1 COLLATE latin1_general_cs",
        "INSERT INTO d.t VALUES (3, 'ÿ', 'z', 'y'), (4, 'ae', 'ß', 'ł')",
        "UPDATE d.t SET v = 'Größe' WHERE id = 2",
        "DELETE FROM d.t WHERE id = 3",
        "ALTER DATABASE d CHARACTER SET utf8mb4",
    ] {
        run(ctx, &mut s, q).unwrap();
    }
    let seen = observe(ctx);
    let m = "`m` varchar(5) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci";
    assert!(seen.iter().any(|l| l.contains(m)), "{seen:?}");
    assert!(seen
        .iter()
        .any(|l| l.contains("DEFAULT CHARSET=latin1 COLLATE=latin1_general_cs")));
    // As MariaDB 10.11 answers the same statements: the checksums of the latin1 bytes;
    // 'AE' finds 'ae' but not 'æ' through the swedish_ci unique key (Æ sorts after Z there),
    // 'ÄRGER' finds 'ärger'; HEX and LENGTH see latin1 bytes.
    let tail: Vec<&str> = seen.iter().skip(3).map(String::as_str).collect();
    assert_eq!(
        tail,
        [
            "d.t | Int(40285032)",
            "d.u | Int(4419591)",
            "Int(1) | ärger | x€y | 😀",
            "Int(2) | æ | Größe | Null",
            "Int(4) | ae | ß | ł",
            "Int(1) | ŸÿŽ | b",
            "Int(4)",
            "Int(1)",
            "Int(1)",
            "4,2,1",
            "E472676572 | Int(3)",
            "E6 | Int(5)",
            "6165 | Int(1)",
        ][..]
    );
    seen
}

#[test]
fn one_log_restart_keeps_latin1_from_checkpoint_and_replay() {
    for checkpoint in [false, true] {
        let dir = SimDir::new();
        let before = build(&context_on(&dir), checkpoint);
        assert_eq!(observe(&context_on(&dir.crash_image())), before);
    }
}

#[test]
fn redo_only_restart_keeps_latin1_from_checkpoint_and_replay() {
    for checkpoint in [false, true] {
        let dir = SimDir::new();
        let before = build(&redo_context_on(&dir), checkpoint);
        assert_eq!(observe(&redo_context_on(&dir.crash_image())), before);
    }
}

#[test]
fn classic_restart_keeps_latin1_from_checkpoint_and_replay() {
    for checkpoint in [false, true] {
        let dir = SimDir::new();
        let before = build(&classic_context_on(&dir).0, checkpoint);
        assert_eq!(observe(&classic_context_on(&dir.crash_image()).0), before);
    }
}
