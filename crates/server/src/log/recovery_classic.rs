//! Startup recovery in classic mode: the checkpoint, the binlog's XIDs, then the redo log.
//!
//! The redo log holds every transaction's full row images in its `Prepare` record; the binlog
//! decides which prepared transactions committed (it is the coordinator of the two-phase
//! commit, see "Classic two-phase commit" in [`crate::log`]). Recovery:
//!
//! 1. loads the latest checkpoint: a fuzzy snapshot plus the redo LSN `L` replay starts from
//!    and the binlog position `P` the XID scan starts from (see [`super::checkpointer`]);
//! 2. reads the binlog from `P` to its end, cutting a torn tail of the last file at its last
//!    complete transaction (the one-log code), and collects the XIDs of the complete
//!    transactions: these committed;
//! 3. opens the redo log (a torn tail is cut) and reads it from `L` twice: first to find the
//!    XIDs that have a `Commit` (or `Rollback`) record, then to apply, in LSN order:
//!    - `Ddl` (written by older versions): executed again, unconditionally (after a
//!      checkpoint "already exists" / "does not exist" are expected);
//!    - `PreparedDdl`: executed again if a `Commit` record for its XID exists or its binlog
//!      Query event (status variable `Q_XID`) is in the binlog set; otherwise not (the
//!      statement failed or never reached its commit point);
//!    - `Prepare`: applied if a `Commit` record for its XID exists or its XID is in the binlog
//!      set; otherwise rolled back (not applied) and counted. Applying in LSN order is commit
//!      order for conflicting transactions: a transaction holds its row locks from its first
//!      change to its engine commit, which follows its Prepare record, so a later writer of the
//!      same row prepares after it. Full row images make replay over the fuzzy snapshot
//!      idempotent;
//! 4. warns, with a count, about binlog XIDs from `P` on whose `Prepare` record is missing. The
//!    checkpoint protocol guarantees every binlog transaction from `P` on prepared at or after
//!    `L`, so with `innodb_flush_log_at_trx_commit = 1` the count is 0; with 0 or 2 a crash can
//!    lose Prepare records of transactions the binlog has, and their engine changes are lost,
//!    as in MySQL;
//! 5. returns the engine, the open redo log, the next GTID sequence number (from the binlog)
//!    and the highest XID seen anywhere (new XIDs are allocated above it, so an XID of this run
//!    can never match a binlog XID of an earlier one).

use super::checkpoint::read_latest_checkpoint;
use super::device::LogDir;
use super::recovery::{
    note_redo_cut, scan_binlog, untrusted, BinlogItem, DdlReplay, RecoveryReport, Replayer, Start,
};
use super::redo::{Lsn, RedoLog, RedoRecord};
use crate::error::Result;
use crate::storage::Engine;
use std::collections::HashSet;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// Where the checkpoint says recovery starts.
struct ClassicStart {
    engine: Arc<Engine>,
    binlog: Start,
    redo_lsn: Option<Lsn>,
    /// The checkpoint's next XID, minus one (0 without a checkpoint).
    max_xid: u64,
}

/// The latest checkpoint, or an empty engine and the logs' beginnings.
fn load_start(dir: &dyn LogDir, report: &mut RecoveryReport) -> Result<ClassicStart> {
    let loaded = read_latest_checkpoint(dir)
        .map_err(|e| untrusted(format!("the checkpoint cannot be read: {e}")))?;
    let Some(c) = loaded else {
        return Ok(ClassicStart {
            engine: Engine::new(),
            binlog: Start {
                file: None,
                pos: 0,
                after_checkpoint: false,
            },
            redo_lsn: None,
            max_xid: 0,
        });
    };
    let pos = &c.info.position;
    report.checkpoint = Some(c.info.file.clone());
    report.next_gtid_seq = pos.next_gtid_seq.max(1);
    Ok(ClassicStart {
        binlog: Start {
            file: Some(pos.binlog_file.clone()),
            pos: pos.binlog_pos,
            after_checkpoint: true,
        },
        redo_lsn: Some(Lsn(pos.redo_lsn)),
        max_xid: pos.next_xid.saturating_sub(1),
        engine: c.engine,
    })
}

/// Step 2: the XIDs of the complete binlog transactions from the checkpoint's position.
fn binlog_xids(
    dir: &dyn LogDir,
    basename: &str,
    start: &Start,
    report: &mut RecoveryReport,
) -> Result<HashSet<u64>> {
    let mut scanned = RecoveryReport {
        next_gtid_seq: report.next_gtid_seq,
        ..RecoveryReport::default()
    };
    let mut xids = HashSet::new();
    scan_binlog(dir, basename, start, &mut scanned, &mut |item| {
        match item {
            BinlogItem::Transaction { xid, .. } | BinlogItem::Ddl { xid: Some(xid), .. } => {
                xids.insert(xid);
            }
            // DDL is replayed from the redo log's records.
            BinlogItem::Ddl { xid: None, .. } => {}
        }
        Ok(())
    })?;
    report.next_gtid_seq = scanned.next_gtid_seq;
    report.gtids = std::mem::take(&mut scanned.gtids);
    report.notes.append(&mut scanned.notes);
    Ok(xids)
}

/// Step 3, first pass: what the redo log itself says happened to each prepared XID.
#[derive(Default)]
struct RedoOutcomes {
    committed: HashSet<u64>,
    rolled_back: HashSet<u64>,
    prepared: HashSet<u64>,
}

impl RedoOutcomes {
    /// Does the prepared `xid` commit? Yes if its Commit record follows or the binlog has it
    /// (counted as committed from the binlog), unless a Rollback record follows; otherwise it
    /// is rolled back (counted).
    fn resolve(&self, xid: u64, binlog: &HashSet<u64>, report: &mut RecoveryReport) -> bool {
        let by_record = self.committed.contains(&xid);
        let commits = !self.rolled_back.contains(&xid) && (by_record || binlog.contains(&xid));
        if !commits {
            report.prepared_rolled_back += 1;
        } else if !by_record {
            report.prepared_committed += 1;
        }
        commits
    }
}

fn redo_outcomes(redo: &RedoLog, from: Lsn) -> Result<RedoOutcomes> {
    let mut out = RedoOutcomes::default();
    let records = redo
        .records_from(from)
        .map_err(|e| untrusted(e.to_string()))?;
    for rec in records {
        match rec.map_err(|e| untrusted(e.to_string()))?.1 {
            RedoRecord::Prepare { xid, .. } | RedoRecord::PreparedDdl { xid, .. } => {
                out.prepared.insert(xid);
            }
            RedoRecord::Commit { xid } => {
                out.committed.insert(xid);
            }
            RedoRecord::Rollback { xid } => {
                out.rolled_back.insert(xid);
            }
            RedoRecord::Committed { .. } | RedoRecord::Ddl { .. } => {}
        }
    }
    Ok(out)
}

/// Step 3, second pass: apply in LSN order.
fn apply_redo(
    redo: &RedoLog,
    from: Lsn,
    replayer: &Replayer,
    outcomes: &RedoOutcomes,
    binlog: &HashSet<u64>,
    report: &mut RecoveryReport,
) -> Result<()> {
    let records = redo
        .records_from(from)
        .map_err(|e| untrusted(e.to_string()))?;
    for rec in records {
        let changes = match rec.map_err(|e| untrusted(e.to_string()))?.1 {
            RedoRecord::Ddl { db, sql, session } => {
                replayer.apply_ddl(&db, &sql, &session)?;
                report.ddl += 1;
                continue;
            }
            RedoRecord::PreparedDdl {
                xid,
                db,
                sql,
                session,
            } => {
                if outcomes.resolve(xid, binlog, report) {
                    replayer.apply_ddl(&db, &sql, &session)?;
                    report.ddl += 1;
                }
                continue;
            }
            RedoRecord::Committed { changes, .. } => changes,
            RedoRecord::Prepare { xid, changes } => {
                if !outcomes.resolve(xid, binlog, report) {
                    continue;
                }
                changes
            }
            RedoRecord::Commit { .. } | RedoRecord::Rollback { .. } => continue,
        };
        for c in changes {
            replayer.apply_row(&c.db, &c.table, |_| (c.before.clone(), c.after.clone()))?;
        }
        report.transactions += 1;
    }
    Ok(())
}

/// Recover a classic-mode data directory (module docs). The binlog is left as found (its tail
/// cut); the caller opens it, which starts a new file.
pub fn recover_classic(
    dir: Arc<dyn LogDir>,
    basename: &str,
    segment_size: u64,
    sync_delay: Arc<AtomicU64>,
    ddl: &dyn DdlReplay,
) -> Result<(Arc<Engine>, Arc<RedoLog>, RecoveryReport)> {
    let mut report = RecoveryReport {
        next_gtid_seq: 1,
        ..RecoveryReport::default()
    };
    let start = load_start(dir.as_ref(), &mut report)?;
    let binlog = binlog_xids(dir.as_ref(), basename, &start.binlog, &mut report)?;
    let (redo, scan) =
        RedoLog::open(dir, segment_size, sync_delay).map_err(|e| untrusted(e.to_string()))?;
    note_redo_cut(&scan, &mut report);
    let from = start.redo_lsn.unwrap_or(scan.first_lsn);
    if from < scan.first_lsn {
        return Err(untrusted(format!(
            "the checkpoint replays the redo log from LSN {from}, but the log starts at {}",
            scan.first_lsn
        )));
    }
    let outcomes = redo_outcomes(&redo, from)?;
    let replayer = Replayer::new(&start.engine, start.binlog.after_checkpoint, ddl);
    apply_redo(&redo, from, &replayer, &outcomes, &binlog, &mut report)?;
    report.binlog_without_prepare = binlog.difference(&outcomes.prepared).count() as u64;
    if report.binlog_without_prepare > 0 {
        let note = format!(
            "{} binlog transactions after the checkpoint have no redo Prepare record: their \
             engine changes were lost (innodb_flush_log_at_trx_commit was 0 or 2 at the crash)",
            report.binlog_without_prepare
        );
        tracing::warn!("{note}");
        report.notes.push(note);
    }
    let binlog_max = binlog.iter().copied().max().unwrap_or(0);
    report.max_xid = start.max_xid.max(scan.max_xid.unwrap_or(0)).max(binlog_max);
    Ok((start.engine, Arc::new(redo), report))
}
