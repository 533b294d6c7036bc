//! Durability: the binary log, group commit, and recovery.
//!
//! # The commit protocol (one-log mode: the binlog is the redo log)
//!
//! The in-memory engine needs no log of its own: a binlog transaction carries the full before
//! and after image of every row it changed, which is everything a replay needs. So a commit is
//! made durable by exactly one fsync per group, of the binlog.
//!
//! 1. **Prepare** (session thread, in parallel): the engine freezes the transaction
//!    (`Engine::prepare`; row locks stay held); the session encodes its binlog events at offset
//!    0 ([`encode`]) — all per-transaction CPU work happens here, outside any shared lock.
//! 2. **Enqueue** ([`group`]): the session joins the commit queue. The first to find the queue
//!    empty leads; the others only wait on their own ticket.
//! 3. **Write** (leader, holding the log mutex; waiting for it while the previous leader
//!    syncs is a reported wait, so a pool worker gives its group another thread meanwhile —
//!    `wait::Mutex::lock_blocking`): the leader takes every queued ticket as its
//!    group, [`binlog::relocate`]s each transaction to its file offset with the next GTID
//!    sequence number and a commit id shared by the group, and appends the group in one write.
//! 4. **Sync** (leader, same mutex): one fsync per group (`sync_binlog = 1`; `N`: every N
//!    groups; `0`: never). This is the commit point. Rotation follows when the file is full.
//!    The file is zero-filled ahead of its end ([`zerofill`]), so this fdatasync only writes
//!    data blocks and commits no file metadata.
//! 5. **Engine commit, in log order** (leader releases the log mutex first, so the next group
//!    can be written meanwhile; groups take their turn through [`group::CommitTurn`]): with
//!    `binlog_optimize_thread_scheduling = ON` the leader commits every member in order;
//!    with `OFF` each member commits itself and wakes the next (chained). Either way the
//!    engine sees one commit at a time in log order: each takes the next commit sequence
//!    number and publishes it once its row versions are installed, which is the moment new
//!    read views start to see it — so a snapshot is always a prefix of the log (see the
//!    module doc of `crate::storage`).
//! 6. **Complete**: each member's ticket is completed and its waiter woken (`commit_wakeup`:
//!    targeted by default, broadcast for experiment 4). The session sends OK.
//!
//! # If the process crashes after…
//!
//! | step | on disk | after restart | acknowledged? |
//! |---|---|---|---|
//! | 1 prepare | nothing | transaction absent | no |
//! | 3 write (before sync) | maybe part of the group | complete transactions (GTID…Xid) whose bytes reached the disk are replayed; a torn tail is cut | no |
//! | 4 sync | the whole group | replayed | no (OK not yet sent) — present after restart |
//! | 5 engine commit | the whole group | replayed | maybe — present |
//! | 6 complete | the whole group | replayed | yes — present |
//! | rotation | old file closed or not, new file created or not | index lists only created files; the old file is read to its last complete transaction; a new file the index does not name yet (nothing was appended to it) is removed | — |
//!
//! Every acknowledged commit was synced before its OK (step 6 follows step 4), so it is
//! replayed. No transaction is partly applied: replay applies a transaction only when its Xid
//! event is intact.
//!
//! # Binlog off (`log_bin = OFF`)
//!
//! The same stages with the engine redo log ([`redo`]) in the binlog's place: each session
//! encodes one `Committed` record (its full row images) in stage 1; the leader appends the
//! group's records in one write and, with `innodb_flush_log_at_trx_commit = 1`, syncs once
//! (stage 4, the commit point). With 0 or 2 the sync happens once a second in the background
//! and a crash may lose up to a second of acknowledged commits — that is what those settings
//! mean in MySQL too. DDL is a `Ddl` record. Recovery = checkpoint + redo replay.
//!
//! # Classic two-phase commit (`commit_mode = classic`)
//!
//! Binlog on plus the engine redo log ([`redo`]), as in MySQL / MariaDB with InnoDB: the engine
//! logs a transaction as prepared, the binlog is the coordinator whose durable Xid event decides
//! that it committed, and the engine logs the commit afterwards. Stages (C*n* replaces stage *n*
//! above; the others are unchanged):
//!
//! - **C1 Prepare** (session thread): engine prepare (row locks kept); the session encodes its
//!   binlog events *and* a redo `Prepare` record (XID, full row images), and appends the record
//!   itself ([`CommitPipeline::prepare_in_redo`]), registering its LSN as in flight (see
//!   *Checkpoints*). With `log_flush_placement = prepare` (MySQL 5.6) the session then syncs
//!   the redo log up to its own record — `RedoLog::sync_to` makes concurrent sessions share
//!   fsyncs (grouping point 1). With `group` (MySQL 5.7, the default) it does not sync.
//! - **C2 Enqueue**: the one binlog commit queue, as above.
//! - **C3 Redo sync** (leader, before the binlog write): with `group`, one redo fsync up to
//!   the highest Prepare record of the group — the group's only redo fsync, the whole point of
//!   the placement: one grouping point for both logs. It runs in a *flush stage* of its own
//!   (`flush_stage` mutex, a reported wait like the log mutex; the log mutex is taken before
//!   it is released), so the next group's redo sync overlaps this group's binlog write and
//!   sync, as MySQL 5.7's separate flush and sync stages do; without it the two fsyncs of a
//!   group would run back to back.
//!   With `prepare` every member's record is already durable, and this step costs nothing.
//! - **C4 Binlog write and sync**: stages 3 and 4 above. The binlog fsync is the commit point.
//! - **C5 Engine commit in binlog order**: stage 5 above (leader or chained).
//! - **C6 Commit records**: whoever finishes the group appends its `Commit` records in one
//!   write, without a sync, then publishes `committed_upto` and drops the group's records from
//!   the in-flight set; stage 6 completes the tickets.
//!
//! With `innodb_flush_log_at_trx_commit = 0` or `2`, C1's and C3's syncs are skipped and the
//! background flush syncs the redo log once a second. A crash may then leave binlog
//! transactions whose Prepare record never reached the disk: their engine changes are lost (as
//! in MySQL with those settings), and recovery warns with their count.
//!
//! DDL: the statement takes effect, its redo `PreparedDdl` record (with an XID) is appended,
//! registered in flight and synced ([`CommitPipeline::log_ddl_in_redo`]), then its binlog
//! Query event, carrying the same XID in MariaDB's `Q_XID` status variable, goes through the
//! pipeline like a transaction. Recovery replays a `PreparedDdl` record, in LSN order among
//! the Prepare records, only if its Query event is in the binlog or its Commit record follows:
//! the binlog decides for DDL as for transactions.
//!
//! Recovery ([`recovery_classic`]): checkpoint; binlog XIDs from the checkpoint's binlog
//! position (torn tail cut); redo from the checkpoint's LSN: a `Prepare` or `PreparedDdl`
//! applied if its `Commit` record follows or its XID is in the binlog, else rolled back.
//!
//! ## If the process crashes after… (classic mode, `innodb_flush_log_at_trx_commit = 1`, `sync_binlog = 1`)
//!
//! | step | on disk | after restart | acknowledged? |
//! |---|---|---|---|
//! | C1 prepare (`group`: not synced) | maybe the Prepare record, maybe torn | a torn record is cut; a whole one has no Commit record and no binlog XID: rolled back | no |
//! | C1 / C3 redo sync | the Prepare record | not in the binlog: rolled back | no |
//! | C4 binlog write (before sync) | Prepare; maybe part of the binlog group | XIDs of complete binlog transactions: committed; a torn binlog tail is cut and its prepared transactions rolled back | no |
//! | C4 binlog sync | Prepare + binlog Xid | committed from the binlog (counted as "committed from the binlog") | no — present after restart |
//! | C5 engine commit | the same | committed from the binlog | maybe — present |
//! | C6 Commit record (not synced) | Prepare + binlog Xid, maybe the Commit record | committed (by the record or from the binlog) | maybe — present |
//! | C6 complete | the same | committed | yes — present |
//! | DDL after its `PreparedDdl` record is synced | the record, maybe the Query event | replayed iff the Query event is durable | no / yes — present iff replayed |
//!
//! Every acknowledged commit's binlog Xid was synced (C4) after its Prepare record (C1 or C3),
//! so recovery finds and commits it. A prepared transaction is committed only with its Xid in
//! the binlog or its Commit record (written after C4), so the tables equal a replay of the
//! binlog; a transaction is applied whole (one Prepare record) or not at all. With
//! `sync_binlog ≠ 1` a Commit record can outlive a lost binlog tail (a later group's redo sync
//! covers it); recovery then commits a transaction the binlog lacks — those settings do not
//! promise agreement.
//!
//! # Checkpoints
//!
//! See [`checkpointer`]: a fuzzy snapshot taken after the committed-through position, published
//! atomically; logs before it may then be removed. In classic mode the checkpoint also records
//! the redo LSN replay starts from, at or before every in-flight Prepare record (the pipeline
//! keeps their LSNs in a set guarded by its own mutex).
//!
//! # Failures
//!
//! **The rule: what a client is told is what recovery replays.** A group that passed its
//! commit point is committed — in memory, and its clients get OK — even if a later step
//! fails; a group that failed before it is rolled back in memory, its clients get
//! ER_ERROR_ON_WRITE (1026) naming the file, and nothing of it can be replayed. The *commit
//! point* is where a client would be acknowledged: the group's sync with `sync_binlog = 1` /
//! `innodb_flush_log_at_trx_commit = 1`; its write with 0 (or 2, or `sync_binlog = N` for the
//! groups that are not due a sync), where a machine crash may lose acknowledged commits, as
//! those settings say — but a restart of the process never does.
//!
//! How the pipeline keeps to it:
//!
//! 1. The first failed write or sync poisons its log ([`device::Poison`]): every later
//!    commit fails, no fsync is retried, reads keep working, no checkpoint is taken.
//! 2. A group that failed before its commit point may have left bytes in the file — a torn
//!    write can hold whole transactions, a failed fsync leaves the written group readable,
//!    and a later sync by anyone (the zero-fill thread, a restart) could make them durable.
//!    So the leader cuts the file back to the group's start and syncs the cut *before*
//!    telling anyone (`cut_back`). If the cut fails too, no outcome can be told truthfully:
//!    the server halts (as MySQL's `binlog_error_action = ABORT_SERVER`), the clients see
//!    their connections drop, and recovery decides.
//! 3. A failure after the commit point (rotation) is logged and poisons the log; the group
//!    commits in the engine and its clients get OK.
//! 4. A DDL statement takes effect before it is logged: if the log write fails (or the
//!    statement fails part way), its catalog changes are undone
//!    ([`crate::storage::DdlUndo`]) before the error is returned. One DDL statement runs at a
//!    time, and checkpoints do not snapshot while one is undecided (`lock_ddl`).
//!
//! | path | fails at | told | in memory | after a restart |
//! |---|---|---|---|---|
//! | one-log / classic C4: group write (EIO, ENOSPC, torn) | before the commit point | 1026 | rolled back | absent: the bytes were cut |
//! | group fsync (`sync_binlog = 1`, or the group due one with N) | before | 1026 | rolled back | absent: cut |
//! | rotation after the group (Rotate event, cut of the zero fill, in-use flag, its fsync, new file, index) | after | OK | committed | present; the index names only files it finished, a torn Rotate is a torn tail |
//! | binlog off: group write, or its fsync with `innodb_flush_log_at_trx_commit = 1` | before | 1026 | rolled back | absent: cut |
//! | binlog off, 0 / 2: the once-a-second flush | after (acknowledged at write) | OK (earlier) | committed | present (a machine crash may lose up to a second) |
//! | redo segment rotation inside a group's append | before | 1026 | rolled back | absent |
//! | classic C1: Prepare append / sync (`prepare` placement) | before | 1026 | rolled back | absent: no binlog XID |
//! | classic C3: group redo sync (`group` placement) | before | 1026 | rolled back | absent: no binlog XID |
//! | classic C6: Commit records | after | OK | committed | present: XID in the binlog |
//! | classic DDL: `PreparedDdl` append / sync | before | 1026 | undone | absent: no Query event |
//! | DDL group (any mode) failing before / after its commit point | as its group | 1026 / OK | undone / applied | as told |
//! | the cut of a failed group fails | — | nothing: the server halts | — | whatever is durable |
//! | FLUSH BINARY LOGS (rotation) | no group | 1026 to FLUSH | unchanged | every acknowledged commit present |
//! | PURGE: index rewrite fails | no group | error to PURGE | unchanged, every file kept | unchanged |
//! | checkpoint write fails | no group | logged | unchanged | the previous checkpoint and its logs |
//! | zero-fill thread's fsync fails | the next group's sync fails with its errno | 1026 | rolled back | absent: cut |
//!
//! Leader or chained commit (`binlog_optimize_thread_scheduling`), targeted or broadcast
//! wakeups, blocking or deferred completion: a group's outcome is decided once, by its
//! leader, before any member is committed or completed, so every path above is the same for
//! all of them. `failure_tests` runs every device operation of every path failing in turn,
//! and restarts after each, comparing what clients were told with what is replayed.
//!
//! # Layers
//!
//! The log sits below the session and SQL layers and imports neither. What it needs of them
//! are interfaces they implement: recovery re-runs logged DDL through
//! [`recovery::DdlReplay`] (`crate::sql::SqlDdlReplay`), and the checkpointer reads the
//! pipeline, the engine and the variables through [`checkpointer::CheckpointHost`]
//! (`crate::session::ServerContext`).

pub mod binlog;
pub mod binlog_reader;
pub mod checkpoint;
pub mod checkpointer;
pub mod ddl_session;
pub mod device;
pub mod encode;
pub mod failpoint;
pub mod group;
pub mod gtid;
pub mod pipeline;
pub mod recovery;
pub mod recovery_classic;
pub mod redo;
pub mod rowimage;
pub mod semisync;
pub mod valuecodec;
pub mod zerofill;

pub use pipeline::{CommitMode, CommitPipeline, Prepared, Work};

#[cfg(test)]
mod charset_recovery_tests;
#[cfg(test)]
mod collation_restart_tests;
#[cfg(test)]
mod ddl_replay_tests;
#[cfg(test)]
mod extremes;
#[cfg(test)]
mod failure_tests;
#[cfg(test)]
mod latin1_recovery_tests;
#[cfg(test)]
pub(crate) mod tests;
