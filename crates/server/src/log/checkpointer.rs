//! Background fuzzy checkpoints, by binlog volume relative to the checkpoint's size, and by time.
//!
//! # When a checkpoint is taken ([`checkpoint_due`])
//!
//! A checkpoint rewrites the whole engine: its cost grows with the database (`C` = the size of
//! the last checkpoint file), not with the work done since the last one (`W` = binlog bytes
//! written since it). What it buys is a shorter replay at restart (replay of `W` bytes) and
//! the purge of the logs before it. So it is written only once `W` is worth a rewrite:
//!
//! * **volume**: `W ≥ clamp(C, checkpoint_log_bytes, 4 × checkpoint_log_bytes)` — the log to
//!   replay may grow to the size of the checkpoint itself, but never past four times
//!   `checkpoint_log_bytes`, and it may always reach `checkpoint_log_bytes`;
//! * **time**: `checkpoint_interval_seconds` passed since the last one and `W ≥ min(C,
//!   4 × checkpoint_log_bytes)`, i.e. the time trigger fires only once as much log as the
//!   checkpoint's size was written (a small database with little traffic is checkpointed at
//!   most once per interval; a large one is not rewritten every interval for a trickle);
//! * never with `W = 0`. Before the first checkpoint (`C = 0`, also a fresh data directory)
//!   this is the old rule: every `checkpoint_interval_seconds`, or `checkpoint_log_bytes`.
//!
//! Why `W ≥ C`: the checkpoint's CPU is paid while statements run, the replay only at a
//! restart. Measured on TPC-C, 10 warehouses (docs/results/stop32/perf.md): the checkpoint
//! costs about 2 µs of CPU per KiB written (1.5 s for 690 MB) while statements cost about
//! 110 µs per KiB of binlog they write (~1 ms and ~9 KiB per transaction); replay at restart
//! runs at about 100 µs per KiB and loading a checkpoint at about 45 µs per KiB. With
//! `W ≥ C` the checkpoints cost at most one checkpoint byte per binlog byte (≤ 2% of the
//! statements' CPU) while the database is at most 4 × `checkpoint_log_bytes`, instead of one
//! whole database per interval whatever was written; and the restart time stays
//! proportional to the database, as loading the checkpoint already is: load `C` + replay of
//! at most `C`, about 3 × the load alone. With the defaults (`checkpoint_log_bytes` = 256
//! MiB, `checkpoint_interval_seconds` = 60) a 150 MB database under TPC-C load is still
//! checkpointed every minute, a 700 MB one every ~700 MB of binlog instead of every 256 MiB
//! (~40 s at 21k NOPM).
//!
//! **Recovery-time bound**: restart loads the checkpoint (`C` bytes) and replays at most
//! `max(checkpoint_log_bytes, min(C, 4 × checkpoint_log_bytes))` bytes of binlog plus what
//! is written while the next checkpoint is being written (so at most 1 GiB plus one
//! checkpoint's duration of log with the defaults; before this rule: 256 MiB or 60 s of
//! log). Binlog purge (`binlog_expire_logs_seconds`) still stops at the recovery floor, the
//! last published checkpoint's position.
//!
//! The checkpointer thread keeps the server's priority. Tried: `nice` 19 on its thread id
//! (docs/results/stop32/perf.md): on TPC-C, 1 warehouse, the server's CPU per transaction
//! rose by 7–8% in every round that had a checkpoint. Likely cause: preempted while holding a
//! table's primary-map read lock or a row slot's mutex in its scan, it makes writers wait.
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

use super::checkpoint::{published_size, write_checkpoint, CheckpointInfo, CheckpointPosition};
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

/// Whether a checkpoint is due (module docs): `written` binlog bytes since the last one,
/// `elapsed` since it, `last_size` its file's size (0 when there is none).
pub fn checkpoint_due(
    written: u64,
    elapsed: Duration,
    last_size: u64,
    interval: Duration,
    log_bytes: u64,
) -> bool {
    if written == 0 {
        return false;
    }
    let cap = log_bytes.saturating_mul(MAX_LOG_FACTOR);
    let volume = last_size.clamp(log_bytes, cap.max(log_bytes));
    written >= volume || (elapsed >= interval && written >= last_size.min(cap))
}

/// The log to replay never grows past this many times `checkpoint_log_bytes` (module docs).
const MAX_LOG_FACTOR: u64 = 4;

/// Checkpoint when [`checkpoint_due`] says so (by binlog volume relative to the last
/// checkpoint's size, or by `checkpoint_interval_seconds`).
pub fn spawn(ctx: Arc<dyn CheckpointHost>) {
    let spawned = std::thread::Builder::new()
        .name("checkpointer".into())
        .spawn(move || {
            let mut last = Instant::now();
            let mut bytes_at_last = ctx.pipeline().stats.binlog_bytes.load(Relaxed);
            let mut last_size = ctx
                .pipeline()
                .log_dir()
                .and_then(|d| published_size(d.as_ref()))
                .unwrap_or(0);
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
                if !checkpoint_due(written, last.elapsed(), last_size, interval, volume) {
                    continue;
                }
                bytes_at_last += written;
                last = Instant::now();
                match run_checkpoint(ctx.as_ref()) {
                    Ok(Some(info)) => {
                        last_size = info.bytes;
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

#[cfg(test)]
mod tests {
    use super::checkpoint_due;
    use std::time::Duration;

    const MIB: u64 = 1 << 20;
    const LB: u64 = 256 * MIB;
    const MIN: Duration = Duration::from_secs(60);

    fn due(written: u64, secs: u64, last_size: u64) -> bool {
        checkpoint_due(written, Duration::from_secs(secs), last_size, MIN, LB)
    }

    #[test]
    fn nothing_written_is_never_due() {
        assert!(!due(0, 3600, 0));
        assert!(!due(0, 3600, 10 * MIB));
    }

    #[test]
    fn before_the_first_checkpoint_the_old_rule_holds() {
        assert!(!due(1, 59, 0));
        assert!(due(1, 60, 0));
        assert!(!due(LB - 1, 0, 0));
        assert!(due(LB, 0, 0));
    }

    #[test]
    fn a_small_database_by_time_once_its_size_was_logged() {
        // 100 MiB checkpoint: by time once 100 MiB were logged, by volume at 256 MiB.
        assert!(!due(99 * MIB, 120, 100 * MIB));
        assert!(due(100 * MIB, 60, 100 * MIB));
        assert!(!due(100 * MIB, 59, 100 * MIB));
        assert!(!due(LB - 1, 59, 100 * MIB));
        assert!(due(LB, 0, 100 * MIB));
        // A tiny one: a little log and the interval suffice, as before.
        assert!(due(5000, 60, 4000));
        assert!(!due(3000, 3600, 4000));
    }

    #[test]
    fn a_large_database_once_its_size_was_logged_whatever_the_time() {
        let c = 700 * MIB;
        assert!(!due(LB, 0, c));
        assert!(!due(c - 1, 3600, c));
        assert!(due(c, 0, c));
        assert!(due(c, 3600, c));
    }

    #[test]
    fn the_log_to_replay_is_bounded_by_four_times_checkpoint_log_bytes() {
        let huge = 100 * LB;
        assert!(!due(4 * LB - 1, 3600, huge));
        assert!(due(4 * LB, 0, huge));
        // A small checkpoint_log_bytes bounds it too (tests run with 4096).
        assert!(checkpoint_due(
            4 * 4096,
            Duration::ZERO,
            10 * MIB,
            MIN,
            4096
        ));
        assert!(!checkpoint_due(
            4 * 4096 - 1,
            Duration::ZERO,
            10 * MIB,
            MIN,
            4096
        ));
        assert!(checkpoint_due(4096, Duration::ZERO, 1000, MIN, 4096));
    }
}
