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
//! 3. **Write** (leader, holding the log mutex): the leader takes every queued ticket as its
//!    group, [`binlog::relocate`]s each transaction to its file offset with the next GTID
//!    sequence number and a commit id shared by the group, and appends the group in one write.
//! 4. **Sync** (leader, same mutex): one fsync per group (`sync_binlog = 1`; `N`: every N
//!    groups; `0`: never). This is the commit point. Rotation follows when the file is full.
//! 5. **Engine commit, in log order** (leader releases the log mutex first, so the next group
//!    can be written meanwhile; groups take their turn through [`group::CommitTurn`]): with
//!    `binlog_optimize_thread_scheduling = ON` the leader commits every member in order;
//!    with `OFF` each member commits itself and wakes the next (chained).
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
//! | rotation | old file closed or not, new file created or not | index lists only created files; the old file is read to its last complete transaction | — |
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
//! # Checkpoints
//!
//! See [`checkpointer`]: a fuzzy snapshot taken after the committed-through position, published
//! atomically; logs before it may then be removed.
//!
//! # Failures
//!
//! A failed write or fsync poisons the binlog ([`device::Poison`]): that group and every later
//! commit fail with ER_ERROR_ON_WRITE naming the file, their changes are rolled back in memory,
//! the fsync is never retried; reads keep working. A restart recovers from what is durable.

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

pub use pipeline::{CommitMode, CommitPipeline, Prepared, Work};

#[cfg(test)]
mod tests;
