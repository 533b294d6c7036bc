//! Every failure path of the commit pipeline, on the simulated log device: what a client is
//! told must equal what recovery replays ("Failures" in [`crate::log`]).
//!
//! The systematic tests run one step (a commit, a DDL statement, either one crossing
//! `max_binlog_size` so that a rotation follows its group) once without faults, counting the
//! device operations it makes, and then once per operation with exactly that operation failing
//! (and, for appends, once more with the append torn: a prefix written, then EIO). After each
//! run the state the client's answer implies — the step applied if it was told OK, the state
//! before it otherwise — must be what the server shows, what a restart of the process recovers
//! (every written byte survives: [`SimDir::restart_image`]), and, when the settings promise
//! durability (`sync_binlog = 1`, `innodb_flush_log_at_trx_commit = 1`), what a restart after a
//! machine crash recovers (synced bytes only: [`SimDir::crash_image`]). Later work must fail
//! and leave no trace (the log is poisoned).

use super::device::{FaultRule, Faults, LogDir, SimDir, SimOp};
use super::tests::{classic, context_on, redo_context_on, run};
use crate::error::Result;
use crate::session::{ServerContext, SessionState};
use crate::storage::ScanControl;
use cohort_protocol::ErrorCode;
use std::sync::Arc;

/// The log settings a test runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Setup {
    OneLog { sync_binlog: u64 },
    RedoOnly { flush: u64 },
    Classic { placement: &'static str },
}

pub(super) const SETUPS: [Setup; 8] = [
    Setup::OneLog { sync_binlog: 1 },
    Setup::OneLog { sync_binlog: 0 },
    Setup::OneLog { sync_binlog: 3 },
    Setup::RedoOnly { flush: 1 },
    Setup::RedoOnly { flush: 0 },
    Setup::RedoOnly { flush: 2 },
    Setup::Classic { placement: "group" },
    Setup::Classic {
        placement: "prepare",
    },
];

impl Setup {
    /// A server recovered from `dir`, with default settings.
    pub(super) fn open(self, dir: &SimDir) -> ServerContext {
        match self {
            Setup::OneLog { .. } => context_on(dir),
            Setup::RedoOnly { .. } => redo_context_on(dir),
            Setup::Classic { .. } => classic(dir),
        }
    }

    /// Apply this setup's settings.
    pub(super) fn configure(self, ctx: &ServerContext, s: &mut SessionState) {
        let sql = match self {
            Setup::OneLog { sync_binlog } => format!("SET GLOBAL sync_binlog = {sync_binlog}"),
            Setup::RedoOnly { flush } => {
                format!("SET GLOBAL innodb_flush_log_at_trx_commit = {flush}")
            }
            Setup::Classic { placement } => {
                format!("SET GLOBAL log_flush_placement = '{placement}'")
            }
        };
        run(ctx, s, &sql).unwrap();
    }

    /// Does a machine crash keep every acknowledged commit with these settings?
    pub(super) fn durable_on_crash(self) -> bool {
        !matches!(
            self,
            Setup::OneLog {
                sync_binlog: 0 | 2..
            } | Setup::RedoOnly { flush: 0 | 2.. }
        )
    }

    fn has_binlog(self) -> bool {
        !matches!(self, Setup::RedoOnly { .. })
    }
}

/// Every database, table (with its indexes) and committed row, as text: two servers hold the
/// same data exactly when their fingerprints are equal.
pub(super) fn fingerprint(ctx: &ServerContext) -> Vec<String> {
    let snap = ctx.engine.catalog_snapshot();
    let mut out: Vec<String> = snap.databases.iter().map(|d| format!("db {d}")).collect();
    for t in &snap.tables {
        let idx: Vec<&str> = t.def.indexes.iter().map(|i| i.name.as_str()).collect();
        let cols: Vec<String> = t
            .def
            .columns
            .iter()
            .map(|c| format!("{} {:?}", c.name, c.data_type))
            .collect();
        out.push(format!(
            "table {}.{} {:?} {:?}",
            t.db, t.def.name, cols, idx
        ));
        let mut rows = Vec::new();
        t.table
            .scan_committed(&mut |r| {
                rows.push(format!("  {}.{} {:?}", t.db, t.def.name, r));
                Ok(ScanControl::Continue)
            })
            .unwrap();
        rows.sort();
        out.extend(rows);
    }
    out.sort();
    out
}

/// The step under test.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// One autocommit INSERT.
    Commit,
    /// One DDL statement.
    Ddl(&'static str),
}

const STEPS: [Step; 12] = [
    Step::Commit,
    Step::Ddl("CREATE TABLE d.t2 (id INT PRIMARY KEY)"),
    Step::Ddl("DROP TABLE d.t"),
    Step::Ddl("TRUNCATE TABLE d.t"),
    Step::Ddl("CREATE INDEX iv ON d.t (v)"),
    Step::Ddl("DROP INDEX old ON d.t"),
    Step::Ddl("CREATE DATABASE e"),
    Step::Ddl("DROP DATABASE d"),
    Step::Ddl("ALTER TABLE d.t ADD INDEX i2 (v), DROP INDEX old"),
    // A rebuild: new column first, a type change, a rename, a new key (storage/rebuild.rs).
    Step::Ddl(
        "ALTER TABLE d.t ADD COLUMN w INT NOT NULL DEFAULT 7 FIRST, MODIFY v VARCHAR(5), \
         RENAME COLUMN id TO ident, ADD UNIQUE KEY uv (v)",
    ),
    Step::Ddl("ALTER TABLE d.t DROP COLUMN v, RENAME TO d.t4"),
    Step::Ddl("RENAME TABLE d.t TO d.t3, d.z TO d.t, d.t3 TO d.z"),
];

/// What a run of a step did.
struct Ran {
    /// The state before the step.
    before: Vec<String>,
    /// The state after it (as the server shows it).
    after: Vec<String>,
    /// The client's answer.
    told: Result<()>,
    /// Device operations the step made, by kind.
    ops: Vec<(SimOp, u64)>,
}

const OPS: [SimOp; 6] = [
    SimOp::Append,
    SimOp::Sync,
    SimOp::Create,
    SimOp::Truncate,
    SimOp::WriteAt,
    SimOp::WriteAtomic,
];

/// A fresh server in `setup` with `d.t` (three rows, index `old`) and `d.z`; with `rotate`,
/// the binlog is filled so that the next group crosses `max_binlog_size`.
fn prepare(setup: Setup, dir: &SimDir, rotate: bool) -> (ServerContext, SessionState) {
    let ctx = setup.open(dir);
    let mut s = SessionState::new(1, "root", "%", None);
    for sql in [
        "CREATE DATABASE d",
        "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20), KEY old (v))",
        "CREATE TABLE d.z (id INT PRIMARY KEY)",
        "INSERT INTO d.t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
    ] {
        run(&ctx, &mut s, sql).unwrap();
    }
    setup.configure(&ctx, &mut s);
    if rotate && setup.has_binlog() {
        // Fill past the smallest size allowed, then make the next group the one that
        // crosses the limit.
        let pos = || ctx.pipeline.with_binlog(|b| b.position().pos).unwrap();
        let mut id = 100;
        while pos() < 4096 {
            run(&ctx, &mut s, &format!("INSERT INTO d.z VALUES ({id})")).unwrap();
            id += 1;
        }
        let sql = format!("SET GLOBAL max_binlog_size = {}", pos() + 1);
        run(&ctx, &mut s, &sql).unwrap();
    }
    (ctx, s)
}

fn run_step(ctx: &ServerContext, s: &mut SessionState, step: Step) -> Result<()> {
    match step {
        Step::Commit => run(ctx, s, "INSERT INTO d.t VALUES (50, 'new')").map(drop),
        Step::Ddl(sql) => run(ctx, s, sql).map(drop),
    }
}

/// Run `step` on a fresh server, with `faults` armed just before it.
fn run_once(
    setup: Setup,
    step: Step,
    rotate: bool,
    faults: Faults,
) -> (SimDir, ServerContext, Ran) {
    let dir = SimDir::new();
    let (ctx, mut s) = prepare(setup, &dir, rotate);
    let before = fingerprint(&ctx);
    let counts: Vec<u64> = OPS.iter().map(|&op| dir.op_count(op)).collect();
    dir.set_faults(faults);
    let told = run_step(&ctx, &mut s, step);
    dir.set_faults(Faults::default());
    let ops = OPS
        .iter()
        .zip(counts)
        .map(|(&op, c)| (op, dir.op_count(op) - c))
        .collect();
    let after = fingerprint(&ctx);
    let ran = Ran {
        before,
        after,
        told,
        ops,
    };
    (dir, ctx, ran)
}

/// After a fault: the client's answer, the server's state and both restarts agree, and later
/// work fails without a trace.
fn check_after_fault(
    label: &str,
    setup: Setup,
    dir: &SimDir,
    ctx: &ServerContext,
    ran: &Ran,
    applied: &[String],
) {
    let expected = match &ran.told {
        Ok(()) => applied,
        Err(e) => {
            assert_eq!(
                e.code(),
                ErrorCode::ErrorOnWrite,
                "{label}: {}",
                e.message()
            );
            &ran.before[..]
        }
    };
    assert_eq!(
        ran.after, expected,
        "{label}: the server shows what it told"
    );
    // Later work fails (the log is poisoned) and changes nothing.
    let mut s = SessionState::new(7, "root", "%", None);
    for sql in [
        "INSERT INTO d.z VALUES (999)",
        "CREATE TABLE d.later (id INT PRIMARY KEY)",
    ] {
        if let Ok(q) = run(ctx, &mut s, sql) {
            // The step may have dropped `d`: then the statement fails for that reason.
            panic!("{label}: `{sql}` succeeded after a log failure: {q:?}");
        }
    }
    assert_eq!(
        fingerprint(ctx),
        expected,
        "{label}: later work left a trace"
    );
    let restarted = setup.open(&dir.restart_image());
    assert_eq!(
        fingerprint(&restarted),
        expected,
        "{label}: a restart of the process replays what the client was told"
    );
    let crashed = setup.open(&dir.crash_image());
    let got = fingerprint(&crashed);
    if setup.durable_on_crash() {
        assert_eq!(
            got, expected,
            "{label}: a machine crash keeps what was told"
        );
    } else {
        assert!(
            got == ran.before || got == applied,
            "{label}: a machine crash shows a state that never existed: {got:?}"
        );
    }
}

/// Run `step` failing each of its device operations in turn (and tearing each append).
fn every_operation_fails_in_turn(setup: Setup, step: Step, rotate: bool) -> usize {
    let (_, _, probe) = run_once(setup, step, rotate, Faults::default());
    probe
        .told
        .as_ref()
        .expect("the step succeeds without faults");
    let applied = probe.after.clone();
    let mut runs = 0;
    for &(op, n) in &probe.ops {
        for k in 0..n as u32 {
            let mut rules = vec![FaultRule::after(op, k)];
            if op == SimOp::Append {
                rules.push(FaultRule::torn_append(k, usize::MAX));
            }
            for rule in rules {
                let label = format!("{setup:?} {step:?} rotate={rotate}: {rule:?}");
                let (dir, ctx, ran) = run_once(setup, step, rotate, Faults::rules(vec![rule]));
                check_after_fault(&label, setup, &dir, &ctx, &ran, &applied);
                runs += 1;
            }
        }
    }
    runs
}

#[test]
fn every_failure_of_a_commit_tells_the_client_what_recovery_replays() {
    for setup in SETUPS {
        for rotate in [false, true] {
            let runs = every_operation_fails_in_turn(setup, Step::Commit, rotate);
            assert!(runs > 0, "{setup:?}: no device operation was failed");
        }
    }
}

#[test]
fn every_failure_of_a_ddl_statement_tells_the_client_what_recovery_replays() {
    for setup in SETUPS {
        for step in &STEPS[1..] {
            every_operation_fails_in_turn(setup, *step, false);
        }
        every_operation_fails_in_turn(setup, STEPS[1], true);
    }
}

/// The device operations of `step`'s own group (no rotation follows it).
fn group_ops(setup: Setup, step: Step) -> Vec<(SimOp, u64)> {
    run_once(setup, step, false, Faults::default()).2.ops
}

/// The case: the group is synced, then the rotation after it fails. The group is
/// committed: the client gets OK, and the server, a restart and a crash all have it.
#[test]
fn a_group_synced_before_a_failed_rotation_is_committed() {
    for setup in [
        Setup::OneLog { sync_binlog: 1 },
        Setup::Classic { placement: "group" },
        Setup::Classic {
            placement: "prepare",
        },
    ] {
        for step in [Step::Commit, STEPS[1], STEPS[2]] {
            let own = group_ops(setup, step);
            for op in [
                SimOp::Append,
                SimOp::Sync,
                SimOp::Truncate,
                SimOp::WriteAt,
                SimOp::Create,
                SimOp::WriteAtomic,
            ] {
                let label = format!("{setup:?} {step:?} {op:?}");
                // Skip the group's own operations of this kind: fail the rotation's first.
                let skip = own.iter().find(|(o, _)| *o == op).map_or(0, |(_, n)| *n);
                let dir = SimDir::new();
                let (ctx, mut s) = prepare(setup, &dir, true);
                let file = ctx.pipeline.with_binlog(|b| b.position().file).unwrap();
                dir.set_faults(Faults::rules(vec![FaultRule::after(op, skip as u32)]));
                let told = run_step(&ctx, &mut s, step);
                dir.set_faults(Faults::default());
                assert!(told.is_ok(), "{label}: a synced group failed: {told:?}");
                let now = ctx.pipeline.with_binlog(|b| b.position().file).unwrap();
                assert_eq!(now, file, "{label}: the rotation did not fail");
                let want = fingerprint(&ctx);
                assert_eq!(
                    fingerprint(&setup.open(&dir.restart_image())),
                    want,
                    "{label}"
                );
                assert_eq!(
                    fingerprint(&setup.open(&dir.crash_image())),
                    want,
                    "{label}"
                );
                let later = run(&ctx, &mut s, "INSERT INTO d.z VALUES (1)");
                let e = later.expect_err(&format!("{label}: later commits fail"));
                assert_eq!(
                    e.code(),
                    ErrorCode::ErrorOnWrite,
                    "{label}: later commits fail"
                );
            }
        }
    }
}

/// With `sync_binlog = N`, a group that waits for the N-th sync and sees it fail is rolled back
/// and cut; the groups before it were acknowledged at their write and stay.
#[test]
fn a_failed_periodic_sync_fails_only_its_own_group() {
    let setup = Setup::OneLog { sync_binlog: 3 };
    let dir = SimDir::new();
    let (ctx, mut s) = prepare(setup, &dir, false);
    // Commit until a group syncs (the N-th); the next two groups are acknowledged unsynced.
    let (mut id, synced) = (10, dir.sync_count());
    while dir.sync_count() == synced {
        run(&ctx, &mut s, &format!("INSERT INTO d.z VALUES ({id})")).unwrap();
        id += 1;
    }
    run(&ctx, &mut s, "INSERT INTO d.z VALUES (500)").unwrap();
    run(&ctx, &mut s, "INSERT INTO d.z VALUES (501)").unwrap();
    assert_eq!(dir.sync_count(), synced + 1, "two unsynced groups");
    let acknowledged = fingerprint(&ctx);
    dir.set_faults(Faults::rules(vec![FaultRule::next(SimOp::Sync)]));
    let e = run(&ctx, &mut s, "INSERT INTO d.z VALUES (502)").unwrap_err();
    assert_eq!(e.code(), ErrorCode::ErrorOnWrite);
    assert_eq!(fingerprint(&ctx), acknowledged);
    assert_eq!(fingerprint(&setup.open(&dir.restart_image())), acknowledged);
}

/// `innodb_flush_log_at_trx_commit = 2`: commits are acknowledged at their write; the
/// once-a-second flush failing poisons the log but takes nothing acknowledged back.
#[test]
fn a_failed_background_flush_keeps_what_was_acknowledged() {
    let setup = Setup::RedoOnly { flush: 2 };
    let dir = SimDir::new();
    let (ctx, mut s) = prepare(setup, &dir, false);
    run(&ctx, &mut s, "INSERT INTO d.z VALUES (1)").unwrap();
    let acknowledged = fingerprint(&ctx);
    dir.set_faults(Faults::rules(vec![FaultRule::next(SimOp::Sync)]));
    super::checkpointer::flush_redo_once_a_second(&ctx);
    let e = run(&ctx, &mut s, "INSERT INTO d.z VALUES (2)").unwrap_err();
    assert_eq!(e.code(), ErrorCode::ErrorOnWrite);
    assert_eq!(fingerprint(&ctx), acknowledged);
    assert_eq!(fingerprint(&setup.open(&dir.restart_image())), acknowledged);
}

/// When the failed group's bytes cannot be cut from the log, no client may be told anything:
/// the server halts (as MySQL's `binlog_error_action = ABORT_SERVER`), and the outcome is
/// whatever recovery finds.
#[test]
fn a_failed_group_whose_bytes_cannot_be_cut_halts_the_server() {
    for setup in [
        Setup::OneLog { sync_binlog: 1 },
        Setup::RedoOnly { flush: 1 },
    ] {
        let dir = SimDir::new();
        let (ctx, mut s) = prepare(setup, &dir, false);
        dir.set_faults(Faults::rules(vec![
            FaultRule::next(SimOp::Sync),
            FaultRule::next(SimOp::Truncate),
        ]));
        let ctx = Arc::new(ctx);
        let c = ctx.clone();
        let halted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            run(&c, &mut s, "INSERT INTO d.z VALUES (1)")
        }));
        let msg = match halted {
            Err(p) => p.downcast_ref::<String>().cloned().unwrap_or_default(),
            Ok(r) => panic!("{setup:?}: the client was told {r:?}"),
        };
        assert!(msg.contains("halt"), "{setup:?}: {msg}");
    }
}

/// Checkpoints stop once a log is poisoned: nothing more is written to a failing device.
#[test]
fn no_checkpoint_is_taken_after_a_log_failure() {
    for setup in SETUPS {
        let dir = SimDir::new();
        let (ctx, mut s) = prepare(setup, &dir, false);
        dir.set_faults(Faults::rules(vec![FaultRule::next(SimOp::Append)]));
        assert!(run(&ctx, &mut s, "INSERT INTO d.z VALUES (1)").is_err());
        dir.set_faults(Faults::default());
        let files = dir.list().unwrap();
        assert!(
            super::checkpointer::run_checkpoint(&ctx).is_err(),
            "{setup:?}: a checkpoint was taken on a poisoned log"
        );
        assert_eq!(dir.list().unwrap(), files, "{setup:?}");
    }
}

/// A failed checkpoint (full disk) costs no commit and no data.
#[test]
fn a_failed_checkpoint_leaves_commits_and_recovery_intact() {
    for setup in SETUPS {
        let dir = SimDir::new();
        let (ctx, mut s) = prepare(setup, &dir, false);
        dir.set_faults(Faults::rules(vec![FaultRule::next(SimOp::WriteAtomic)]));
        let r = super::checkpointer::run_checkpoint(&ctx);
        dir.set_faults(Faults::default());
        assert!(r.is_err(), "{setup:?}: {r:?}");
        run(&ctx, &mut s, "INSERT INTO d.z VALUES (1)").unwrap();
        let want = fingerprint(&ctx);
        assert_eq!(
            fingerprint(&setup.open(&dir.restart_image())),
            want,
            "{setup:?}"
        );
    }
}

/// PURGE whose index rewrite fails removes nothing and forgets nothing.
#[test]
fn a_failed_purge_keeps_every_file() {
    let setup = Setup::OneLog { sync_binlog: 1 };
    let dir = SimDir::new();
    let (ctx, mut s) = prepare(setup, &dir, true);
    run(&ctx, &mut s, "INSERT INTO d.z VALUES (1)").unwrap();
    super::checkpointer::run_checkpoint(&ctx).unwrap();
    let files = ctx.pipeline.with_binlog(|b| b.list()).unwrap();
    assert!(files.len() >= 2);
    let last = files.last().unwrap().0.clone();
    dir.set_faults(Faults::rules(vec![FaultRule::next(SimOp::WriteAtomic)]));
    assert!(run(&ctx, &mut s, &format!("PURGE BINARY LOGS TO '{last}'")).is_err());
    dir.set_faults(Faults::default());
    assert_eq!(ctx.pipeline.with_binlog(|b| b.list()).unwrap(), files);
    run(&ctx, &mut s, "INSERT INTO d.z VALUES (2)").unwrap();
    let want = fingerprint(&ctx);
    assert_eq!(fingerprint(&setup.open(&dir.restart_image())), want);
}

/// FLUSH BINARY LOGS whose rotation fails: the statement fails, the log is poisoned, every
/// acknowledged commit stays.
#[test]
fn a_failed_flush_binary_logs_poisons_and_keeps_what_was_acknowledged() {
    for op in [
        SimOp::Append,
        SimOp::Sync,
        SimOp::Create,
        SimOp::WriteAtomic,
    ] {
        let setup = Setup::OneLog { sync_binlog: 1 };
        let dir = SimDir::new();
        let (ctx, mut s) = prepare(setup, &dir, false);
        let want = fingerprint(&ctx);
        dir.set_faults(Faults::rules(vec![FaultRule::next(op)]));
        let e = run(&ctx, &mut s, "FLUSH BINARY LOGS").unwrap_err();
        dir.set_faults(Faults::default());
        assert_eq!(e.code(), ErrorCode::ErrorOnWrite, "{op:?}");
        assert!(run(&ctx, &mut s, "INSERT INTO d.z VALUES (1)").is_err());
        assert_eq!(fingerprint(&ctx), want);
        assert_eq!(fingerprint(&setup.open(&dir.restart_image())), want);
        assert_eq!(fingerprint(&setup.open(&dir.crash_image())), want);
    }
}

/// How a commit's client learns its outcome.
#[derive(Clone, Copy, Debug)]
enum Completion {
    /// Thread per connection: the session waits on its ticket.
    Blocking,
    /// Pool of threads: a deferred ticket, the outcome comes to a callback.
    Deferred,
}

/// One autocommit INSERT by a session of its own; its outcome as the client learns it.
fn insert_as_client(ctx: &ServerContext, conn: u32, id: i64, how: Completion) -> Result<()> {
    let mut s = SessionState::new(conn, "root", "%", None);
    let (tx, rx) = std::sync::mpsc::channel();
    if let Completion::Deferred = how {
        let tx = std::sync::Mutex::new(tx);
        s.commit_notifier = Some(Arc::new(move |r| {
            let _ = tx.lock().unwrap().send(r);
        }));
    }
    run(ctx, &mut s, &format!("INSERT INTO d.z VALUES ({id})"))?;
    match how {
        Completion::Blocking => Ok(()),
        Completion::Deferred => rx.recv().expect("a deferred commit is always completed"),
    }
}

/// Groups of many members failing (a torn write, a failed sync) or committed before a
/// failed rotation, with every way of committing a group (leader or chained), of waking its
/// members (targeted or broadcast) and of completing them (blocking or deferred): each client
/// is told what recovery replays, and nothing half of a group survives.
#[test]
fn concurrent_groups_are_all_or_nothing_in_every_commit_and_completion_mode() {
    let setups = [
        Setup::OneLog { sync_binlog: 1 },
        Setup::RedoOnly { flush: 1 },
        Setup::Classic { placement: "group" },
        Setup::Classic {
            placement: "prepare",
        },
    ];
    for setup in setups {
        let log = if setup.has_binlog() { "binlog" } else { "redo" };
        let faults = [
            (
                "torn group write",
                FaultRule::torn_append(1, usize::MAX).in_file(log),
                false,
            ),
            (
                "failed group sync",
                FaultRule::after(SimOp::Sync, 1).in_file(log),
                false,
            ),
            ("failed rotation", FaultRule::next(SimOp::Create), true),
        ];
        for (what, rule, rotate) in faults {
            if rotate && !setup.has_binlog() {
                continue;
            }
            for scheduling in ["ON", "OFF"] {
                for wakeup in ["targeted", "broadcast"] {
                    for how in [Completion::Blocking, Completion::Deferred] {
                        let label = format!("{setup:?} {what} {scheduling} {wakeup} {how:?}");
                        concurrent_run(
                            &label,
                            setup,
                            rule.clone(),
                            rotate,
                            scheduling,
                            wakeup,
                            how,
                        );
                    }
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn concurrent_run(
    label: &str,
    setup: Setup,
    rule: FaultRule,
    rotate: bool,
    scheduling: &str,
    wakeup: &str,
    how: Completion,
) {
    let dir = SimDir::new();
    let (ctx, mut s) = prepare(setup, &dir, rotate);
    for sql in [
        format!("SET GLOBAL binlog_optimize_thread_scheduling = {scheduling}"),
        format!("SET GLOBAL commit_wakeup = '{wakeup}'"),
        "SET GLOBAL log_sync_delay_us = 5000".to_string(),
    ] {
        run(&ctx, &mut s, &sql).unwrap();
    }
    let before = fingerprint(&ctx);
    dir.set_faults(Faults::rules(vec![rule]));
    let ctx = Arc::new(ctx);
    let told = Arc::new(std::sync::Mutex::new(Vec::new()));
    let threads: Vec<_> = (0..6)
        .map(|t| {
            let (ctx, told) = (ctx.clone(), told.clone());
            std::thread::spawn(move || {
                for i in 0..3 {
                    let id = 1000 + t * 10 + i;
                    let r = insert_as_client(&ctx, 10 + t as u32, id, how);
                    told.lock().unwrap().push((id, r.is_ok()));
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|h| h.join().unwrap());
    dir.set_faults(Faults::default());
    let told = told.lock().unwrap().clone();
    assert!(
        told.iter().any(|(_, ok)| !ok),
        "{label}: the fault never fired"
    );
    // The expected state: what was before, plus every row whose client was told OK.
    let ok: Vec<i64> = told
        .iter()
        .filter(|(_, ok)| *ok)
        .map(|(id, _)| *id)
        .collect();
    let has = |fp: &[String], id: i64| fp.iter().any(|l| l == &format!("  d.z [Int({id})]"));
    for (name, fp) in [
        ("the server", fingerprint(&ctx)),
        ("a restart", fingerprint(&setup.open(&dir.restart_image()))),
        ("a crash", fingerprint(&setup.open(&dir.crash_image()))),
    ] {
        for (id, was_ok) in &told {
            assert_eq!(has(&fp, *id), *was_ok, "{label}: {name}, row {id}");
        }
        let rest: Vec<&String> = fp
            .iter()
            .filter(|l| !ok.iter().any(|id| has(&[(*l).clone()], *id)))
            .collect();
        let before: Vec<&String> = before.iter().collect();
        assert_eq!(
            rest, before,
            "{label}: {name} has rows nobody was told about"
        );
    }
}

/// A failed DDL statement has no partial effect — except a DROP TABLE list that meets a
/// missing table, which (as in MariaDB) drops the tables that exist, logs that, and reports
/// the missing one. Either way the server and a restart agree.
#[test]
fn a_failed_ddl_statement_leaves_what_recovery_replays() {
    for setup in SETUPS {
        let dir = SimDir::new();
        let (ctx, mut s) = prepare(setup, &dir, false);
        let before = fingerprint(&ctx);
        let e = run(
            &ctx,
            &mut s,
            "ALTER TABLE d.t ADD INDEX i2 (v), ADD UNIQUE INDEX i3 (nope)",
        )
        .unwrap_err();
        assert_eq!(e.code(), ErrorCode::KeyColumnDoesNotExist, "{setup:?}");
        assert_eq!(
            fingerprint(&ctx),
            before,
            "{setup:?}: the ALTER left a part"
        );
        let e = run(&ctx, &mut s, "DROP TABLE d.t, d.nosuch").unwrap_err();
        assert_eq!(e.code(), ErrorCode::BadTable, "{setup:?}");
        let after = fingerprint(&ctx);
        assert!(
            !after.iter().any(|l| l.starts_with("table d.t ")),
            "{setup:?}"
        );
        assert!(
            after.iter().any(|l| l.starts_with("table d.z ")),
            "{setup:?}"
        );
        assert_eq!(
            fingerprint(&setup.open(&dir.restart_image())),
            after,
            "{setup:?}"
        );
        if setup.durable_on_crash() {
            assert_eq!(
                fingerprint(&setup.open(&dir.crash_image())),
                after,
                "{setup:?}"
            );
        }
    }
}
