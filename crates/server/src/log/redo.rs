//! The engine's redo log: framed, checksummed records of row images per transaction, in
//! segment files, with a group-commit friendly sync.
//!
//! # Files
//!
//! The log is a byte stream addressed by [`Lsn`] (a global byte offset; segment headers are not
//! part of the stream). It is cut into segment files `redo.000001`, `redo.000002`, … Each
//! starts with a header naming the LSN of its first byte:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `COHREDO\0` |
//! | 8 | 1 | format version (1) |
//! | 9 | 1 | value codec version ([`CODEC_VERSION`]) |
//! | 10 | 2 | reserved, 0 |
//! | 12 | 8 | `first_lsn` u64 LE |
//! | 20 | 4 | CRC32C of bytes 0..20, u32 LE |
//!
//! File offset `o` (≥ 24) of a segment holds LSN `first_lsn + o - 24`. A new segment is started
//! before an append once the current one holds `segment_size` bytes or more of records, so a
//! record never spans two segments.
//!
//! # Record frame
//!
//! | size | field |
//! |---|---|
//! | 4 | `len` u32 LE: bytes of type + payload (≥ 1) |
//! | 4 | CRC32C of type + payload, u32 LE |
//! | 1 | type |
//! | len − 1 | payload |
//!
//! | type | record | payload (primitives of `valuecodec`) |
//! |---|---|---|
//! | 1 | `Prepare` | varint xid, changes |
//! | 2 | `Commit` | varint xid |
//! | 3 | `Rollback` | varint xid |
//! | 4 | `Committed` | varint xid, changes |
//! | 5 | `Ddl` | str db, str sql, [session] |
//! | 6 | `PreparedDdl` | varint xid, str db, str sql, [session] |
//!
//! `session` is the statement's time, `sql_mode` and time zone (`ddl_session.rs`); records
//! written before it existed end after `sql`.
//!
//! `changes := varint n, change*`; `change := varint table_id, str db, str table,
//! opt<row> before, opt<row> after`. A record's LSN is the LSN of its first frame byte;
//! [`RedoLog::append`] returns the LSN just past the appended bytes.
//!
//! # Invariants
//!
//! 1. Records are appended whole (sessions encode them with [`encode_record`] outside any
//!    lock; the log appends the bytes) and LSNs only grow.
//! 2. `synced_lsn() ≤ end_lsn()`, and every byte below `synced_lsn()` has been covered by a
//!    successful fsync. `synced_lsn` only grows.
//! 3. A segment is synced in full before its successor is created, and a new segment's header
//!    is synced (file and directory) before any record is appended to it. Hence only the last
//!    segment can have a torn tail, and only the last segment can have a torn header.
//! 4. After the first failed write or sync the log is poisoned ([`Poison`]): that call and
//!    every later append or sync fail with the same [`PoisonInfo`], and no fsync is retried
//!    (after a failed fsync the kernel may have dropped the dirty pages; a retry could
//!    "succeed" without the data).
//!
//! # What recovery relies on
//!
//! [`RedoLog::open`] reads every segment from the oldest and checks every record (checksum
//! and payload decoding). A bad frame in the last segment is a torn tail: the segment is cut at
//! the last good record, and the cut is reported in [`RedoScan::cut`]. A bad frame anywhere
//! else, a gap in the LSNs between segments, a damaged header of a non-last segment, or a
//! record whose checksum holds but whose payload does not decode (a bug or a newer format) is
//! not a tail: `open` refuses with [`RedoOpenError::Corrupt`] naming the file and offset,
//! because a server must not start on a data directory it cannot trust.
//!
//! Recovery then reads [`RedoLog::records_from`] the checkpoint's LSN and replays: committed
//! row images are full images, so replay is idempotent; a `Prepare` without a `Commit` or
//! `Rollback` is resolved against the binlog (classic two-phase commit).
//!
//! # Locks
//!
//! | lock | protects | held during |
//! |---|---|---|
//! | `write` | segment list, append handle, current sync handle, `end` | an append; a rotation (including its fsyncs, once per segment); a few instructions in `sync_to` and `purge_before` |
//! | `sync_lock` | nothing but the right to fsync: one fsync at a time | an fsync of the current segment, *without* `write` |
//!
//! Lock order: `sync_lock` → `write`. `end` and `synced` are atomics mirroring values set under
//! `write` / `sync_lock`, so `end_lsn()` / `synced_lsn()` and the "already synced" fast path of
//! `sync_to` take no lock.

use super::ddl_session::DdlSession;
use super::device::{timed_sync, LogDir, LogFile, Poison, PoisonInfo, SyncStats};
use super::valuecodec::{
    codec_readable, decode_row, encode_row, put_str, put_varint, CodecError, Reader, CODEC_VERSION,
};
use crate::storage::RowChange;
use crate::types::Value;
use crate::wait::{self, WaitEvent};
use parking_lot::Mutex;
use std::fmt;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A position in the redo stream: a byte offset across all segments, headers excluded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lsn(pub u64);

impl fmt::Display for Lsn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

// ---- frames (shared with checkpoint.rs) ----

/// Bytes of `len` + `crc` before a frame's type byte.
pub(crate) const FRAME_HEADER_LEN: usize = 8;
/// No frame is larger (a larger `len` is damage, not data).
const MAX_FRAME_LEN: u32 = 1 << 30;

/// Start a frame of type `kind` at the end of `out`; returns where it starts.
pub(crate) fn begin_frame(out: &mut Vec<u8>, kind: u8) -> usize {
    let start = out.len();
    out.extend_from_slice(&[0; FRAME_HEADER_LEN]);
    out.push(kind);
    start
}

/// Fill in `len` and `crc` of the frame begun at `start`, which runs to the end of `out`.
pub(crate) fn end_frame(out: &mut [u8], start: usize) {
    let body = &out[start + FRAME_HEADER_LEN..];
    let len = u32::try_from(body.len()).expect("frame larger than 4 GiB");
    let crc = crc32c::crc32c(body);
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
    out[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
}

/// One verified frame.
pub(crate) struct Frame<'a> {
    pub kind: u8,
    pub payload: &'a [u8],
    /// Bytes the frame takes, header included.
    pub size: usize,
}

/// Why the bytes at some offset are not a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FrameError {
    /// Fewer bytes than the header or the length announce.
    Truncated,
    BadLength(u32),
    BadChecksum,
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Truncated => f.write_str("truncated record"),
            FrameError::BadLength(n) => write!(f, "bad record length {n}"),
            FrameError::BadChecksum => f.write_str("record checksum mismatch"),
        }
    }
}

/// Parse and verify the frame at the start of `buf`.
pub(crate) fn parse_frame(buf: &[u8]) -> Result<Frame<'_>, FrameError> {
    if buf.len() < FRAME_HEADER_LEN {
        return Err(FrameError::Truncated);
    }
    let len = u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]);
    let crc = u32::from_le_bytes([buf[4], buf[5], buf[6], buf[7]]);
    if len == 0 || len > MAX_FRAME_LEN {
        return Err(FrameError::BadLength(len));
    }
    let size = FRAME_HEADER_LEN + len as usize;
    if buf.len() < size {
        return Err(FrameError::Truncated);
    }
    let body = &buf[FRAME_HEADER_LEN..size];
    if crc32c::crc32c(body) != crc {
        return Err(FrameError::BadChecksum);
    }
    Ok(Frame {
        kind: body[0],
        payload: &body[1..],
        size,
    })
}

// ---- records ----

const REC_PREPARE: u8 = 1;
const REC_COMMIT: u8 = 2;
const REC_ROLLBACK: u8 = 3;
const REC_COMMITTED: u8 = 4;
const REC_DDL: u8 = 5;
const REC_PREPARED_DDL: u8 = 6;

/// One row change: full images before and after (None: the row did not exist / was deleted).
#[derive(Clone, Debug, PartialEq)]
pub struct RedoChange {
    pub table_id: u64,
    pub db: String,
    pub table: String,
    pub before: Option<Vec<Value>>,
    pub after: Option<Vec<Value>>,
}

/// A borrowed [`RedoChange`], to encode a transaction's changes without copying its rows.
#[derive(Clone, Copy, Debug)]
pub struct RedoChangeRef<'a> {
    pub table_id: u64,
    pub db: &'a str,
    pub table: &'a str,
    pub before: Option<&'a [Value]>,
    pub after: Option<&'a [Value]>,
}

impl RedoChange {
    pub fn as_ref(&self) -> RedoChangeRef<'_> {
        RedoChangeRef {
            table_id: self.table_id,
            db: &self.db,
            table: &self.table,
            before: self.before.as_deref(),
            after: self.after.as_deref(),
        }
    }
}

impl<'a> RedoChangeRef<'a> {
    /// The change as the engine reports it (`Txn::changes`).
    pub fn from_row_change(c: &'a RowChange) -> RedoChangeRef<'a> {
        RedoChangeRef {
            table_id: c.table.id().0,
            db: c.table.db(),
            table: c.table.name(),
            before: c.before.as_deref(),
            after: c.after.as_deref(),
        }
    }
}

/// One redo record.
#[derive(Clone, Debug, PartialEq)]
pub enum RedoRecord {
    /// Two-phase commit, phase 1: the transaction's changes, written at engine prepare.
    Prepare { xid: u64, changes: Vec<RedoChange> },
    /// The prepared transaction `xid` committed.
    Commit { xid: u64 },
    /// The prepared transaction `xid` rolled back.
    Rollback { xid: u64 },
    /// Binlog-off mode: the whole commit in one record.
    Committed { xid: u64, changes: Vec<RedoChange> },
    /// A DDL statement, replayed by executing `sql` with `db` as the current database.
    Ddl {
        db: String,
        sql: String,
        session: DdlSession,
    },
    /// Classic mode: a DDL statement that took effect, resolved like a `Prepare`: replayed
    /// only if a `Commit` record or its binlog Query event (whose `Q_XID` is `xid`) follows.
    PreparedDdl {
        xid: u64,
        db: String,
        sql: String,
        session: DdlSession,
    },
}

impl RedoRecord {
    /// The transaction the record belongs to (None for DDL).
    pub fn xid(&self) -> Option<u64> {
        match self {
            RedoRecord::Prepare { xid, .. }
            | RedoRecord::Commit { xid }
            | RedoRecord::Rollback { xid }
            | RedoRecord::Committed { xid, .. }
            | RedoRecord::PreparedDdl { xid, .. } => Some(*xid),
            RedoRecord::Ddl { .. } => None,
        }
    }
}

/// Which record [`encode_txn`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxnRecordKind {
    Prepare,
    Committed,
}

fn put_opt_row(out: &mut Vec<u8>, row: Option<&[Value]>) {
    match row {
        None => out.push(0),
        Some(r) => {
            out.push(1);
            encode_row(out, r);
        }
    }
}

fn put_change(out: &mut Vec<u8>, c: &RedoChangeRef<'_>) {
    put_varint(out, c.table_id);
    put_str(out, c.db);
    put_str(out, c.table);
    put_opt_row(out, c.before);
    put_opt_row(out, c.after);
}

/// Append the frame of a `Prepare` or `Committed` record to `out`, from borrowed changes.
pub fn encode_txn<'a, I>(out: &mut Vec<u8>, kind: TxnRecordKind, xid: u64, changes: I)
where
    I: IntoIterator<Item = RedoChangeRef<'a>>,
    I::IntoIter: ExactSizeIterator,
{
    let tag = match kind {
        TxnRecordKind::Prepare => REC_PREPARE,
        TxnRecordKind::Committed => REC_COMMITTED,
    };
    let start = begin_frame(out, tag);
    put_varint(out, xid);
    let changes = changes.into_iter();
    put_varint(out, changes.len() as u64);
    for c in changes {
        put_change(out, &c);
    }
    end_frame(out, start);
}

/// Append the frame of `rec` to `out` (outside the log's lock; see [`RedoLog::append`]).
pub fn encode_record(out: &mut Vec<u8>, rec: &RedoRecord) {
    let (kind, changes, xid) = match rec {
        RedoRecord::Prepare { xid, changes } => (TxnRecordKind::Prepare, changes, *xid),
        RedoRecord::Committed { xid, changes } => (TxnRecordKind::Committed, changes, *xid),
        RedoRecord::Commit { xid } | RedoRecord::Rollback { xid } => {
            let tag = if matches!(rec, RedoRecord::Commit { .. }) {
                REC_COMMIT
            } else {
                REC_ROLLBACK
            };
            let start = begin_frame(out, tag);
            put_varint(out, *xid);
            return end_frame(out, start);
        }
        RedoRecord::Ddl { db, sql, session } => {
            let start = begin_frame(out, REC_DDL);
            put_str(out, db);
            put_str(out, sql);
            session.encode(out);
            return end_frame(out, start);
        }
        RedoRecord::PreparedDdl {
            xid,
            db,
            sql,
            session,
        } => {
            let start = begin_frame(out, REC_PREPARED_DDL);
            put_varint(out, *xid);
            put_str(out, db);
            put_str(out, sql);
            session.encode(out);
            return end_frame(out, start);
        }
    };
    encode_txn(out, kind, xid, changes.iter().map(RedoChange::as_ref));
}

fn decode_opt_row(r: &mut Reader<'_>) -> Result<Option<Vec<Value>>, CodecError> {
    Ok(if r.bool()? {
        Some(decode_row(r)?)
    } else {
        None
    })
}

fn decode_changes(r: &mut Reader<'_>) -> Result<Vec<RedoChange>, CodecError> {
    let n = r.count()?;
    let mut changes = Vec::with_capacity(n);
    for _ in 0..n {
        changes.push(RedoChange {
            table_id: r.varint()?,
            db: r.str()?,
            table: r.str()?,
            before: decode_opt_row(r)?,
            after: decode_opt_row(r)?,
        });
    }
    Ok(changes)
}

/// Decode a verified frame's payload.
fn decode_record(kind: u8, payload: &[u8]) -> Result<RedoRecord, CodecError> {
    let r = &mut Reader::new(payload);
    let rec = match kind {
        REC_PREPARE => RedoRecord::Prepare {
            xid: r.varint()?,
            changes: decode_changes(r)?,
        },
        REC_COMMIT => RedoRecord::Commit { xid: r.varint()? },
        REC_ROLLBACK => RedoRecord::Rollback { xid: r.varint()? },
        REC_COMMITTED => RedoRecord::Committed {
            xid: r.varint()?,
            changes: decode_changes(r)?,
        },
        REC_DDL => RedoRecord::Ddl {
            db: r.str()?,
            sql: r.str()?,
            session: DdlSession::decode(r)?,
        },
        REC_PREPARED_DDL => RedoRecord::PreparedDdl {
            xid: r.varint()?,
            db: r.str()?,
            sql: r.str()?,
            session: DdlSession::decode(r)?,
        },
        k => return Err(r.error(format!("unknown record type {k}"))),
    };
    r.finish()?;
    Ok(rec)
}

// ---- segments ----

const SEGMENT_MAGIC: [u8; 8] = *b"COHREDO\0";
const FORMAT_VERSION: u8 = 1;
/// Bytes of a segment header.
pub const SEGMENT_HEADER_LEN: u64 = 24;
const HEADER_LEN: usize = SEGMENT_HEADER_LEN as usize;

fn segment_name(seq: u64) -> String {
    format!("redo.{seq:06}")
}

/// The sequence number of a segment file name (`redo.` followed by digits).
fn parse_segment_name(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("redo.")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn segment_header(first_lsn: u64) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(&SEGMENT_MAGIC);
    h[8] = FORMAT_VERSION;
    h[9] = CODEC_VERSION;
    h[12..20].copy_from_slice(&first_lsn.to_le_bytes());
    let crc = crc32c::crc32c(&h[..20]);
    h[20..].copy_from_slice(&crc.to_le_bytes());
    h
}

enum HeaderProblem {
    /// Short or failing its checksum: a header whose write did not complete.
    Torn,
    /// Intact but not ours, or of a version this build does not read.
    Unreadable(String),
}

/// The `first_lsn` of a segment.
fn parse_segment_header(b: &[u8]) -> Result<u64, HeaderProblem> {
    if b.len() < HEADER_LEN {
        return Err(HeaderProblem::Torn);
    }
    let crc = u32::from_le_bytes([b[20], b[21], b[22], b[23]]);
    if crc32c::crc32c(&b[..20]) != crc {
        return Err(HeaderProblem::Torn);
    }
    if b[..8] != SEGMENT_MAGIC {
        return Err(HeaderProblem::Unreadable("not a redo segment".into()));
    }
    if b[8] != FORMAT_VERSION || !codec_readable(b[9]) {
        return Err(HeaderProblem::Unreadable(format!(
            "unsupported redo format {} / value codec {}",
            b[8], b[9]
        )));
    }
    let mut lsn = [0u8; 8];
    lsn.copy_from_slice(&b[12..20]);
    Ok(u64::from_le_bytes(lsn))
}

/// One segment file of a running log.
#[derive(Clone, Debug)]
struct Segment {
    seq: u64,
    name: String,
    first_lsn: u64,
}

/// Create segment `seq` starting at `first_lsn`: header written and synced, directory synced.
fn create_segment(
    dir: &dyn LogDir,
    seq: u64,
    first_lsn: u64,
    delay_us: u64,
    stats: &SyncStats,
) -> Result<(Segment, Box<dyn LogFile>), (String, io::Error)> {
    let name = segment_name(seq);
    let fail = |e| (name.clone(), e);
    let mut file = dir.create(&name).map_err(fail)?;
    file.append(&segment_header(first_lsn)).map_err(fail)?;
    timed_sync(&mut *file, WaitEvent::RedoSync, delay_us, stats).map_err(fail)?;
    // The new file must survive a crash before anything is acknowledged from it.
    dir.sync_dir().map_err(fail)?;
    let seg = Segment {
        seq,
        name,
        first_lsn,
    };
    Ok((seg, file))
}

// ---- opening ----

/// Why the log cannot be opened or read.
#[derive(Debug)]
pub enum RedoOpenError {
    /// The file system failed.
    Io { file: String, error: io::Error },
    /// Damage that is not a torn tail: the server must not start on this directory.
    Corrupt {
        file: String,
        offset: u64,
        reason: String,
    },
    /// `records_from` was asked for a position the log does not hold.
    BadPosition { lsn: Lsn, reason: String },
}

impl fmt::Display for RedoOpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RedoOpenError::Io { file, error } => write!(f, "redo log file '{file}': {error}"),
            RedoOpenError::Corrupt {
                file,
                offset,
                reason,
            } => write!(
                f,
                "redo log file '{file}' is corrupt at offset {offset}: {reason}; \
                 refusing to start on a log that cannot be trusted"
            ),
            RedoOpenError::BadPosition { lsn, reason } => {
                write!(f, "redo log position {lsn}: {reason}")
            }
        }
    }
}

impl std::error::Error for RedoOpenError {}

/// What the open-time scan cut off the end of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TailCut {
    /// The file cut (printable path).
    pub file: String,
    /// File offset of the first byte removed (the end of the last good record).
    pub offset: u64,
    /// Bytes removed.
    pub bytes: u64,
    /// Why the bytes at `offset` were not a record.
    pub reason: String,
}

/// What [`RedoLog::open`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RedoScan {
    /// The oldest LSN the log still holds.
    pub first_lsn: Lsn,
    /// The LSN past the last good record.
    pub end_lsn: Lsn,
    pub segments: usize,
    /// Good records found.
    pub records: u64,
    /// The highest transaction id in any record (recovery allocates above it).
    pub max_xid: Option<u64>,
    /// The torn tail removed, if any: a partial or damaged last record (and everything after
    /// it in the last segment), or a last segment whose header never completed.
    pub cut: Option<TailCut>,
}

impl RedoScan {
    fn note(&mut self, rec: &RedoRecord) {
        self.records += 1;
        if let Some(x) = rec.xid() {
            self.max_xid = Some(self.max_xid.map_or(x, |m| m.max(x)));
        }
    }
}

/// The outcome of checking one segment file.
enum SegmentCheck {
    /// Good up to `good_len` bytes (less than the file's length: a torn tail to cut).
    Good {
        first_lsn: u64,
        good_len: u64,
        tail: Option<String>,
    },
    /// The last segment, whose header never became durable: nothing in it was acknowledged.
    TornHeader,
}

fn corrupt(
    dir: &dyn LogDir,
    name: &str,
    offset: usize,
    reason: impl fmt::Display,
) -> RedoOpenError {
    RedoOpenError::Corrupt {
        file: dir.display_path(name),
        offset: offset as u64,
        reason: reason.to_string(),
    }
}

fn io_error(dir: &dyn LogDir, name: &str, error: io::Error) -> RedoOpenError {
    RedoOpenError::Io {
        file: dir.display_path(name),
        error,
    }
}

/// Verify every record of one segment (see the module docs for what is a tail).
fn check_segment(
    dir: &dyn LogDir,
    name: &str,
    bytes: &[u8],
    is_last: bool,
    scan: &mut RedoScan,
) -> Result<SegmentCheck, RedoOpenError> {
    let first_lsn = match parse_segment_header(bytes) {
        Ok(lsn) => lsn,
        Err(HeaderProblem::Torn) if is_last && bytes.len() <= HEADER_LEN => {
            return Ok(SegmentCheck::TornHeader)
        }
        Err(HeaderProblem::Torn) => return Err(corrupt(dir, name, 0, "damaged segment header")),
        Err(HeaderProblem::Unreadable(why)) => return Err(corrupt(dir, name, 0, why)),
    };
    let mut pos = HEADER_LEN;
    while pos < bytes.len() {
        let frame = match parse_frame(&bytes[pos..]) {
            Ok(f) => f,
            Err(e) if is_last => {
                return Ok(SegmentCheck::Good {
                    first_lsn,
                    good_len: pos as u64,
                    tail: Some(e.to_string()),
                })
            }
            Err(e) => return Err(corrupt(dir, name, pos, e)),
        };
        let rec = decode_record(frame.kind, frame.payload)
            .map_err(|e| corrupt(dir, name, pos, format!("undecodable record: {e}")))?;
        scan.note(&rec);
        pos += frame.size;
    }
    Ok(SegmentCheck::Good {
        first_lsn,
        good_len: pos as u64,
        tail: None,
    })
}

/// Segment files of `dir`, oldest first.
fn list_segments(dir: &dyn LogDir) -> Result<Vec<(u64, String)>, RedoOpenError> {
    let names = dir.list().map_err(|e| io_error(dir, "", e))?;
    let mut segs: Vec<(u64, String)> = names
        .into_iter()
        .filter_map(|n| parse_segment_name(&n).map(|s| (s, n)))
        .collect();
    segs.sort();
    Ok(segs)
}

/// The result of scanning the directory: the segments to keep, and where the last one ends.
struct Scanned {
    segments: Vec<Segment>,
    /// Data bytes of the last segment.
    last_len: u64,
}

/// Scan every segment, cutting torn tails (module docs, "What recovery relies on").
fn scan_dir(
    dir: &dyn LogDir,
    delay_us: u64,
    stats: &SyncStats,
    scan: &mut RedoScan,
) -> Result<Scanned, RedoOpenError> {
    let files = list_segments(dir)?;
    let mut segments: Vec<Segment> = Vec::new();
    let mut last_len = 0;
    for (i, (seq, name)) in files.iter().enumerate() {
        let is_last = i + 1 == files.len();
        let bytes = dir.read(name).map_err(|e| io_error(dir, name, e))?;
        match check_segment(dir, name, &bytes, is_last, scan)? {
            SegmentCheck::TornHeader => {
                remove_torn_segment(dir, name, bytes.len(), scan)?;
            }
            SegmentCheck::Good {
                first_lsn,
                good_len,
                tail,
            } => {
                if let Some(prev) = segments.last() {
                    let expected = prev.first_lsn + last_len;
                    if first_lsn != expected {
                        let why = format!("starts at LSN {first_lsn}, expected {expected}");
                        return Err(corrupt(dir, name, 12, why));
                    }
                }
                if let Some(reason) = tail {
                    cut_tail(
                        dir,
                        name,
                        bytes.len(),
                        good_len,
                        reason,
                        delay_us,
                        stats,
                        scan,
                    )?;
                }
                last_len = good_len - SEGMENT_HEADER_LEN;
                segments.push(Segment {
                    seq: *seq,
                    name: name.clone(),
                    first_lsn,
                });
            }
        }
    }
    Ok(Scanned { segments, last_len })
}

fn remove_torn_segment(
    dir: &dyn LogDir,
    name: &str,
    len: usize,
    scan: &mut RedoScan,
) -> Result<(), RedoOpenError> {
    dir.remove(name).map_err(|e| io_error(dir, name, e))?;
    dir.sync_dir().map_err(|e| io_error(dir, name, e))?;
    scan.cut = Some(TailCut {
        file: dir.display_path(name),
        offset: 0,
        bytes: len as u64,
        reason: "segment header never completed".into(),
    });
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn cut_tail(
    dir: &dyn LogDir,
    name: &str,
    len: usize,
    good_len: u64,
    reason: String,
    delay_us: u64,
    stats: &SyncStats,
    scan: &mut RedoScan,
) -> Result<(), RedoOpenError> {
    let fail = |e| io_error(dir, name, e);
    let mut f = dir.open_append(name).map_err(fail)?;
    f.truncate(good_len).map_err(fail)?;
    timed_sync(&mut *f, WaitEvent::RedoSync, delay_us, stats).map_err(fail)?;
    scan.cut = Some(TailCut {
        file: dir.display_path(name),
        offset: good_len,
        bytes: len as u64 - good_len,
        reason,
    });
    Ok(())
}

// ---- the log ----

/// Protected by `RedoLog::write`.
struct WriteState {
    /// Oldest first; the last one is appended to. Never empty.
    segments: Vec<Segment>,
    /// Append handle of the last segment.
    file: Box<dyn LogFile>,
    /// A second handle on the last segment, taken out by `sync_to` so the fsync runs without
    /// `write` held. Replaced at rotation (an in-flight sync keeps the old one).
    sync_file: Arc<Mutex<Box<dyn LogFile>>>,
    /// LSN past the last appended byte.
    end: u64,
}

impl WriteState {
    fn current(&self) -> &Segment {
        self.segments.last().expect("a log has a segment")
    }

    /// Record bytes in the current segment.
    fn current_len(&self) -> u64 {
        self.end - self.current().first_lsn
    }
}

/// The redo log. `Send + Sync`; share it as `Arc<RedoLog>`. See the module docs for the locks.
pub struct RedoLog {
    dir: Arc<dyn LogDir>,
    /// Start a new segment once the current one holds this many record bytes.
    segment_size: u64,
    /// `log_sync_delay_us`: a test knob slept before every fsync.
    sync_delay: Arc<AtomicU64>,
    /// The first write or sync failure (its own mutex).
    poison: Poison,
    stats: SyncStats,
    /// Mirror of `WriteState::end`, stored under `write` after the bytes are written.
    end: AtomicU64,
    /// LSN below which every byte is durable; only grows (`fetch_max`).
    synced: AtomicU64,
    write: wait::Mutex<WriteState, wait::ev::RedoLog>,
    /// Held across an fsync of the current segment (not across rotation's fsyncs, which run
    /// under `write`).
    /// A contended acquisition is a reported redo-sync wait (`lock_blocking`).
    sync_lock: wait::Mutex<(), wait::ev::RedoSync>,
}

impl std::fmt::Debug for RedoLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "RedoLog(end {}, synced {})",
            self.end_lsn(),
            self.synced_lsn()
        )
    }
}

impl RedoLog {
    /// Open the log in `dir` (creating `redo.000001` in an empty directory): scan and verify
    /// every record, cut a torn tail, and sync what is kept. Everything kept is durable, so
    /// `synced_lsn() == end_lsn()` afterwards.
    pub fn open(
        dir: Arc<dyn LogDir>,
        segment_size: u64,
        sync_delay: Arc<AtomicU64>,
    ) -> Result<(RedoLog, RedoScan), RedoOpenError> {
        let stats = SyncStats::default();
        let delay = sync_delay.load(Ordering::Relaxed);
        let mut scan = RedoScan::default();
        let scanned = scan_dir(&*dir, delay, &stats, &mut scan)?;
        let (segments, end, file) = match scanned.segments.last() {
            Some(last) => {
                let end = last.first_lsn + scanned.last_len;
                let mut file = dir
                    .open_append(&last.name)
                    .map_err(|e| io_error(&*dir, &last.name, e))?;
                // Bytes read may sit in the page cache only (the process crashed, the OS did
                // not): make them durable before claiming synced == end.
                timed_sync(&mut *file, WaitEvent::RedoSync, delay, &stats)
                    .map_err(|e| io_error(&*dir, &last.name, e))?;
                (scanned.segments, end, file)
            }
            None => {
                let (seg, file) = create_segment(&*dir, 1, 0, delay, &stats)
                    .map_err(|(name, e)| io_error(&*dir, &name, e))?;
                (vec![seg], 0, file)
            }
        };
        let current = &segments.last().expect("a segment").name;
        let sync_file = dir
            .open_append(current)
            .map_err(|e| io_error(&*dir, current, e))?;
        scan.first_lsn = Lsn(segments[0].first_lsn);
        scan.end_lsn = Lsn(end);
        scan.segments = segments.len();
        let log = RedoLog {
            dir,
            segment_size,
            sync_delay,
            poison: Poison::default(),
            stats,
            end: AtomicU64::new(end),
            synced: AtomicU64::new(end),
            write: wait::Mutex::new(WriteState {
                segments,
                file,
                sync_file: Arc::new(Mutex::new(sync_file)),
                end,
            }),
            sync_lock: wait::Mutex::new(()),
        };
        Ok((log, scan))
    }

    /// The LSN past the last appended byte.
    pub fn end_lsn(&self) -> Lsn {
        Lsn(self.end.load(Ordering::Acquire))
    }

    /// Every byte below this LSN is durable.
    pub fn synced_lsn(&self) -> Lsn {
        Lsn(self.synced.load(Ordering::Acquire))
    }

    /// The oldest LSN still in the log (raised by `purge_before`).
    pub fn first_lsn(&self) -> Lsn {
        Lsn(self.write.lock().segments[0].first_lsn)
    }

    /// The segment file names, oldest first.
    pub fn segment_names(&self) -> Vec<String> {
        let w = self.write.lock();
        w.segments.iter().map(|s| s.name.clone()).collect()
    }

    /// Count and time of this log's fsyncs.
    pub fn sync_stats(&self) -> &SyncStats {
        &self.stats
    }

    /// The failure that poisoned the log, if any.
    pub fn poisoned(&self) -> Option<PoisonInfo> {
        self.poison.get()
    }

    fn check_poison(&self) -> Result<(), PoisonInfo> {
        self.poison.get().map_or(Ok(()), Err)
    }

    /// Latch a failure on `name` (the first one wins) and return the latched one.
    fn fail(&self, name: &str, e: &io::Error) -> PoisonInfo {
        self.poison.set(self.dir.display_path(name), e)
    }

    fn delay_us(&self) -> u64 {
        self.sync_delay.load(Ordering::Relaxed)
    }

    /// Append whole pre-encoded records ([`encode_record`], [`encode_txn`]); returns the LSN
    /// past them. Not durable until a sync covers that LSN.
    pub fn append(&self, bytes: &[u8]) -> Result<Lsn, PoisonInfo> {
        let mut w = self.write.lock();
        self.check_poison()?;
        if w.current_len() >= self.segment_size && w.current_len() > 0 {
            self.rotate(&mut w)?;
        }
        if let Err(e) = w.file.append(bytes) {
            let name = w.current().name.clone();
            return Err(self.fail(&name, &e));
        }
        w.end += bytes.len() as u64;
        self.end.store(w.end, Ordering::Release);
        Ok(Lsn(w.end))
    }

    /// Sync the full current segment, then start the next one (invariant 3).
    fn rotate(&self, w: &mut WriteState) -> Result<(), PoisonInfo> {
        let name = w.current().name.clone();
        timed_sync(
            &mut *w.file,
            WaitEvent::RedoSync,
            self.delay_us(),
            &self.stats,
        )
        .map_err(|e| self.fail(&name, &e))?;
        self.synced.fetch_max(w.end, Ordering::AcqRel);
        let seq = w.current().seq + 1;
        let (seg, file) = create_segment(&*self.dir, seq, w.end, self.delay_us(), &self.stats)
            .map_err(|(name, e)| self.fail(&name, &e))?;
        let sync_file = self
            .dir
            .open_append(&seg.name)
            .map_err(|e| self.fail(&seg.name, &e))?;
        w.file = file;
        w.sync_file = Arc::new(Mutex::new(sync_file));
        w.segments.push(seg);
        Ok(())
    }

    /// Make everything appended so far durable; returns the synced LSN. For the once-a-second
    /// flush of `flush_log_at_trx_commit` 0 and 2: cheap when nothing is new.
    pub fn sync(&self) -> Result<Lsn, PoisonInfo> {
        self.sync_to(self.end_lsn())
    }

    /// Make every byte below `lsn` durable; returns the synced LSN (≥ `lsn` unless `lsn` is
    /// past the end). Group commit: many callers share one fsync. A caller already covered
    /// returns at once; the others queue on `sync_lock`, and the one that gets it syncs up to
    /// the end of the log as it is then, which covers everyone queued behind it.
    ///
    /// Ordering argument (why the fsync may run without `write`): `target` and the sync handle
    /// are read together under `write`. Every append below `target` finished its `write(2)`
    /// before it raised `end` under that mutex, so it finished before the fsync starts, and
    /// fdatasync flushes the file's dirty pages whichever descriptor it is called on. Appends
    /// racing with the fsync may or may not be covered and are not claimed: `synced` becomes
    /// `target`. `target` lies in the handle's segment, and all earlier segments were synced
    /// whole by `rotate` before this one was created.
    pub fn sync_to(&self, lsn: Lsn) -> Result<Lsn, PoisonInfo> {
        self.check_poison()?;
        if self.synced.load(Ordering::Acquire) >= lsn.0 {
            return Ok(self.synced_lsn());
        }
        let _turn = self.sync_lock.lock_blocking();
        // The previous holder may have failed, or covered us.
        self.check_poison()?;
        if self.synced.load(Ordering::Acquire) >= lsn.0 {
            return Ok(self.synced_lsn());
        }
        let (target, handle, name) = {
            let w = self.write.lock();
            (w.end, w.sync_file.clone(), w.current().name.clone())
        };
        let mut file = handle.lock();
        match timed_sync(
            &mut **file,
            WaitEvent::RedoSync,
            self.delay_us(),
            &self.stats,
        ) {
            Ok(()) => {
                self.synced.fetch_max(target, Ordering::AcqRel);
                Ok(self.synced_lsn())
            }
            Err(e) => Err(self.fail(&name, &e)),
        }
    }

    /// Binlog-off mode: a group appended from `lsn` failed before its commit point (the log
    /// is poisoned). Cut the log back to `lsn` and make the cut durable, so that neither a
    /// restart nor a later sync brings any of its bytes back. Only leaders append in that
    /// mode, so nothing after `lsn` belongs to anyone else. Runs holding `sync_lock`: no fsync
    /// of the old length is in flight when the cut is synced.
    pub fn cut_back(&self, lsn: Lsn) -> io::Result<()> {
        let _turn = self.sync_lock.lock_blocking();
        let mut w = self.write.lock();
        let first = w.current().first_lsn;
        if lsn.0 < first || lsn.0 > w.end {
            return Err(io::Error::other(format!(
                "cannot cut the redo log back to {lsn}: the current segment holds {first}..{}",
                w.end
            )));
        }
        w.file.truncate(SEGMENT_HEADER_LEN + lsn.0 - first)?;
        w.file.sync_metadata()?;
        w.end = lsn.0;
        self.end.store(lsn.0, Ordering::Release);
        Ok(())
    }

    /// Remove whole segments that end at or before `lsn` (after a checkpoint at `lsn`); the
    /// segment being appended to is never removed. Returns the removed file names. A failure
    /// leaves a file that the next open still reads; it does not poison the log.
    pub fn purge_before(&self, lsn: Lsn) -> io::Result<Vec<String>> {
        let doomed: Vec<Segment> = {
            let mut w = self.write.lock();
            let n = (1..w.segments.len())
                .take_while(|&i| w.segments[i].first_lsn <= lsn.0)
                .count();
            w.segments.drain(..n).collect()
        };
        if doomed.is_empty() {
            return Ok(Vec::new());
        }
        for seg in &doomed {
            self.dir.remove(&seg.name)?;
        }
        self.dir.sync_dir()?;
        Ok(doomed.into_iter().map(|s| s.name).collect())
    }

    /// The records from `lsn` (a record boundary, e.g. a checkpoint's LSN) to the end of the
    /// log as it is now, read back from the files one segment at a time. For recovery: appends
    /// made while iterating are not returned.
    pub fn records_from(&self, lsn: Lsn) -> Result<RedoRecords, RedoOpenError> {
        let (segments, end) = {
            let w = self.write.lock();
            (w.segments.clone(), w.end)
        };
        let oldest = segments[0].first_lsn;
        if lsn.0 < oldest {
            let reason = format!("purged: the log starts at {oldest}");
            return Err(RedoOpenError::BadPosition { lsn, reason });
        }
        if lsn.0 > end {
            let reason = format!("past the end of the log ({end})");
            return Err(RedoOpenError::BadPosition { lsn, reason });
        }
        // Keep the segment holding `lsn` and those after it.
        let skip = (1..segments.len())
            .take_while(|&i| segments[i].first_lsn <= lsn.0)
            .count();
        let mut segments = segments;
        segments.drain(..skip);
        Ok(RedoRecords {
            dir: self.dir.clone(),
            segments: segments.into_iter(),
            current: None,
            from: lsn.0,
            end,
            done: false,
        })
    }
}

/// The segment being read by [`RedoRecords`].
struct OpenSegment {
    name: String,
    bytes: Vec<u8>,
    first_lsn: u64,
    pos: usize,
}

/// Iterator over `(LSN, record)` from [`RedoLog::records_from`]; stops after the first error.
pub struct RedoRecords {
    dir: Arc<dyn LogDir>,
    segments: std::vec::IntoIter<Segment>,
    current: Option<OpenSegment>,
    from: u64,
    end: u64,
    done: bool,
}

impl RedoRecords {
    fn load(&mut self, seg: Segment) -> Result<(), RedoOpenError> {
        let dir = &*self.dir;
        let bytes = dir
            .read(&seg.name)
            .map_err(|e| io_error(dir, &seg.name, e))?;
        match parse_segment_header(&bytes) {
            Ok(lsn) if lsn == seg.first_lsn => {}
            _ => return Err(corrupt(dir, &seg.name, 0, "segment header changed")),
        }
        self.current = Some(OpenSegment {
            name: seg.name,
            bytes,
            first_lsn: seg.first_lsn,
            pos: HEADER_LEN,
        });
        Ok(())
    }

    /// The next record at or after `from`, or None at the end.
    fn step(&mut self) -> Result<Option<(Lsn, RedoRecord)>, RedoOpenError> {
        loop {
            let at_end = match &self.current {
                Some(s) => s.pos >= s.bytes.len(),
                None => true,
            };
            if at_end {
                match self.segments.next() {
                    Some(seg) => self.load(seg)?,
                    None => return Ok(None),
                }
                continue;
            }
            let s = self.current.as_mut().expect("segment loaded");
            let lsn = s.first_lsn + (s.pos - HEADER_LEN) as u64;
            if lsn >= self.end {
                return Ok(None);
            }
            let dir = &*self.dir;
            let frame =
                parse_frame(&s.bytes[s.pos..]).map_err(|e| corrupt(dir, &s.name, s.pos, e))?;
            let rec = decode_record(frame.kind, frame.payload)
                .map_err(|e| corrupt(dir, &s.name, s.pos, e))?;
            s.pos += frame.size;
            let next = lsn + frame.size as u64;
            if lsn >= self.from {
                return Ok(Some((Lsn(lsn), rec)));
            }
            if next > self.from {
                let reason = format!("inside the record at {lsn}");
                return Err(RedoOpenError::BadPosition {
                    lsn: Lsn(self.from),
                    reason,
                });
            }
        }
    }
}

impl Iterator for RedoRecords {
    type Item = Result<(Lsn, RedoRecord), RedoOpenError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.step().transpose();
        if !matches!(r, Some(Ok(_))) {
            self.done = true;
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::device::{Faults, SimDir};
    use crate::types::Decimal;
    use crate::types::{Date, DateTime};
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    fn open_with(dir: &SimDir, segment_size: u64, delay_us: u64) -> (RedoLog, RedoScan) {
        let delay = Arc::new(AtomicU64::new(delay_us));
        RedoLog::open(Arc::new(dir.clone()), segment_size, delay).unwrap()
    }

    fn open(dir: &SimDir) -> (RedoLog, RedoScan) {
        open_with(dir, 1 << 20, 0)
    }

    fn try_open(dir: &SimDir, segment_size: u64) -> Result<(RedoLog, RedoScan), RedoOpenError> {
        RedoLog::open(Arc::new(dir.clone()), segment_size, Arc::default())
    }

    fn enc(rec: &RedoRecord) -> Vec<u8> {
        let mut out = Vec::new();
        encode_record(&mut out, rec);
        out
    }

    fn all(log: &RedoLog) -> Vec<(Lsn, RedoRecord)> {
        log.records_from(log.first_lsn())
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    fn change(id: i64) -> RedoChange {
        RedoChange {
            table_id: 7,
            db: "db".into(),
            table: "t".into(),
            before: (id % 2 == 0).then(|| vec![Value::Int(id), Value::Null]),
            after: Some(vec![
                Value::Int(id),
                Value::Bytes(b"x\0y".to_vec()),
                Value::UInt(u64::MAX),
                Value::Double(-1.5),
                Value::Decimal(Decimal::new(-12345, 3)),
                Value::Date(Date {
                    year: 2024,
                    month: 2,
                    day: 29,
                }),
                Value::DateTime(DateTime::default()),
            ]),
        }
    }

    fn every_type() -> Vec<RedoRecord> {
        vec![
            RedoRecord::Prepare {
                xid: 1,
                changes: vec![change(1), change(2)],
            },
            RedoRecord::Commit { xid: 1 },
            RedoRecord::Prepare {
                xid: 2,
                changes: vec![],
            },
            RedoRecord::Rollback { xid: 2 },
            RedoRecord::Committed {
                xid: u64::MAX - 1,
                changes: vec![change(3)],
            },
            RedoRecord::Ddl {
                db: "db".into(),
                sql: "CREATE TABLE `t` (a INT) COMMENT 'é'".into(),
                session: DdlSession::default(),
            },
            RedoRecord::PreparedDdl {
                xid: 7,
                db: String::new(),
                sql: "DROP TABLE `d`.`t`".into(),
                session: DdlSession {
                    when_us: Some(1_700_000_000_000_001),
                    sql_mode: Some("ANSI_QUOTES".into()),
                    time_zone: Some("+01:00".into()),
                },
            },
        ]
    }

    fn small(xid: u64) -> RedoRecord {
        RedoRecord::Committed {
            xid,
            changes: vec![change(xid as i64)],
        }
    }

    #[test]
    fn every_record_type_round_trips_across_a_restart() {
        let dir = SimDir::new();
        let (log, scan) = open(&dir);
        assert_eq!(
            (scan.end_lsn, scan.records, scan.cut.clone()),
            (Lsn(0), 0, None)
        );
        let mut starts = Vec::new();
        for rec in every_type() {
            starts.push(log.end_lsn());
            let end = log.append(&enc(&rec)).unwrap();
            assert_eq!(end.0, starts.last().unwrap().0 + enc(&rec).len() as u64);
        }
        assert_eq!(log.sync().unwrap(), log.end_lsn());
        let (log2, scan) = open(&dir.crash_image());
        assert_eq!(scan.records, 7);
        assert_eq!(scan.max_xid, Some(u64::MAX - 1));
        assert_eq!(scan.end_lsn, log.end_lsn());
        let got = all(&log2);
        let want: Vec<_> = starts.into_iter().zip(every_type()).collect();
        assert_eq!(got, want);
        // From a record boundary in the middle; and the end yields nothing.
        let tail: Vec<_> = log2
            .records_from(want[4].0)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(tail, want[4..].to_vec());
        assert_eq!(log2.records_from(log2.end_lsn()).unwrap().count(), 0);
    }

    #[test]
    fn encode_txn_from_engine_shaped_changes_matches_encode_record() {
        let c = change(4);
        let mut a = Vec::new();
        encode_txn(&mut a, TxnRecordKind::Prepare, 9, [c.as_ref()]);
        let b = enc(&RedoRecord::Prepare {
            xid: 9,
            changes: vec![c],
        });
        assert_eq!(a, b);
    }

    #[test]
    fn positions_inside_a_record_or_outside_the_log_are_refused() {
        let dir = SimDir::new();
        let (log, _) = open(&dir);
        log.append(&enc(&small(1))).unwrap();
        let end = log.end_lsn();
        let inside = log.records_from(Lsn(3)).unwrap().next().unwrap();
        assert!(matches!(inside, Err(RedoOpenError::BadPosition { .. })));
        assert!(log.records_from(Lsn(end.0 + 1)).is_err());
    }

    #[test]
    fn a_torn_tail_at_every_byte_of_the_last_record_is_cut_and_reported() {
        let dir = SimDir::new();
        let (log, _) = open(&dir);
        log.append(&enc(&small(1))).unwrap();
        let good = log.append(&enc(&small(2))).unwrap();
        log.sync().unwrap();
        let last = enc(&small(3));
        log.append(&last).unwrap();
        let good_offset = SEGMENT_HEADER_LEN + good.0;
        for k in 0..=last.len() {
            let img = dir.crash_image_with_tail("redo.000001", k);
            let (log2, scan) = open(&img);
            if k == 0 || k == last.len() {
                assert_eq!(scan.cut, None, "k={k}");
            } else {
                let cut = scan
                    .cut
                    .clone()
                    .unwrap_or_else(|| panic!("no cut at k={k}"));
                assert_eq!(cut.file, "sim:/redo.000001");
                assert_eq!((cut.offset, cut.bytes), (good_offset, k as u64), "k={k}");
            }
            let n = if k == last.len() { 3 } else { 2 };
            assert_eq!(scan.records, n);
            assert_eq!(all(&log2).len() as u64, n);
            // The cut is durable and appends continue after it.
            log2.append(&enc(&small(4))).unwrap();
            log2.sync().unwrap();
            let (log3, scan) = open(&img.crash_image());
            assert_eq!(scan.cut, None);
            assert_eq!(all(&log3).last().unwrap().1, small(4));
        }
    }

    #[test]
    fn a_damaged_last_record_is_a_tail() {
        let dir = SimDir::new();
        let (log, _) = open(&dir);
        log.append(&enc(&small(1))).unwrap();
        let end1 = log.end_lsn();
        log.append(&enc(&small(2))).unwrap();
        log.sync().unwrap();
        let img = dir.crash_image();
        img.corrupt("redo.000001", (SEGMENT_HEADER_LEN + end1.0 + 12) as usize);
        let (_, scan) = open(&img);
        let cut = scan.cut.unwrap();
        assert_eq!(cut.offset, SEGMENT_HEADER_LEN + end1.0);
        assert!(cut.reason.contains("checksum"), "{}", cut.reason);
        assert_eq!(scan.records, 1);
    }

    /// A log of `n` small records over several segments; returns the record start LSNs.
    fn multi_segment(dir: &SimDir, n: u64) -> (RedoLog, Vec<Lsn>) {
        let (log, _) = open_with(dir, 200, 0);
        let mut starts = Vec::new();
        for x in 1..=n {
            starts.push(log.end_lsn());
            log.append(&enc(&small(x))).unwrap();
        }
        log.sync().unwrap();
        (log, starts)
    }

    #[test]
    fn corruption_in_a_non_last_segment_refuses_to_open() {
        let dir = SimDir::new();
        let (log, _) = multi_segment(&dir, 20);
        assert!(log.segment_names().len() >= 3);
        let img = dir.crash_image();
        img.corrupt("redo.000001", HEADER_LEN + 20);
        let err = try_open(&img, 200).unwrap_err();
        let RedoOpenError::Corrupt { file, offset, .. } = &err else {
            panic!("{err}")
        };
        assert_eq!(
            (file.as_str(), *offset),
            ("sim:/redo.000001", SEGMENT_HEADER_LEN)
        );
        assert!(err.to_string().contains("refusing to start"), "{err}");
    }

    #[test]
    fn a_missing_middle_segment_refuses_to_open() {
        let dir = SimDir::new();
        multi_segment(&dir, 20);
        let img = dir.crash_image();
        img.remove("redo.000002").unwrap();
        let err = try_open(&img, 200).unwrap_err();
        assert!(matches!(&err, RedoOpenError::Corrupt { file, .. } if file == "sim:/redo.000003"));
    }

    #[test]
    fn rotation_and_purge() {
        let dir = SimDir::new();
        let (log, starts) = multi_segment(&dir, 20);
        let names = log.segment_names();
        assert!(names.len() >= 3, "{names:?}");
        assert_eq!(names[1], "redo.000002");
        // Rotation synced every full segment: a crash keeps them all.
        let got = all(&log);
        assert_eq!(got.iter().map(|r| r.0).collect::<Vec<_>>(), starts);
        let (_, scan) = open_with(&dir.crash_image(), 200, 0);
        assert_eq!((scan.records, scan.segments), (20, names.len()));

        let removed = log.purge_before(starts[10]).unwrap();
        assert!(!removed.is_empty() && removed[0] == "redo.000001");
        assert!(log.first_lsn() > Lsn(0) && log.first_lsn() <= starts[10]);
        assert!(dir.list().unwrap().iter().all(|n| !removed.contains(n)));
        let from10: Vec<_> = log
            .records_from(starts[10])
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(from10.len(), 10);
        assert_eq!(from10[0], (starts[10], small(11)));
        assert!(matches!(
            log.records_from(Lsn(0)),
            Err(RedoOpenError::BadPosition { .. })
        ));
        // Purging everything keeps the current segment.
        log.purge_before(log.end_lsn()).unwrap();
        assert_eq!(log.segment_names().len(), 1);
        let (log2, scan) = open_with(&dir.crash_image(), 200, 0);
        assert_eq!(scan.first_lsn, log.first_lsn());
        assert_eq!(log2.end_lsn(), log.end_lsn());
    }

    #[test]
    fn a_segment_whose_header_never_completed_is_removed() {
        let dir = SimDir::new();
        let (log, _) = open(&dir);
        log.append(&enc(&small(1))).unwrap();
        log.sync().unwrap();
        let img = dir.crash_image();
        let mut f = img.create("redo.000002").unwrap();
        f.append(&segment_header(log.end_lsn().0)[..10]).unwrap();
        let (log2, scan) = open(&img);
        let cut = scan.cut.unwrap();
        assert_eq!(
            (cut.file.as_str(), cut.offset, cut.bytes),
            ("sim:/redo.000002", 0, 10)
        );
        assert_eq!(log2.segment_names(), vec!["redo.000001".to_string()]);
        assert_eq!(all(&log2).len(), 1);
    }

    #[test]
    fn a_failed_write_poisons_the_log() {
        let dir = SimDir::new();
        let (log, _) = open(&dir);
        let syncs = dir.sync_count();
        dir.set_faults(Faults {
            fail_next_append: true,
            ..Faults::default()
        });
        let info = log.append(&enc(&small(1))).unwrap_err();
        assert_eq!(info.file, "sim:/redo.000001");
        assert_eq!(info.to_error().code().number(), 1026);
        assert!(info.to_error().message().contains("sim:/redo.000001"));
        assert_eq!(log.append(&enc(&small(2))), Err(info.clone()));
        assert_eq!(log.sync(), Err(info.clone()));
        assert_eq!(log.sync_to(Lsn(0)), Err(info.clone()));
        assert_eq!(log.poisoned(), Some(info));
        assert_eq!(dir.sync_count(), syncs);
    }

    #[test]
    fn a_failed_sync_poisons_the_log_and_is_never_retried() {
        let dir = SimDir::new();
        let (log, _) = open(&dir);
        log.append(&enc(&small(1))).unwrap();
        log.sync().unwrap();
        let end = log.append(&enc(&small(2))).unwrap();
        dir.set_faults(Faults {
            fail_next_sync: true,
            ..Faults::default()
        });
        let syncs = dir.sync_count();
        let info = log.sync_to(end).unwrap_err();
        assert!(info.description.contains("fsync"), "{info:?}");
        assert_eq!(log.sync_to(end), Err(info.clone()));
        assert_eq!(log.sync(), Err(info.clone()));
        assert_eq!(log.append(&enc(&small(3))), Err(info.clone()));
        assert_eq!(dir.sync_count(), syncs, "the fsync was retried");
        assert!(log.synced_lsn() < end);
        let (log2, _) = open(&dir.crash_image());
        assert_eq!(all(&log2).len(), 1);
    }

    #[test]
    fn a_full_disk_poisons_the_log() {
        let dir = SimDir::new();
        let (log, _) = open(&dir);
        let used = dir.read("redo.000001").unwrap().len() as u64;
        dir.set_faults(Faults {
            capacity: Some(used + 10),
            ..Faults::default()
        });
        let syncs = dir.sync_count();
        let info = log.append(&enc(&small(1))).unwrap_err();
        assert_eq!(info.errno, libc::ENOSPC);
        dir.set_faults(Faults::default());
        assert_eq!(log.append(&enc(&small(2))), Err(info.clone()));
        assert_eq!(log.sync(), Err(info));
        assert_eq!(dir.sync_count(), syncs);
    }

    #[test]
    fn a_failed_rotation_poisons_the_log() {
        let dir = SimDir::new();
        let (log, _) = open_with(&dir, 10, 0);
        log.append(&enc(&small(1))).unwrap();
        dir.set_faults(Faults {
            fail_next_sync: true,
            ..Faults::default()
        });
        let info = log.append(&enc(&small(2))).unwrap_err();
        assert_eq!(info.file, "sim:/redo.000001");
        assert_eq!(log.segment_names().len(), 1);
        assert!(log.append(&enc(&small(3))).is_err());
    }

    #[test]
    fn a_crash_keeps_only_synced_records() {
        let dir = SimDir::new();
        let (log, _) = open(&dir);
        log.append(&enc(&small(1))).unwrap();
        log.sync().unwrap();
        log.append(&enc(&small(2))).unwrap();
        log.append(&enc(&small(3))).unwrap();
        let (log2, scan) = open(&dir.crash_image());
        assert_eq!(scan.cut, None);
        assert_eq!(all(&log2), vec![(Lsn(0), small(1))]);
    }

    #[test]
    fn covered_callers_share_one_fsync() {
        let dir = SimDir::new();
        let (log, _) = open(&dir);
        let syncs = dir.sync_count();
        let a = log.append(&enc(&small(1))).unwrap();
        let b = log.append(&enc(&small(2))).unwrap();
        assert_eq!(log.sync_to(a).unwrap(), b);
        assert_eq!(log.sync_to(b).unwrap(), b);
        assert_eq!(log.sync().unwrap(), b);
        assert_eq!(dir.sync_count(), syncs + 1);
        assert_eq!(log.sync_stats().count.load(Ordering::Relaxed), 2); // open + this one
    }

    #[test]
    fn concurrent_committers_are_all_durable() {
        let dir = SimDir::new();
        let (log, _) = open_with(&dir, 4096, 200);
        let log = Arc::new(log);
        let threads: Vec<_> = (0..8u64)
            .map(|t| {
                let log = log.clone();
                std::thread::spawn(move || {
                    for i in 0..25 {
                        let end = log.append(&enc(&small(t * 100 + i))).unwrap();
                        assert!(log.sync_to(end).unwrap() >= end);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(log.synced_lsn(), log.end_lsn());
        let (log2, scan) = open_with(&dir.crash_image(), 4096, 0);
        assert_eq!((scan.records, scan.cut), (200, None));
        assert_eq!(log2.end_lsn(), log.end_lsn());
    }

    #[test]
    fn appends_proceed_while_an_fsync_is_in_flight() {
        let dir = SimDir::new();
        let (log, _) = open_with(&dir, 1 << 20, 1_000_000);
        let log = Arc::new(log);
        let first = log.append(&enc(&small(1))).unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let syncer = {
            let (log, done) = (log.clone(), done.clone());
            std::thread::spawn(move || {
                let synced = log.sync().unwrap();
                done.store(true, Ordering::SeqCst);
                synced
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        let second = log.append(&enc(&small(2))).unwrap();
        assert!(!done.load(Ordering::SeqCst), "append waited for the fsync");
        // The in-flight sync claims only what was appended before it started.
        assert_eq!(syncer.join().unwrap(), first);
        assert!(log.synced_lsn() < second);
    }

    #[test]
    fn the_log_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<RedoLog>();
    }

    #[test]
    fn real_files_round_trip_with_a_torn_tail() {
        use crate::log::device::FsDir;
        let root = std::env::temp_dir().join(format!("cohort-redo-{}", std::process::id()));
        let dir: Arc<dyn LogDir> = Arc::new(FsDir::open(&root).unwrap());
        let (log, _) = RedoLog::open(dir.clone(), 150, Arc::default()).unwrap();
        for x in 1..=6 {
            let end = log.append(&enc(&small(x))).unwrap();
            log.sync_to(end).unwrap();
        }
        let names = log.segment_names();
        assert!(names.len() > 1);
        drop(log);
        let last = root.join(names.last().unwrap());
        let len = std::fs::metadata(&last).unwrap().len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&last)
            .unwrap()
            .set_len(len - 3)
            .unwrap();
        let (log, scan) = RedoLog::open(dir, 150, Arc::default()).unwrap();
        assert_eq!(scan.records, 5);
        assert_eq!(scan.cut.unwrap().file, last.display().to_string());
        assert_eq!(all(&log).len(), 5);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn garbage_in_the_last_segment_never_panics() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..300 {
            let dir = SimDir::new();
            let mut f = dir.create("redo.000001").unwrap();
            f.append(&segment_header(0)).unwrap();
            f.append(&enc(&small(1))).unwrap();
            let n = rng.gen_range(0..64);
            let junk: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
            f.append(&junk).unwrap();
            let (_, scan) = try_open(&dir, 1 << 20).unwrap();
            assert_eq!(scan.records, 1);
        }
    }
}
