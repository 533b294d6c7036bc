//! A column's UCA collation (`utf8mb4_unicode_520_ci`) survives the redo log, a checkpoint
//! and a restart: its comparisons, its unique key (1062 for strings equal under it) and
//! SHOW CREATE TABLE are the same after recovery.

use super::checkpointer::run_checkpoint;
use super::device::SimDir;
use super::tests::{context_on, run};
use crate::session::{ServerContext, SessionState};

fn texts(ctx: &ServerContext, s: &mut SessionState, q: &str) -> Vec<String> {
    let rows = crate::testkit::text_rows(ctx, s, q);
    rows.into_iter().map(|r| r.join("|")).collect()
}

fn check(ctx: &ServerContext, s: &mut SessionState) {
    let show = texts(ctx, s, "SHOW CREATE TABLE d.u").join("\n");
    assert!(
        show.contains("`c` varchar(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci"),
        "{show}"
    );
    assert_eq!(
        texts(ctx, s, "SELECT id FROM d.u WHERE c = 'SS' ORDER BY id"),
        ["1"]
    );
    assert_eq!(
        texts(ctx, s, "SELECT id FROM d.u ORDER BY c, id"),
        ["3", "4", "1"]
    );
    let e = run(ctx, s, "INSERT INTO d.u VALUES (9, 'ss ')").unwrap_err();
    assert_eq!(e.code(), cohort_protocol::ErrorCode::DupEntry, "{e:?}");
    let e = run(ctx, s, "INSERT INTO d.u VALUES (9, 'Œ')").unwrap_err();
    assert_eq!(e.code(), cohort_protocol::ErrorCode::DupEntry, "{e:?}");
}

#[test]
fn a_unicode_520_column_survives_checkpoint_redo_and_restart() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let mut s = SessionState::new(1, "root", "%", None);
    run(&ctx, &mut s, "CREATE DATABASE d").unwrap();
    run(
        &ctx,
        &mut s,
        "CREATE TABLE d.u (id INT PRIMARY KEY, c VARCHAR(10) COLLATE utf8mb4_unicode_520_ci, \
         UNIQUE KEY uc (c))",
    )
    .unwrap();
    run(&ctx, &mut s, "INSERT INTO d.u VALUES (1, 'ß'), (3, 'Æ')").unwrap();
    run_checkpoint(&ctx).unwrap().unwrap();
    // After the checkpoint: replayed from the log on restart.
    run(&ctx, &mut s, "INSERT INTO d.u VALUES (4, 'oe')").unwrap();
    check(&ctx, &mut s);

    let ctx2 = context_on(&dir.crash_image());
    let mut s2 = SessionState::new(2, "root", "%", None);
    check(&ctx2, &mut s2);
    run_checkpoint(&ctx2).unwrap().unwrap();
    let ctx3 = context_on(&dir.crash_image());
    let mut s3 = SessionState::new(3, "root", "%", None);
    check(&ctx3, &mut s3);
}
