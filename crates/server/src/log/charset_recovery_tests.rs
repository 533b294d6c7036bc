//! A utf8mb3 column, a table's and a database's default character set survive a restart: the
//! ones taken by a checkpoint (table definition codec version 7, the Database block's
//! collation) and the ones replayed from the log after it (the DDL text run again), in each
//! log mode.

use super::device::SimDir;
use super::tests::{classic_context_on, context_on, redo_context_on, run};
use crate::session::{ServerContext, SessionState};

fn text(ctx: &ServerContext, q: &str) -> Vec<String> {
    let mut s = SessionState::new(9, "root", "%", None);
    let rows = crate::testkit::text_rows(ctx, &mut s, q);
    rows.into_iter().map(|r| r.join(" | ")).collect()
}

/// What a client sees of the character sets: SHOW CREATE of both databases and tables, the
/// checksum (CHAR padded to 3 bytes a character) and the rows.
fn observe(ctx: &ServerContext) -> Vec<String> {
    let mut out = Vec::new();
    for q in [
        "SHOW CREATE DATABASE d",
        "SHOW CREATE DATABASE d2",
        "SHOW CREATE TABLE d.t",
        "SHOW CREATE TABLE d.u",
        "SHOW CREATE TABLE d2.w",
        "CHECKSUM TABLE d.t",
        "SELECT * FROM d.t ORDER BY id",
        "SELECT * FROM d.u ORDER BY id",
    ] {
        out.extend(text(ctx, q));
    }
    out
}

fn build(ctx: &ServerContext, checkpoint_between: bool) -> Vec<String> {
    let mut s = SessionState::new(1, "root", "%", None);
    for q in [
        "CREATE DATABASE d CHARACTER SET utf8mb3",
        "CREATE TABLE d.t (id INT PRIMARY KEY, c CHAR(5) CHARACTER SET utf8mb3, \
         v VARCHAR(80) COLLATE utf8mb3_bin, m VARCHAR(5) CHARACTER SET utf8mb4)",
        "INSERT INTO d.t VALUES (1, 'ab', 'héllo', '😀'), (2, 'é', 'x', NULL)",
    ] {
        run(ctx, &mut s, q).unwrap();
    }
    if checkpoint_between {
        super::checkpointer::run_checkpoint(ctx).unwrap().unwrap();
    }
    for q in [
        "CREATE TABLE d.u (id INT PRIMARY KEY, a CHAR(3)) DEFAULT CHARSET = utf8mb4",
        "INSERT INTO d.u VALUES (1, '😀')",
        "ALTER TABLE d.u CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
        "CREATE DATABASE d2 COLLATE utf8mb3_bin",
        "CREATE TABLE d2.w (a CHAR(2))",
        "ALTER DATABASE d CHARACTER SET utf8mb4",
        "INSERT INTO d.t VALUES (3, 'üü', 'z', 'y')",
    ] {
        run(ctx, &mut s, q).unwrap();
    }
    let seen = observe(ctx);
    // d.t took utf8mb3 from its database; its utf8mb4 column says so.
    let m = "`m` varchar(5) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci";
    assert!(seen.iter().any(|l| l.contains(m)));
    assert!(seen
        .iter()
        .any(|l| l.contains("DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_bin")));
    seen
}

#[test]
fn one_log_restart_keeps_utf8mb3_from_checkpoint_and_replay() {
    for checkpoint in [false, true] {
        let dir = SimDir::new();
        let before = build(&context_on(&dir), checkpoint);
        assert_eq!(observe(&context_on(&dir.crash_image())), before);
    }
}

#[test]
fn redo_only_restart_keeps_utf8mb3_from_checkpoint_and_replay() {
    for checkpoint in [false, true] {
        let dir = SimDir::new();
        let before = build(&redo_context_on(&dir), checkpoint);
        assert_eq!(observe(&redo_context_on(&dir.crash_image())), before);
    }
}

#[test]
fn classic_restart_keeps_utf8mb3_from_checkpoint_and_replay() {
    for checkpoint in [false, true] {
        let dir = SimDir::new();
        let before = build(&classic_context_on(&dir).0, checkpoint);
        assert_eq!(observe(&classic_context_on(&dir.crash_image()).0), before);
    }
}
