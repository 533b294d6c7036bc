//! Pipeline tests on the simulated log device: group commit, fault injection, crash images.

use super::binlog::BinlogFiles;
use super::device::{Faults, LogDir, SimDir};
use super::recovery::recover_one_log;
use super::CommitPipeline;
use crate::accounts::Accounts;
use crate::session::{ServerContext, SessionState};
use crate::sql::{self, QueryResult};
use crate::types::Value;
use crate::vars::SystemVariables;
use cohort_protocol::ErrorCode;
use std::sync::Arc;

/// A server context whose binlog lives in `dir`, recovered from what `dir` holds.
fn context_on(dir: &SimDir) -> ServerContext {
    let (engine, report) = recover_one_log(dir, "binlog").unwrap();
    let logdir: Arc<dyn LogDir> = Arc::new(dir.clone());
    let binlog = BinlogFiles::open(logdir, "binlog", 1).unwrap();
    let pipeline = Arc::new(CommitPipeline::one_log(
        engine.clone(),
        binlog,
        report.next_gtid_seq,
    ));
    ServerContext::with_pipeline(
        engine,
        pipeline,
        SystemVariables::new(),
        Accounts::in_memory(""),
    )
}

fn run(
    ctx: &ServerContext,
    sess: &mut SessionState,
    sql_text: &str,
) -> crate::error::Result<QueryResult> {
    let r = sql::execute_text(ctx, sess, sql_text);
    let end = sess.end_statement(ctx, r.is_ok());
    match (r, end) {
        (Ok(q), Ok(())) => Ok(q),
        (Err(e), _) | (Ok(_), Err(e)) => Err(e),
    }
}

fn count(ctx: &ServerContext, sess: &mut SessionState) -> i64 {
    match run(ctx, sess, "SELECT COUNT(*) FROM d.t").unwrap() {
        QueryResult::Rows { rows, .. } => match rows[0][0] {
            Value::Int(n) => n,
            ref v => panic!("count was {v:?}"),
        },
        _ => panic!("no rows"),
    }
}

fn setup(ctx: &ServerContext) -> SessionState {
    let mut s = SessionState::new(1, "root", "%", None);
    run(ctx, &mut s, "CREATE DATABASE d").unwrap();
    run(
        ctx,
        &mut s,
        "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20))",
    )
    .unwrap();
    s
}

#[test]
fn acknowledged_commits_survive_a_crash_and_unsynced_ones_do_not_exist() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let mut s = setup(&ctx);
    for i in 0..10 {
        run(&ctx, &mut s, &format!("INSERT INTO d.t VALUES ({i}, 'x')")).unwrap();
    }
    run(&ctx, &mut s, "UPDATE d.t SET v = 'y' WHERE id < 5").unwrap();
    run(&ctx, &mut s, "DELETE FROM d.t WHERE id = 9").unwrap();
    let ctx2 = context_on(&dir.crash_image());
    let mut s2 = SessionState::new(2, "root", "%", None);
    assert_eq!(count(&ctx2, &mut s2), 9);
    match run(&ctx2, &mut s2, "SELECT COUNT(*) FROM d.t WHERE v = 'y'").unwrap() {
        QueryResult::Rows { rows, .. } => assert_eq!(rows[0][0], Value::Int(5)),
        _ => panic!(),
    }
}

#[test]
fn torn_tail_is_cut_and_reported() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let mut s = setup(&ctx);
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (1, 'a')").unwrap();
    // Keep half of an unsynced transaction past the synced end.
    run(&ctx, &mut s, "SET GLOBAL sync_binlog = 0").unwrap();
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (2, 'b')").unwrap();
    let img = dir.crash_image_with_tail("binlog.000001", 40);
    let (_, report) = recover_one_log(&img, "binlog").unwrap();
    assert_eq!(report.transactions, 1);
    assert_eq!(report.notes.len(), 1, "the cut is reported");
    // The cut file now ends at the last complete transaction and decodes cleanly.
    let out = cohort_binlog::read_all(&img.read("binlog.000001").unwrap());
    assert!(out.error.is_none());
}

#[test]
fn failed_fsync_poisons_the_log_and_reads_keep_working() {
    for faults in [
        Faults {
            fail_next_sync: true,
            ..Faults::default()
        },
        Faults {
            fail_next_append: true,
            ..Faults::default()
        },
    ] {
        let dir = SimDir::new();
        let ctx = context_on(&dir);
        let mut s = setup(&ctx);
        run(&ctx, &mut s, "INSERT INTO d.t VALUES (1, 'a')").unwrap();
        let syncs = dir.sync_count();
        dir.set_faults(faults.clone());
        let e = run(&ctx, &mut s, "INSERT INTO d.t VALUES (2, 'b')").unwrap_err();
        assert_eq!(e.code(), ErrorCode::ErrorOnWrite);
        assert!(e.message().contains("binlog.000001"), "{}", e.message());
        // Poisoned: later commits fail too, and the fsync is never retried.
        let e = run(&ctx, &mut s, "INSERT INTO d.t VALUES (3, 'c')").unwrap_err();
        assert_eq!(e.code(), ErrorCode::ErrorOnWrite);
        assert_eq!(dir.sync_count(), syncs, "no fsync after the failure");
        // Reads work and see only what was acknowledged.
        assert_eq!(count(&ctx, &mut s), 1);
        let ctx2 = context_on(&dir.crash_image());
        assert_eq!(
            count(&ctx2, &mut SessionState::new(2, "root", "%", None)),
            1
        );
    }
}

#[test]
fn full_disk_fails_the_commit_with_a_clear_error() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let mut s = setup(&ctx);
    let used: u64 = dir
        .list()
        .unwrap()
        .iter()
        .map(|f| dir.read(f).unwrap().len() as u64)
        .sum();
    dir.set_faults(Faults {
        capacity: Some(used + 10),
        ..Faults::default()
    });
    let e = run(&ctx, &mut s, "INSERT INTO d.t VALUES (1, 'a')").unwrap_err();
    assert_eq!(e.code(), ErrorCode::ErrorOnWrite);
    assert!(
        e.message().contains(&format!("errno: {}", libc::ENOSPC)),
        "{}",
        e.message()
    );
    assert_eq!(count(&ctx, &mut s), 0);
}

#[test]
fn concurrent_commits_share_fsyncs() {
    let dir = SimDir::new();
    let ctx = Arc::new(context_on(&dir));
    let mut s = setup(&ctx);
    run(&ctx, &mut s, "SET GLOBAL log_sync_delay_us = 2000").unwrap();
    let before = dir.sync_count();
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let ctx = ctx.clone();
            std::thread::spawn(move || {
                let mut s = SessionState::new(10 + t, "root", "%", None);
                for i in 0..20 {
                    let id = t * 100 + i;
                    run(&ctx, &mut s, &format!("INSERT INTO d.t VALUES ({id}, 'x')")).unwrap();
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|h| h.join().unwrap());
    let syncs = dir.sync_count() - before;
    assert_eq!(count(&ctx, &mut s), 160);
    assert!(syncs < 160, "160 commits took {syncs} fsyncs: no grouping");
    let ctx2 = context_on(&dir.crash_image());
    assert_eq!(
        count(&ctx2, &mut SessionState::new(2, "root", "%", None)),
        160
    );
}

#[test]
fn recovery_starts_from_the_checkpoint_and_replays_what_follows() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let mut s = setup(&ctx);
    for i in 0..20 {
        run(
            &ctx,
            &mut s,
            &format!("INSERT INTO d.t VALUES ({i}, 'before')"),
        )
        .unwrap();
    }
    run(&ctx, &mut s, "SET GLOBAL max_binlog_size = 4096").unwrap();
    for i in 20..60 {
        run(
            &ctx,
            &mut s,
            &format!("INSERT INTO d.t VALUES ({i}, 'before')"),
        )
        .unwrap();
    }
    let info = super::checkpointer::run_checkpoint(&ctx).unwrap().unwrap();
    assert_eq!(info.rows, 60);
    // After the checkpoint: DML, and DDL whose replay meets the snapshot.
    run(&ctx, &mut s, "UPDATE d.t SET v = 'after' WHERE id < 10").unwrap();
    run(&ctx, &mut s, "DELETE FROM d.t WHERE id >= 50").unwrap();
    run(
        &ctx,
        &mut s,
        "CREATE TABLE d.u (id INT PRIMARY KEY AUTO_INCREMENT, x INT)",
    )
    .unwrap();
    run(&ctx, &mut s, "INSERT INTO d.u (x) VALUES (1), (2)").unwrap();
    // Files before the checkpoint's can now be purged.
    let files_before = dir
        .list()
        .unwrap()
        .iter()
        .filter(|f| f.starts_with("binlog.0"))
        .count();
    let last = ctx.pipeline.with_binlog(|b| b.position().file).unwrap();
    run(&ctx, &mut s, &format!("PURGE BINARY LOGS TO '{last}'")).unwrap();
    let files_after = dir
        .list()
        .unwrap()
        .iter()
        .filter(|f| f.starts_with("binlog.0"))
        .count();
    assert!(
        files_after < files_before,
        "{files_before} -> {files_after}"
    );

    let ctx2 = context_on(&dir.crash_image());
    let mut s2 = SessionState::new(2, "root", "%", None);
    assert_eq!(count(&ctx2, &mut s2), 50);
    match run(&ctx2, &mut s2, "SELECT COUNT(*) FROM d.t WHERE v = 'after'").unwrap() {
        QueryResult::Rows { rows, .. } => assert_eq!(rows[0][0], Value::Int(10)),
        _ => panic!(),
    }
    // AUTO_INCREMENT continues after the replayed rows.
    run(&ctx2, &mut s2, "INSERT INTO d.u (x) VALUES (3)").unwrap();
    match run(&ctx2, &mut s2, "SELECT MAX(id) FROM d.u").unwrap() {
        QueryResult::Rows { rows, .. } => assert_eq!(rows[0][0], Value::Int(3)),
        _ => panic!(),
    }
}

/// A binlog-off context whose redo log lives in `dir`, recovered from what `dir` holds.
fn redo_context_on(dir: &SimDir) -> ServerContext {
    let logdir: Arc<dyn LogDir> = Arc::new(dir.clone());
    let delay = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let (engine, redo, _) =
        super::recovery::recover_redo_only(logdir.clone(), 1 << 20, delay.clone()).unwrap();
    let pipeline = Arc::new(CommitPipeline::redo_only(
        engine.clone(),
        redo,
        delay,
        logdir,
    ));
    ServerContext::with_pipeline(
        engine,
        pipeline,
        SystemVariables::new(),
        Accounts::in_memory(""),
    )
}

#[test]
fn binlog_off_redo_commits_survive_and_a_failed_sync_poisons() {
    let dir = SimDir::new();
    let ctx = redo_context_on(&dir);
    let mut s = setup(&ctx);
    for i in 0..10 {
        run(&ctx, &mut s, &format!("INSERT INTO d.t VALUES ({i}, 'x')")).unwrap();
    }
    super::checkpointer::run_checkpoint(&ctx).unwrap().unwrap();
    run(&ctx, &mut s, "DELETE FROM d.t WHERE id < 3").unwrap();
    let syncs = dir.sync_count();
    dir.set_faults(Faults {
        fail_next_sync: true,
        ..Faults::default()
    });
    let e = run(&ctx, &mut s, "INSERT INTO d.t VALUES (100, 'lost')").unwrap_err();
    assert_eq!(e.code(), ErrorCode::ErrorOnWrite);
    assert!(run(&ctx, &mut s, "INSERT INTO d.t VALUES (101, 'x')").is_err());
    assert_eq!(dir.sync_count(), syncs, "no fsync after the failure");
    assert_eq!(count(&ctx, &mut s), 7);
    let ctx2 = redo_context_on(&dir.crash_image());
    assert_eq!(
        count(&ctx2, &mut SessionState::new(2, "root", "%", None)),
        7
    );
}
