//! The commit pipeline: numbered stages, one leader per group.
//!
//! See the module doc of [`crate::log`] for the protocol and its crash table. This file is the
//! code of those stages, one function each:
//!
//! - [`CommitPipeline::commit`]: enqueue; lead if first; wait for completion.
//! - `lead`: stage 2 (gather), 3 (write), 4 (sync), then 5 (engine commit in order) and 6
//!   (complete) — by the leader for the whole group, or chained member to member.

use super::binlog::{relocate, BinlogFiles, LogPosition};
use super::device::LogDir;
use super::group::{BroadcastDone, CommitQueue, CommitTurn, Ticket, Wakeup};
use super::redo::{Lsn, RedoLog};
use crate::error::{Error, Result};
use crate::storage::{Engine, Txn, TxnId};
use crate::types::Value;
use crate::vars::SystemVariables;
use crate::wait::{self, ev};
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Which logs make a commit durable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitMode {
    /// Binlog on, and the binlog is the redo log: one fsync per group (the default).
    OneLog,
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
    /// Chained mode: the group number, the member to hand the engine-commit turn to, and the
    /// group's end position (published by the last member).
    chain: Option<Chain>,
}

impl Work {
    pub fn new(txn: Option<Txn>, binlog: Vec<u8>) -> Work {
        Work {
            txn,
            binlog,
            redo: Vec::new(),
            chain: None,
        }
    }

    /// A transaction (or DDL) whose durability is a redo record.
    pub fn with_redo(txn: Option<Txn>, redo: Vec<u8>) -> Work {
        Work {
            txn,
            binlog: Vec::new(),
            redo,
            chain: None,
        }
    }
}

/// A chained group's hand-over.
struct Chain {
    group: u64,
    next: Option<Arc<Ticket<Work>>>,
    end: Option<LogPosition>,
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
struct GroupSettings {
    sync_binlog: u64,
    sync_delay_us: u64,
    leader_commits_group: bool,
    max_binlog_size: u64,
    flush_log_at_trx_commit: u64,
    wait_count: u64,
    wait_usec: u64,
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
        }
    }
}

/// What the log mutex (`LOCK_log`) protects: held by one leader through write and sync.
struct LogState {
    binlog: Option<BinlogFiles>,
    next_gtid_seq: u64,
    next_group: u64,
}

/// The commit pipeline of one server.
pub struct CommitPipeline {
    mode: CommitMode,
    engine: Arc<Engine>,
    queue: CommitQueue<Work>,
    log: wait::Mutex<LogState, ev::LockLog>,
    /// Engine commits happen group after group in log order.
    turn: CommitTurn,
    bcast: BroadcastDone,
    /// Woken when the queue grows, for `binlog_commit_wait_count`.
    queue_grew: (wait::Mutex<(), ev::GatherLock>, Condvar),
    /// True while a leader waits in `gather`: only then do arrivals signal `queue_grew`.
    gathering: std::sync::atomic::AtomicBool,
    /// Log position up to which every transaction is committed in the engine (checkpoints
    /// start their replay here). Protected by its own mutex.
    committed_upto: Mutex<Option<LogPosition>>,
    /// The engine redo log (binlog-off mode); it has its own locking.
    redo: Option<Arc<RedoLog>>,
    /// `log_sync_delay_us`, shared with the redo log.
    redo_delay: Arc<AtomicU64>,
    /// The redo log's directory (checkpoints live there too).
    redo_dir: Option<Arc<dyn LogDir>>,
    pub stats: PipelineStats,
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

    /// The redo log, in binlog-off mode.
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
        CommitPipeline {
            mode,
            engine,
            queue: CommitQueue::default(),
            log: wait::Mutex::new(LogState {
                binlog,
                next_gtid_seq,
                next_group: 0,
            }),
            turn: CommitTurn::default(),
            bcast: BroadcastDone::default(),
            queue_grew: (wait::Mutex::new(()), Condvar::new()),
            gathering: std::sync::atomic::AtomicBool::new(false),
            committed_upto: Mutex::new(upto),
            redo: None,
            redo_delay: Arc::new(AtomicU64::new(0)),
            redo_dir: None,
            stats: PipelineStats::default(),
        }
    }

    pub fn mode(&self) -> CommitMode {
        self.mode
    }

    /// Does this pipeline write a binlog (so sessions must encode events)?
    pub fn writes_binlog(&self) -> bool {
        self.mode == CommitMode::OneLog
    }

    /// Does this pipeline write redo records (so sessions must encode them)?
    pub fn writes_redo(&self) -> bool {
        self.mode == CommitMode::RedoOnly
    }

    /// Run a closure on the binlog files under the log mutex (SHOW BINARY LOGS, PURGE …).
    pub fn with_binlog<R>(&self, f: impl FnOnce(&mut BinlogFiles) -> R) -> Option<R> {
        self.log.lock().binlog.as_mut().map(f)
    }

    /// The position through which every transaction is committed in the engine.
    pub fn committed_upto(&self) -> Option<LogPosition> {
        self.committed_upto.lock().clone()
    }

    /// The next GTID sequence number (for checkpoints).
    pub fn next_gtid_seq(&self) -> u64 {
        self.log.lock().next_gtid_seq
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
        let wakeup = wakeup_mode(vars);
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

    /// The leader's work for one group.
    fn lead(&self, vars: &SystemVariables) {
        let settings = GroupSettings::read(vars);
        let mut log = self.log.lock();
        self.gather(&settings);
        let group = self.queue.take_group();
        let g = log.next_group;
        log.next_group += 1;
        let (written, end) = match &self.redo {
            Some(redo) => self.write_redo(redo, &group, &settings),
            None => {
                let w = self.write_and_sync(&mut log, &group, &settings);
                (w, log.binlog.as_ref().map(|b| b.position()))
            }
        };
        drop(log);
        self.stats.groups.fetch_add(1, Relaxed);
        self.stats.commits.fetch_add(group.len() as u64, Relaxed);
        self.turn.wait_for(g);
        match written {
            Err(e) => self.fail_group(&group, &e, g),
            Ok(()) if settings.leader_commits_group => self.commit_group(&group, g, end),
            Ok(()) => self.start_chain(&group, g, end),
        }
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
    /// `sync_binlog`; rotate when the file is full. After this returns Ok the group is durable
    /// (with sync_binlog = 1): this is the commit point.
    fn write_and_sync(
        &self,
        log: &mut LogState,
        group: &[Arc<Ticket<Work>>],
        s: &GroupSettings,
    ) -> Result<()> {
        let first_seq = log.next_gtid_seq;
        let Some(binlog) = log.binlog.as_mut() else {
            return Ok(());
        };
        let base = binlog.position().pos;
        let mut buf = Vec::new();
        let mut seq = first_seq;
        for t in group {
            let mut item = t.item.lock();
            let work = item.as_mut().expect("work present until committed");
            if work.binlog.is_empty() {
                continue;
            }
            let start = buf.len();
            buf.append(&mut work.binlog);
            relocate(&mut buf[start..], base + start as u64, seq, first_seq);
            seq += 1;
        }
        log.next_gtid_seq = seq;
        super::failpoint::hit("before_binlog_write");
        binlog.append(&buf).map_err(|p| p.to_error())?;
        self.stats.binlog_bytes.fetch_add(buf.len() as u64, Relaxed);
        super::failpoint::hit("after_binlog_write");
        binlog
            .sync_for_group(s.sync_binlog, s.sync_delay_us)
            .map_err(|p| p.to_error())?;
        super::failpoint::hit("after_binlog_sync");
        if binlog.position().pos >= s.max_binlog_size {
            super::failpoint::hit("before_rotate");
            binlog.rotate(s.sync_delay_us).map_err(|p| p.to_error())?;
            super::failpoint::hit("after_rotate");
        }
        Ok(())
    }

    /// Stages 3 and 4 in binlog-off mode: append the group's redo records in one write, then
    /// one fsync (`innodb_flush_log_at_trx_commit = 1`) — the commit point. With 0 or 2 the
    /// background flusher syncs once a second, and a crash can lose up to a second of commits.
    fn write_redo(
        &self,
        redo: &RedoLog,
        group: &[Arc<Ticket<Work>>],
        s: &GroupSettings,
    ) -> (Result<()>, Option<LogPosition>) {
        let mut buf = Vec::new();
        for t in group {
            if let Some(w) = t.item.lock().as_mut() {
                buf.append(&mut w.redo);
            }
        }
        self.redo_delay.store(s.sync_delay_us, Relaxed);
        super::failpoint::hit("before_binlog_write");
        let r = redo.append(&buf).and_then(|end| {
            super::failpoint::hit("after_binlog_write");
            if s.flush_log_at_trx_commit == 1 {
                redo.sync_to(end)?;
            }
            super::failpoint::hit("after_binlog_sync");
            Ok(end)
        });
        self.stats.binlog_bytes.fetch_add(buf.len() as u64, Relaxed);
        match r {
            Ok(end) => (Ok(()), Some(redo_position(end))),
            Err(p) => (Err(p.to_error()), None),
        }
    }

    /// Stage 5 by the leader: engine commits of the whole group in order, then stage 6.
    fn commit_group(&self, group: &[Arc<Ticket<Work>>], g: u64, end: Option<LogPosition>) {
        for t in group {
            if let Some(txn) = t.take_item().and_then(|w| w.txn) {
                self.engine.commit(txn);
            }
        }
        super::failpoint::hit("after_engine_commit");
        *self.committed_upto.lock() = end;
        self.turn.finish(g);
        for t in group {
            t.complete(Ok(()), &self.bcast);
        }
    }

    /// Stage 5, chained: each member commits itself, then wakes the next.
    fn start_chain(&self, group: &[Arc<Ticket<Work>>], g: u64, end: Option<LogPosition>) {
        for (i, t) in group.iter().enumerate() {
            let next = group.get(i + 1).cloned();
            let end = next.is_none().then(|| end.clone()).flatten();
            if let Some(w) = t.item.lock().as_mut() {
                w.chain = Some(Chain {
                    group: g,
                    next,
                    end,
                });
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
            Some(Chain {
                group,
                next: None,
                end,
            }) => {
                // The last member: the whole group is committed in the engine.
                *self.committed_upto.lock() = end;
                self.turn.finish(group);
            }
            None => {}
        }
        ticket.complete(Ok(()), &self.bcast);
    }

    /// The write or sync failed: nobody in the group is acknowledged; their changes are rolled
    /// back in the engine (the log is poisoned, so no later group can commit either).
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

    /// Clean shutdown: close the binlog with a Stop event.
    pub fn shutdown(&self) {
        if let Some(b) = self.log.lock().binlog.as_mut() {
            if let Err(p) = b.close() {
                tracing::error!("closing the binlog failed: {}", p.to_error());
            }
        }
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
        out
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
