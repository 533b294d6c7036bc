//! Fuzzy checkpoints: the whole engine (catalog and committed rows) in one file, so that the
//! logs before the checkpoint can be purged and restart is fast.
//!
//! # Files
//!
//! `checkpoint.<seq>` (`checkpoint.000001`, …) holds one checkpoint; `checkpoint.current`
//! names the one to use. A checkpoint file is the 8-byte magic `COHCKPT\0` followed by
//! frames, framed as redo records are (`len u32 | crc32c u32 | kind u8 | payload`, see
//! `redo.rs`); payloads use the primitives of `valuecodec.rs`.
//!
//! | kind | block | payload |
//! |---|---|---|
//! | 1 | Header | u8 format version (1), u8 value codec version, varint seq, varint redo_lsn, str binlog_file, varint binlog_pos, varint next_xid, varint next_gtid_seq, varint next_table_id |
//! | 2 | Database | str name (every database, empty ones included), then (value codec 7 on) its default collation (`valuecodec` collation tag) |
//! | 3 | Table | varint table_id, str db, varint auto_increment (at the snapshot), table definition |
//! | 4 | Rows | varint table_id, then rows to the end of the payload (a block is cut at about 64 KiB) |
//! | 5 | TableEnd | varint table_id, varint rows written, varint auto_increment (final) |
//! | 6 | Trailer | varint frames before it, varint databases, varint tables, varint rows |
//! | 7 | View | str db, str name, str query, varint n + n × str column, str algorithm, str definer user, str definer host, str security, str check option |
//!
//! Order: Header, Database*, View*, Table*, then for each table in Table order its Rows* and its
//! TableEnd, then the Trailer, which ends the file.
//!
//! `checkpoint.current` is 20 bytes: magic `COHCKCUR`, u64 LE seq, CRC32C (u32 LE) of the
//! first 16 bytes.
//!
//! # Invariants
//!
//! 1. A checkpoint file is named by `checkpoint.current` only once it is complete and synced
//!    (file, then directory); the pointer is replaced atomically (`LogDir::write_atomic`:
//!    temp file, sync, rename, sync directory).
//! 2. The previous checkpoint file is removed only after the pointer names the new one, so a
//!    crash at any point leaves a complete, published checkpoint (or none, before the first).
//! 3. Readers use only the file the pointer names, and only if every frame's checksum holds,
//!    the blocks come in order, the counts match the trailer and the file ends there. Files the
//!    pointer does not name (a checkpoint torn by a crash) are ignored, and removed by the next
//!    writer. A damaged published checkpoint is an error naming the file and offset: there is
//!    no older one to fall back to once the new one is published.
//! 4. A failed write or sync of a checkpoint file poisons nothing: the file is abandoned
//!    (removed) and never synced again; the next checkpoint writes a new file.
//!
//! # Fuzziness: what recovery relies on
//!
//! Rows are read with `Table::scan_committed`, one committed image at a time, while commits
//! continue. The caller passes the [`CheckpointPosition`] of a log point such that every
//! transaction committed before it is already applied in the engine. Then each row in the file
//! is at least as new as the position, and replaying the log from the position (full row
//! images, idempotent) brings every row up to date. DDL logged after the position may already
//! be reflected in the catalog of the checkpoint, so its replay must tolerate "already
//! exists" / "does not exist". The final AUTO_INCREMENT of a table is the larger of the
//! counter after its scan and one past the largest value seen in its AUTO_INCREMENT column.

use super::device::{LogDir, LogFile};
use super::redo::{begin_frame, end_frame, parse_frame, FRAME_HEADER_LEN};
use super::valuecodec::{
    codec_readable, collation_tag, decode_collation, decode_row, decode_table_def_of, encode_row,
    encode_table_def, put_str, put_varint, CodecError, Reader, CODEC_VERSION,
};
use crate::error::Error;
use crate::storage::{CatalogSnapshot, Engine, ScanControl, TableId, TableSnapshot};
use crate::types::Value;
use std::collections::HashMap;
use std::fmt;
use std::io;
use std::sync::Arc;

/// Where replay starts after this checkpoint. Opaque here: the commit pipeline fills it in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckpointPosition {
    pub redo_lsn: u64,
    pub binlog_file: String,
    pub binlog_pos: u64,
    pub next_xid: u64,
    pub next_gtid_seq: u64,
}

/// What a written or loaded checkpoint holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointInfo {
    pub seq: u64,
    /// File name within the directory (`checkpoint.000001`).
    pub file: String,
    pub bytes: u64,
    pub databases: u64,
    pub tables: u64,
    pub rows: u64,
    /// The engine's next table id when the catalog was snapshotted.
    pub next_table_id: u64,
    pub position: CheckpointPosition,
}

/// A checkpoint restored into a fresh engine.
#[derive(Debug)]
pub struct LoadedCheckpoint {
    pub engine: Arc<Engine>,
    pub info: CheckpointInfo,
}

/// Why a checkpoint could not be written or read.
#[derive(Debug)]
pub enum CheckpointError {
    /// The file system failed (on writing: the previous checkpoint stays current).
    Io { file: String, error: io::Error },
    /// The engine failed a scan while writing.
    Engine(Error),
    /// The published checkpoint is damaged or cannot be restored.
    Corrupt {
        file: String,
        offset: u64,
        reason: String,
    },
}

impl fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckpointError::Io { file, error } => write!(f, "checkpoint file '{file}': {error}"),
            CheckpointError::Engine(e) => write!(f, "checkpoint: {}", e.message()),
            CheckpointError::Corrupt {
                file,
                offset,
                reason,
            } => write!(
                f,
                "checkpoint file '{file}' is corrupt at offset {offset}: {reason}"
            ),
        }
    }
}

impl std::error::Error for CheckpointError {}

const FILE_MAGIC: [u8; 8] = *b"COHCKPT\0";
const POINTER_MAGIC: [u8; 8] = *b"COHCKCUR";
const POINTER_NAME: &str = "checkpoint.current";
const POINTER_LEN: usize = 20;
const FORMAT_VERSION: u8 = 1;
/// A Rows block is closed, and buffered frames are written out, past this many bytes.
const BLOCK_TARGET: usize = 64 * 1024;

const BLOCK_HEADER: u8 = 1;
const BLOCK_DATABASE: u8 = 2;
const BLOCK_TABLE: u8 = 3;
const BLOCK_ROWS: u8 = 4;
const BLOCK_TABLE_END: u8 = 5;
const BLOCK_TRAILER: u8 = 6;
const BLOCK_VIEW: u8 = 7;

fn file_name(seq: u64) -> String {
    format!("checkpoint.{seq:06}")
}

fn parse_file_name(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("checkpoint.")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn io_err(dir: &dyn LogDir, name: &str) -> impl Fn(io::Error) -> CheckpointError {
    let file = dir.display_path(name);
    move |error| CheckpointError::Io {
        file: file.clone(),
        error,
    }
}

/// Sequence numbers of the checkpoint files present, any state.
fn checkpoint_files(dir: &dyn LogDir) -> Result<Vec<u64>, CheckpointError> {
    let names = dir.list().map_err(io_err(dir, ""))?;
    Ok(names.iter().filter_map(|n| parse_file_name(n)).collect())
}

fn encode_pointer(seq: u64) -> [u8; POINTER_LEN] {
    let mut p = [0u8; POINTER_LEN];
    p[..8].copy_from_slice(&POINTER_MAGIC);
    p[8..16].copy_from_slice(&seq.to_le_bytes());
    let crc = crc32c::crc32c(&p[..16]);
    p[16..].copy_from_slice(&crc.to_le_bytes());
    p
}

/// The seq `checkpoint.current` names; None if there is no pointer (no checkpoint yet).
fn read_pointer(dir: &dyn LogDir) -> Result<Option<u64>, CheckpointError> {
    let p = match dir.read(POINTER_NAME) {
        Ok(p) => p,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(dir, POINTER_NAME)(e)),
    };
    let ok = p.len() == POINTER_LEN
        && p[..8] == POINTER_MAGIC
        && crc32c::crc32c(&p[..16]).to_le_bytes() == p[16..];
    if !ok {
        return Err(CheckpointError::Corrupt {
            file: dir.display_path(POINTER_NAME),
            offset: 0,
            reason: "damaged checkpoint pointer".into(),
        });
    }
    let mut seq = [0u8; 8];
    seq.copy_from_slice(&p[8..16]);
    Ok(Some(u64::from_le_bytes(seq)))
}

/// The size in bytes of the published checkpoint (`checkpoint.current`'s file); None when
/// there is none or it cannot be read. The checkpointer's trigger rule uses it as the cost of
/// the next rewrite (`checkpointer::checkpoint_due`).
pub fn published_size(dir: &dyn LogDir) -> Option<u64> {
    let seq = read_pointer(dir).ok()??;
    dir.open_read(&file_name(seq)).ok()?.size().ok()
}

// ---- writing ----

/// Frames buffered and appended to the file in chunks of about `BLOCK_TARGET` bytes.
struct BlockWriter {
    file: Box<dyn LogFile>,
    buf: Vec<u8>,
    /// Frames completed so far.
    frames: u64,
    /// Bytes appended to the file so far.
    written: u64,
}

impl BlockWriter {
    fn frame(&mut self, kind: u8, fill: impl FnOnce(&mut Vec<u8>)) -> io::Result<()> {
        let start = begin_frame(&mut self.buf, kind);
        fill(&mut self.buf);
        self.close_frame(start)
    }

    fn close_frame(&mut self, start: usize) -> io::Result<()> {
        end_frame(&mut self.buf, start);
        self.frames += 1;
        if self.buf.len() >= BLOCK_TARGET {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.append(&self.buf)?;
        self.written += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }
}

/// The value an AUTO_INCREMENT column holds, as a counter position.
fn auto_inc_value(v: &Value) -> u64 {
    match v {
        Value::Int(n) if *n > 0 => *n as u64,
        Value::UInt(n) => *n,
        _ => 0,
    }
}

fn write_header(
    w: &mut BlockWriter,
    seq: u64,
    pos: &CheckpointPosition,
    next_table_id: u64,
) -> io::Result<()> {
    w.frame(BLOCK_HEADER, |b| {
        b.extend_from_slice(&[FORMAT_VERSION, CODEC_VERSION]);
        put_varint(b, seq);
        put_varint(b, pos.redo_lsn);
        put_str(b, &pos.binlog_file);
        put_varint(b, pos.binlog_pos);
        put_varint(b, pos.next_xid);
        put_varint(b, pos.next_gtid_seq);
        put_varint(b, next_table_id);
    })
}

fn write_catalog(w: &mut BlockWriter, snap: &CatalogSnapshot) -> io::Result<()> {
    for (i, db) in snap.databases.iter().enumerate() {
        let coll = snap
            .database_collations
            .get(i)
            .copied()
            .unwrap_or(crate::types::Collation::Utf8mb4GeneralCi);
        w.frame(BLOCK_DATABASE, |b| {
            put_str(b, db);
            b.push(collation_tag(coll));
        })?;
    }
    for (db, v) in &snap.views {
        w.frame(BLOCK_VIEW, |b| {
            put_str(b, db);
            put_str(b, &v.name);
            put_str(b, &v.query);
            put_varint(b, v.columns.len() as u64);
            for c in &v.columns {
                put_str(b, c);
            }
            for s in [
                &v.algorithm,
                &v.definer_user,
                &v.definer_host,
                &v.security,
                &v.check_option,
            ] {
                put_str(b, s);
            }
        })?;
    }
    for t in &snap.tables {
        w.frame(BLOCK_TABLE, |b| {
            put_varint(b, t.id.0);
            put_str(b, &t.db);
            put_varint(b, t.auto_increment);
            encode_table_def(b, &t.def);
        })?;
    }
    Ok(())
}

/// Stream one table's committed rows as Rows blocks, then its TableEnd; returns the rows.
fn write_table(w: &mut BlockWriter, t: &TableSnapshot) -> Result<u64, CheckpointError> {
    let ai_col = t.def.auto_increment_column();
    let (mut rows, mut max_ai) = (0u64, 0u64);
    let mut open: Option<usize> = None;
    let mut failed: Option<io::Error> = None;
    let scanned = t.table.scan_committed(&mut |row| {
        let start = *open.get_or_insert_with(|| {
            let s = begin_frame(&mut w.buf, BLOCK_ROWS);
            put_varint(&mut w.buf, t.id.0);
            s
        });
        encode_row(&mut w.buf, row);
        rows += 1;
        if let Some(c) = ai_col {
            max_ai = max_ai.max(row.get(c).map_or(0, auto_inc_value));
        }
        if w.buf.len() - start >= BLOCK_TARGET {
            open = None;
            if let Err(e) = w.close_frame(start) {
                failed = Some(e);
                return Ok(ScanControl::Stop);
            }
        }
        Ok(ScanControl::Continue)
    });
    let io_failed = |e| CheckpointError::Io {
        file: String::new(),
        error: e,
    };
    if let Some(e) = failed {
        return Err(io_failed(e));
    }
    // A table dropped during the scan: keep what was read; replaying the DROP removes it.
    if let Err(e) = scanned {
        if !t.table.is_dropped() {
            return Err(CheckpointError::Engine(e));
        }
    }
    if let Some(start) = open {
        w.close_frame(start).map_err(io_failed)?;
    }
    let auto_increment = t
        .table
        .auto_increment_peek()
        .max(max_ai.saturating_add(u64::from(max_ai > 0)));
    w.frame(BLOCK_TABLE_END, |b| {
        put_varint(b, t.id.0);
        put_varint(b, rows);
        put_varint(b, auto_increment);
    })
    .map_err(io_failed)?;
    Ok(rows)
}

/// Write the whole checkpoint to `w` (not synced); returns the rows written.
fn write_body(
    w: &mut BlockWriter,
    seq: u64,
    snap: &CatalogSnapshot,
    pos: &CheckpointPosition,
) -> Result<u64, CheckpointError> {
    let io_failed = |error| CheckpointError::Io {
        file: String::new(),
        error,
    };
    w.buf.extend_from_slice(&FILE_MAGIC);
    write_header(w, seq, pos, snap.next_table_id).map_err(io_failed)?;
    write_catalog(w, snap).map_err(io_failed)?;
    let mut rows = 0;
    for t in &snap.tables {
        rows += write_table(w, t)?;
    }
    let frames = w.frames;
    w.frame(BLOCK_TRAILER, |b| {
        put_varint(b, frames);
        put_varint(b, snap.databases.len() as u64);
        put_varint(b, snap.tables.len() as u64);
        put_varint(b, rows);
    })
    .map_err(io_failed)?;
    w.flush().map_err(io_failed)?;
    w.file.sync().map_err(io_failed)?;
    Ok(rows)
}

/// Write a complete checkpoint file `name`, synced; on failure the file is removed.
fn write_file(
    dir: &dyn LogDir,
    name: &str,
    seq: u64,
    snap: &CatalogSnapshot,
    pos: &CheckpointPosition,
) -> Result<(u64, u64), CheckpointError> {
    let file = dir.create(name).map_err(io_err(dir, name))?;
    let mut w = BlockWriter {
        file,
        buf: Vec::with_capacity(2 * BLOCK_TARGET),
        frames: 0,
        written: 0,
    };
    match write_body(&mut w, seq, snap, pos) {
        Ok(rows) => Ok((rows, w.written)),
        Err(e) => {
            drop(w);
            let _ = dir.remove(name);
            Err(match e {
                CheckpointError::Io { error, .. } => io_err(dir, name)(error),
                other => other,
            })
        }
    }
}

/// Remove every checkpoint file but `keep` (best effort: a leftover is ignored by readers and
/// removed by the next checkpoint).
fn remove_others(dir: &dyn LogDir, keep: u64) {
    let Ok(seqs) = checkpoint_files(dir) else {
        return;
    };
    for seq in seqs.into_iter().filter(|&s| s != keep) {
        let _ = dir.remove(&file_name(seq));
    }
    let _ = dir.sync_dir();
}

/// Write a fuzzy checkpoint of `engine` as `checkpoint.<seq>`, publish it in
/// `checkpoint.current`, then remove older checkpoint files.
///
/// `position` must be a log point such that every transaction committed before it is already
/// applied in the engine (see the module docs). On error the previous checkpoint stays current.
pub fn write_checkpoint(
    dir: &dyn LogDir,
    engine: &Engine,
    position: CheckpointPosition,
) -> Result<CheckpointInfo, CheckpointError> {
    let seq = checkpoint_files(dir)?.into_iter().max().unwrap_or(0) + 1;
    let name = file_name(seq);
    let snap = engine.catalog_snapshot();
    let (rows, bytes) = write_file(dir, &name, seq, &snap, &position)?;
    // The new file must exist after a crash before the pointer names it.
    dir.sync_dir().map_err(io_err(dir, &name))?;
    // Point of no return: from here the new checkpoint is the current one (if the pointer
    // write fails half-way, either pointer is valid and both files are still there).
    dir.write_atomic(POINTER_NAME, &encode_pointer(seq))
        .map_err(io_err(dir, POINTER_NAME))?;
    remove_others(dir, seq);
    Ok(CheckpointInfo {
        seq,
        file: name,
        bytes,
        databases: snap.databases.len() as u64,
        tables: snap.tables.len() as u64,
        rows,
        next_table_id: snap.next_table_id,
        position,
    })
}

// ---- reading ----

/// Progress of one table while loading.
struct LoadedTable {
    rows: u64,
    ended: bool,
    /// Rows read so far, bulk-loaded into the table at its end block.
    pending: Vec<crate::storage::Row>,
}

/// Restores blocks into an engine, checking their order and counts.
struct Loader<'a> {
    engine: &'a Engine,
    seq: u64,
    header: Option<(CheckpointPosition, u64)>,
    /// The value codec version the header names.
    codec: u8,
    tables: HashMap<u64, LoadedTable>,
    databases: u64,
    rows: u64,
    frames: u64,
    trailer: bool,
}

/// A block-level failure, placed at its block's offset by the caller.
enum BlockError {
    Codec(CodecError),
    Bad(String),
}

impl From<CodecError> for BlockError {
    fn from(e: CodecError) -> BlockError {
        BlockError::Codec(e)
    }
}

fn restore_failed(e: Error) -> BlockError {
    BlockError::Bad(format!("cannot restore: {}", e.message()))
}

type BlockResult = Result<(), BlockError>;

impl Loader<'_> {
    fn block(&mut self, kind: u8, payload: &[u8]) -> BlockResult {
        let r = &mut Reader::new(payload);
        if self.header.is_none() && kind != BLOCK_HEADER {
            return Err(BlockError::Bad("first block is not the header".into()));
        }
        match kind {
            BLOCK_HEADER => self.header_block(r)?,
            BLOCK_DATABASE => self.database_block(r)?,
            BLOCK_TABLE => self.table_block(r)?,
            BLOCK_ROWS => return self.rows_block(r),
            BLOCK_TABLE_END => self.table_end_block(r)?,
            BLOCK_TRAILER => self.trailer_block(r)?,
            BLOCK_VIEW => self.view_block(r)?,
            k => return Err(BlockError::Bad(format!("unknown block kind {k}"))),
        }
        r.finish()?;
        Ok(())
    }

    fn header_block(&mut self, r: &mut Reader<'_>) -> BlockResult {
        if self.header.is_some() {
            return Err(BlockError::Bad("second header".into()));
        }
        let (version, codec) = (r.u8()?, r.u8()?);
        if version != FORMAT_VERSION || !codec_readable(codec) {
            let why = format!("unsupported checkpoint format {version} / value codec {codec}");
            return Err(BlockError::Bad(why));
        }
        let seq = r.varint()?;
        if seq != self.seq {
            let why = format!("holds checkpoint {seq}, the pointer names {}", self.seq);
            return Err(BlockError::Bad(why));
        }
        let position = CheckpointPosition {
            redo_lsn: r.varint()?,
            binlog_file: r.str()?,
            binlog_pos: r.varint()?,
            next_xid: r.varint()?,
            next_gtid_seq: r.varint()?,
        };
        self.header = Some((position, r.varint()?));
        self.codec = codec;
        Ok(())
    }

    fn database_block(&mut self, r: &mut Reader<'_>) -> BlockResult {
        let name = r.str()?;
        self.engine
            .create_database(&name, false)
            .map_err(restore_failed)?;
        if self.codec >= 7 {
            let coll = decode_collation(r)?;
            self.engine
                .set_database_collation(&name, coll)
                .map_err(restore_failed)?;
        }
        self.databases += 1;
        Ok(())
    }

    fn view_block(&mut self, r: &mut Reader<'_>) -> BlockResult {
        if !self.tables.is_empty() {
            return Err(BlockError::Bad("view definition after tables".into()));
        }
        let db = r.str()?;
        let name = r.str()?;
        let query = r.str()?;
        let n = r.varint()?;
        let mut columns = Vec::new();
        for _ in 0..n {
            columns.push(r.str()?);
        }
        let def = crate::storage::ViewDef {
            name,
            query,
            columns,
            algorithm: r.str()?,
            definer_user: r.str()?,
            definer_host: r.str()?,
            security: r.str()?,
            check_option: r.str()?,
        };
        self.engine.restore_view(&db, def).map_err(restore_failed)
    }

    fn table_block(&mut self, r: &mut Reader<'_>) -> BlockResult {
        if self.rows > 0 || self.tables.values().any(|t| t.ended) {
            return Err(BlockError::Bad("table definition after rows".into()));
        }
        let id = r.varint()?;
        let db = r.str()?;
        let auto_increment = r.varint()?;
        let def = decode_table_def_of(r, self.codec)?;
        self.engine
            .restore_table(&db, def, TableId(id), auto_increment)
            .map_err(restore_failed)?;
        let t = LoadedTable {
            rows: 0,
            ended: false,
            pending: Vec::new(),
        };
        self.tables.insert(id, t);
        Ok(())
    }

    fn open_table(&mut self, id: u64) -> Result<&mut LoadedTable, BlockError> {
        match self.tables.get_mut(&id) {
            Some(t) if !t.ended => Ok(t),
            Some(_) => Err(BlockError::Bad(format!("table {id} after its end"))),
            None => Err(BlockError::Bad(format!("rows of undeclared table {id}"))),
        }
    }

    fn rows_block(&mut self, r: &mut Reader<'_>) -> BlockResult {
        let id = r.varint()?;
        self.open_table(id)?;
        let mut n = 0;
        let t = self.open_table(id)?;
        while !r.is_empty() {
            t.pending.push(decode_row(r)?.into());
            n += 1;
        }
        t.rows += n;
        self.rows += n;
        Ok(())
    }

    fn table_end_block(&mut self, r: &mut Reader<'_>) -> BlockResult {
        let id = r.varint()?;
        let (rows, auto_increment) = (r.varint()?, r.varint()?);
        let t = self.open_table(id)?;
        if t.rows != rows {
            let why = format!("table {id}: {} rows read, {rows} written", t.rows);
            return Err(BlockError::Bad(why));
        }
        t.ended = true;
        let rows = std::mem::take(&mut t.pending);
        self.engine
            .bulk_load(TableId(id), rows)
            .map_err(restore_failed)?;
        self.engine
            .restore_auto_increment(TableId(id), auto_increment)
            .map_err(restore_failed)
    }

    fn trailer_block(&mut self, r: &mut Reader<'_>) -> BlockResult {
        let want = [r.varint()?, r.varint()?, r.varint()?, r.varint()?];
        let got = [
            self.frames,
            self.databases,
            self.tables.len() as u64,
            self.rows,
        ];
        if want != got {
            let why = format!("trailer counts {want:?}, file holds {got:?}");
            return Err(BlockError::Bad(why));
        }
        if let Some((id, _)) = self.tables.iter().find(|(_, t)| !t.ended) {
            return Err(BlockError::Bad(format!("table {id} has no end block")));
        }
        self.trailer = true;
        Ok(())
    }
}

/// Verify and restore checkpoint file `name` (seq `seq`) into `engine`.
fn load_file(
    dir: &dyn LogDir,
    name: &str,
    seq: u64,
    engine: &Engine,
) -> Result<CheckpointInfo, CheckpointError> {
    let bytes = dir.read(name).map_err(io_err(dir, name))?;
    let bad = |offset: usize, reason: String| CheckpointError::Corrupt {
        file: dir.display_path(name),
        offset: offset as u64,
        reason,
    };
    if !bytes.starts_with(&FILE_MAGIC) {
        return Err(bad(0, "not a checkpoint file".into()));
    }
    let mut l = Loader {
        engine,
        seq,
        header: None,
        codec: CODEC_VERSION,
        tables: HashMap::new(),
        databases: 0,
        rows: 0,
        frames: 0,
        trailer: false,
    };
    let mut pos = FILE_MAGIC.len();
    while pos < bytes.len() {
        if l.trailer {
            return Err(bad(pos, "data after the trailer".into()));
        }
        let frame = parse_frame(&bytes[pos..]).map_err(|e| bad(pos, e.to_string()))?;
        l.block(frame.kind, frame.payload).map_err(|e| match e {
            BlockError::Codec(c) => bad(pos + FRAME_HEADER_LEN + 1 + c.offset, c.what),
            BlockError::Bad(why) => bad(pos, why),
        })?;
        l.frames += 1;
        pos += frame.size;
    }
    if !l.trailer {
        return Err(bad(pos, "no trailer: the checkpoint is incomplete".into()));
    }
    let (position, next_table_id) = l.header.take().expect("a trailer follows a header");
    Ok(CheckpointInfo {
        seq,
        file: name.to_string(),
        bytes: bytes.len() as u64,
        databases: l.databases,
        tables: l.tables.len() as u64,
        rows: l.rows,
        next_table_id,
        position,
    })
}

/// Restore the current checkpoint (the one `checkpoint.current` names) into a fresh engine.
/// `Ok(None)` if no checkpoint was ever published.
pub fn read_latest_checkpoint(
    dir: &dyn LogDir,
) -> Result<Option<LoadedCheckpoint>, CheckpointError> {
    let Some(seq) = read_pointer(dir)? else {
        return Ok(None);
    };
    let engine = Engine::new();
    let info = load_file(dir, &file_name(seq), seq, &engine)?;
    Ok(Some(LoadedCheckpoint { engine, info }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::device::{Faults, SimDir};
    use crate::storage::{
        ColumnDef, ColumnDefault, IndexDef, IndexPart, InsertOutcome, RowHandle, TableDef,
    };
    use crate::types::Decimal;
    use crate::types::{Collation, DataType, Date, DateTime};

    fn col(name: &str, data_type: DataType, nullable: bool) -> ColumnDef {
        ColumnDef {
            name: name.into(),
            data_type,
            nullable,
            default: if nullable {
                ColumnDefault::Value(Value::Null)
            } else {
                ColumnDefault::None
            },
            auto_increment: false,
            on_update_current_timestamp: false,
            comment: None,
            generated: None,
        }
    }

    fn index(name: &str, cols: &[usize], unique: bool) -> IndexDef {
        IndexDef {
            name: name.into(),
            parts: cols
                .iter()
                .map(|&column| IndexPart {
                    column,
                    prefix_len: None,
                })
                .collect(),
            unique,
            implicit: false,
        }
    }

    /// Every kind of column, an AUTO_INCREMENT key and a secondary index.
    fn items() -> TableDef {
        let mut id = col(
            "id",
            DataType::BigInt {
                unsigned: false,
                display: Default::default(),
            },
            false,
        );
        id.auto_increment = true;
        let mut name = col(
            "name",
            DataType::VarChar {
                len: 50,
                collation: Collation::Utf8mb4GeneralCi,
            },
            true,
        );
        name.comment = Some("shown to customers".into());
        let mut at = col("at", DataType::DateTime { fsp: 6 }, true);
        at.default = ColumnDefault::CurrentTimestamp;
        at.on_update_current_timestamp = true;
        TableDef {
            name: "items".into(),
            columns: vec![
                id,
                col(
                    "price",
                    DataType::Decimal {
                        precision: 10,
                        scale: 2,
                    },
                    true,
                ),
                col("made", DataType::Date, true),
                at,
                col(
                    "code",
                    DataType::Char {
                        len: 4,
                        collation: Collation::Utf8mb4Bin,
                    },
                    true,
                ),
                name,
                col("pic", DataType::Blob { max_bytes: 65535 }, true),
                col("ratio", DataType::DOUBLE, true),
                col(
                    "big",
                    DataType::BigInt {
                        unsigned: true,
                        display: Default::default(),
                    },
                    true,
                ),
            ],
            primary_key: Some(index("PRIMARY", &[0], true)),
            indexes: vec![index("name", &[5], false)],
            engine: "InnoDB".into(),
            auto_increment_start: 1,
            comment: Some("catalogue".into()),
            foreign_keys: Vec::new(),
            checks: Vec::new(),
            default_collation: crate::types::Collation::Utf8mb4GeneralCi,
        }
    }

    fn item(id: i64) -> Vec<Value> {
        let null = id % 5 == 0;
        let opt = |v: Value| if null { Value::Null } else { v };
        vec![
            Value::Int(id),
            opt(Value::Decimal(Decimal::new((id * 101 - 50_000) as i128, 2))),
            opt(Value::Date(Date {
                year: 2000 + (id % 30) as u16,
                month: 1 + (id % 12) as u8,
                day: 1 + (id % 28) as u8,
            })),
            opt(Value::DateTime(DateTime {
                date: Date {
                    year: 2024,
                    month: 3,
                    day: 9,
                },
                hour: (id % 24) as u8,
                minute: 7,
                second: 59,
                micros: (id * 7919 % 1_000_000) as u32,
            })),
            opt(Value::str("ab")),
            Value::str(&format!("item number {id}")),
            opt(Value::Bytes((0..(id % 40) as u8).collect())),
            opt(Value::Double(id as f64 / 3.0)),
            opt(Value::UInt(u64::MAX - id as u64)),
        ]
    }

    /// No primary key: rows are keyed by hidden row ids, duplicates allowed.
    fn events() -> TableDef {
        TableDef {
            name: "events".into(),
            columns: vec![
                col(
                    "kind",
                    DataType::TinyInt {
                        unsigned: true,
                        display: Default::default(),
                    },
                    true,
                ),
                col(
                    "note",
                    DataType::Text {
                        max_bytes: 65535,
                        collation: Collation::Utf8mb4GeneralCi,
                    },
                    true,
                ),
            ],
            primary_key: None,
            indexes: vec![],
            engine: "MyISAM".into(),
            auto_increment_start: 1,
            comment: None,
            foreign_keys: Vec::new(),
            checks: Vec::new(),
            default_collation: crate::types::Collation::Utf8mb4GeneralCi,
        }
    }

    fn kv() -> TableDef {
        TableDef {
            name: "kv".into(),
            columns: vec![
                col("k", DataType::VarBinary { len: 16 }, false),
                col(
                    "n",
                    DataType::SmallInt {
                        unsigned: false,
                        display: Default::default(),
                    },
                    false,
                ),
                col("v", DataType::Binary { len: 3 }, true),
            ],
            primary_key: Some(index("PRIMARY", &[0, 1], true)),
            indexes: vec![index("uv", &[2], true)],
            engine: "InnoDB".into(),
            auto_increment_start: 100,
            comment: None,
            foreign_keys: Vec::new(),
            checks: Vec::new(),
            default_collation: crate::types::Collation::Utf8mb4GeneralCi,
        }
    }

    fn insert(engine: &Engine, db: &str, table: &str, rows: Vec<Vec<Value>>) -> Vec<RowHandle> {
        let t = engine.table(db, table).unwrap();
        let mut txn = engine.begin();
        let mut handles = Vec::new();
        for row in rows {
            match t.insert(&mut txn, row).unwrap() {
                InsertOutcome::Inserted(h) => handles.push(h),
                InsertOutcome::Duplicate { .. } => panic!("duplicate"),
            }
        }
        engine.prepare(&mut txn).unwrap();
        engine.commit(txn);
        handles
    }

    /// An engine with several databases (one empty) and tables of every shape.
    fn sample_engine() -> Arc<Engine> {
        let e = Engine::new();
        for db in ["shop", "empty", "other"] {
            e.create_database(db, false).unwrap();
        }
        e.create_table("shop", items(), false).unwrap();
        e.create_table("shop", events(), false).unwrap();
        e.create_table("other", kv(), false).unwrap();
        let t = e.table("shop", "items").unwrap();
        let rows = (0..3000)
            .map(|_| item(t.next_auto_increment() as i64))
            .collect();
        let handles = insert(&e, "shop", "items", rows);
        t.observe_auto_increment(5000);
        // A deleted row is not in the checkpoint.
        let mut txn = e.begin();
        t.lock_row(&mut txn, &handles[10], crate::storage::LockMode::Exclusive)
            .unwrap()
            .unwrap();
        t.delete(&mut txn, &handles[10]).unwrap();
        e.prepare(&mut txn).unwrap();
        e.commit(txn);
        let ev = |k: u64, n: &str| vec![Value::UInt(k), Value::str(n)];
        let events = vec![
            ev(1, "a"),
            ev(1, "a"),
            ev(2, ""),
            vec![Value::Null, Value::Null],
        ];
        insert(&e, "shop", "events", events);
        let kvs = (0..50)
            .map(|i| {
                vec![
                    Value::Bytes(vec![i as u8, 0, 255]),
                    Value::Int(-i),
                    if i % 2 == 0 {
                        Value::Null
                    } else {
                        Value::Bytes(vec![i as u8; 3])
                    },
                ]
            })
            .collect();
        insert(&e, "other", "kv", kvs);
        e
    }

    /// One table, comparable: db, name, id, definition, AUTO_INCREMENT, rows (sorted encodings).
    type TableDump = (String, String, u64, TableDef, u64, Vec<Vec<u8>>);

    fn dump(e: &Engine) -> (Vec<String>, Vec<TableDump>) {
        let mut tables = Vec::new();
        for db in e.databases() {
            for name in e.tables(&db).unwrap() {
                let t = e.table(&db, &name).unwrap();
                let mut rows = Vec::new();
                t.scan_committed(&mut |r| {
                    let mut b = Vec::new();
                    encode_row(&mut b, r);
                    rows.push(b);
                    Ok(ScanControl::Continue)
                })
                .unwrap();
                rows.sort();
                let def = (*t.def()).clone();
                let ai = t.auto_increment_peek();
                tables.push((db.clone(), name, t.id().0, def, ai, rows));
            }
        }
        (e.databases(), tables)
    }

    fn position(n: u64) -> CheckpointPosition {
        CheckpointPosition {
            redo_lsn: 1000 * n,
            binlog_file: format!("cohort-bin.{n:06}"),
            binlog_pos: 4 + n,
            next_xid: 77 * n,
            next_gtid_seq: 5 * n,
        }
    }

    fn load(dir: &SimDir) -> LoadedCheckpoint {
        read_latest_checkpoint(dir).unwrap().expect("a checkpoint")
    }

    #[test]
    fn an_engine_round_trips_through_a_checkpoint() {
        let dir = SimDir::new();
        let e = sample_engine();
        // An open transaction's rows are not committed: not in the checkpoint.
        let t = e.table("shop", "events").unwrap();
        let mut open = e.begin();
        t.insert(&mut open, vec![Value::UInt(9), Value::str("pending")])
            .unwrap();
        let info = write_checkpoint(&dir, &e, position(1)).unwrap();
        e.rollback(open);
        assert_eq!((info.seq, info.file.as_str()), (1, "checkpoint.000001"));
        assert_eq!(
            (info.databases, info.tables, info.rows),
            (3, 3, 2999 + 4 + 50)
        );
        let loaded = load(&dir.crash_image());
        assert_eq!(loaded.info, info);
        assert_eq!(loaded.info.position, position(1));
        let (want, got) = (dump(&e), dump(&loaded.engine));
        assert_eq!(got.0, vec!["empty", "other", "shop"]);
        assert_eq!(got, want);
        assert_eq!(got.1.iter().find(|t| t.1 == "items").unwrap().4, 5001);
        // The restored engine works: new AUTO_INCREMENT values continue, unique keys hold.
        let items = loaded.engine.table("shop", "items").unwrap();
        assert_eq!(items.next_auto_increment(), 5001);
        let mut txn = loaded.engine.begin();
        let dup = items.insert(&mut txn, item(7)).unwrap();
        assert!(matches!(dup, InsertOutcome::Duplicate { index: None, .. }));
    }

    #[test]
    fn real_files_round_trip() {
        use crate::log::device::FsDir;
        let root = std::env::temp_dir().join(format!("cohort-ckpt-{}", std::process::id()));
        let dir = FsDir::open(&root).unwrap();
        let e = sample_engine();
        write_checkpoint(&dir, &e, position(1)).unwrap();
        write_checkpoint(&dir, &e, position(2)).unwrap();
        let loaded = read_latest_checkpoint(&dir).unwrap().unwrap();
        assert_eq!(loaded.info.seq, 2);
        assert_eq!(dump(&loaded.engine), dump(&e));
        assert_eq!(
            dir.list().unwrap(),
            vec!["checkpoint.000002", "checkpoint.current"]
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn no_checkpoint_yet() {
        assert!(read_latest_checkpoint(&SimDir::new()).unwrap().is_none());
    }

    #[test]
    fn a_new_checkpoint_replaces_the_old_one() {
        let dir = SimDir::new();
        let e = sample_engine();
        write_checkpoint(&dir, &e, position(1)).unwrap();
        e.drop_database("other", false).unwrap();
        let info = write_checkpoint(&dir, &e, position(2)).unwrap();
        assert_eq!(info.seq, 2);
        let files = dir.list().unwrap();
        assert_eq!(files, vec!["checkpoint.000002", "checkpoint.current"]);
        let loaded = load(&dir.crash_image());
        assert_eq!(loaded.info.position, position(2));
        assert_eq!(dump(&loaded.engine), dump(&e));
    }

    #[test]
    fn a_torn_checkpoint_is_ignored_in_favour_of_the_previous_one() {
        let dir = SimDir::new();
        let e = sample_engine();
        write_checkpoint(&dir, &e, position(1)).unwrap();
        let state1 = dump(&e);
        let before = dir.crash_image();
        insert(
            &e,
            "shop",
            "events",
            vec![vec![Value::UInt(3), Value::str("new")]],
        );
        write_checkpoint(&dir, &e, position(2)).unwrap();
        let full = dir.read("checkpoint.000002").unwrap();
        // A crash while checkpoint 2 was written (or before it was published).
        for cut in [0, 9, full.len() / 2, full.len() - 1, full.len()] {
            let img = before.crash_image();
            let mut f = img.create("checkpoint.000002").unwrap();
            f.append(&full[..cut]).unwrap();
            let loaded = load(&img);
            assert_eq!(loaded.info.position, position(1), "cut {cut}");
            assert_eq!(dump(&loaded.engine), state1);
            // The next checkpoint takes a new number and clears both older files.
            let info = write_checkpoint(&img, &e, position(3)).unwrap();
            assert_eq!(info.seq, 3);
            assert_eq!(img.list().unwrap().len(), 2);
        }
    }

    #[test]
    fn a_failed_checkpoint_write_keeps_the_previous_one() {
        let dir = SimDir::new();
        let e = sample_engine();
        write_checkpoint(&dir, &e, position(1)).unwrap();
        let state1 = dump(&e);
        insert(
            &e,
            "shop",
            "events",
            vec![vec![Value::UInt(3), Value::str("x")]],
        );
        let used: u64 = ["checkpoint.000001", "checkpoint.current"]
            .iter()
            .map(|n| dir.read(n).unwrap().len() as u64)
            .sum();
        for faults in [
            Faults {
                fail_next_sync: true,
                ..Faults::default()
            },
            Faults {
                fail_next_append: true,
                ..Faults::default()
            },
            Faults {
                capacity: Some(used + 100_000),
                ..Faults::default()
            },
        ] {
            dir.set_faults(faults);
            let err = write_checkpoint(&dir, &e, position(2)).unwrap_err();
            dir.set_faults(Faults::default());
            assert!(
                matches!(&err, CheckpointError::Io { file, .. } if file == "sim:/checkpoint.000002"),
                "{err}"
            );
            assert_eq!(
                dir.list().unwrap(),
                vec!["checkpoint.000001", "checkpoint.current"]
            );
            let loaded = load(&dir.crash_image());
            assert_eq!(loaded.info.position, position(1));
            assert_eq!(dump(&loaded.engine), state1);
        }
    }

    #[test]
    fn a_damaged_published_checkpoint_is_a_clear_error() {
        let dir = SimDir::new();
        let e = Engine::new();
        e.create_database("d", false).unwrap();
        e.create_table("d", kv(), false).unwrap();
        insert(
            &e,
            "d",
            "kv",
            vec![vec![Value::str("k"), Value::Int(1), Value::Null]],
        );
        write_checkpoint(&dir, &e, position(1)).unwrap();
        let len = dir.read("checkpoint.000001").unwrap().len();
        for offset in 0..len {
            let img = dir.crash_image();
            img.corrupt("checkpoint.000001", offset);
            let err = read_latest_checkpoint(&img).unwrap_err();
            assert!(
                matches!(&err, CheckpointError::Corrupt { file, .. } if file == "sim:/checkpoint.000001"),
                "offset {offset}: {err}"
            );
        }
        for cut in [8, len / 2, len - 1] {
            let img = dir.crash_image();
            img.open_append("checkpoint.000001")
                .unwrap()
                .truncate(cut as u64)
                .unwrap();
            let err = read_latest_checkpoint(&img).unwrap_err();
            assert!(err.to_string().contains("corrupt at offset"), "{err}");
        }
        let img = dir.crash_image();
        img.corrupt(POINTER_NAME, 9);
        assert!(read_latest_checkpoint(&img).is_err());
    }
}
