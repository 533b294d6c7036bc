//! Startup recovery in one-log mode: the latest checkpoint, then the binlog after it.
//!
//! The binlog holds, for every committed transaction, its full row images between a GTID event
//! and its Xid event, and every DDL statement as a Query event. Recovery:
//!
//! 1. loads the latest complete checkpoint, if any: a fuzzy snapshot of every table, taken
//!    after the position it names was fully committed in the engine;
//! 2. reads the index and every file in it from the checkpoint's file on, oldest first (a file
//!    named in the index but missing is a data directory we cannot trust: refuse to start);
//! 3. replays each *complete* transaction (GTID … Xid) after the checkpoint position in file
//!    order: row images are installed directly (`Engine::apply_recovered`; full images make
//!    this idempotent, so changes the fuzzy snapshot already holds are harmless), DDL is
//!    executed again (after a checkpoint, "already exists" / "doesn't exist" are expected: the
//!    snapshot may hold the DDL's effect already);
//! 4. a torn or corrupt tail (checksum failure, truncated event, or a transaction without its
//!    Xid) is cut at the end of the last complete transaction, and reported — but only in the
//!    last file: damage followed by later files is corruption, and the server refuses to start;
//! 5. returns the engine, the next GTID sequence number and the binlog's GTID state (the
//!    Gtid_list at the start of the first file read, then every GTID of a complete
//!    transaction after it — those before the checkpoint position are found by walking the
//!    event headers, without decoding the rows).
//!
//! Transactions whose Xid is in the binlog were acknowledged only after the binlog was synced,
//! so every acknowledged commit is replayed; a transaction cut with the tail was never
//! acknowledged.

use super::binlog::read_index;
use super::checkpoint::read_latest_checkpoint;
use super::ddl_session::DdlSession;
use super::device::LogDir;
use super::gtid::GtidState;
use super::redo::{Lsn, RedoLog, RedoRecord};
use super::rowimage::row_from_bin;
use crate::error::{Error, Result};
use crate::storage::{Engine, TableDef};
use crate::types::Value;
use cohort_binlog::{
    gtid_flags, BinlogPos, BinlogReader, DecodedEvent, Event, EventHeader, EventType, Gtid,
    GtidSeq, RowChange as BinChange, HEADER_LEN,
};
use cohort_protocol::ErrorCode;
use std::collections::HashMap;
use std::sync::Arc;

/// What recovery found.
#[derive(Debug, Default)]
pub struct RecoveryReport {
    pub transactions: u64,
    pub ddl: u64,
    /// Classic mode: Prepare records without a Commit record whose XID is in the binlog
    /// (committed by recovery).
    pub prepared_committed: u64,
    /// Classic mode: Prepare records neither committed nor in the binlog (rolled back).
    pub prepared_rolled_back: u64,
    /// Classic mode: binlog transactions after the checkpoint whose Prepare record is missing
    /// (`innodb_flush_log_at_trx_commit` 0 or 2 and a crash: their engine changes are lost).
    pub binlog_without_prepare: u64,
    pub next_gtid_seq: u64,
    /// The binlog's GTID state at its end (see [`super::gtid`]).
    pub gtids: GtidState,
    /// The highest XID seen (new transactions are numbered above it).
    pub max_xid: u64,
    /// The checkpoint recovery started from, if any.
    pub checkpoint: Option<String>,
    /// Human-readable notes (tails cut), also logged.
    pub notes: Vec<String>,
}

/// Changes of one transaction being read: (db, table, change).
type Pending = Vec<(String, String, BinChange<'static>)>;

/// One complete unit of the binlog, as [`scan_binlog`] hands it over.
pub(super) enum BinlogItem<'a> {
    /// GTID … Xid, complete.
    Transaction { xid: u64, changes: &'a Pending },
    /// A standalone Query event (DDL); classic mode gives it an XID (`Q_XID`).
    Ddl {
        db: &'a str,
        sql: &'a str,
        xid: Option<u64>,
        /// Its time, `sql_mode` and time zone, from the event (`ddl_session.rs`).
        session: DdlSession,
    },
}

/// Where replay starts.
pub(super) struct Start {
    pub file: Option<String>,
    pub pos: u64,
    /// A checkpoint was loaded: tolerate DDL and rows whose effect it already holds.
    pub after_checkpoint: bool,
}

/// Load the latest checkpoint and replay the binlog after it.
pub fn recover_one_log(
    dir: &dyn LogDir,
    basename: &str,
    ddl: &dyn DdlReplay,
) -> Result<(Arc<Engine>, RecoveryReport)> {
    let mut report = RecoveryReport {
        next_gtid_seq: 1,
        ..RecoveryReport::default()
    };
    let loading = std::time::Instant::now();
    let (engine, start) = match read_latest_checkpoint(dir)
        .map_err(|e| untrusted(format!("the checkpoint cannot be read: {e}")))?
    {
        Some(c) => {
            tracing::info!(
                "recovery: checkpoint {} loaded in {:.1?}; replaying the binlog from {}:{}",
                c.info.file,
                loading.elapsed(),
                c.info.position.binlog_file,
                c.info.position.binlog_pos
            );
            report.next_gtid_seq = c.info.position.next_gtid_seq.max(1);
            report.checkpoint = Some(c.info.file.clone());
            let start = Start {
                file: Some(c.info.position.binlog_file.clone()),
                pos: c.info.position.binlog_pos,
                after_checkpoint: true,
            };
            (c.engine, start)
        }
        None => (
            Engine::new(),
            Start {
                file: None,
                pos: 0,
                after_checkpoint: false,
            },
        ),
    };
    let replayer = Replayer::new(&engine, start.after_checkpoint, ddl);
    scan_binlog(dir, basename, &start, &mut report, &mut |item| match item {
        BinlogItem::Transaction { changes, .. } => replayer.apply_transaction(changes),
        BinlogItem::Ddl {
            db, sql, session, ..
        } => replayer.apply_ddl(db, sql, &session),
    })?;
    Ok((engine, report))
}

/// Read every binlog file named in `<basename>.index` from `start`, handing each complete
/// transaction and DDL statement to `on` in log order (counted in `report`, with the next GTID
/// sequence number); cut a torn tail of the last file at its last complete transaction.
pub(super) fn scan_binlog(
    dir: &dyn LogDir,
    basename: &str,
    start: &Start,
    report: &mut RecoveryReport,
    on: &mut dyn FnMut(BinlogItem<'_>) -> Result<()>,
) -> Result<()> {
    let files = read_index(dir, basename)
        .map_err(|e| untrusted(format!("cannot read {basename}.index: {e}")))?;
    let first = match &start.file {
        Some(f) => files.iter().position(|(n, _)| n == f).ok_or_else(|| {
            untrusted(format!(
                "the checkpoint starts at binlog {f}, which is not in the index"
            ))
        })?,
        None => 0,
    };
    for (i, (name, _)) in files.iter().enumerate().skip(first) {
        let last = i + 1 == files.len();
        let data = dir.read(name).map_err(|e| {
            untrusted(format!(
                "binlog file {} is named in the index but cannot be read: {e}",
                dir.display_path(name)
            ))
        })?;
        let from = if i == first { start.pos } else { 0 };
        let good_end = scan_file(&data, from, report, on)?;
        if good_end < data.len() as u64 {
            if !last {
                return Err(untrusted(format!(
                    "binlog file {} is damaged at offset {good_end} and later files exist",
                    dir.display_path(name)
                )));
            }
            cut_tail(dir, name, good_end, &data[good_end as usize..], report)?;
        }
    }
    Ok(())
}

/// Scan one file; returns the offset just past its last complete transaction.
fn scan_file(
    data: &[u8],
    from: u64,
    report: &mut RecoveryReport,
    on: &mut dyn FnMut(BinlogItem<'_>) -> Result<()>,
) -> Result<u64> {
    let (events, mut good_end) = events_from(data, from);
    gtids_before(data, good_end.min(from), &mut report.gtids);
    let mut maps: HashMap<u64, (String, String)> = HashMap::new();
    let mut pending: Option<Pending> = None;
    let mut pending_gtid: Option<Gtid> = None;
    let mut ddl_next = false;
    for ev in &events {
        let DecodedEvent { event, header, .. } = ev;
        match event {
            Event::GtidList(l) => {
                l.gtids.iter().for_each(|g| report.gtids.record(*g));
                if pending.is_none() && !ddl_next {
                    good_end = ev.end().0;
                }
            }
            Event::Gtid(g) => {
                report.next_gtid_seq = report.next_gtid_seq.max(g.seq.0 + 1);
                ddl_next = g.flags2 & gtid_flags::STANDALONE != 0;
                pending = (!ddl_next).then(Vec::new);
                pending_gtid = Some(Gtid {
                    domain_id: g.domain_id,
                    server_id: header.server_id,
                    seq: g.seq,
                });
            }
            Event::TableMap(m) => {
                maps.insert(m.table_id.0, (m.db.clone(), m.table.clone()));
            }
            Event::Rows(rows) => {
                let Some(p) = pending.as_mut() else { continue };
                let (db, table) = maps.get(&rows.table_id.0).cloned().unwrap_or_default();
                p.extend(
                    rows.rows
                        .iter()
                        .map(|c| (db.clone(), table.clone(), c.clone())),
                );
            }
            Event::Xid(xid) => {
                if let Some(p) = pending.take() {
                    on(BinlogItem::Transaction {
                        xid: xid.0,
                        changes: &p,
                    })?;
                    report.transactions += 1;
                }
                if let Some(g) = pending_gtid.take() {
                    report.gtids.record(g);
                }
                good_end = ev.end().0;
            }
            Event::Query(q) if ddl_next => {
                on(BinlogItem::Ddl {
                    db: &q.db,
                    sql: &q.sql,
                    xid: super::encode::query_xid(&q.status_vars),
                    session: DdlSession::of_query_event(header.timestamp, &q.status_vars),
                })?;
                report.ddl += 1;
                ddl_next = false;
                if let Some(g) = pending_gtid.take() {
                    report.gtids.record(g);
                }
                good_end = ev.end().0;
            }
            _ if pending.is_none() && !ddl_next => good_end = ev.end().0,
            _ => {}
        }
    }
    Ok(good_end)
}

/// The GTID state the events before `end` (the checkpoint position: complete transactions
/// only) add: the file's Gtid_list and every GTID event, found by walking the event headers —
/// the rows are not decoded.
fn gtids_before(data: &[u8], end: u64, gtids: &mut GtidState) {
    let end = (end as usize).min(data.len());
    let mut off = 4;
    while off + HEADER_LEN <= end {
        let header = EventHeader::parse(data[off..off + HEADER_LEN].try_into().expect("19 bytes"));
        let size = header.event_size as usize;
        if size < HEADER_LEN || off + size > end {
            break;
        }
        let body = &data[off + HEADER_LEN..off + size];
        match header.event_type {
            EventType::GTID if body.len() >= 12 => gtids.record(Gtid {
                domain_id: u32::from_le_bytes(body[8..12].try_into().expect("4 bytes")),
                server_id: header.server_id,
                seq: GtidSeq(u64::from_le_bytes(body[..8].try_into().expect("8 bytes"))),
            }),
            EventType::GTID_LIST if body.len() >= 4 => {
                let n = (u32::from_le_bytes(body[..4].try_into().expect("4 bytes")) & 0x0fff_ffff)
                    as usize;
                for e in body[4..].chunks_exact(16).take(n) {
                    gtids.record(Gtid {
                        domain_id: u32::from_le_bytes(e[..4].try_into().expect("4 bytes")),
                        server_id: cohort_binlog::ServerId(u32::from_le_bytes(
                            e[4..8].try_into().expect("4 bytes"),
                        )),
                        seq: GtidSeq(u64::from_le_bytes(e[8..16].try_into().expect("8 bytes"))),
                    });
                }
            }
            _ => {}
        }
        off += size;
    }
}

/// DDL errors that mean "the checkpoint already holds this statement's effect".
fn already_applied(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::DbCreateExists
            | ErrorCode::DbDropExists
            | ErrorCode::TableExists
            | ErrorCode::BadTable
            | ErrorCode::NoSuchTable
            | ErrorCode::BadDb
            | ErrorCode::DupKeyName
            | ErrorCode::CantDropFieldOrKey
            | ErrorCode::DupFieldName
            | ErrorCode::BadField
    )
}

/// The events of a file from offset `from` on (the checkpoint position: everything before it
/// is in the snapshot and is not decoded, which keeps restart time bounded), and the offset
/// reading starts from (the valid prefix so far).
fn events_from(data: &[u8], from: u64) -> (Vec<DecodedEvent>, u64) {
    let Ok(mut reader) = BinlogReader::new(data) else {
        return (Vec::new(), 0);
    };
    let mut start = 4;
    if from > 4 && reader.seek(BinlogPos(from)).is_ok() {
        start = from.min(data.len() as u64);
    }
    let events = reader.by_ref().map_while(|e| e.ok()).collect();
    (events, start)
}

/// Cut the last file after its last complete transaction. A tail of zeros only is the space
/// zero-filled ahead of the data ([`super::zerofill`]), not damage.
fn cut_tail(
    dir: &dyn LogDir,
    name: &str,
    good_end: u64,
    tail: &[u8],
    report: &mut RecoveryReport,
) -> Result<()> {
    if tail.iter().all(|&b| b == 0) {
        tracing::info!(
            "binlog {}: {} bytes of zero fill after offset {good_end} removed",
            dir.display_path(name),
            tail.len()
        );
    } else {
        let note = format!(
            "binlog {}: torn or corrupt tail cut at offset {good_end} ({} bytes dropped; no acknowledged commit lives there)",
            dir.display_path(name),
            tail.len()
        );
        tracing::warn!("{note}");
        report.notes.push(note);
    }
    let io = |e: std::io::Error| {
        untrusted(format!(
            "cannot cut the tail of {}: {e}",
            dir.display_path(name)
        ))
    };
    let mut f = dir.open_append(name).map_err(io)?;
    f.truncate(good_end).map_err(io)?;
    f.sync().map_err(io)
}

pub(super) fn untrusted(msg: String) -> Error {
    Error::new(
        cohort_protocol::ErrorCode::Unknown,
        format!("refusing to start: {msg}"),
    )
}

/// Re-runs a logged DDL statement (a binlog Query event or a redo DDL record) against the
/// engine being recovered. The log knows rows, not SQL: the SQL layer implements this
/// (`crate::sql::SqlDdlReplay`) and the server hands it to recovery.
pub trait DdlReplay {
    /// Execute `sql` with `db` as the default database (empty: none) on `engine`, in a
    /// session set up as `session` says the statement ran (its clock, mode and zone).
    fn replay_ddl(
        &self,
        engine: &Arc<Engine>,
        db: &str,
        sql: &str,
        session: &DdlSession,
    ) -> Result<()>;
}

/// Applies replayed transactions and DDL to the engine.
pub(super) struct Replayer<'a> {
    engine: Arc<Engine>,
    /// Replaying after a checkpoint: effects already in the snapshot are expected.
    after_checkpoint: bool,
    ddl: &'a dyn DdlReplay,
}

impl<'a> Replayer<'a> {
    pub(super) fn new(
        engine: &Arc<Engine>,
        after_checkpoint: bool,
        ddl: &'a dyn DdlReplay,
    ) -> Replayer<'a> {
        Replayer {
            engine: engine.clone(),
            after_checkpoint,
            ddl,
        }
    }

    fn apply_transaction(&self, changes: &Pending) -> Result<()> {
        for (db, table, change) in changes {
            self.apply_row(db, table, |def| match change {
                BinChange::Insert(a) => (None, Some(row_from_bin(def, a))),
                BinChange::Update { before, after } => (
                    Some(row_from_bin(def, before)),
                    Some(row_from_bin(def, after)),
                ),
                BinChange::Delete(b) => (Some(row_from_bin(def, b)), None),
            })?;
        }
        Ok(())
    }

    /// Install one row change (images built from the table's current definition).
    pub(super) fn apply_row(
        &self,
        db: &str,
        table: &str,
        images: impl FnOnce(&TableDef) -> (Option<Vec<Value>>, Option<Vec<Value>>),
    ) -> Result<()> {
        let t = match self.engine.table(db, table) {
            Ok(t) => t,
            // Dropped after the checkpoint position and before its snapshot.
            Err(_) if self.after_checkpoint => return Ok(()),
            Err(e) => return Err(e),
        };
        let def = t.def();
        let (before, after) = images(&def);
        if let (Some(col), Some(a)) = (def.auto_increment_column(), &after) {
            match a.get(col) {
                Some(Value::Int(v)) if *v > 0 => t.observe_auto_increment(*v as u64),
                Some(Value::UInt(v)) => t.observe_auto_increment(*v),
                _ => {}
            }
        }
        self.engine
            .apply_recovered(t.id(), before.as_deref(), after.map(Into::into))
    }

    pub(super) fn apply_ddl(&self, db: &str, sql: &str, session: &DdlSession) -> Result<()> {
        match self.ddl.replay_ddl(&self.engine, db, sql, session) {
            Ok(_) => Ok(()),
            Err(e) if self.after_checkpoint && already_applied(e.code()) => Ok(()),
            Err(e) => Err(untrusted(format!(
                "replaying DDL `{sql}` failed: {}",
                e.message()
            ))),
        }
    }
}

/// Binlog-off mode: the latest checkpoint, then every redo record after its LSN.
pub fn recover_redo_only(
    dir: Arc<dyn LogDir>,
    segment_size: u64,
    sync_delay: Arc<std::sync::atomic::AtomicU64>,
    ddl: &dyn DdlReplay,
) -> Result<(Arc<Engine>, Arc<RedoLog>, RecoveryReport)> {
    let mut report = RecoveryReport::default();
    let (engine, start, after_checkpoint) = match read_latest_checkpoint(dir.as_ref())
        .map_err(|e| untrusted(format!("the checkpoint cannot be read: {e}")))?
    {
        Some(c) => {
            report.checkpoint = Some(c.info.file.clone());
            (c.engine, c.info.position.redo_lsn, true)
        }
        None => (Engine::new(), 0, false),
    };
    let (redo, scan) =
        RedoLog::open(dir, segment_size, sync_delay).map_err(|e| untrusted(e.to_string()))?;
    note_redo_cut(&scan, &mut report);
    let replayer = Replayer::new(&engine, after_checkpoint, ddl);
    let start = Lsn(start.max(scan.first_lsn.0));
    let records = redo
        .records_from(start)
        .map_err(|e| untrusted(e.to_string()))?;
    for rec in records {
        let (_, rec) = rec.map_err(|e| untrusted(e.to_string()))?;
        match rec {
            RedoRecord::Committed { changes, .. } => {
                for c in changes {
                    replayer.apply_row(&c.db, &c.table, |_| (c.before.clone(), c.after.clone()))?;
                }
                report.transactions += 1;
            }
            RedoRecord::Ddl { db, sql, session } => {
                replayer.apply_ddl(&db, &sql, &session)?;
                report.ddl += 1;
            }
            // Prepare, Commit, Rollback, PreparedDdl: classic mode only.
            _ => {}
        }
    }
    report.max_xid = scan.max_xid.unwrap_or(0);
    Ok((engine, Arc::new(redo), report))
}

/// Report a torn redo tail that `RedoLog::open` cut.
pub(super) fn note_redo_cut(scan: &super::redo::RedoScan, report: &mut RecoveryReport) {
    if let Some(cut) = &scan.cut {
        let note = format!(
            "redo {}: torn or corrupt tail cut at offset {} ({} bytes dropped: {})",
            cut.file, cut.offset, cut.bytes, cut.reason
        );
        tracing::warn!("{note}");
        report.notes.push(note);
    }
}
