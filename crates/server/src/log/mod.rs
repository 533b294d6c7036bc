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
//! DDL: the statement takes effect, its redo `Ddl` record is appended and synced
//! ([`CommitPipeline::log_ddl_in_redo`]), then its binlog Query event goes through the
//! pipeline. Recovery replays `Ddl` records unconditionally, in LSN order among the Prepare
//! records. A crash between the two leaves a DDL the engine has but the binlog lacks (never
//! acknowledged) — the binlog and the engine disagree on that one statement, as DDL crash-safety
//! without an atomic data dictionary is in MySQL 5.7.
//!
//! Recovery ([`recovery_classic`]): checkpoint; binlog XIDs from the checkpoint's binlog
//! position (torn tail cut); redo from the checkpoint's LSN: `Ddl` replayed, a `Prepare`
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
//! | DDL after its `Ddl` record is synced | `Ddl` record, maybe the Query event | replayed | no / yes — present |
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
//! A failed write or fsync poisons the binlog ([`device::Poison`]): that group and every later
//! commit fail with ER_ERROR_ON_WRITE naming the file, their changes are rolled back in memory,
//! the fsync is never retried; reads keep working. A restart recovers from what is durable.
//! The redo log is poisoned the same way (in classic mode: a failed Prepare append or sync
//! fails that commit and every later one with ER_ERROR_ON_WRITE naming the redo file).

pub mod binlog;
pub mod checkpoint;
pub mod checkpointer;
pub mod device;
pub mod encode;
pub mod failpoint;
pub mod group;
pub mod pipeline;
pub mod recovery;
pub mod recovery_classic;
pub mod redo;
pub mod rowimage;
pub mod valuecodec;
pub mod zerofill;

pub use pipeline::{CommitMode, CommitPipeline, Prepared, Work};

#[cfg(test)]
mod extremes;
#[cfg(test)]
mod tests;
