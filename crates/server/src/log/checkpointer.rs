//! Background fuzzy checkpoints, by time and by binlog volume.
//!
//! Protocol of one checkpoint (one-log mode):
//!
//! 1. Read `P` = the binlog position through which every transaction is committed in the
//!    engine (`CommitPipeline::committed_upto`; groups commit in log order, so nothing before
//!    `P` is still invisible).
//! 2. Snapshot every table's committed rows, the catalog and the AUTO_INCREMENT counters
//!    while commits go on (fuzzy: rows may already hold changes logged after `P`).
//! 3. Write `checkpoint.<n>`, sync it, then switch `checkpoint.current` atomically.
//! 4. Only then may binlog files before `P`'s file be purged (the recovery floor moves).
//!
//! Recovery = the checkpoint + replay of the binlog from `P`. Replaying full row images over a
//! snapshot that already has some of them is idempotent, so the fuzziness is harmless.
//! A crash anywhere in 1–3 leaves the previous checkpoint current and every binlog file it
//! needs in place.
//!
//! A checkpoint holds the pipeline's DDL lock (`CommitPipeline::lock_ddl`) throughout: a DDL
//! statement takes effect before it is logged, and is undone if logging fails, so a snapshot
//! taken in between could make a failed DDL durable. No checkpoint is taken once a log is
//! poisoned.
//!
//! # Classic mode
//!
//! Recovery replays redo `Prepare` records from an LSN `L` and resolves those without a
//! `Commit` record against the binlog XIDs from `P`. So a checkpoint:
//!
//! 1. first reads `L` = the oldest in-flight Prepare record, or the redo end when none is in
//!    flight (`CommitPipeline::classic_replay_start`; Prepare records are appended and
//!    registered under one mutex, so none is missed). Every transaction that prepared before
//!    `L` is finished — committed in the engine, so in the snapshot, or rolled back.
//! 2. then reads `P` as in step 1 above. Because `L` is read first, and a group leaves the
//!    in-flight set only after publishing `committed_upto`, every transaction whose binlog
//!    events lie at or after `P` prepared at or after `L`: the XID scan from `P` sees every
//!    binlog transaction whose Prepare record recovery reads, and a binlog XID from `P`
//!    without a Prepare record really lost it (recovery warns).
//! 3. syncs the redo log: a transaction prepared at or after `L` whose binlog events lie
//!    before `P` finished before `P` was read, and appended its Commit record before that;
//!    the sync makes that record durable before the checkpoint is published.
//! 4. snapshots, writes and publishes as above; redo segments wholly before `L` are then
//!    removed, and the binlog stays bounded by `P`'s file.

use super::checkpoint::{write_checkpoint, CheckpointInfo, CheckpointPosition};
use super::failpoint;
use super::CommitPipeline;
use crate::error::{Error, Result};
use crate::storage::Engine;
use crate::vars::SystemVariables;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the checkpointer needs of the running server. The server's context implements it
/// (`crate::session::ServerContext`); the log does not know the session layer.
pub trait CheckpointHost: Send + Sync + 'static {
    fn pipeline(&self) -> &CommitPipeline;
    fn engine(&self) -> &Arc<Engine>;
    fn vars(&self) -> &SystemVariables;
    /// The next XID to hand out (a checkpoint records it, so recovery numbers above it).
    fn next_xid(&self) -> u64;
}

/// Take one checkpoint now. None when there is no log. Refused once a log is poisoned
/// (nothing more is written to a failing device, and nothing could be committed after it).
pub fn run_checkpoint(ctx: &dyn CheckpointHost) -> Result<Option<CheckpointInfo>> {
    // No DDL between its effect and its logged outcome may be in the snapshot.
    let _ddl = ctx.pipeline().lock_ddl();
    if let Some(p) = ctx.pipeline().poisoned() {
        return Err(Error::new(
            cohort_protocol::ErrorCode::ErrorOnWrite,
            format!(
                "checkpoint refused: the log failed: {}",
                p.to_error().message()
            ),
        ));
    }
    // Classic mode: `L` before `P` (module docs).
    let classic_start = ctx.pipeline().classic_replay_start();
    let Some(pos) = ctx.pipeline().committed_upto() else {
        return Ok(None);
    };
    let Some(dir) = ctx.pipeline().log_dir() else {
        return Ok(None);
    };
    let redo = ctx.pipeline().redo().cloned();
    let started = Instant::now();
    failpoint::hit("during_checkpoint");
    let (redo_lsn, binlog_pos) = match (classic_start, &redo) {
        (Some(l), Some(redo)) => {
            // The Commit records of every group finished before `P` was read must be durable
            // before the checkpoint is: recovery relies on them for prepared transactions
            // whose binlog events lie before `P`.
            redo.sync().map_err(|p| p.to_error())?;
            (l.0, pos.pos)
        }
        (None, Some(_)) => (pos.pos, 0),
        (_, None) => (0, pos.pos),
    };
    let position = CheckpointPosition {
        redo_lsn,
        binlog_file: pos.file.clone(),
        binlog_pos,
        next_xid: ctx.next_xid(),
        next_gtid_seq: ctx.pipeline().next_gtid_seq(),
    };
    let info = write_checkpoint(dir.as_ref(), ctx.engine(), position).map_err(|e| {
        Error::new(
            cohort_protocol::ErrorCode::ErrorOnWrite,
            format!("checkpoint failed: {e}"),
        )
    })?;
    if let Some(redo) = &redo {
        // Segments wholly before the checkpoint's LSN are no longer needed.
        if let Err(e) = redo.purge_before(super::redo::Lsn(redo_lsn)) {
            tracing::warn!("redo purge failed: {e}");
        }
    }
    let expire = ctx.vars().global_u64("binlog_expire_logs_seconds");
    ctx.pipeline().with_binlog(|b| {
        b.set_recovery_floor(&pos.file);
        if expire > 0 {
            let before = now_secs().saturating_sub(expire) as u32;
            if let Err(e) = b.purge_before(before) {
                tracing::warn!("binlog expiry failed: {e}");
            }
        }
    });
    let stats = &ctx.pipeline().stats;
    stats.checkpoints.fetch_add(1, Relaxed);
    stats
        .checkpoint_last_ms
        .store(started.elapsed().as_millis() as u64, Relaxed);
    Ok(Some(info))
}

/// `innodb_flush_log_at_trx_commit` 0 or 2: commits only wrote the redo log; sync it here.
pub(crate) fn flush_redo_once_a_second(ctx: &dyn CheckpointHost) {
    let Some(redo) = ctx.pipeline().redo() else {
        return;
    };
    if ctx.vars().global_u64("innodb_flush_log_at_trx_commit") == 1 {
        return;
    }
    if let Err(p) = redo.sync() {
        tracing::error!("{}", p.to_error().message());
    }
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Checkpoint every `checkpoint_interval_seconds`, or sooner once `checkpoint_log_bytes` of
/// binlog were written since the last one.
pub fn spawn(ctx: Arc<dyn CheckpointHost>) {
    let spawned = std::thread::Builder::new()
        .name("checkpointer".into())
        .spawn(move || {
            let mut last = Instant::now();
            let mut bytes_at_last = ctx.pipeline().stats.binlog_bytes.load(Relaxed);
            let mut last_flush = Instant::now();
            loop {
                std::thread::sleep(Duration::from_millis(100));
                if last_flush.elapsed() >= Duration::from_secs(1) {
                    flush_redo_once_a_second(ctx.as_ref());
                    last_flush = Instant::now();
                }
                let interval =
                    Duration::from_secs(ctx.vars().global_u64("checkpoint_interval_seconds"));
                let volume = ctx.vars().global_u64("checkpoint_log_bytes");
                let written = ctx.pipeline().stats.binlog_bytes.load(Relaxed) - bytes_at_last;
                if written == 0 || (last.elapsed() < interval && written < volume) {
                    continue;
                }
                bytes_at_last += written;
                last = Instant::now();
                match run_checkpoint(ctx.as_ref()) {
                    Ok(Some(info)) => {
                        tracing::debug!("checkpoint {} written: {} rows", info.file, info.rows)
                    }
                    Ok(None) => {}
                    Err(e) => tracing::error!("{}", e.message()),
                }
            }
        });
    if let Err(e) = spawned {
        tracing::error!("cannot start the checkpointer: {e}");
    }
}
