//! DDL replay reproduces the session the statement ran in (`ddl_session.rs`): an ALTER that
//! fills existing rows from the clock gives, after a crash, the values clients read before it,
//! in each log mode.

use super::device::SimDir;
use super::tests::{classic_context_on, context_on, redo_context_on, run};
use crate::session::{ServerContext, SessionState};
use crate::testkit::rows;
use crate::types::Value;

/// Fill rows from the clock in a zone other than SYSTEM and under ANSI_QUOTES-free default
/// mode, and return what the client reads.
fn alter_filling_from_the_clock(ctx: &ServerContext) -> Vec<Vec<Value>> {
    let mut s = SessionState::new(1, "root", "%", None);
    for q in [
        "CREATE DATABASE d",
        "CREATE TABLE d.t (id INT PRIMARY KEY)",
        "INSERT INTO d.t VALUES (1), (2)",
        "SET time_zone = '+05:30'",
        "ALTER TABLE d.t ADD b DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6), \
         ADD c DATETIME(6) DEFAULT (now(6) + INTERVAL 1 DAY), ADD e TIMESTAMP(6) NULL DEFAULT CURRENT_TIMESTAMP(6)",
    ] {
        run(ctx, &mut s, q).unwrap();
    }
    // Read in UTC: the TIMESTAMP column shows the zone was kept too.
    run(ctx, &mut s, "SET time_zone = '+00:00'").unwrap();
    let r = rows(ctx, &mut s, "SELECT * FROM d.t ORDER BY id");
    assert_eq!(r.len(), 2);
    assert_ne!(r[0][1], Value::Null);
    r
}

fn after(ctx: &ServerContext) -> Vec<Vec<Value>> {
    let mut s = SessionState::new(2, "root", "%", None);
    run(ctx, &mut s, "SET time_zone = '+00:00'").unwrap();
    rows(ctx, &mut s, "SELECT * FROM d.t ORDER BY id")
}

fn settle() {
    // Recovery must not read its own clock: let it move on first.
    std::thread::sleep(std::time::Duration::from_millis(5));
}

#[test]
fn one_log_replay_fills_the_rows_as_the_client_saw_them() {
    let dir = SimDir::new();
    let before = alter_filling_from_the_clock(&context_on(&dir));
    settle();
    assert_eq!(after(&context_on(&dir.crash_image())), before);
}

#[test]
fn redo_only_replay_fills_the_rows_as_the_client_saw_them() {
    let dir = SimDir::new();
    let before = alter_filling_from_the_clock(&redo_context_on(&dir));
    settle();
    assert_eq!(after(&redo_context_on(&dir.crash_image())), before);
}

#[test]
fn classic_replay_fills_the_rows_as_the_client_saw_them() {
    let dir = SimDir::new();
    let before = alter_filling_from_the_clock(&classic_context_on(&dir).0);
    settle();
    assert_eq!(after(&classic_context_on(&dir.crash_image()).0), before);
}

#[test]
fn a_default_replay_cannot_reproduce_is_still_refused_on_rows() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let mut s = SessionState::new(1, "root", "%", None);
    for q in [
        "CREATE DATABASE d",
        "CREATE TABLE d.t (id INT PRIMARY KEY)",
        "INSERT INTO d.t VALUES (1)",
    ] {
        run(&ctx, &mut s, q).unwrap();
    }
    for bad in [
        "(uuid())",
        "(rand())",
        "(sysdate())",
        "(@v)",
        "(current_user())",
    ] {
        let e = run(
            &ctx,
            &mut s,
            &format!("ALTER TABLE d.t ADD x VARCHAR(80) DEFAULT {bad}"),
        )
        .unwrap_err();
        assert_eq!(
            e.code(),
            cohort_protocol::ErrorCode::NotSupportedYet,
            "{bad}"
        );
    }
}

#[test]
fn create_or_replace_replays_to_the_new_table() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let mut s = SessionState::new(1, "root", "%", None);
    for q in [
        "CREATE DATABASE d",
        "CREATE TABLE d.t (id INT PRIMARY KEY)",
        "INSERT INTO d.t VALUES (1), (2)",
        "CREATE TABLE d.s SELECT id FROM d.t",
        "CREATE OR REPLACE TABLE d.t (k INT PRIMARY KEY) SELECT id * 10 AS k FROM d.s",
        "CREATE OR REPLACE TABLE d.u (a INT)",
        "CREATE OR REPLACE TABLE d.u (b INT) SELECT 5 AS b",
    ] {
        run(&ctx, &mut s, q).unwrap();
    }
    // Reading the table it replaces is MariaDB's 1093, and the table stays.
    let e = run(
        &ctx,
        &mut s,
        "CREATE OR REPLACE TABLE d.s SELECT id FROM d.s",
    )
    .unwrap_err();
    assert_eq!(e.code(), cohort_protocol::ErrorCode::UpdateTableUsed);
    let before = rows(&ctx, &mut s, "SELECT k FROM d.t ORDER BY k");
    assert_eq!(before, vec![vec![Value::Int(10)], vec![Value::Int(20)]]);
    let ctx2 = context_on(&dir.crash_image());
    let mut s2 = SessionState::new(2, "root", "%", None);
    assert_eq!(rows(&ctx2, &mut s2, "SELECT k FROM d.t ORDER BY k"), before);
    assert_eq!(
        rows(&ctx2, &mut s2, "SELECT * FROM d.u"),
        vec![vec![Value::Int(5)]]
    );
}

/// `CREATE TABLE base LIKE tmp` of a session's TEMPORARY table is logged as the new table's
/// definition (no replay has `tmp`); DDL on the temporary table itself is not logged at all,
/// so neither a temporary ALTER nor a TRUNCATE can reach a base table of the same name.
fn like_temporary(ctx: &ServerContext) -> Vec<String> {
    let mut s = SessionState::new(1, "root", "%", None);
    for q in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE t (id INT PRIMARY KEY)",
        "INSERT INTO t VALUES (1), (2)",
        "CREATE TEMPORARY TABLE t (a INT PRIMARY KEY AUTO_INCREMENT, b VARCHAR(3) DEFAULT 'x')",
        "ALTER TABLE t ADD COLUMN c DATE, ADD KEY kb (b)",
        "TRUNCATE TABLE t",
        "CREATE TABLE copy LIKE t",
        "INSERT INTO copy (c) VALUES ('2020-01-02')",
    ] {
        run(ctx, &mut s, q).unwrap();
    }
    seen(ctx)
}

fn seen(ctx: &ServerContext) -> Vec<String> {
    let mut s = SessionState::new(2, "root", "%", None);
    let mut out = Vec::new();
    for q in [
        "SHOW CREATE TABLE d.copy",
        "SELECT * FROM d.copy",
        "SHOW CREATE TABLE d.t",
        "SELECT * FROM d.t",
    ] {
        let rows = crate::testkit::text_rows(ctx, &mut s, q);
        out.extend(rows.into_iter().map(|r| r.join(" | ")));
    }
    out
}

#[test]
fn create_like_a_temporary_table_replays_its_definition() {
    for (make, name) in [
        (context_on as fn(&SimDir) -> ServerContext, "one log"),
        (redo_context_on, "redo only"),
        (|d: &SimDir| classic_context_on(d).0, "classic"),
    ] {
        let dir = SimDir::new();
        let before = like_temporary(&make(&dir));
        assert!(before[0].contains("`c` date DEFAULT NULL"), "{before:?}");
        assert!(
            before.iter().any(|l| l.starts_with("1 | x | ")),
            "{before:?}"
        );
        assert_eq!(seen(&make(&dir.crash_image())), before, "{name}");
    }
}
