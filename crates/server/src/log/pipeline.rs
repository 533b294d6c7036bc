//! The commit pipeline: numbered stages, one leader per group.
//!
//! See the module doc of [`crate::log`] for the protocol and its crash table. This file is the
//! code of those stages, one function each:
//!
//! - [`CommitPipeline::commit`]: enqueue; lead if first; wait for completion.
//! - [`CommitPipeline::commit_async`]: enqueue; lead if first; return. The outcome is given to
//!   a callback when the group completes (pool of threads: no thread waits for durability).
//! - `lead`: stage 2 (gather), 3 (write), 4 (sync), then 5 (engine commit in order) and 6
//!   (complete) — by the leader for the whole group, or chained member to member. Stages 3
//!   and 4 (`write_and_sync`, `write_redo`) decide the group's outcome once, as a `Written`:
//!   committed (past its commit point, whatever failed after it) or failed (its bytes cut
//!   from the log first, `cut_failed_group`); see "Failures" in [`crate::log`].
//! - Classic mode (see "Classic two-phase commit" in [`crate::log`]):
//!   [`CommitPipeline::prepare_in_redo`] is the session's redo Prepare (stage C1),
//!   `sync_group_prepares` the leader's redo sync before the binlog write (C3), and
//!   `finish_group` appends the group's Commit records (C6).

use super::binlog::{relocate, BinlogFiles, LogPosition};
use super::binlog_reader::BinlogEnd;
use super::device::{LogDir, Poison, PoisonInfo};
use super::group::{BroadcastDone, CommitQueue, CommitTurn, OnDone, Ticket, Wakeup};
use super::redo::{Lsn, RedoLog};
use super::semisync::{self, Tracker};
use crate::error::{Error, Result};
use crate::storage::{Engine, Txn, TxnId};
use crate::types::Value;
use crate::vars::SystemVariables;
use crate::wait::{self, ev};
use parking_lot::{Condvar, Mutex};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Which logs make a commit durable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitMode {
    /// Binlog on, and the binlog is the redo log: one fsync per group (the default).
    OneLog,
    /// Binlog on plus the engine redo log, two-phase commit (`commit_mode = classic`): a redo
    /// Prepare record per transaction, synced at prepare or once per group
    /// (`log_flush_placement`), then the binlog as the commit coordinator.
    Classic,
    /// Binlog off: the engine redo log alone, one fsync per group
    /// (`innodb_flush_log_at_trx_commit = 1`; 0 and 2 sync once a second).
    RedoOnly,
    /// No log at all: data is lost at restart (tests only).
    Memory,
}

/// One transaction (or DDL statement) handed to the pipeline.
pub struct Work {
    /// The prepared engine transaction; None for DDL (already applied).
    pub txn: Option<Txn>,
    /// Its binlog events, encoded at offset 0; moved into the log by the leader.
    pub binlog: Vec<u8>,
    /// Its redo record (binlog-off mode), appended by the leader.
    pub redo: Vec<u8>,
    /// Classic mode: its Prepare record, already appended by the session.
    prepared: Option<Prepared>,
    /// Chained mode: the member to hand the engine-commit turn to, or (the last member) how to
    /// finish the group.
    chain: Option<Chain>,
}

/// Classic mode: where a prepared transaction's redo Prepare record lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prepared {
    pub xid: u64,
    /// The record's first byte: a checkpoint's replay must start at or before it while the
    /// transaction is in flight.
    pub lsn: Lsn,
    /// Just past the record: the leader syncs the redo log up to here before the binlog write.
    pub end: Lsn,
}

impl Work {
    pub fn new(txn: Option<Txn>, binlog: Vec<u8>) -> Work {
        Work {
            txn,
            binlog,
            redo: Vec::new(),
            prepared: None,
            chain: None,
        }
    }

    /// A transaction (or DDL) whose durability is a redo record.
    pub fn with_redo(txn: Option<Txn>, redo: Vec<u8>) -> Work {
        Work {
            txn,
            binlog: Vec::new(),
            redo,
            prepared: None,
            chain: None,
        }
    }

    /// Classic mode: a transaction whose Prepare record is in the redo log
    /// ([`CommitPipeline::prepare_in_redo`]), and its binlog events.
    pub fn prepared(txn: Txn, binlog: Vec<u8>, prepared: Prepared) -> Work {
        Work {
            prepared: Some(prepared),
            ..Work::new(Some(txn), binlog)
        }
    }

    /// Classic mode: a DDL statement whose `PreparedDdl` record is in the redo log
    /// ([`CommitPipeline::log_ddl_in_redo`]), and its binlog events.
    pub fn prepared_ddl(binlog: Vec<u8>, prepared: Prepared) -> Work {
        Work {
            prepared: Some(prepared),
            ..Work::new(None, binlog)
        }
    }
}

/// A chained group's hand-over: each member passes the turn to `next`; the last one (no `next`)
/// finishes the group.
struct Chain {
    next: Option<Arc<Ticket<Work>>>,
    finish: Option<GroupEnd>,
}

/// What finishing a group's engine commits takes (stage 5's tail, see `finish_group`).
struct GroupEnd {
    group: u64,
    /// The log position just past the group.
    end: Option<LogPosition>,
    /// Classic mode: the members' Prepare records, to close with Commit records.
    prepared: Vec<Prepared>,
}

/// How far a group got through stages 3 and 4 (see "Failures" in [`crate::log`]).
enum Written {
    /// Past its commit point: committed, whatever failed after it (a rotation). `end` is the
    /// log position just past the group.
    Committed { end: Option<LogPosition> },
    /// Failed before its commit point; its bytes were cut from the log.
    Failed(Error),
}

/// Stop the process at once: a log failure left an outcome that cannot be told truthfully.
/// Like MySQL's `binlog_error_action = ABORT_SERVER`. In unit tests it panics instead, so a
/// test can observe it.
fn halt(why: &str) -> ! {
    tracing::error!("halting: {why}");
    if cfg!(test) {
        panic!("halt: {why}");
    }
    eprintln!("cohort: halting: {why}");
    std::process::abort();
}

/// Counters shown in SHOW GLOBAL STATUS. Relaxed atomics.
#[derive(Default)]
pub struct PipelineStats {
    pub commits: AtomicU64,
    pub groups: AtomicU64,
    pub trigger_count: AtomicU64,
    pub trigger_timeout: AtomicU64,
    pub trigger_lock_wait: AtomicU64,
    /// Bytes appended to the binlog (drives checkpoints by log volume).
    pub binlog_bytes: AtomicU64,
    pub checkpoints: AtomicU64,
    pub checkpoint_last_ms: AtomicU64,
}

/// The settings a leader reads once per group (all dynamic variables).
#[derive(Clone, Copy)]
struct GroupSettings {
    sync_binlog: u64,
    sync_delay_us: u64,
    leader_commits_group: bool,
    max_binlog_size: u64,
    flush_log_at_trx_commit: u64,
    wait_count: u64,
    wait_usec: u64,
    /// Classic mode, `log_flush_placement = group`: the leader syncs the redo log in a flush
    /// stage of its own, before taking the log mutex (see `take_group`).
    redo_flush_stage: bool,
    /// `gtid_domain_id`: the domain of the group's GTIDs.
    gtid_domain_id: u32,
    /// `rpl_semi_sync_master_*`.
    semisync: semisync::Settings,
    /// `commit_wakeup` (read by every commit, not only leaders).
    wakeup: Wakeup,
}

impl GroupSettings {
    fn read(vars: &SystemVariables) -> GroupSettings {
        GroupSettings {
            sync_binlog: vars.global_u64("sync_binlog"),
            sync_delay_us: vars.global_u64("log_sync_delay_us"),
            leader_commits_group: vars.global_bool("binlog_optimize_thread_scheduling"),
            max_binlog_size: vars.global_u64("max_binlog_size"),
            flush_log_at_trx_commit: vars.global_u64("innodb_flush_log_at_trx_commit"),
            wait_count: vars.global_u64("binlog_commit_wait_count"),
            wait_usec: vars.global_u64("binlog_commit_wait_usec"),
            redo_flush_stage: !matches!(
                vars.global("log_flush_placement"),
                Some(Value::Bytes(b)) if b == b"prepare"
            ),
            gtid_domain_id: vars.global_u64("gtid_domain_id") as u32,
            semisync: semisync::Settings::read(vars),
            wakeup: wakeup_mode(vars),
        }
    }
}

/// The largest allocation [`LogState::group_bytes`] keeps between groups (a bulk load's
/// group gives its memory back).
const GROUP_BYTES_KEPT: usize = 4 << 20;

/// After a group's write: free [`LogState::group_bytes`] if a large group grew it past
/// [`GROUP_BYTES_KEPT`].
fn give_back_if_large(buf: &mut Vec<u8>) {
    if buf.capacity() > GROUP_BYTES_KEPT {
        *buf = Vec::new();
    }
}

/// What the log mutex (`LOCK_log`) protects: held by one leader through write and sync.
struct LogState {
    binlog: Option<BinlogFiles>,
    /// The next GTID sequence number: above every GTID in the binlog, whatever its domain
    /// (recovery sets it past the checkpoint's and every GTID it read).
    next_gtid_seq: u64,
    /// The GTIDs of the group being written (emptied before each group, allocation kept).
    group_gtids: Vec<cohort_binlog::Gtid>,
    next_group: u64,
    /// The group's binlog bytes (or, binlog off, its redo records) are gathered here (emptied
    /// before each group, its allocation kept: a group of hundreds of transactions would
    /// otherwise regrow it every time).
    group_bytes: Vec<u8>,
}

/// The commit pipeline of one server.
pub struct CommitPipeline {
    mode: CommitMode,
    engine: Arc<Engine>,
    queue: CommitQueue<Work>,
    /// Held by a leader through its group's write and sync: its waiters park at once (see
    /// [`wait::ParkingMutex`]).
    log: wait::ParkingMutex<LogState, ev::LockLog>,
    /// The flush stage (classic mode, `log_flush_placement = group`): held by a leader from
    /// taking its group through the group's redo sync until it holds `log`. The next leader can
    /// then flush its group's redo while this one writes and syncs the binlog, as MySQL 5.7's
    /// separate flush and sync stages allow. Always taken before `log`, never after.
    flush_stage: wait::ParkingMutex<(), ev::FlushStage>,
    /// Engine commits happen group after group in log order.
    turn: CommitTurn,
    bcast: BroadcastDone,
    /// Woken when the queue grows, for `binlog_commit_wait_count`.
    queue_grew: (wait::Mutex<(), ev::GatherLock>, Condvar),
    /// True while a leader waits in `gather`: only then do arrivals signal `queue_grew`.
    gathering: std::sync::atomic::AtomicBool,
    /// The last [`GroupSettings`] read, with the variables (address) and their generation
    /// it was read at: a leader reads them again only after a `SET GLOBAL`.
    settings: Mutex<Option<(usize, u64, GroupSettings)>>,
    /// Log position up to which every transaction is committed in the engine (checkpoints
    /// start their replay here). Protected by its own mutex.
    committed_upto: Mutex<Option<LogPosition>>,
    /// The engine redo log (binlog-off mode); it has its own locking.
    redo: Option<Arc<RedoLog>>,
    /// `log_sync_delay_us`, shared with the redo log.
    redo_delay: Arc<AtomicU64>,
    /// The redo log's directory (checkpoints live there too).
    redo_dir: Option<Arc<dyn LogDir>>,
    /// Classic mode: the start LSNs of the Prepare records of transactions prepared and not yet
    /// finished (engine commit, Commit record, `committed_upto` advanced). Protected by this
    /// mutex, which is also held across each Prepare record's append, so a checkpoint reading
    /// the set and the redo end under it never misses a record appended but not registered.
    /// A failed group's records stay here: nothing commits after a failure, and the checkpoints
    /// keep replaying from them (recovery resolves them against the binlog).
    inflight: Mutex<BTreeSet<Lsn>>,
    /// The binlog's poison latch (shared with `BinlogFiles`), readable without the log mutex.
    binlog_poison: Option<Arc<Poison>>,
    /// The binlog's committed end, for readers that must not take the log mutex.
    binlog_end: Option<Arc<BinlogEnd>>,
    /// One DDL statement from its effect to its logged outcome, or one checkpoint's snapshot,
    /// at a time: a checkpoint never sees a DDL whose outcome is not known, and a DDL's undo
    /// never races another's (see [`CommitPipeline::lock_ddl`]).
    ddl: wait::Mutex<(), ev::DdlLock>,
    /// Semi-synchronous replication: groups waiting for a replica's acknowledgement
    /// ([`super::semisync`]); shared with its timer thread.
    semisync: Arc<Tracker<Held>>,
    /// `rpl_semi_sync_master_enabled`, for the status rows (kept by [`Self::follow_settings`]).
    semisync_enabled: std::sync::atomic::AtomicBool,
    /// The timer thread of `semisync` was started.
    semisync_timer: std::sync::atomic::AtomicBool,
    /// This pipeline, for the threads it starts ([`Self::attach`]).
    me: std::sync::OnceLock<std::sync::Weak<CommitPipeline>>,
    pub stats: PipelineStats,
}

/// A group held for a replica's acknowledgement (semi-sync), and what finishing it takes.
struct Held {
    group: Vec<Arc<Ticket<Work>>>,
    /// AFTER_SYNC: the engine commit is still to do. AFTER_COMMIT: None, only the answers are.
    finish: Option<GroupEnd>,
}

impl CommitPipeline {
    pub fn memory(engine: Arc<Engine>) -> CommitPipeline {
        CommitPipeline::new(CommitMode::Memory, engine, None, 1)
    }

    pub fn one_log(engine: Arc<Engine>, binlog: BinlogFiles, next_gtid_seq: u64) -> CommitPipeline {
        CommitPipeline::new(CommitMode::OneLog, engine, Some(binlog), next_gtid_seq)
    }

    /// Binlog off: commits are made durable by the redo log.
    pub fn redo_only(
        engine: Arc<Engine>,
        redo: Arc<RedoLog>,
        delay: Arc<AtomicU64>,
        dir: Arc<dyn LogDir>,
    ) -> CommitPipeline {
        let mut p = CommitPipeline::new(CommitMode::RedoOnly, engine, None, 1);
        *p.committed_upto.get_mut() = Some(redo_position(redo.end_lsn()));
        p.redo = Some(redo);
        p.redo_delay = delay;
        p.redo_dir = Some(dir);
        p
    }

    /// Binlog on plus the engine redo log, two-phase commit (classic mode).
    pub fn classic(
        engine: Arc<Engine>,
        binlog: BinlogFiles,
        next_gtid_seq: u64,
        redo: Arc<RedoLog>,
        delay: Arc<AtomicU64>,
        dir: Arc<dyn LogDir>,
    ) -> CommitPipeline {
        let mut p = CommitPipeline::new(CommitMode::Classic, engine, Some(binlog), next_gtid_seq);
        p.redo = Some(redo);
        p.redo_delay = delay;
        p.redo_dir = Some(dir);
        p
    }

    /// The redo log, in binlog-off and classic mode.
    pub fn redo(&self) -> Option<&Arc<RedoLog>> {
        self.redo.as_ref()
    }

    /// Where this pipeline's logs (and checkpoints) live.
    pub fn log_dir(&self) -> Option<Arc<dyn LogDir>> {
        self.redo_dir
            .clone()
            .or_else(|| self.with_binlog(|b| b.dir()))
    }

    fn new(
        mode: CommitMode,
        engine: Arc<Engine>,
        binlog: Option<BinlogFiles>,
        next_gtid_seq: u64,
    ) -> CommitPipeline {
        let upto = binlog.as_ref().map(|b| b.position());
        let binlog_poison = binlog.as_ref().map(|b| b.poison().clone());
        let binlog_end = binlog.as_ref().map(|b| b.committed_end());
        if let Some(end) = &binlog_end {
            // One-log mode: the binlog is the redo log, so only synced events may leave the
            // server (see `binlog_reader`).
            end.set_follow_synced(mode == CommitMode::OneLog);
            if let Some(b) = &binlog {
                b.publish_committed();
            }
        }
        CommitPipeline {
            mode,
            engine,
            queue: CommitQueue::default(),
            log: wait::ParkingMutex::new(LogState {
                binlog,
                next_gtid_seq,
                group_gtids: Vec::new(),
                next_group: 0,
                group_bytes: Vec::new(),
            }),
            turn: CommitTurn::default(),
            bcast: BroadcastDone::default(),
            flush_stage: wait::ParkingMutex::new(()),
            queue_grew: (wait::Mutex::new(()), Condvar::new()),
            gathering: std::sync::atomic::AtomicBool::new(false),
            settings: Mutex::new(None),
            committed_upto: Mutex::new(upto),
            redo: None,
            redo_delay: Arc::new(AtomicU64::new(0)),
            redo_dir: None,
            inflight: Mutex::new(BTreeSet::new()),
            binlog_poison,
            binlog_end,
            ddl: wait::Mutex::new(()),
            semisync: Arc::new(Tracker::default()),
            semisync_enabled: std::sync::atomic::AtomicBool::new(false),
            semisync_timer: std::sync::atomic::AtomicBool::new(false),
            me: std::sync::OnceLock::new(),
            stats: PipelineStats::default(),
        }
    }

    pub fn mode(&self) -> CommitMode {
        self.mode
    }

    /// The binlog's committed end and files, readable without the log mutex (None without a
    /// binlog). See [`super::binlog_reader`].
    pub fn binlog_end(&self) -> Option<&Arc<BinlogEnd>> {
        self.binlog_end.as_ref()
    }

    /// The first failure of a log, if one is poisoned: no commit can succeed any more.
    pub fn poisoned(&self) -> Option<PoisonInfo> {
        let binlog = self.binlog_poison.as_ref().and_then(|p| p.get());
        binlog.or_else(|| self.redo.as_ref().and_then(|r| r.poisoned()))
    }

    /// Held by a DDL statement from before its effect until its outcome is logged (or undone),
    /// and by a checkpoint while it snapshots: a checkpoint must not capture a DDL that may
    /// still fail and be undone. DDL statements are rare; they run one at a time. A reported
    /// wait.
    pub fn lock_ddl(&self) -> parking_lot::MutexGuard<'_, ()> {
        self.ddl.lock_blocking()
    }

    /// Does this pipeline write a binlog (so sessions must encode events)?
    pub fn writes_binlog(&self) -> bool {
        matches!(self.mode, CommitMode::OneLog | CommitMode::Classic)
    }

    /// Does this pipeline make commits durable with one redo `Committed` record each (binlog
    /// off), so sessions must encode them?
    pub fn writes_redo(&self) -> bool {
        self.mode == CommitMode::RedoOnly
    }

    /// Classic mode: do sessions write a redo Prepare record before the binlog?
    pub fn two_phase(&self) -> bool {
        self.mode == CommitMode::Classic
    }

    /// Classic stage C1 (session thread): append the transaction's Prepare record (`record`,
    /// encoded by the caller outside any lock) and register it as in flight; with
    /// `log_flush_placement = prepare` and `innodb_flush_log_at_trx_commit = 1`, sync the redo
    /// log up to it (concurrent sessions share fsyncs in `RedoLog::sync_to`). On error the
    /// caller rolls the transaction back: the redo log is poisoned.
    pub fn prepare_in_redo(
        &self,
        vars: &SystemVariables,
        xid: u64,
        record: &[u8],
    ) -> Result<Prepared> {
        let redo = self.redo.as_ref().expect("classic mode has a redo log");
        let prepared = {
            let mut inflight = self.inflight.lock();
            let end = redo.append(record).map_err(|p| p.to_error())?;
            let lsn = Lsn(end.0 - record.len() as u64);
            inflight.insert(lsn);
            Prepared { xid, lsn, end }
        };
        let at_prepare = matches!(
            vars.global("log_flush_placement"),
            Some(Value::Bytes(b)) if b == b"prepare"
        );
        if at_prepare && vars.global_u64("innodb_flush_log_at_trx_commit") == 1 {
            self.redo_delay
                .store(vars.global_u64("log_sync_delay_us"), Relaxed);
            redo.sync_to(prepared.end).map_err(|p| p.to_error())?;
        }
        Ok(prepared)
    }

    /// Classic mode, DDL: append the statement's `PreparedDdl` record (`record`, for `xid`) and
    /// register it as in flight, as [`CommitPipeline::prepare_in_redo`] does for a transaction;
    /// with `innodb_flush_log_at_trx_commit = 1`, sync it. Its binlog Query event (carrying
    /// `xid`) then goes through the pipeline: recovery replays the statement only if that
    /// event is in the binlog (or its Commit record follows), so a DDL whose group fails is
    /// not replayed.
    pub fn log_ddl_in_redo(
        &self,
        vars: &SystemVariables,
        xid: u64,
        record: &[u8],
    ) -> Result<Prepared> {
        let redo = self.redo.as_ref().expect("classic mode has a redo log");
        let prepared = {
            let mut inflight = self.inflight.lock();
            let end = redo.append(record).map_err(|p| p.to_error())?;
            let lsn = Lsn(end.0 - record.len() as u64);
            inflight.insert(lsn);
            Prepared { xid, lsn, end }
        };
        if vars.global_u64("innodb_flush_log_at_trx_commit") == 1 {
            self.redo_delay
                .store(vars.global_u64("log_sync_delay_us"), Relaxed);
            redo.sync_to(prepared.end).map_err(|p| p.to_error())?;
        }
        Ok(prepared)
    }

    /// Classic mode: where a checkpoint taken now may start its redo replay — the oldest
    /// in-flight Prepare record, or the end of the log when none is in flight. None in the
    /// other modes.
    pub fn classic_replay_start(&self) -> Option<Lsn> {
        let redo = self.redo.as_ref().filter(|_| self.two_phase())?;
        let inflight = self.inflight.lock();
        Some(inflight.first().copied().unwrap_or_else(|| redo.end_lsn()))
    }

    /// Run a closure on the binlog files under the log mutex (SHOW BINARY LOGS, PURGE …).
    pub fn with_binlog<R>(&self, f: impl FnOnce(&mut BinlogFiles) -> R) -> Option<R> {
        self.log.lock().binlog.as_mut().map(f)
    }

    /// Is a leader (or anyone) holding the log mutex right now? (Tests.)
    #[cfg(test)]
    pub(crate) fn log_mutex_held(&self) -> bool {
        self.log.try_lock().is_none()
    }

    /// The position through which every transaction is committed in the engine.
    pub fn committed_upto(&self) -> Option<LogPosition> {
        self.committed_upto.lock().clone()
    }

    /// The next GTID sequence number (for checkpoints).
    pub fn next_gtid_seq(&self) -> u64 {
        self.log.lock().next_gtid_seq
    }

    /// One-log mode with `sync_binlog` ≠ 1: a dump thread has sent everything synced and
    /// more is committed; make it durable so that it may leave (see
    /// [`super::binlog_reader`]). Coalesced: a caller that finds `upto` synced meanwhile
    /// (by a group's sync, or another dump thread's) syncs nothing. Takes the log mutex for
    /// one fsync, like a group; a failure poisons the log (nothing is acknowledged on it).
    pub fn sync_for_replicas(&self, vars: &SystemVariables, upto: &LogPosition) {
        let mut log = self.log.lock_blocking();
        let Some(b) = log.binlog.as_mut() else {
            return;
        };
        if b.current_name() != upto.file || b.synced() >= upto.pos {
            return;
        }
        if let Err(p) = b.sync_for_readers(vars.global_u64("log_sync_delay_us")) {
            tracing::error!(
                "syncing the binlog for replicas failed, the binlog is poisoned: {}",
                p.to_error().message()
            );
        }
    }

    /// Stage 1 → 6 for one transaction: returns once it is durable and visible, or failed
    /// (then it is rolled back).
    pub fn commit(&self, vars: &SystemVariables, work: Work) -> Result<()> {
        if self.mode == CommitMode::Memory {
            if let Some(txn) = work.txn {
                self.engine.commit(txn);
            }
            return Ok(());
        }
        let wakeup = self.group_settings(vars).wakeup;
        let ticket = Ticket::new(work, wakeup);
        if self.queue.enqueue(ticket.clone()) {
            self.lead(vars);
        } else {
            if self.gathering.load(Relaxed) {
                let _g = self.queue_grew.0.lock();
                self.queue_grew.1.notify_one();
            }
        }
        while !ticket.wait(&self.bcast) {
            // Chained mode: our turn to commit ourselves in the engine.
            self.commit_own_and_pass(&ticket);
        }
        ticket.result()
    }

    /// Stage 1 → 6 without waiting: the pool of threads' commit (asynchronous commit
    /// completion). The transaction joins the queue with a deferred ticket; if it finds the
    /// queue empty, the calling thread leads the group right here (the leader's serial work is
    /// the same as in [`CommitPipeline::commit`]). Otherwise it returns at once and the thread is
    /// free for other connections. Either way `on_done` is called exactly once, with the
    /// outcome, on the thread that completes the group — possibly before this returns. On
    /// error the transaction has been rolled back.
    ///
    /// A group containing a deferred ticket is always committed in the engine by its leader:
    /// chained commit (`binlog_optimize_thread_scheduling = OFF`) needs every member's own
    /// thread, and a deferred member has none. So that variable applies to
    /// thread-per-connection only.
    pub fn commit_async(&self, vars: &SystemVariables, work: Work, on_done: OnDone) {
        if self.mode == CommitMode::Memory {
            if let Some(txn) = work.txn {
                self.engine.commit(txn);
            }
            on_done(Ok(()));
            return;
        }
        let ticket = Ticket::deferred(work, on_done);
        if self.queue.enqueue(ticket) {
            self.lead(vars);
        } else if self.gathering.load(Relaxed) {
            let _g = self.queue_grew.0.lock();
            self.queue_grew.1.notify_one();
        }
    }

    /// The group settings, read again only when a global variable changed.
    fn group_settings(&self, vars: &SystemVariables) -> GroupSettings {
        let key = (vars as *const SystemVariables as usize, vars.generation());
        let mut cached = self.settings.lock();
        match *cached {
            Some((at, generation, s)) if (at, generation) == key => s,
            _ => {
                let s = GroupSettings::read(vars);
                *cached = Some((key.0, key.1, s));
                s
            }
        }
    }

    /// The leader's work for one group.
    fn lead(&self, vars: &SystemVariables) {
        let settings = self.group_settings(vars);
        let (group, flushed, mut log) = self.take_group(&settings);
        let g = log.next_group;
        log.next_group += 1;
        log.group_gtids.clear();
        let written = match (&self.redo, self.mode, flushed) {
            // Classic stage C3 failed: nothing of the group reached the binlog.
            (_, _, Err(e)) => Written::Failed(e),
            (Some(redo), CommitMode::RedoOnly, Ok(())) => {
                self.write_redo(redo, &mut log.group_bytes, &group, &settings)
            }
            (_, _, Ok(())) => self.write_and_sync(&mut log, &group, &settings),
        };
        let semi = &settings.semisync;
        let waits = semi.enabled && self.writes_binlog() && !log.group_gtids.is_empty();
        let txns = log.group_gtids.len() as u64;
        let members = group.len() as u64;
        if let (Written::Committed { end: Some(end) }, true) = (&written, waits && semi.after_sync)
        {
            // Semi-sync, AFTER_SYNC: held before the engine commit, registered while the log
            // mutex is held (log order).
            let held = Held {
                finish: Some(self.group_end(g, &group, Some(end.clone()))),
                group,
            };
            let now = self.semisync.register(semi, end.clone(), txns, held);
            drop(log);
            self.count_group(members);
            match now {
                Some((held, _)) => self.finish_held(held),
                None => self.start_semisync_timer(),
            }
            return;
        }
        drop(log);
        self.count_group(members);
        self.turn.wait_for(g);
        let end = match written {
            Written::Failed(e) => return self.fail_group(&group, &e, g),
            Written::Committed { end } => end,
        };
        let finish = self.group_end(g, &group, end.clone());
        if waits {
            // Semi-sync, AFTER_COMMIT: committed in the engine, the answers held.
            self.commit_in_engine(&group, finish);
            let end = end.expect("a binlog group has an end");
            let held = Held {
                group,
                finish: None,
            };
            match self.semisync.register(semi, end, txns, held) {
                Some((held, _)) => self.finish_held(held),
                None => self.start_semisync_timer(),
            }
        } else if settings.leader_commits_group {
            self.commit_group(&group, finish)
        } else {
            self.start_chain(&group, finish)
        }
    }

    fn count_group(&self, members: u64) {
        self.stats.groups.fetch_add(1, Relaxed);
        self.stats.commits.fetch_add(members, Relaxed);
    }

    /// What finishing group `g` takes (stage 5's tail, see `finish_group`).
    fn group_end(&self, g: u64, group: &[Arc<Ticket<Work>>], end: Option<LogPosition>) -> GroupEnd {
        GroupEnd {
            group: g,
            end,
            prepared: group
                .iter()
                .filter_map(|t| t.item.lock().as_ref().and_then(|w| w.prepared))
                .collect(),
        }
    }

    /// A held group was released (acknowledged, timed out, or semi-sync went off): AFTER_SYNC,
    /// commit it in the engine in its turn (log order); then answer every member.
    fn finish_held(&self, held: Held) {
        match held.finish {
            Some(finish) => {
                self.turn.wait_for(finish.group);
                self.commit_group(&held.group, finish);
            }
            None => {
                for t in &held.group {
                    t.complete(Ok(()), &self.bcast);
                }
            }
        }
    }

    fn finish_released(&self, released: semisync::Released<Held>) {
        for (held, _) in released {
            self.finish_held(held);
        }
    }

    /// Remember the `Arc` this pipeline lives in, for the threads it starts (the semi-sync
    /// timer). The server context calls it once.
    pub fn attach(self: &Arc<Self>) {
        let _ = self.me.set(Arc::downgrade(self));
    }

    /// The semi-sync timer thread (module doc of [`super::semisync`]), started the first
    /// time a group waits.
    fn start_semisync_timer(&self) {
        if self.semisync_timer.swap(true, Relaxed) {
            return;
        }
        let Some(me) = self.me.get().cloned() else {
            tracing::warn!(
                "semi-sync: no timer (pipeline not attached); groups wait for acks only"
            );
            return;
        };
        let tracker = self.semisync.clone();
        let spawned = std::thread::Builder::new()
            .name("semisync-timer".into())
            .spawn(move || {
                let mut next = None;
                while tracker.sleep(next) {
                    let (released, n) = tracker.expire(Instant::now());
                    next = n;
                    if released.is_empty() {
                        continue;
                    }
                    tracing::warn!(
                        "semi-sync: no replica acknowledged within rpl_semi_sync_master_timeout; switching to asynchronous replication"
                    );
                    if let Some(p) = me.upgrade() {
                        p.finish_released(released);
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::error!("semi-sync: cannot start the timer thread: {e}");
        }
    }

    /// A replica acknowledged receiving everything up to `pos` (its ack reader thread);
    /// `asked` is when its dump thread asked. Finishes the groups it covers, here.
    pub fn replica_ack(&self, pos: &LogPosition, asked: Option<Instant>) {
        let released = self.semisync.ack(pos, asked);
        self.finish_released(released);
    }

    /// A semi-sync replica's dump thread started (`connected`) or ended.
    pub fn semisync_client(&self, vars: &SystemVariables, connected: bool) {
        if connected {
            self.semisync.client_connected();
        } else {
            let released = self.semisync.client_gone(&semisync::Settings::read(vars));
            self.finish_released(released);
        }
    }

    /// Is `rpl_semi_sync_master_enabled` on?
    pub fn semisync_enabled(&self) -> bool {
        self.semisync_enabled.load(Relaxed)
    }

    /// A dump thread asked a replica for an acknowledgement.
    pub fn semisync_asked(&self) {
        self.semisync.asked();
    }

    /// `SET GLOBAL rpl_semi_sync_master_*` happened: turning it off releases the groups that
    /// wait.
    pub fn follow_settings(&self, vars: &SystemVariables) {
        let on = vars.global_bool("rpl_semi_sync_master_enabled");
        self.semisync_enabled.store(on, Relaxed);
        if !on {
            let released = self.semisync.disabled();
            self.finish_released(released);
        }
    }

    /// Stage 2: gather and take the group, and (classic mode) sync the redo log for it; returns
    /// the group, the redo sync's result, and the log mutex, held.
    ///
    /// With the redo sync in the leader (classic, `log_flush_placement = group`) this runs in
    /// the flush stage: the group is taken and its redo synced under `flush_stage` only, while
    /// the previous leader may still be writing and syncing the binlog under `log`; `log` is
    /// taken before `flush_stage` is released, so groups reach the binlog in the order they
    /// were taken. Otherwise the group is taken under `log`: while the previous group syncs,
    /// the queue keeps filling, which is what makes groups large.
    fn take_group(
        &self,
        s: &GroupSettings,
    ) -> (
        Vec<Arc<Ticket<Work>>>,
        Result<()>,
        std::sync::MutexGuard<'_, LogState>,
    ) {
        if self.two_phase() && s.redo_flush_stage {
            // The previous leader holds the stage through its redo sync: a reported wait.
            let flush = self.flush_stage.lock_blocking();
            self.gather(s);
            let group = self.queue.take_group();
            let flushed = self.sync_group_prepares(&group, s);
            let log = self.log.lock_blocking();
            drop(flush);
            return (group, flushed, log);
        }
        // The previous leader may hold the log mutex through its fsync: a reported wait.
        let log = self.log.lock_blocking();
        self.gather(s);
        let group = self.queue.take_group();
        let flushed = self.sync_group_prepares(&group, s);
        (group, flushed, log)
    }

    /// Classic stage C3 (leader, before the binlog write): with
    /// `innodb_flush_log_at_trx_commit = 1`, one redo sync up to the group's highest Prepare
    /// record, so no binlog transaction is durable before its Prepare record. With
    /// `log_flush_placement = prepare` every member synced its own record already and this
    /// returns without an fsync (`RedoLog::sync_to`'s fast path). With 0 or 2 the background
    /// flush covers the records once a second.
    fn sync_group_prepares(&self, group: &[Arc<Ticket<Work>>], s: &GroupSettings) -> Result<()> {
        let Some(redo) = self.redo.as_ref().filter(|_| self.two_phase()) else {
            return Ok(());
        };
        if s.flush_log_at_trx_commit != 1 {
            return Ok(());
        }
        let highest = group
            .iter()
            .filter_map(|t| t.item.lock().as_ref().and_then(|w| w.prepared))
            .map(|p| p.end)
            .max();
        if let Some(end) = highest {
            self.redo_delay.store(s.sync_delay_us, Relaxed);
            redo.sync_to(end).map_err(|p| p.to_error())?;
        }
        super::failpoint::hit("after_redo_sync");
        Ok(())
    }

    /// Stage 2: with `binlog_commit_wait_count`, wait (at most `binlog_commit_wait_usec`) for
    /// more members; stop early if a session waits on a row lock held by a queued member.
    fn gather(&self, s: &GroupSettings) {
        if s.wait_count <= 1 || s.wait_usec == 0 {
            return;
        }
        let deadline = Instant::now() + Duration::from_micros(s.wait_usec);
        let _w = crate::wait::begin(crate::wait::WaitEvent::GroupCommitWait);
        self.gathering.store(true, Relaxed);
        self.gather_until(s, deadline);
        self.gathering.store(false, Relaxed);
    }

    fn gather_until(&self, s: &GroupSettings, deadline: Instant) {
        loop {
            if self.queue.len() as u64 >= s.wait_count {
                self.stats.trigger_count.fetch_add(1, Relaxed);
                return;
            }
            if self.lock_wait_on_queued_member() {
                self.stats.trigger_lock_wait.fetch_add(1, Relaxed);
                return;
            }
            let now = Instant::now();
            if now >= deadline {
                self.stats.trigger_timeout.fetch_add(1, Relaxed);
                return;
            }
            let slice = (deadline - now).min(Duration::from_micros(200));
            let mut g = self.queue_grew.0.lock();
            self.queue_grew.1.wait_for(&mut g, slice);
        }
    }

    /// MariaDB's escape: a session blocked on a lock held by a transaction waiting in the queue
    /// would wait for the whole timeout, so the group is written now.
    fn lock_wait_on_queued_member(&self) -> bool {
        let waits = self.engine.lock_waits();
        if waits.is_empty() {
            return false;
        }
        let holders: Vec<TxnId> = waits.iter().map(|(_, h)| *h).collect();
        self.queue
            .any(|w| w.txn.as_ref().is_some_and(|t| holders.contains(&t.id())))
    }

    /// Stages 3 and 4: relocate and append every member's events in one write, then sync per
    /// `sync_binlog`: the commit point (with `sync_binlog = 1` the sync; otherwise the write,
    /// or the sync for the group that is due one). Then rotate when the file is full.
    ///
    /// A failure before the commit point fails the group, and its bytes are cut from the file
    /// first ([`CommitPipeline::cut_failed_group`]), so nothing of it can be replayed. A failure
    /// after it (the rotation) poisons the log but not the group: its clients are told OK,
    /// because recovery replays it.
    fn write_and_sync(
        &self,
        log: &mut LogState,
        group: &[Arc<Ticket<Work>>],
        s: &GroupSettings,
    ) -> Written {
        let LogState {
            binlog,
            next_gtid_seq,
            group_bytes: buf,
            group_gtids: gtids,
            ..
        } = log;
        let Some(binlog) = binlog.as_mut() else {
            return Written::Committed { end: None };
        };
        let start = binlog.pos();
        buf.clear();
        gtids.clear();
        let first_seq = *next_gtid_seq;
        let mut seq = first_seq;
        for t in group {
            let mut item = t.item.lock();
            let work = item.as_mut().expect("work present until committed");
            if work.binlog.is_empty() {
                continue;
            }
            let at = buf.len();
            buf.append(&mut work.binlog);
            let base = start + at as u64;
            gtids.push(relocate(
                &mut buf[at..],
                base,
                s.gtid_domain_id,
                seq,
                first_seq,
            ));
            seq += 1;
        }
        *next_gtid_seq = seq;
        super::failpoint::hit("before_binlog_write");
        let appended = binlog.append(buf);
        self.stats.binlog_bytes.fetch_add(buf.len() as u64, Relaxed);
        give_back_if_large(buf);
        if let Err(p) = appended {
            return self.cut_failed_group(p.to_error(), || binlog.cut_back(start));
        }
        super::failpoint::hit("after_binlog_write");
        if let Err(p) = binlog.sync_for_group(s.sync_binlog, s.sync_delay_us) {
            return self.cut_failed_group(p.to_error(), || binlog.cut_back(start));
        }
        super::failpoint::hit("after_binlog_sync");
        // The commit point is passed: its GTIDs enter the state, readers may see the group,
        // recovery replays it.
        for g in gtids.iter() {
            binlog.record_gtid(*g);
        }
        binlog.publish_committed();
        let end = binlog.position();
        if end.pos >= s.max_binlog_size {
            super::failpoint::hit("before_rotate");
            if let Err(p) = binlog.rotate(s.sync_delay_us) {
                tracing::error!(
                    "binlog rotation after a committed group failed, the binlog is poisoned: {}",
                    p.to_error().message()
                );
            }
            super::failpoint::hit("after_rotate");
        }
        Written::Committed { end: Some(end) }
    }

    /// Stages 3 and 4 in binlog-off mode: append the group's redo records in one write, then
    /// one fsync (`innodb_flush_log_at_trx_commit = 1`) — the commit point. With 0 or 2 the
    /// write is the commit point and the background flusher syncs once a second: a machine
    /// crash can lose up to a second of commits. A failure before the commit point cuts the
    /// group's bytes and fails it, as in [`CommitPipeline::write_and_sync`]. Only leaders
    /// append to the redo log in this mode (under the log mutex), so the group's records are
    /// its last bytes.
    fn write_redo(
        &self,
        redo: &RedoLog,
        buf: &mut Vec<u8>,
        group: &[Arc<Ticket<Work>>],
        s: &GroupSettings,
    ) -> Written {
        buf.clear();
        for t in group {
            if let Some(w) = t.item.lock().as_mut() {
                buf.append(&mut w.redo);
            }
        }
        self.redo_delay.store(s.sync_delay_us, Relaxed);
        let start = redo.end_lsn();
        super::failpoint::hit("before_binlog_write");
        let r = redo.append(buf).and_then(|end| {
            super::failpoint::hit("after_binlog_write");
            if s.flush_log_at_trx_commit == 1 {
                redo.sync_to(end)?;
            }
            super::failpoint::hit("after_binlog_sync");
            Ok(end)
        });
        self.stats.binlog_bytes.fetch_add(buf.len() as u64, Relaxed);
        give_back_if_large(buf);
        match r {
            Ok(end) => Written::Committed {
                end: Some(redo_position(end)),
            },
            Err(p) => self.cut_failed_group(p.to_error(), || redo.cut_back(start)),
        }
    }

    /// A group failed before its commit point, with its log poisoned. Its bytes may be in the
    /// file, whole or torn: a restart would read them, and a later sync (of the file, by
    /// anyone) could make them durable. So they are cut (`cut`: truncate the file to the
    /// group's start, then sync that) before anyone is told the group failed.
    ///
    /// If even the cut fails, nothing true can be told: the group may or may not be replayed.
    /// The server then halts ([`halt`]) before completing any ticket — the clients see their
    /// connection drop, an unknown outcome, which is what it is; recovery decides.
    fn cut_failed_group(&self, error: Error, cut: impl FnOnce() -> std::io::Result<()>) -> Written {
        if let Err(e) = cut() {
            halt(&format!(
                "a commit group failed ({}) and its bytes cannot be cut from the log ({e}): \
                 whether recovery replays it is unknown, so no client can be told its outcome",
                error.message()
            ));
        }
        Written::Failed(error)
    }

    /// Stage 5 by the leader: engine commits of the whole group in order, then stage 6.
    fn commit_group(&self, group: &[Arc<Ticket<Work>>], finish: GroupEnd) {
        self.commit_in_engine(group, finish);
        for t in group {
            t.complete(Ok(()), &self.bcast);
        }
    }

    /// Stage 5 by the leader, without answering anyone.
    fn commit_in_engine(&self, group: &[Arc<Ticket<Work>>], finish: GroupEnd) {
        for t in group {
            if let Some(txn) = t.take_item().and_then(|w| w.txn) {
                self.engine.commit(txn);
            }
        }
        super::failpoint::hit("after_engine_commit");
        self.finish_group(finish);
    }

    /// The end of stage 5, once every member is committed in the engine:
    /// 1. classic mode: append the group's Commit records (one write, no sync: recovery finds
    ///    a transaction without its Commit record in the binlog; a checkpoint syncs them);
    /// 2. publish `committed_upto` (checkpoints replay from there);
    /// 3. classic mode: only then drop the Prepare records from the in-flight set, so a
    ///    checkpoint that no longer sees them also sees `committed_upto` past them;
    /// 4. let the next group commit in the engine.
    fn finish_group(&self, finish: GroupEnd) {
        self.append_commit_records(&finish.prepared);
        *self.committed_upto.lock() = finish.end;
        if !finish.prepared.is_empty() {
            let mut inflight = self.inflight.lock();
            for p in &finish.prepared {
                inflight.remove(&p.lsn);
            }
        }
        self.turn.finish(finish.group);
    }

    /// Classic stage C6: the group's Commit records in one append. A failure poisons the redo
    /// log (logged here): these transactions are committed all the same — their binlog
    /// events are durable — but every later Prepare fails.
    fn append_commit_records(&self, prepared: &[Prepared]) {
        let Some(redo) = self.redo.as_ref().filter(|_| !prepared.is_empty()) else {
            return;
        };
        let mut buf = Vec::with_capacity(prepared.len() * 16);
        for p in prepared {
            super::redo::encode_record(&mut buf, &super::redo::RedoRecord::Commit { xid: p.xid });
        }
        if let Err(p) = redo.append(&buf) {
            tracing::error!("{}", p.to_error().message());
        }
        super::failpoint::hit("after_commit_record");
    }

    /// Stage 5, chained: each member commits itself, then wakes the next; the last one
    /// finishes the group.
    fn start_chain(&self, group: &[Arc<Ticket<Work>>], finish: GroupEnd) {
        if group.iter().any(|t| t.is_deferred()) {
            // A deferred member has no thread to take its turn: the leader commits them all.
            return self.commit_group(group, finish);
        }
        let mut finish = Some(finish);
        for (i, t) in group.iter().enumerate() {
            let next = group.get(i + 1).cloned();
            let finish = if next.is_none() { finish.take() } else { None };
            if let Some(w) = t.item.lock().as_mut() {
                w.chain = Some(Chain { next, finish });
            }
        }
        // The leader is the group's first member: it takes its own turn right away.
        let first = &group[0];
        first.give_turn(&self.bcast);
    }

    /// Chained mode: commit our own transaction, pass the turn on (or finish the group).
    fn commit_own_and_pass(&self, ticket: &Arc<Ticket<Work>>) {
        let Some(work) = ticket.take_item() else {
            return;
        };
        if let Some(txn) = work.txn {
            self.engine.commit(txn);
        }
        match work.chain {
            Some(Chain {
                next: Some(next), ..
            }) => next.give_turn(&self.bcast),
            // The last member: the whole group is committed in the engine.
            Some(Chain {
                finish: Some(finish),
                ..
            }) => self.finish_group(finish),
            _ => {}
        }
        ticket.complete(Ok(()), &self.bcast);
    }

    /// The write or sync failed: nobody in the group is acknowledged; their changes are rolled
    /// back in the engine (the log is poisoned, so no later group can commit either). Classic
    /// mode: their Prepare records stay in the in-flight set (see `inflight`).
    fn fail_group(&self, group: &[Arc<Ticket<Work>>], e: &Error, g: u64) {
        for t in group {
            if let Some(txn) = t.take_item().and_then(|w| w.txn) {
                self.engine.rollback(txn);
            }
        }
        self.turn.finish(g);
        for t in group {
            t.complete(Err(e.clone()), &self.bcast);
        }
    }

    /// Clean shutdown: close the binlog with a Stop event (and sync the redo log). The log
    /// mutex stays locked for the rest of the process: no group can be written after the Stop
    /// event, so commits arriving now wait until the process exits, unacknowledged.
    pub fn shutdown(&self) {
        let mut log = self.log.lock();
        if let Some(b) = log.binlog.as_mut() {
            if let Err(p) = b.close() {
                tracing::error!("closing the binlog failed: {}", p.to_error());
            }
        }
        if let Some(redo) = &self.redo {
            if let Err(p) = redo.sync() {
                tracing::error!("syncing the redo log failed: {}", p.to_error());
            }
        }
        // Never unlocked: a forgotten guard leaves the mutex held.
        std::mem::forget(log);
    }

    /// Status rows of the pipeline and its logs.
    pub fn status(&self) -> Vec<(String, Value)> {
        let s = &self.stats;
        let commits = s.commits.load(Relaxed);
        let groups = s.groups.load(Relaxed);
        let mut out = vec![
            ("Binlog_commits".to_string(), Value::UInt(commits)),
            ("Binlog_group_commits".to_string(), Value::UInt(groups)),
            (
                "Binlog_group_commit_trigger_count".to_string(),
                Value::UInt(s.trigger_count.load(Relaxed)),
            ),
            (
                "Binlog_group_commit_trigger_lock_wait".to_string(),
                Value::UInt(s.trigger_lock_wait.load(Relaxed)),
            ),
            (
                "Binlog_group_commit_trigger_timeout".to_string(),
                Value::UInt(s.trigger_timeout.load(Relaxed)),
            ),
        ];
        let mean = if groups == 0 {
            0.0
        } else {
            commits as f64 / groups as f64
        };
        out.push((
            "Binlog_group_commit_mean_size".to_string(),
            Value::str(&format!("{mean:.2}")),
        ));
        let (n, us) = self
            .log
            .lock()
            .binlog
            .as_ref()
            .map(|b| (b.stats.count.load(Relaxed), b.stats.total_us.load(Relaxed)))
            .unwrap_or((0, 0));
        out.push(("Binlog_fsyncs".to_string(), Value::UInt(n)));
        let (rn, rus) = self.redo.as_ref().map_or((0, 0), |r| {
            let st = r.sync_stats();
            (st.count.load(Relaxed), st.total_us.load(Relaxed))
        });
        out.push(("Redo_log_fsyncs".to_string(), Value::UInt(rn)));
        out.push(("Redo_log_fsync_time_us".to_string(), Value::UInt(rus)));
        out.push((
            "Binlog_bytes_written".to_string(),
            Value::UInt(s.binlog_bytes.load(Relaxed)),
        ));
        out.push((
            "Checkpoints".to_string(),
            Value::UInt(s.checkpoints.load(Relaxed)),
        ));
        out.push((
            "Checkpoint_last_ms".to_string(),
            Value::UInt(s.checkpoint_last_ms.load(Relaxed)),
        ));
        out.push(("Binlog_fsync_time_us".to_string(), Value::UInt(us)));
        out.extend(self.semisync_status());
        out
    }

    /// `Rpl_semi_sync_master_*`, as MariaDB names them (times in microseconds).
    fn semisync_status(&self) -> Vec<(String, Value)> {
        let t = &self.semisync;
        let st = &t.stats;
        let n = |a: &AtomicU64| a.load(Relaxed);
        let avg = |sum: u64, count: u64| sum.checked_div(count).unwrap_or(0);
        let on = self.semisync_enabled.load(Relaxed)
            && t.status(&semisync::Settings {
                enabled: true,
                timeout: Duration::ZERO,
                wait_no_slave: true,
                after_sync: true,
            });
        let rows: Vec<(&str, Value)> = vec![
            ("Rpl_semi_sync_master_clients", Value::UInt(t.clients())),
            ("Rpl_semi_sync_master_get_ack", Value::UInt(n(&st.get_ack))),
            (
                "Rpl_semi_sync_master_net_avg_wait_time",
                Value::UInt(avg(n(&st.net_wait_us), n(&st.net_waits))),
            ),
            (
                "Rpl_semi_sync_master_net_wait_time",
                Value::UInt(n(&st.net_wait_us)),
            ),
            (
                "Rpl_semi_sync_master_net_waits",
                Value::UInt(n(&st.net_waits)),
            ),
            (
                "Rpl_semi_sync_master_no_times",
                Value::UInt(n(&st.no_times)),
            ),
            ("Rpl_semi_sync_master_no_tx", Value::UInt(n(&st.no_tx))),
            (
                "Rpl_semi_sync_master_request_ack",
                Value::UInt(n(&st.request_ack)),
            ),
            (
                "Rpl_semi_sync_master_status",
                Value::str(if on { "ON" } else { "OFF" }),
            ),
            (
                "Rpl_semi_sync_master_tx_avg_wait_time",
                Value::UInt(avg(n(&st.tx_wait_us), n(&st.tx_waits))),
            ),
            (
                "Rpl_semi_sync_master_tx_wait_time",
                Value::UInt(n(&st.tx_wait_us)),
            ),
            (
                "Rpl_semi_sync_master_tx_waits",
                Value::UInt(n(&st.tx_waits)),
            ),
            (
                "Rpl_semi_sync_master_wait_sessions",
                Value::UInt(t.waiting_txns()),
            ),
            ("Rpl_semi_sync_master_yes_tx", Value::UInt(n(&st.yes_tx))),
        ];
        rows.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }
}

impl Drop for CommitPipeline {
    fn drop(&mut self) {
        // Stops the semi-sync timer thread (what still waits cannot be finished any more).
        drop(self.semisync.shut_down());
    }
}

/// The position of a redo LSN in the pipeline's position type (no file name).
pub fn redo_position(lsn: Lsn) -> LogPosition {
    LogPosition {
        file: String::new(),
        pos: lsn.0,
    }
}

fn wakeup_mode(vars: &SystemVariables) -> Wakeup {
    match vars.global("commit_wakeup") {
        Some(Value::Bytes(b)) if b == b"broadcast" => Wakeup::Broadcast,
        _ => Wakeup::Targeted,
    }
}
