//! Building event byte sequences: single events, whole transactions, file headers.

use std::collections::HashMap;

use crate::error::EncodeError;
use crate::events::{
    encode_body, encode_change, event_crc32, write_rows_header, Event, EventHeader, EventType,
    FormatDescription, Gtid, GtidEvent, GtidListEvent, QueryEvent, RotateEvent, TableMap,
    CHECKSUM_LEN, DEFAULT_SERVER_VERSION, HEADER_LEN, LOG_EVENT_BINLOG_IN_USE_F,
    LOG_EVENT_IGNORABLE_F, MAGIC, STMT_END_F,
};
use crate::types::{RowChange, RowsKind};
use crate::{BinlogPos, ServerId, TableId, Xid};

/// MariaDB's default `binlog_row_event_max_size`: row images are packed into one rows event
/// until it would exceed this many bytes of rows (a single larger row gets its own event).
pub const DEFAULT_MAX_ROWS_EVENT_SIZE: usize = 8192;

/// File offset of the Format_description event's header `flags` field (magic 4 + 17): the
/// writer patches it in place to set or clear [`LOG_EVENT_BINLOG_IN_USE_F`]. The FDE's CRC
/// excludes that bit, so no checksum needs updating.
pub const FDE_FLAGS_OFFSET: u64 = 4 + 17;

/// The two bytes to store at [`FDE_FLAGS_OFFSET`] for an in-use or closed file.
pub fn fde_flags_bytes(in_use: bool) -> [u8; 2] {
    let flags = if in_use { LOG_EVENT_BINLOG_IN_USE_F } else { 0 };
    flags.to_le_bytes()
}

/// Sets or clears the in-use flag in a file image (at least the first 23 bytes).
pub fn set_in_use(file_start: &mut [u8], in_use: bool) {
    let at = FDE_FLAGS_OFFSET as usize;
    let mut flags = u16::from_le_bytes([file_start[at], file_start[at + 1]]);
    if in_use {
        flags |= LOG_EVENT_BINLOG_IN_USE_F;
    } else {
        flags &= !LOG_EVENT_BINLOG_IN_USE_F;
    }
    file_start[at..at + 2].copy_from_slice(&flags.to_le_bytes());
}

/// The start of a new binlog file: magic, Format_description, then (optionally) Gtid_list
/// and Binlog_checkpoint, as MariaDB writes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHeader {
    /// Server id in the event headers.
    pub server_id: ServerId,
    /// Header timestamp of these events.
    pub timestamp: u32,
    /// Server version in the FDE; must compare ≥ 5.6.1.
    pub server_version: String,
    /// GTID state at the start of the file (one per domain), written as Gtid_list when set.
    pub gtid_list: Option<Vec<Gtid>>,
    /// A Binlog_checkpoint naming the oldest file crash recovery needs, when set.
    pub checkpoint: Option<String>,
}

impl FileHeader {
    /// Version [`DEFAULT_SERVER_VERSION`], an empty Gtid_list, no checkpoint.
    pub fn new(server_id: ServerId, timestamp: u32) -> FileHeader {
        FileHeader {
            server_id,
            timestamp,
            server_version: DEFAULT_SERVER_VERSION.to_string(),
            gtid_list: Some(Vec::new()),
            checkpoint: None,
        }
    }

    /// The file's first bytes; events continue at offset `len()`. With `in_use` the FDE
    /// carries [`LOG_EVENT_BINLOG_IN_USE_F`] (clear it with [`fde_flags_bytes`] at
    /// [`FDE_FLAGS_OFFSET`] when the file is closed).
    pub fn encode(&self, in_use: bool) -> Result<Vec<u8>, EncodeError> {
        let mut w =
            EventWriter::with_buffer(MAGIC.to_vec(), BinlogPos(0), self.server_id, self.timestamp);
        let fde = Event::FormatDescription(FormatDescription::mariadb_10_11(&self.server_version));
        let flags = if in_use { LOG_EVENT_BINLOG_IN_USE_F } else { 0 };
        w.write_event_with_flags(&fde, flags)?;
        if let Some(gtids) = &self.gtid_list {
            w.write_event(&Event::GtidList(GtidListEvent {
                flags: 0,
                gtids: gtids.clone(),
            }))?;
        }
        if let Some(name) = &self.checkpoint {
            w.write_event(&Event::BinlogCheckpoint(name.clone()))?;
        }
        Ok(w.into_bytes())
    }
}

/// One statement's row changes on one table: written as (Annotate_rows) → Table_map → rows
/// events (consecutive changes of one kind share an event, split at the size limit; the last
/// event carries STMT_END_F).
#[derive(Debug, Clone, Copy)]
pub struct RowsStatement<'a> {
    /// The table (its id, names and columns).
    pub table: &'a TableMap,
    /// Changes in order. An empty statement writes nothing.
    pub changes: &'a [RowChange<'a>],
    /// SQL text for an Annotate_rows event before the Table_map.
    pub annotate: Option<&'a str>,
    /// Rows-event flags on every rows event ([`crate::NO_FOREIGN_KEY_CHECKS_F`],
    /// [`crate::RELAXED_UNIQUE_CHECKS_F`]); STMT_END_F is added on the last.
    pub rows_flags: u16,
    /// Write the Table_map and rows events with [`crate::LOG_EVENT_IGNORABLE_F`], so that a
    /// replica skips them (rows only FOREIGN KEY cascades changed).
    pub ignorable: bool,
}

/// A row-based transaction: GTID → statements → Xid.
#[derive(Debug, Clone, Copy)]
pub struct Transaction<'a> {
    /// Usually [`GtidEvent::transaction`].
    pub gtid: GtidEvent,
    /// Statements in order.
    pub statements: &'a [RowsStatement<'a>],
    /// The XID of the commit.
    pub xid: Xid,
}

impl Transaction<'_> {
    /// At least the bytes [`EventWriter::write_transaction`] appends when rows events are
    /// split at `max_rows_event_size`, so that its buffer is allocated once.
    ///
    /// Each event counts its header, checksum and (generously) its post-header. Greedy
    /// packing makes any two consecutive rows events of one kind hold more than
    /// `max_rows_event_size` bytes of rows, so a run of one kind takes at most
    /// `2 × rows / max + 1` events.
    pub fn size_hint(&self, max_rows_event_size: usize) -> usize {
        const EVENT: usize = HEADER_LEN + CHECKSUM_LEN + 32;
        let statement = |st: &RowsStatement<'_>| {
            let ncols = st.table.columns.len();
            let rows: usize = st.changes.iter().map(RowChange::size_hint).sum();
            let runs = 1 + st
                .changes
                .windows(2)
                .filter(|w| w[0].kind() != w[1].kind())
                .count();
            let rows_events = st
                .changes
                .len()
                .min(runs + 2 * rows / max_rows_event_size.max(1));
            let table_map = EVENT + st.table.db.len() + st.table.table.len() + 4 * ncols;
            let annotate = st.annotate.map_or(0, |sql| EVENT + sql.len());
            annotate + table_map + rows_events * (EVENT + ncols / 4) + rows
        };
        2 * EVENT + self.statements.iter().map(statement).sum::<usize>()
    }
}

/// Where a written unit (transaction or DDL) lies in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Offset of its first event.
    pub start: BinlogPos,
    /// Offset just past its last event.
    pub end: BinlogPos,
}

/// Appends events to an in-memory buffer that will be written at file offset `start`, so
/// that every `next_pos` is the absolute offset of the following event. Every event gets a
/// CRC32 trailer. Failed calls leave the buffer unchanged.
///
/// A group commit appends all of its transactions to one writer, writes
/// [`EventWriter::bytes`] at [`EventWriter::start`], then calls [`EventWriter::reset`] with
/// the new end.
#[derive(Debug)]
pub struct EventWriter {
    buf: Vec<u8>,
    /// File offset of `buf[0]`.
    base: u64,
    server_id: ServerId,
    timestamp: u32,
    max_rows_event_size: usize,
    /// Table_maps written through [`EventWriter::write_event`], for its rows events.
    tables: HashMap<TableId, TableMap>,
}

impl EventWriter {
    /// A writer whose first event goes at file offset `start`.
    pub fn new(start: BinlogPos, server_id: ServerId, timestamp: u32) -> EventWriter {
        EventWriter::with_buffer(Vec::new(), start, server_id, timestamp)
    }

    /// Like [`EventWriter::new`], reusing `buf`: its current content (e.g. the file magic) is
    /// kept, and `start` is the file offset of `buf[0]`.
    pub fn with_buffer(
        buf: Vec<u8>,
        start: BinlogPos,
        server_id: ServerId,
        timestamp: u32,
    ) -> EventWriter {
        EventWriter {
            buf,
            base: start.0,
            server_id,
            timestamp,
            max_rows_event_size: DEFAULT_MAX_ROWS_EVENT_SIZE,
            tables: HashMap::new(),
        }
    }

    /// Sets the header timestamp of the events written from now on.
    pub fn set_timestamp(&mut self, timestamp: u32) {
        self.timestamp = timestamp;
    }

    /// Sets the server id written in event headers from now on.
    pub fn set_server_id(&mut self, server_id: ServerId) {
        self.server_id = server_id;
    }

    /// Sets the rows-event split size (bytes of row images per event; at least one row).
    pub fn set_max_rows_event_size(&mut self, bytes: usize) {
        self.max_rows_event_size = bytes;
    }

    /// The server id written in event headers.
    pub fn server_id(&self) -> ServerId {
        self.server_id
    }

    /// File offset of the first buffered byte.
    pub fn start(&self) -> BinlogPos {
        BinlogPos(self.base)
    }

    /// File offset just past the buffered bytes (where the next event goes).
    pub fn position(&self) -> BinlogPos {
        BinlogPos(self.base + self.buf.len() as u64)
    }

    /// The buffered bytes, to be written at [`EventWriter::start`].
    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Whether nothing is buffered.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Empties the buffer (keeping its allocation); the next event goes at `start`.
    pub fn reset(&mut self, start: BinlogPos) {
        self.buf.clear();
        self.base = start.0;
    }

    /// Takes the buffered bytes; the writer continues at the old [`EventWriter::position`].
    pub fn take_bytes(&mut self) -> Vec<u8> {
        self.base += self.buf.len() as u64;
        std::mem::take(&mut self.buf)
    }

    /// The buffered bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// Appends a header with placeholder size/next_pos; returns its index in the buffer.
    fn begin(&mut self, event_type: EventType, flags: u16) -> usize {
        let at = self.buf.len();
        EventHeader {
            timestamp: self.timestamp,
            event_type,
            server_id: self.server_id,
            event_size: 0,
            next_pos: 0,
            flags,
        }
        .write(&mut self.buf);
        at
    }

    /// Fills in size and next_pos of the event begun at `at` and appends its CRC32.
    fn finish(&mut self, at: usize) -> Result<BinlogPos, EncodeError> {
        let size = self.buf.len() - at + CHECKSUM_LEN;
        let end = self.base + (at + size) as u64;
        if end > u32::MAX as u64 {
            return Err(EncodeError::PositionOverflow { end });
        }
        self.buf[at + 9..at + 13].copy_from_slice(&(size as u32).to_le_bytes());
        self.buf[at + 13..at + 17].copy_from_slice(&(end as u32).to_le_bytes());
        let crc = event_crc32(&self.buf[at..]);
        self.buf.extend_from_slice(&crc.to_le_bytes());
        Ok(BinlogPos(end))
    }

    /// Runs `f`, truncating the buffer back to where it was if it fails.
    fn atomically<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, EncodeError>,
    ) -> Result<T, EncodeError> {
        let mark = self.buf.len();
        let result = f(self);
        if result.is_err() {
            self.buf.truncate(mark);
        }
        result
    }

    /// Appends one event with its default header flags; returns the offset past it.
    ///
    /// A Table_map written here is remembered, so that later [`Event::Rows`] for its table
    /// id can be encoded (they must have all columns present).
    pub fn write_event(&mut self, event: &Event) -> Result<BinlogPos, EncodeError> {
        self.write_event_with_flags(event, event.default_header_flags())
    }

    /// Appends one event with explicit header flags.
    pub fn write_event_with_flags(
        &mut self,
        event: &Event,
        flags: u16,
    ) -> Result<BinlogPos, EncodeError> {
        let end = self.atomically(|w| {
            let at = w.begin(event.event_type(), flags);
            encode_body(event, &w.tables, &mut w.buf)?;
            w.finish(at)
        })?;
        if let Event::TableMap(t) = event {
            self.tables.insert(t.table_id, t.clone());
        }
        Ok(end)
    }

    /// Appends a whole transaction: GTID → for each statement (Annotate_rows) → Table_map →
    /// rows events → Xid.
    pub fn write_transaction(&mut self, txn: &Transaction<'_>) -> Result<Span, EncodeError> {
        let start = self.position();
        self.atomically(|w| {
            w.write_event(&Event::Gtid(txn.gtid))?;
            for st in txn.statements {
                w.write_statement(st)?;
            }
            w.write_event(&Event::Xid(txn.xid))?;
            Ok(Span {
                start,
                end: w.position(),
            })
        })
    }

    /// Appends a DDL statement: GTID (normally [`GtidEvent::ddl`]) → Query.
    pub fn write_ddl(&mut self, gtid: &GtidEvent, query: &QueryEvent) -> Result<Span, EncodeError> {
        let start = self.position();
        self.atomically(|w| {
            w.write_event(&Event::Gtid(*gtid))?;
            w.write_event(&Event::Query(query.clone()))?;
            Ok(Span {
                start,
                end: w.position(),
            })
        })
    }

    /// Appends a Rotate event pointing at `next_file` (offset 4): the end of this file.
    pub fn write_rotate(&mut self, next_file: &str) -> Result<BinlogPos, EncodeError> {
        let ev = Event::Rotate(RotateEvent {
            position: BinlogPos(4),
            next_file: next_file.to_string(),
        });
        self.write_event(&ev)
    }

    /// Appends a Stop event: the end of the last file after a clean shutdown.
    pub fn write_stop(&mut self) -> Result<BinlogPos, EncodeError> {
        self.write_event(&Event::Stop)
    }

    /// Appends one statement (not atomic on its own; callers wrap it).
    fn write_statement(&mut self, st: &RowsStatement<'_>) -> Result<(), EncodeError> {
        let changes = st.changes;
        if changes.is_empty() {
            return Ok(());
        }
        if let Some(sql) = st.annotate {
            self.write_event(&Event::AnnotateRows(sql.to_string()))?;
        }
        let table = st.table;
        let header_flags = if st.ignorable {
            LOG_EVENT_IGNORABLE_F
        } else {
            0
        };
        let at = self.begin(EventType::TABLE_MAP, header_flags);
        table.encode(&mut self.buf)?;
        self.finish(at)?;

        let ncols = table.columns.len();
        let mut i = 0;
        while i < changes.len() {
            let kind: RowsKind = changes[i].kind();
            let at = self.begin(EventType::rows_v1(kind), header_flags);
            write_rows_header(table.table_id, kind, st.rows_flags, ncols, &mut self.buf);
            let rows_start = self.buf.len();
            let mut in_event = 0;
            while i < changes.len() && changes[i].kind() == kind {
                let row_start = self.buf.len();
                encode_change(table, &changes[i], &mut self.buf)?;
                if in_event > 0 && self.buf.len() - rows_start > self.max_rows_event_size {
                    self.buf.truncate(row_start);
                    break;
                }
                in_event += 1;
                i += 1;
            }
            if i == changes.len() {
                // Rows flags sit after the 6-byte table id of the post-header.
                let flags_at = at + HEADER_LEN + 6;
                let flags = st.rows_flags | STMT_END_F;
                self.buf[flags_at..flags_at + 2].copy_from_slice(&flags.to_le_bytes());
            }
            self.finish(at)?;
        }
        Ok(())
    }
}

/// One event as a dump thread makes it up, outside any file: `next_pos`, `timestamp` and
/// `flags` as given, and a CRC32 trailer only when `checksum` (what the replica said it
/// handles). The fake Rotate and Gtid_list that open a dump and the heartbeats are these.
pub fn synthetic_event(
    event: &Event,
    server_id: ServerId,
    timestamp: u32,
    next_pos: u32,
    flags: u16,
    checksum: bool,
) -> Result<Vec<u8>, EncodeError> {
    let mut buf = Vec::with_capacity(64);
    EventHeader {
        timestamp,
        event_type: event.event_type(),
        server_id,
        event_size: 0,
        next_pos,
        flags,
    }
    .write(&mut buf);
    encode_body(event, &HashMap::new(), &mut buf)?;
    let size = buf.len() + if checksum { CHECKSUM_LEN } else { 0 };
    buf[9..13].copy_from_slice(&(size as u32).to_le_bytes());
    if checksum {
        let crc = event_crc32(&buf);
        buf.extend_from_slice(&crc.to_le_bytes());
    }
    Ok(buf)
}

/// Encodes one transaction to be written at `start`; returns its bytes and end offset.
pub fn encode_transaction(
    start: BinlogPos,
    server_id: ServerId,
    timestamp: u32,
    txn: &Transaction<'_>,
) -> Result<(Vec<u8>, BinlogPos), EncodeError> {
    let buf = Vec::with_capacity(txn.size_hint(DEFAULT_MAX_ROWS_EVENT_SIZE));
    let mut w = EventWriter::with_buffer(buf, start, server_id, timestamp);
    let span = w.write_transaction(txn)?;
    Ok((w.into_bytes(), span.end))
}
