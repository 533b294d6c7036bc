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
pub(crate) fn context_on(dir: &SimDir) -> ServerContext {
    let (engine, report) = recover_one_log(dir, "binlog", &sql::SqlDdlReplay::default()).unwrap();
    let logdir: Arc<dyn LogDir> = Arc::new(dir.clone());
    let binlog = BinlogFiles::open(logdir, "binlog", 1, report.gtids.clone()).unwrap();
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

pub(crate) use crate::testkit::run;
use crate::testkit::text_rows as rows_of;

pub(super) fn count(ctx: &ServerContext, sess: &mut SessionState) -> i64 {
    match run(ctx, sess, "SELECT COUNT(*) FROM d.t").unwrap() {
        QueryResult::Rows { rows, .. } => match rows[0][0] {
            Value::Int(n) => n,
            ref v => panic!("count was {v:?}"),
        },
        _ => panic!("no rows"),
    }
}

pub(crate) fn setup(ctx: &ServerContext) -> SessionState {
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
    let (_, report) = recover_one_log(&img, "binlog", &sql::SqlDdlReplay::default()).unwrap();
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

#[test]
fn views_survive_a_checkpoint_and_the_replay_after_it() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let mut s = setup(&ctx);
    for i in 0..4 {
        run(
            &ctx,
            &mut s,
            &format!("INSERT INTO d.t VALUES ({i}, 'r{i}')"),
        )
        .unwrap();
    }
    run(
        &ctx,
        &mut s,
        "CREATE VIEW d.big (k, w) AS SELECT id, v FROM d.t WHERE id >= 2",
    )
    .unwrap();
    run(&ctx, &mut s, "CREATE VIEW d.gone AS SELECT 1 AS one").unwrap();
    run(&ctx, &mut s, "SET GLOBAL max_binlog_size = 4096").unwrap();
    super::checkpointer::run_checkpoint(&ctx).unwrap().unwrap();
    // After the checkpoint: replaced, dropped and new views, replayed from the binlog.
    run(
        &ctx,
        &mut s,
        "CREATE OR REPLACE VIEW d.big AS SELECT id AS k FROM d.t WHERE id >= 3",
    )
    .unwrap();
    run(&ctx, &mut s, "DROP VIEW d.gone").unwrap();
    run(
        &ctx,
        &mut s,
        "CREATE VIEW d.later AS SELECT COUNT(*) AS n FROM d.big",
    )
    .unwrap();
    let last = ctx.pipeline.with_binlog(|b| b.position().file).unwrap();
    run(&ctx, &mut s, &format!("PURGE BINARY LOGS TO '{last}'")).unwrap();

    let ctx2 = context_on(&dir.crash_image());
    let mut s2 = SessionState::new(2, "root", "%", None);
    assert_eq!(
        rows_of(&ctx2, &mut s2, "SELECT k FROM d.big ORDER BY k"),
        [["3"]]
    );
    assert_eq!(rows_of(&ctx2, &mut s2, "SELECT n FROM d.later"), [["1"]]);
    let err = run(&ctx2, &mut s2, "SELECT * FROM d.gone").unwrap_err();
    assert_eq!(err.code(), ErrorCode::NoSuchTable);
    // Only the checkpoint holds the first definitions: a view the replay did not touch.
    let ctx3 = {
        let dir3 = SimDir::new();
        let ctx3 = context_on(&dir3);
        let mut s3 = setup(&ctx3);
        run(
            &ctx3,
            &mut s3,
            "CREATE VIEW d.only (k) AS SELECT id FROM d.t",
        )
        .unwrap();
        run(&ctx3, &mut s3, "INSERT INTO d.t VALUES (7, 'x')").unwrap();
        run(&ctx3, &mut s3, "FLUSH BINARY LOGS").unwrap();
        super::checkpointer::run_checkpoint(&ctx3).unwrap().unwrap();
        let last = ctx3.pipeline.with_binlog(|b| b.position().file).unwrap();
        run(&ctx3, &mut s3, &format!("PURGE BINARY LOGS TO '{last}'")).unwrap();
        context_on(&dir3.crash_image())
    };
    let mut s3 = SessionState::new(3, "root", "%", None);
    assert_eq!(rows_of(&ctx3, &mut s3, "SELECT k FROM d.only"), [["7"]]);
}

/// A binlog-off context whose redo log lives in `dir`, recovered from what `dir` holds.
pub(super) fn redo_context_on(dir: &SimDir) -> ServerContext {
    let logdir: Arc<dyn LogDir> = Arc::new(dir.clone());
    let delay = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let (engine, redo, _) = super::recovery::recover_redo_only(
        logdir.clone(),
        1 << 20,
        delay.clone(),
        &sql::SqlDdlReplay::default(),
    )
    .unwrap();
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

// ---- classic mode: redo Prepare records, the binlog as coordinator ----

/// A classic-mode context on `dir`, recovered from what `dir` holds, and the recovery report.
pub(crate) fn classic_context_on(dir: &SimDir) -> (ServerContext, super::recovery::RecoveryReport) {
    classic_context_with_segments(dir, 1 << 20)
}

/// [`classic_context_on`] with redo segments of `segment_size` bytes.
fn classic_context_with_segments(
    dir: &SimDir,
    segment_size: u64,
) -> (ServerContext, super::recovery::RecoveryReport) {
    let logdir: Arc<dyn LogDir> = Arc::new(dir.clone());
    let delay = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let (engine, redo, report) = super::recovery_classic::recover_classic(
        logdir.clone(),
        "binlog",
        segment_size,
        delay.clone(),
        &sql::SqlDdlReplay::default(),
    )
    .unwrap();
    let binlog = BinlogFiles::open(logdir.clone(), "binlog", 1, Default::default()).unwrap();
    let pipeline = Arc::new(CommitPipeline::classic(
        engine.clone(),
        binlog,
        report.next_gtid_seq,
        redo,
        delay,
        logdir,
    ));
    let ctx = ServerContext::with_pipeline(
        engine,
        pipeline,
        SystemVariables::new(),
        Accounts::in_memory(""),
    );
    ctx.next_xid
        .store(report.max_xid + 1, std::sync::atomic::Ordering::Relaxed);
    (ctx, report)
}

pub(super) fn classic(dir: &SimDir) -> ServerContext {
    classic_context_on(dir).0
}

pub(crate) fn status(ctx: &ServerContext, name: &str) -> u64 {
    let rows = ctx.pipeline.status();
    match rows.iter().find(|(n, _)| n == name) {
        Some((_, Value::UInt(v))) => *v,
        other => panic!("{name}: {other:?}"),
    }
}

pub(super) fn values(ctx: &ServerContext) -> Vec<(i64, String)> {
    let mut s = SessionState::new(99, "root", "%", None);
    match run(ctx, &mut s, "SELECT id, v FROM d.t ORDER BY id").unwrap() {
        QueryResult::Rows { rows, .. } => rows
            .iter()
            .map(|r| match (&r[0], &r[1]) {
                (Value::Int(i), Value::Bytes(b)) => (*i, String::from_utf8(b.clone()).unwrap()),
                other => panic!("{other:?}"),
            })
            .collect(),
        _ => panic!("no rows"),
    }
}

/// Play a session's stage 1 for `sql` and stop there: the transaction is prepared, its
/// Prepare record is in the redo log (synced with placement `prepare`), and it holds its row
/// locks until the returned work goes through the pipeline.
fn hold_prepared(ctx: &ServerContext, sql_text: &str) -> (super::Work, super::pipeline::Prepared) {
    let mut s = SessionState::new(50, "root", "%", None);
    run(ctx, &mut s, "BEGIN").unwrap();
    run(ctx, &mut s, sql_text).unwrap();
    let mut txn = s.txn.take().unwrap();
    ctx.engine.prepare(&mut txn).unwrap();
    let xid = ctx
        .next_xid
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let changes = txn.changes_positioned();
    let opts = super::encode::EventOptions {
        server_id: 1,
        row_metadata: cohort_binlog::RowMetadata::NoLog,
        annotations: &[],
        cascaded: crate::log::encode::CascadedRows::Ignorable,
        statement_flags: &[],
    };
    let binlog = super::encode::transaction_events(&changes, xid, &opts).unwrap();
    let mut redo = Vec::new();
    let refs = changes
        .iter()
        .map(|(_, c)| super::redo::RedoChangeRef::from_row_change(c));
    super::redo::encode_txn(&mut redo, super::redo::TxnRecordKind::Prepare, xid, refs);
    drop(changes);
    let p = ctx.pipeline.prepare_in_redo(&ctx.vars, xid, &redo).unwrap();
    (super::Work::prepared(txn, binlog, p), p)
}

#[test]
fn classic_commits_survive_a_crash_in_both_placements() {
    for placement in ["group", "prepare"] {
        let dir = SimDir::new();
        let ctx = classic(&dir);
        let mut s = setup(&ctx);
        run(
            &ctx,
            &mut s,
            &format!("SET GLOBAL log_flush_placement = '{placement}'"),
        )
        .unwrap();
        for i in 0..10 {
            run(&ctx, &mut s, &format!("INSERT INTO d.t VALUES ({i}, 'x')")).unwrap();
        }
        run(&ctx, &mut s, "UPDATE d.t SET v = 'y' WHERE id < 5").unwrap();
        run(&ctx, &mut s, "DELETE FROM d.t WHERE id = 9").unwrap();
        assert!(
            status(&ctx, "Redo_log_fsyncs") > 0,
            "redo fsyncs are counted"
        );
        let want = values(&ctx);
        let img1 = dir.crash_image();
        let (ctx2, report) = classic_context_on(&img1);
        assert_eq!(values(&ctx2), want, "{placement}");
        assert_eq!((report.transactions, report.ddl), (12, 2), "{placement}");
        assert_eq!(report.prepared_rolled_back, 0);
        assert_eq!(report.binlog_without_prepare, 0);
        // The last commit's Commit record was not synced: the binlog committed it.
        assert!(report.prepared_committed >= 1, "{report:?}");
        // A second crash after more commits: XIDs continue above the first run's, so no
        // Prepare of this run is mistaken for a binlog transaction of the last one.
        let mut s2 = SessionState::new(3, "root", "%", None);
        run(&ctx2, &mut s2, "INSERT INTO d.t VALUES (100, 'z')").unwrap();
        let (_held, _) = hold_prepared(&ctx2, "INSERT INTO d.t VALUES (101, 'held')");
        let img = img1.crash_image();
        drop(ctx2);
        let (ctx3, report) = classic_context_on(&img);
        let got = values(&ctx3);
        assert!(got.contains(&(100, "z".into())));
        assert!(
            !got.iter().any(|(id, _)| *id == 101),
            "{placement}: {got:?}"
        );
        assert_eq!(report.next_gtid_seq, 16, "GTIDs continue from the binlog");
    }
}

#[test]
fn group_placement_syncs_the_redo_log_at_most_once_per_group() {
    for (placement, leader_commits) in [("group", "ON"), ("prepare", "ON"), ("group", "OFF")] {
        let dir = SimDir::new();
        let ctx = Arc::new(classic(&dir));
        let mut s = setup(&ctx);
        run(
            &ctx,
            &mut s,
            &format!("SET GLOBAL log_flush_placement = '{placement}'"),
        )
        .unwrap();
        let sql = format!("SET GLOBAL binlog_optimize_thread_scheduling = {leader_commits}");
        run(&ctx, &mut s, &sql).unwrap();
        run(&ctx, &mut s, "SET GLOBAL log_sync_delay_us = 2000").unwrap();
        let (redo0, groups0) = (
            status(&ctx, "Redo_log_fsyncs"),
            status(&ctx, "Binlog_group_commits"),
        );
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let ctx = ctx.clone();
                std::thread::spawn(move || {
                    let mut s = SessionState::new(10 + t, "root", "%", None);
                    for i in 0..15 {
                        let id = t * 100 + i;
                        run(&ctx, &mut s, &format!("INSERT INTO d.t VALUES ({id}, 'x')")).unwrap();
                    }
                })
            })
            .collect();
        threads.into_iter().for_each(|h| h.join().unwrap());
        let redo = status(&ctx, "Redo_log_fsyncs") - redo0;
        let groups = status(&ctx, "Binlog_group_commits") - groups0;
        assert!(
            redo > 0 && groups < 120,
            "{placement}: {redo} redo fsyncs, {groups} groups"
        );
        if placement == "group" {
            assert!(redo <= groups, "{redo} redo fsyncs for {groups} groups");
        }
        // Every group finished (leader or chained): nothing is left in flight, and every
        // transaction has its Commit record.
        let redo_log = ctx.pipeline.redo().unwrap();
        assert_eq!(
            ctx.pipeline.classic_replay_start(),
            Some(redo_log.end_lsn())
        );
        let commits = redo_log
            .records_from(super::redo::Lsn(0))
            .unwrap()
            .filter(|r| matches!(r, Ok((_, super::redo::RedoRecord::Commit { .. }))))
            .count();
        // The 120 inserts, and the two DDL statements of `setup`.
        assert_eq!(commits, 122, "{placement} {leader_commits}");
        let ctx2 = classic(&dir.crash_image());
        assert_eq!(
            count(&ctx2, &mut SessionState::new(2, "root", "%", None)),
            120
        );
    }
}

#[test]
fn a_prepared_transaction_without_its_binlog_events_is_rolled_back() {
    let dir = SimDir::new();
    let ctx = classic(&dir);
    let mut s = setup(&ctx);
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (1, 'a')").unwrap();
    run(&ctx, &mut s, "SET GLOBAL log_flush_placement = 'prepare'").unwrap();
    // Prepared and synced in the redo log; the crash comes before the binlog write.
    let (_held, p) = hold_prepared(&ctx, "INSERT INTO d.t VALUES (2, 'b')");
    assert!(ctx.pipeline.redo().unwrap().synced_lsn() >= p.end);
    let (ctx2, report) = classic_context_on(&dir.crash_image());
    assert_eq!(values(&ctx2), vec![(1, "a".to_string())]);
    assert_eq!(report.prepared_rolled_back, 1, "{report:?}");
    assert_eq!(report.binlog_without_prepare, 0);
}

#[test]
fn a_prepared_transaction_in_the_binlog_without_a_commit_record_is_committed() {
    let dir = SimDir::new();
    let ctx = classic(&dir);
    let mut s = setup(&ctx);
    // T1's Commit record is made durable by T2's group sync; T2's is not durable.
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (1, 'a')").unwrap();
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (2, 'b')").unwrap();
    let img = dir.crash_image();
    let records = super::redo::RedoLog::open(Arc::new(img.clone()), 1 << 20, Arc::default())
        .unwrap()
        .0;
    let committed: Vec<u64> = records
        .records_from(super::redo::Lsn(0))
        .unwrap()
        .filter_map(|r| match r {
            Ok((_, super::redo::RedoRecord::Commit { xid })) => Some(xid),
            _ => None,
        })
        .collect();
    let inserts: Vec<u64> = records
        .records_from(super::redo::Lsn(0))
        .unwrap()
        .filter_map(|r| match r {
            Ok((_, super::redo::RedoRecord::Prepare { xid, .. })) => Some(xid),
            _ => None,
        })
        .collect();
    let durable: Vec<&u64> = inserts.iter().filter(|x| committed.contains(x)).collect();
    assert_eq!(
        durable,
        vec![&inserts[0]],
        "exactly T1's Commit record is durable"
    );
    drop(records);
    let (ctx2, report) = classic_context_on(&img);
    assert_eq!(values(&ctx2), vec![(1, "a".into()), (2, "b".into())]);
    assert_eq!(report.transactions, 2);
    assert_eq!(report.prepared_committed, 1, "{report:?}");
    assert_eq!(report.prepared_rolled_back, 0);
}

#[test]
fn classic_torn_redo_tail_is_cut_and_its_prepare_never_committed() {
    let dir = SimDir::new();
    let ctx = classic(&dir);
    let mut s = setup(&ctx);
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (1, 'a')").unwrap();
    // Group placement: the Prepare record is appended but not synced (its group never ran).
    let (_held, p) = hold_prepared(&ctx, "INSERT INTO d.t VALUES (2, 'b')");
    let redo = ctx.pipeline.redo().unwrap();
    assert!(redo.synced_lsn() < p.end);
    let durable = dir.crash_image().read("redo.000001").unwrap().len();
    let written = dir.read("redo.000001").unwrap().len();
    for extra in [1, (written - durable) / 2, written - durable - 1] {
        let img = dir.crash_image_with_tail("redo.000001", extra);
        let (ctx2, report) = classic_context_on(&img);
        assert_eq!(values(&ctx2), vec![(1, "a".to_string())], "extra {extra}");
        assert!(
            report
                .notes
                .iter()
                .any(|n| n.contains("redo") && n.contains("tail")),
            "{report:?}"
        );
        assert_eq!(
            report.prepared_rolled_back, 0,
            "the torn Prepare is not a record"
        );
    }
}

#[test]
fn classic_torn_binlog_tail_rolls_back_its_prepared_transaction() {
    let dir = SimDir::new();
    let ctx = classic(&dir);
    let mut s = setup(&ctx);
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (1, 'a')").unwrap();
    run(&ctx, &mut s, "SET GLOBAL sync_binlog = 0").unwrap();
    // Its Prepare record is synced by the group, its binlog events are not.
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (2, 'b')").unwrap();
    let name = ctx.pipeline.with_binlog(|b| b.position().file).unwrap();
    let img = dir.crash_image_with_tail(&name, 40);
    let (ctx2, report) = classic_context_on(&img);
    assert_eq!(values(&ctx2), vec![(1, "a".to_string())]);
    assert_eq!(report.prepared_rolled_back, 1, "{report:?}");
    assert!(
        report.notes.iter().any(|n| n.contains("binlog")),
        "{report:?}"
    );
    let out = cohort_binlog::read_all(&img.read(&name).unwrap());
    assert!(out.error.is_none(), "the cut file decodes cleanly");
}

#[test]
fn a_checkpoint_replays_from_the_oldest_in_flight_prepare() {
    for finish in [true, false] {
        let dir = SimDir::new();
        let ctx = classic(&dir);
        let mut s = setup(&ctx);
        for i in 0..5 {
            run(&ctx, &mut s, &format!("INSERT INTO d.t VALUES ({i}, 'x')")).unwrap();
        }
        let (held, p) = hold_prepared(&ctx, "INSERT INTO d.t VALUES (50, 'held')");
        // Commits after the held prepare, so the redo end moves past it.
        for i in 5..10 {
            run(&ctx, &mut s, &format!("INSERT INTO d.t VALUES ({i}, 'x')")).unwrap();
        }
        let redo_end = ctx.pipeline.redo().unwrap().end_lsn();
        let info = super::checkpointer::run_checkpoint(&ctx).unwrap().unwrap();
        assert_eq!(info.rows, 10, "the held transaction is not in the snapshot");
        assert_eq!(
            info.position.redo_lsn, p.lsn.0,
            "replay starts at the held Prepare"
        );
        assert!(p.lsn < redo_end);
        if finish {
            ctx.pipeline.commit(&ctx.vars, held).unwrap();
        } else {
            drop(held);
        }
        // Once nothing is in flight, the next checkpoint starts at the redo end.
        if finish {
            let info = super::checkpointer::run_checkpoint(&ctx).unwrap().unwrap();
            assert_eq!(
                info.position.redo_lsn,
                ctx.pipeline.redo().unwrap().end_lsn().0
            );
            run(&ctx, &mut s, "INSERT INTO d.t VALUES (60, 'after')").unwrap();
        }
        let (ctx2, report) = classic_context_on(&dir.crash_image());
        let got = values(&ctx2);
        assert_eq!(got.len(), if finish { 12 } else { 10 }, "{got:?}");
        assert_eq!(got.contains(&(50, "held".into())), finish);
        assert_eq!(report.binlog_without_prepare, 0, "{report:?}");
        if !finish {
            assert_eq!(report.prepared_rolled_back, 1, "{report:?}");
        }
    }
}

#[test]
fn classic_checkpoint_purges_redo_and_binlog_and_recovery_continues() {
    let dir = SimDir::new();
    // Small redo segments so a checkpoint can purge some.
    let (ctx, _) = classic_context_with_segments(&dir, 512);
    let mut s = setup(&ctx);
    run(&ctx, &mut s, "SET GLOBAL max_binlog_size = 4096").unwrap();
    run(
        &ctx,
        &mut s,
        "CREATE TABLE d.u (id INT PRIMARY KEY AUTO_INCREMENT, x INT)",
    )
    .unwrap();
    for i in 0..60 {
        run(
            &ctx,
            &mut s,
            &format!("INSERT INTO d.t VALUES ({i}, 'before')"),
        )
        .unwrap();
    }
    run(&ctx, &mut s, "INSERT INTO d.u (x) VALUES (1), (2)").unwrap();
    let segments = ctx.pipeline.redo().unwrap().segment_names().len();
    super::checkpointer::run_checkpoint(&ctx).unwrap().unwrap();
    assert!(ctx.pipeline.redo().unwrap().segment_names().len() < segments);
    run(&ctx, &mut s, "UPDATE d.t SET v = 'after' WHERE id < 10").unwrap();
    run(&ctx, &mut s, "DROP TABLE d.u").unwrap();
    run(
        &ctx,
        &mut s,
        "CREATE TABLE d.u (id INT PRIMARY KEY AUTO_INCREMENT, x INT)",
    )
    .unwrap();
    run(&ctx, &mut s, "INSERT INTO d.u (x) VALUES (7)").unwrap();
    let last = ctx.pipeline.with_binlog(|b| b.position().file).unwrap();
    run(&ctx, &mut s, &format!("PURGE BINARY LOGS TO '{last}'")).unwrap();
    let (ctx2, report) = classic_context_on(&dir.crash_image());
    assert!(report.checkpoint.is_some());
    let mut s2 = SessionState::new(2, "root", "%", None);
    assert_eq!(count(&ctx2, &mut s2), 60);
    match run(&ctx2, &mut s2, "SELECT COUNT(*) FROM d.t WHERE v = 'after'").unwrap() {
        QueryResult::Rows { rows, .. } => assert_eq!(rows[0][0], Value::Int(10)),
        _ => panic!(),
    }
    run(&ctx2, &mut s2, "INSERT INTO d.u (x) VALUES (8)").unwrap();
    match run(&ctx2, &mut s2, "SELECT MAX(id), COUNT(*) FROM d.u").unwrap() {
        QueryResult::Rows { rows, .. } => assert_eq!(rows[0], vec![Value::Int(2), Value::Int(2)]),
        _ => panic!(),
    }
}

#[test]
fn lazy_redo_flush_loses_engine_changes_of_binlog_transactions_and_says_so() {
    let dir = SimDir::new();
    let ctx = classic(&dir);
    let mut s = setup(&ctx);
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (1, 'a')").unwrap();
    run(
        &ctx,
        &mut s,
        "SET GLOBAL innodb_flush_log_at_trx_commit = 2",
    )
    .unwrap();
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (2, 'b')").unwrap();
    let (ctx2, report) = classic_context_on(&dir.crash_image());
    assert_eq!(report.binlog_without_prepare, 1, "{report:?}");
    assert!(report
        .notes
        .iter()
        .any(|n| n.contains("no redo Prepare record")));
    assert_eq!(values(&ctx2), vec![(1, "a".to_string())]);
}

/// A failed redo write, fsync or a full disk poisons the redo log: that commit and every later
/// one fail with ER_ERROR_ON_WRITE naming the redo file; nothing unacknowledged is durable;
/// reads keep working; the fsync is never retried.
#[test]
fn classic_redo_failures_poison_the_log() {
    let faults = [
        (
            "write",
            Faults {
                fail_next_append: true,
                ..Faults::default()
            },
        ),
        (
            "fsync",
            Faults {
                fail_next_sync: true,
                ..Faults::default()
            },
        ),
        ("enospc", Faults::default()),
    ];
    for (what, mut fault) in faults {
        let dir = SimDir::new();
        let ctx = classic(&dir);
        let mut s = setup(&ctx);
        run(&ctx, &mut s, "INSERT INTO d.t VALUES (1, 'a')").unwrap();
        if what == "enospc" {
            let used: u64 = dir
                .list()
                .unwrap()
                .iter()
                .map(|f| dir.read(f).unwrap().len() as u64)
                .sum();
            fault.capacity = Some(used + 10);
        }
        let binlog_before = dir.read("binlog.000001").unwrap();
        let syncs = dir.sync_count();
        dir.set_faults(fault);
        let e = run(&ctx, &mut s, "INSERT INTO d.t VALUES (2, 'b')").unwrap_err();
        assert_eq!(e.code(), ErrorCode::ErrorOnWrite, "{what}");
        assert!(
            e.message().contains("redo.000001"),
            "{what}: {}",
            e.message()
        );
        if what == "enospc" {
            assert!(e.message().contains(&format!("errno: {}", libc::ENOSPC)));
        }
        dir.set_faults(Faults::default());
        let e = run(&ctx, &mut s, "INSERT INTO d.t VALUES (3, 'c')").unwrap_err();
        assert_eq!(
            e.code(),
            ErrorCode::ErrorOnWrite,
            "{what}: later commits fail"
        );
        assert!(
            e.message().contains("redo.000001"),
            "{what}: {}",
            e.message()
        );
        assert_eq!(
            dir.sync_count(),
            syncs,
            "{what}: no fsync after the failure"
        );
        assert_eq!(
            dir.read("binlog.000001").unwrap(),
            binlog_before,
            "{what}: nothing reached the binlog"
        );
        assert_eq!(
            values(&ctx),
            vec![(1, "a".to_string())],
            "{what}: reads work"
        );
        let ctx2 = classic(&dir.crash_image());
        assert_eq!(values(&ctx2), vec![(1, "a".to_string())], "{what}");
    }
}

#[test]
fn a_binlog_file_created_by_a_crashed_rotation_does_not_block_the_next_start() {
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let mut s = setup(&ctx);
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (1, 'a')").unwrap();
    // The crash came after the rotation created binlog.000002, before the index named it.
    let img = dir.crash_image();
    let mut f = img.create("binlog.000002").unwrap();
    f.append(b"\xfebin").unwrap();
    f.sync().unwrap();
    let ctx2 = context_on(&img);
    assert_eq!(
        count(&ctx2, &mut SessionState::new(2, "root", "%", None)),
        1
    );
    let files = ctx2.pipeline.with_binlog(|b| b.list()).unwrap();
    assert_eq!(files.last().unwrap().0, "binlog.000002");
}

/// Classic mode logs DDL with its XID in the Query event's `Q_XID` status variable (as MariaDB
/// does for DDL its recovery must match); `mariadb-binlog` decodes such a file.
#[test]
fn classic_ddl_query_events_carry_their_xid_and_decode_with_mariadb_binlog() {
    let dir = SimDir::new();
    let ctx = classic(&dir);
    let mut s = setup(&ctx);
    run(&ctx, &mut s, "FLUSH BINARY LOGS").unwrap();
    let out = cohort_binlog::read_all(&dir.read("binlog.000001").unwrap());
    assert!(out.error.is_none());
    let xids: Vec<Option<u64>> = out
        .events
        .iter()
        .filter_map(|e| match &e.event {
            cohort_binlog::Event::Query(q) => Some(super::encode::query_xid(&q.status_vars)),
            _ => None,
        })
        .collect();
    assert_eq!(xids.len(), 2, "CREATE DATABASE and CREATE TABLE");
    assert!(xids.iter().all(Option::is_some), "{xids:?}");
    let Ok(tool) = std::process::Command::new("mariadb-binlog")
        .arg("--version")
        .output()
    else {
        return;
    };
    assert!(tool.status.success());
    let path = std::env::temp_dir().join(format!("cohort-qxid-{}.bin", std::process::id()));
    std::fs::write(&path, dir.read("binlog.000001").unwrap()).unwrap();
    let decoded = std::process::Command::new("mariadb-binlog")
        .args(["-c", "-vv", "--base64-output=decode-rows"])
        .arg(&path)
        .output()
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    let text = String::from_utf8_lossy(&decoded.stdout);
    assert!(
        decoded.status.success(),
        "{}",
        String::from_utf8_lossy(&decoded.stderr)
    );
    assert!(text.contains("CREATE TABLE d.t"), "{text}");
    assert!(
        text.contains("error_code=0\txid="),
        "Q_XID is decoded: {text}"
    );
    assert!(!text.contains("ERROR"), "{text}");
}

/// The rows events of binlog.000001: (kind, header flags, rows flags).
fn rows_events(dir: &SimDir) -> Vec<(cohort_binlog::RowsKind, u16, u16)> {
    let out = cohort_binlog::read_all(&dir.read("binlog.000001").unwrap());
    assert!(out.error.is_none(), "{:?}", out.error);
    out.events
        .iter()
        .filter_map(|e| match &e.event {
            cohort_binlog::Event::Rows(r) => Some((r.kind, e.header.flags, r.flags)),
            _ => None,
        })
        .collect()
}

/// One-log mode keeps the rows FOREIGN KEY cascades changed (recovery replays them) in events
/// a replica ignores, and logs a primary-key UPDATE as one update, as MariaDB does: a replica
/// that saw a delete would cascade it as ON DELETE. Both replay after a crash.
#[test]
fn cascaded_rows_are_ignorable_and_key_updates_are_updates() {
    use cohort_binlog::{RowsKind, LOG_EVENT_IGNORABLE_F};
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let mut s = setup(&ctx);
    for sql in [
        "CREATE TABLE d.p (id INT PRIMARY KEY)",
        "CREATE TABLE d.c (id INT PRIMARY KEY, p INT, KEY (p), \
         FOREIGN KEY (p) REFERENCES d.p (id) ON DELETE CASCADE ON UPDATE CASCADE)",
        "INSERT INTO d.p VALUES (1), (2)",
        "INSERT INTO d.c VALUES (10, 1), (20, 2)",
    ] {
        run(&ctx, &mut s, sql).unwrap();
    }
    let before = rows_events(&dir).len();
    run(&ctx, &mut s, "UPDATE d.p SET id = 5 WHERE id = 1").unwrap();
    run(&ctx, &mut s, "DELETE FROM d.p WHERE id = 2").unwrap();
    let got = rows_events(&dir)[before..].to_vec();
    let ign = LOG_EVENT_IGNORABLE_F;
    assert_eq!(
        got,
        [
            (RowsKind::Update, 0, 1),
            (RowsKind::Update, ign, 1),
            (RowsKind::Delete, 0, 1),
            (RowsKind::Delete, ign, 1),
        ]
    );
    let ctx2 = context_on(&dir.crash_image());
    let mut s2 = SessionState::new(2, "root", "%", None);
    let rows = |ctx: &ServerContext, s: &mut SessionState| {
        rows_of(ctx, s, "SELECT id, p FROM d.c ORDER BY id")
    };
    assert_eq!(rows(&ctx2, &mut s2), [["10", "5"]]);
    assert_eq!(rows(&ctx, &mut s), rows(&ctx2, &mut s2));
}

/// SHOW CREATE TABLE's text of `d.<table>`.
fn create_text(ctx: &ServerContext, s: &mut SessionState, table: &str) -> String {
    rows_of(ctx, s, &format!("SHOW CREATE TABLE d.{table}"))[0][1].clone()
}

#[test]
fn int_display_widths_and_zerofill_survive_a_checkpoint_and_the_replay_after_it() {
    let ddl = "CREATE TABLE d.w (a INT(5) ZEROFILL, b TINYINT(1), c BIGINT(7) UNSIGNED, \
               d SMALLINT(3), e MEDIUMINT, f INT UNSIGNED ZEROFILL)";
    // Binlog placement: one table in the checkpoint, changes to it and a new one replayed.
    let dir = SimDir::new();
    let ctx = context_on(&dir);
    let mut s = setup(&ctx);
    run(&ctx, &mut s, ddl).unwrap();
    run(&ctx, &mut s, "INSERT INTO d.w VALUES (42, 1, 7, 3, 4, 5)").unwrap();
    super::checkpointer::run_checkpoint(&ctx).unwrap().unwrap();
    run(
        &ctx,
        &mut s,
        "ALTER TABLE d.w MODIFY e MEDIUMINT(4) ZEROFILL",
    )
    .unwrap();
    run(
        &ctx,
        &mut s,
        "CREATE TABLE d.v (x TINYINT(2) UNSIGNED ZEROFILL)",
    )
    .unwrap();
    let before = (
        create_text(&ctx, &mut s, "w"),
        create_text(&ctx, &mut s, "v"),
    );
    assert!(
        before.0.contains("`a` int(5) unsigned zerofill"),
        "{}",
        before.0
    );
    assert!(
        before.0.contains("`e` mediumint(4) unsigned zerofill"),
        "{}",
        before.0
    );
    let ctx2 = context_on(&dir.crash_image());
    let mut s2 = SessionState::new(2, "root", "%", None);
    let after = (
        create_text(&ctx2, &mut s2, "w"),
        create_text(&ctx2, &mut s2, "v"),
    );
    assert_eq!(before, after);
    assert_eq!(
        rows_of(
            &ctx2,
            &mut s2,
            "SELECT CONCAT(a), CONCAT(e), CONCAT(f) FROM d.w"
        ),
        [["00042", "0004", "0000000005"]]
    );
    // Redo-only placement (binlog off): the same table across a restart.
    let dir = SimDir::new();
    let ctx = redo_context_on(&dir);
    let mut s = setup(&ctx);
    run(&ctx, &mut s, ddl).unwrap();
    let before = create_text(&ctx, &mut s, "w");
    let ctx2 = redo_context_on(&dir.crash_image());
    let mut s2 = SessionState::new(2, "root", "%", None);
    assert_eq!(before, create_text(&ctx2, &mut s2, "w"));
}
