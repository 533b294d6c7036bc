//! Event header, event types and the body layout of every event this crate writes or reads.

use std::collections::HashMap;
use std::fmt;

use crate::error::{EncodeError, ValueError};
use crate::rowimage::{decode_row_image, encode_row_image};
use crate::tablemeta::TableMeta;
use crate::types::{ColumnDef, ColumnKind, RowChange, RowsKind};
use crate::wire::{put_bitmap, put_lenenc, read_bitmap, utf8, Cursor};
use crate::{BinlogPos, GtidSeq, ServerId, TableId, Xid};

/// The four bytes every binlog file starts with: `FE 62 69 6E` (`"\xfebin"`).
pub const MAGIC: [u8; 4] = [0xfe, b'b', b'i', b'n'];
/// Length of the common event header.
pub const HEADER_LEN: usize = 19;
/// Length of the CRC32 trailer of every event (when checksums are on).
pub const CHECKSUM_LEN: usize = 4;
/// Header flag of the Format_description event: the file is still being written. Toggled in
/// place and excluded from the event's CRC.
pub const LOG_EVENT_BINLOG_IN_USE_F: u16 = 0x0001;
/// Header flag of GTID events: do not emit `USE db` for this event.
pub const LOG_EVENT_SUPPRESS_USE_F: u16 = 0x0008;
/// Header flag of events a server makes up while streaming (the fake Rotate and Gtid_list a
/// dump starts with): they are not in any file.
pub const LOG_EVENT_ARTIFICIAL_F: u16 = 0x0020;
/// Header flag: a reader that does not know this event may skip it (a MariaDB replica and
/// `mariadb-binlog` treat any event that carries it as an Ignorable_log_event, whatever its
/// type). Cohort marks with it the rows only FOREIGN KEY cascades changed, which its own
/// recovery replays in one-log mode but a replica's engine cascades itself.
pub const LOG_EVENT_IGNORABLE_F: u16 = 0x0080;
/// Rows-event flag: the last rows event of a statement.
pub const STMT_END_F: u16 = 0x0001;
/// Rows-event flag: the statement ran with `foreign_key_checks = 0`; a replica must not check
/// FOREIGN KEYs while applying it.
pub const NO_FOREIGN_KEY_CHECKS_F: u16 = 0x0002;
/// Rows-event flag: the statement ran with `unique_checks = 0`.
pub const RELAXED_UNIQUE_CHECKS_F: u16 = 0x0004;
/// Table_map flag always written by MariaDB (bit lengths are exact).
pub const TM_BIT_LEN_EXACT_F: u16 = 0x0001;
/// Format_description checksum algorithm: none.
pub const CHECKSUM_ALG_OFF: u8 = 0;
/// Format_description checksum algorithm: CRC32 (IEEE polynomial, as zlib's `crc32`).
pub const CHECKSUM_ALG_CRC32: u8 = 1;
/// Largest table id (48 bits).
pub const MAX_TABLE_ID: u64 = (1 << 48) - 1;

/// GTID event `flags2` bits (MariaDB).
pub mod gtid_flags {
    /// No COMMIT/Xid follows: a DDL or non-transactional statement stands alone.
    pub const STANDALONE: u8 = 0x01;
    /// A `commit_id` follows: transactions sharing it group-committed together.
    pub const GROUP_COMMIT_ID: u8 = 0x02;
    /// The transaction only touched transactional tables.
    pub const TRANSACTIONAL: u8 = 0x04;
    /// Parallel replication may apply it out of order.
    pub const ALLOW_PARALLEL: u8 = 0x08;
    /// It waited on a row lock held by another transaction (a conflict hint).
    pub const WAITED: u8 = 0x10;
    /// It is DDL.
    pub const DDL: u8 = 0x20;
}

/// An event type code.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventType(pub u8);

impl EventType {
    pub const START_V3: EventType = EventType(0x01);
    pub const QUERY: EventType = EventType(0x02);
    pub const STOP: EventType = EventType(0x03);
    pub const ROTATE: EventType = EventType(0x04);
    pub const INTVAR: EventType = EventType(0x05);
    pub const RAND: EventType = EventType(0x0d);
    pub const USER_VAR: EventType = EventType(0x0e);
    pub const HEARTBEAT: EventType = EventType(0x1b);
    pub const FORMAT_DESCRIPTION: EventType = EventType(0x0f);
    pub const XID: EventType = EventType(0x10);
    pub const TABLE_MAP: EventType = EventType(0x13);
    pub const WRITE_ROWS_V1: EventType = EventType(0x17);
    pub const UPDATE_ROWS_V1: EventType = EventType(0x18);
    pub const DELETE_ROWS_V1: EventType = EventType(0x19);
    pub const WRITE_ROWS_V2: EventType = EventType(0x1e);
    pub const UPDATE_ROWS_V2: EventType = EventType(0x1f);
    pub const DELETE_ROWS_V2: EventType = EventType(0x20);
    pub const ANNOTATE_ROWS: EventType = EventType(0xa0);
    pub const BINLOG_CHECKPOINT: EventType = EventType(0xa1);
    pub const GTID: EventType = EventType(0xa2);
    pub const GTID_LIST: EventType = EventType(0xa3);
    pub const START_ENCRYPTION: EventType = EventType(0xa4);

    /// The name `mariadb-binlog` uses, or `"Unknown"`.
    pub fn name(self) -> &'static str {
        match self {
            EventType::START_V3 => "Start_v3",
            EventType::QUERY => "Query",
            EventType::STOP => "Stop",
            EventType::ROTATE => "Rotate",
            EventType::INTVAR => "Intvar",
            EventType::RAND => "RAND",
            EventType::USER_VAR => "User var",
            EventType::HEARTBEAT => "Heartbeat",
            EventType::FORMAT_DESCRIPTION => "Format_desc",
            EventType::XID => "Xid",
            EventType::TABLE_MAP => "Table_map",
            EventType::WRITE_ROWS_V1 => "Write_rows_v1",
            EventType::UPDATE_ROWS_V1 => "Update_rows_v1",
            EventType::DELETE_ROWS_V1 => "Delete_rows_v1",
            EventType::WRITE_ROWS_V2 => "Write_rows",
            EventType::UPDATE_ROWS_V2 => "Update_rows",
            EventType::DELETE_ROWS_V2 => "Delete_rows",
            EventType::ANNOTATE_ROWS => "Annotate_rows",
            EventType::BINLOG_CHECKPOINT => "Binlog_checkpoint",
            EventType::GTID => "Gtid",
            EventType::GTID_LIST => "Gtid_list",
            EventType::START_ENCRYPTION => "Start_encryption",
            _ => "Unknown",
        }
    }

    /// The rows kind and whether it is a v2 event, for rows event types.
    pub fn rows_kind(self) -> Option<(RowsKind, bool)> {
        Some(match self {
            EventType::WRITE_ROWS_V1 => (RowsKind::Write, false),
            EventType::UPDATE_ROWS_V1 => (RowsKind::Update, false),
            EventType::DELETE_ROWS_V1 => (RowsKind::Delete, false),
            EventType::WRITE_ROWS_V2 => (RowsKind::Write, true),
            EventType::UPDATE_ROWS_V2 => (RowsKind::Update, true),
            EventType::DELETE_ROWS_V2 => (RowsKind::Delete, true),
            _ => return None,
        })
    }

    /// The v1 rows event type for a kind (what MariaDB and this crate write).
    pub fn rows_v1(kind: RowsKind) -> EventType {
        match kind {
            RowsKind::Write => EventType::WRITE_ROWS_V1,
            RowsKind::Update => EventType::UPDATE_ROWS_V1,
            RowsKind::Delete => EventType::DELETE_ROWS_V1,
        }
    }
}

impl fmt::Debug for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(0x{:02x})", self.name(), self.0)
    }
}

/// The 19-byte common header of every event (all fields little-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventHeader {
    /// Seconds since the epoch when the event (statement) started.
    pub timestamp: u32,
    /// Event type.
    pub event_type: EventType,
    /// Originating server.
    pub server_id: ServerId,
    /// Total size: header + body + checksum.
    pub event_size: u32,
    /// Absolute file offset of the next event (= this event's offset + `event_size`).
    pub next_pos: u32,
    /// Header flags (e.g. [`LOG_EVENT_BINLOG_IN_USE_F`], [`LOG_EVENT_SUPPRESS_USE_F`]).
    pub flags: u16,
}

impl EventHeader {
    /// Parses a header from its 19 bytes.
    pub fn parse(b: &[u8; HEADER_LEN]) -> EventHeader {
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        EventHeader {
            timestamp: u32_at(0),
            event_type: EventType(b[4]),
            server_id: ServerId(u32_at(5)),
            event_size: u32_at(9),
            next_pos: u32_at(13),
            flags: u16::from_le_bytes([b[17], b[18]]),
        }
    }

    /// Appends the 19 header bytes.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.timestamp.to_le_bytes());
        out.push(self.event_type.0);
        out.extend_from_slice(&self.server_id.0.to_le_bytes());
        out.extend_from_slice(&self.event_size.to_le_bytes());
        out.extend_from_slice(&self.next_pos.to_le_bytes());
        out.extend_from_slice(&self.flags.to_le_bytes());
    }
}

/// Computes an event's CRC32 over header + body (`event` excludes the trailer). For the
/// Format_description event the in-use flag is masked out, so toggling it in place keeps the
/// checksum valid.
pub fn event_crc32(event: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    if event.len() >= HEADER_LEN && event[4] == EventType::FORMAT_DESCRIPTION.0 {
        h.update(&event[..17]);
        let flags = u16::from_le_bytes([event[17], event[18]]) & !LOG_EVENT_BINLOG_IN_USE_F;
        h.update(&flags.to_le_bytes());
        h.update(&event[HEADER_LEN..]);
    } else {
        h.update(event);
    }
    h.finalize()
}

/// Post-header lengths of MariaDB 10.11's Format_description event, as (event type, length)
/// for the non-zero entries of its 171-entry table.
const POST_HEADER_LENGTHS_10_11: &[(u8, u8)] = &[
    (1, 56),
    (2, 13),
    (4, 8),
    (6, 18),
    (8, 4),
    (9, 4),
    (10, 4),
    (11, 4),
    (12, 18),
    (15, 228),
    (17, 4),
    (18, 26),
    (19, 8),
    (23, 8),
    (24, 8),
    (25, 8),
    (26, 2),
    (30, 10),
    (31, 10),
    (32, 10),
    (39, 10),
    (40, 10),
    (41, 10),
    (161, 4),
    (162, 19),
    (163, 4),
    (165, 13),
    (166, 8),
    (167, 8),
    (168, 8),
    (169, 10),
    (170, 10),
    (171, 10),
];
/// Number of event types described by the 10.11 post-header table.
const POST_HEADER_TYPES_10_11: usize = 171;
/// Size of the server-version field.
pub const SERVER_VERSION_LEN: usize = 50;
/// The server version written by default; it must compare ≥ 5.6.1 or readers will not
/// expect checksums.
pub const DEFAULT_SERVER_VERSION: &str = "10.11.0-cohort";

/// FORMAT_DESCRIPTION (0x0f): the first event of every file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatDescription {
    /// Always 4.
    pub binlog_version: u16,
    /// Server version text (at most 50 bytes).
    pub server_version: String,
    /// Non-zero only for the first file after a server start.
    pub create_timestamp: u32,
    /// Always 19.
    pub header_length: u8,
    /// Post-header length of each event type, starting with type 1.
    pub post_header_lengths: Vec<u8>,
    /// [`CHECKSUM_ALG_CRC32`] or [`CHECKSUM_ALG_OFF`].
    pub checksum_alg: u8,
}

impl FormatDescription {
    /// The event MariaDB 10.11 writes, with our server version and CRC32 on.
    pub fn mariadb_10_11(server_version: &str) -> FormatDescription {
        let mut lengths = vec![0u8; POST_HEADER_TYPES_10_11];
        for &(t, len) in POST_HEADER_LENGTHS_10_11 {
            lengths[t as usize - 1] = len;
        }
        FormatDescription {
            binlog_version: 4,
            server_version: server_version.to_string(),
            create_timestamp: 0,
            header_length: HEADER_LEN as u8,
            post_header_lengths: lengths,
            checksum_alg: CHECKSUM_ALG_CRC32,
        }
    }

    /// Whether events after this one end with a CRC32.
    pub fn checksums(&self) -> bool {
        self.checksum_alg == CHECKSUM_ALG_CRC32
    }

    /// The leading `major.minor.patch` of the server version.
    pub fn version_triple(&self) -> Option<(u32, u32, u32)> {
        version_triple(&self.server_version)
    }

    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let v = self.server_version.as_bytes();
        if v.len() > SERVER_VERSION_LEN {
            return Err(EncodeError::TooLong {
                what: "server version",
                len: v.len(),
                max: SERVER_VERSION_LEN,
            });
        }
        out.extend_from_slice(&self.binlog_version.to_le_bytes());
        out.extend_from_slice(v);
        out.resize(out.len() + SERVER_VERSION_LEN - v.len(), 0);
        out.extend_from_slice(&self.create_timestamp.to_le_bytes());
        out.push(self.header_length);
        out.extend_from_slice(&self.post_header_lengths);
        out.push(self.checksum_alg);
        Ok(())
    }

    /// Decodes the body (between header and the 4-byte checksum field).
    fn decode(body: &[u8]) -> Result<FormatDescription, String> {
        let mut c = Cursor::new(body);
        let binlog_version = c.u16()?;
        let version = c.take(SERVER_VERSION_LEN)?;
        let end = version
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(SERVER_VERSION_LEN);
        let server_version = utf8(&version[..end], "server version")?;
        let create_timestamp = c.u32()?;
        let header_length = c.u8()?;
        let rest = c.rest();
        let (&checksum_alg, post) = rest.split_last().ok_or("missing checksum algorithm")?;
        if binlog_version != 4 || header_length as usize != HEADER_LEN {
            return Err(format!(
                "binlog version {binlog_version}, header length {header_length}"
            ));
        }
        Ok(FormatDescription {
            binlog_version,
            server_version,
            create_timestamp,
            header_length,
            post_header_lengths: post.to_vec(),
            checksum_alg,
        })
    }
}

/// Parses the leading `major.minor.patch` of a version string such as `10.11.19-MariaDB-log`.
pub(crate) fn version_triple(s: &str) -> Option<(u32, u32, u32)> {
    let mut parts = s.splitn(3, '.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch_text = parts.next()?;
    let digits = patch_text.bytes().take_while(u8::is_ascii_digit).count();
    let patch = patch_text[..digits].parse().ok()?;
    Some((major, minor, patch))
}

/// A MariaDB GTID: `domain-server-seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Gtid {
    /// Replication domain.
    pub domain_id: u32,
    /// Server that originated the transaction.
    pub server_id: ServerId,
    /// Sequence number within the domain.
    pub seq: GtidSeq,
}

impl fmt::Display for Gtid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}-{}", self.domain_id, self.server_id.0, self.seq.0)
    }
}

/// GTID (0xa2, MariaDB): starts a transaction (replacing `BEGIN`) or a standalone DDL. The
/// server id of the GTID is the event header's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GtidEvent {
    /// Sequence number.
    pub seq: GtidSeq,
    /// Replication domain.
    pub domain_id: u32,
    /// [`gtid_flags`] bits. [`gtid_flags::GROUP_COMMIT_ID`] is written iff `commit_id` is set.
    pub flags2: u8,
    /// Shared by all transactions of one group commit (a parallel-apply hint).
    pub commit_id: Option<u64>,
}

impl GtidEvent {
    /// A row-based transaction ended by an Xid: flags2 TRANSACTIONAL | ALLOW_PARALLEL
    /// (`0x0c`, or `0x0e` with a commit id).
    pub fn transaction(seq: GtidSeq, domain_id: u32, commit_id: Option<u64>) -> GtidEvent {
        let mut flags2 = gtid_flags::TRANSACTIONAL | gtid_flags::ALLOW_PARALLEL;
        if commit_id.is_some() {
            flags2 |= gtid_flags::GROUP_COMMIT_ID;
        }
        GtidEvent {
            seq,
            domain_id,
            flags2,
            commit_id,
        }
    }

    /// A standalone DDL statement followed by its Query event: flags2 STANDALONE |
    /// ALLOW_PARALLEL | DDL (`0x29`).
    pub fn ddl(seq: GtidSeq, domain_id: u32) -> GtidEvent {
        GtidEvent {
            seq,
            domain_id,
            flags2: gtid_flags::STANDALONE | gtid_flags::ALLOW_PARALLEL | gtid_flags::DDL,
            commit_id: None,
        }
    }

    /// Whether no Xid follows.
    pub fn is_standalone(&self) -> bool {
        self.flags2 & gtid_flags::STANDALONE != 0
    }

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.seq.0.to_le_bytes());
        out.extend_from_slice(&self.domain_id.to_le_bytes());
        match self.commit_id {
            Some(id) => {
                out.push(self.flags2 | gtid_flags::GROUP_COMMIT_ID);
                out.extend_from_slice(&id.to_le_bytes());
            }
            None => {
                out.push(self.flags2 & !gtid_flags::GROUP_COMMIT_ID);
                out.extend_from_slice(&[0; 6]);
            }
        }
    }

    fn decode(body: &[u8]) -> Result<GtidEvent, String> {
        let mut c = Cursor::new(body);
        let seq = GtidSeq(c.u64()?);
        let domain_id = c.u32()?;
        let flags2 = c.u8()?;
        let commit_id = if flags2 & gtid_flags::GROUP_COMMIT_ID != 0 {
            Some(c.u64()?)
        } else {
            None
        };
        Ok(GtidEvent {
            seq,
            domain_id,
            flags2,
            commit_id,
        })
    }
}

/// GTID_LIST (0xa3): the GTID state (last GTID per domain) at the start of a file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GtidListEvent {
    /// The 4 high bits of the count field (MariaDB internal flags; 0 in files).
    pub flags: u8,
    /// One GTID per domain (and server).
    pub gtids: Vec<Gtid>,
}

impl GtidListEvent {
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        if self.gtids.len() >= 1 << 28 {
            return Err(EncodeError::TooLong {
                what: "GTID list",
                len: self.gtids.len(),
                max: (1 << 28) - 1,
            });
        }
        let count = self.gtids.len() as u32 | (self.flags as u32 & 0x0f) << 28;
        out.extend_from_slice(&count.to_le_bytes());
        for g in &self.gtids {
            out.extend_from_slice(&g.domain_id.to_le_bytes());
            out.extend_from_slice(&g.server_id.0.to_le_bytes());
            out.extend_from_slice(&g.seq.0.to_le_bytes());
        }
        Ok(())
    }

    fn decode(body: &[u8]) -> Result<GtidListEvent, String> {
        let mut c = Cursor::new(body);
        let raw = c.u32()?;
        let count = (raw & 0x0fff_ffff) as usize;
        if count > c.remaining() / 16 {
            return Err(format!("GTID list of {count} entries does not fit"));
        }
        let mut gtids = Vec::with_capacity(count);
        for _ in 0..count {
            gtids.push(Gtid {
                domain_id: c.u32()?,
                server_id: ServerId(c.u32()?),
                seq: GtidSeq(c.u64()?),
            });
        }
        Ok(GtidListEvent {
            flags: (raw >> 28) as u8,
            gtids,
        })
    }
}

/// QUERY (0x02): a statement in text form (DDL, or `BEGIN`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct QueryEvent {
    /// Session (connection) id.
    pub thread_id: u32,
    /// Seconds the statement took.
    pub exec_time: u32,
    /// Error the statement ended with (0).
    pub error_code: u16,
    /// Raw status variables (may be empty; MariaDB writes sql_mode, charset, …).
    pub status_vars: Vec<u8>,
    /// Default database (may be empty).
    pub db: String,
    /// Statement text.
    pub sql: String,
}

impl QueryEvent {
    /// A DDL statement with empty status variables.
    pub fn new(thread_id: u32, db: &str, sql: &str) -> QueryEvent {
        QueryEvent {
            thread_id,
            db: db.to_string(),
            sql: sql.to_string(),
            ..QueryEvent::default()
        }
    }

    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        check_len("database name", self.db.len(), 255)?;
        check_len(
            "query status variables",
            self.status_vars.len(),
            u16::MAX as usize,
        )?;
        out.extend_from_slice(&self.thread_id.to_le_bytes());
        out.extend_from_slice(&self.exec_time.to_le_bytes());
        out.push(self.db.len() as u8);
        out.extend_from_slice(&self.error_code.to_le_bytes());
        out.extend_from_slice(&(self.status_vars.len() as u16).to_le_bytes());
        out.extend_from_slice(&self.status_vars);
        out.extend_from_slice(self.db.as_bytes());
        out.push(0);
        out.extend_from_slice(self.sql.as_bytes());
        Ok(())
    }

    fn decode(body: &[u8]) -> Result<QueryEvent, String> {
        let mut c = Cursor::new(body);
        let thread_id = c.u32()?;
        let exec_time = c.u32()?;
        let db_len = c.u8()? as usize;
        let error_code = c.u16()?;
        let sv_len = c.u16()? as usize;
        let status_vars = c.take(sv_len)?.to_vec();
        let db = c.str_nul(db_len, "database name")?;
        let sql = utf8(c.rest(), "query text")?;
        Ok(QueryEvent {
            thread_id,
            exec_time,
            error_code,
            status_vars,
            db,
            sql,
        })
    }
}

/// ROTATE (0x04): the last event of a file that continues in `next_file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RotateEvent {
    /// Offset of the first event in the next file (4).
    pub position: BinlogPos,
    /// Next file's name (no directory).
    pub next_file: String,
}

/// TABLE_MAP (0x13): binds a table id to a table's name and column layout for the rows
/// events that follow. Also the table definition callers hand to the writer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableMap {
    /// Table id (48 bits) used by the rows events.
    pub table_id: TableId,
    /// Database (schema) name.
    pub db: String,
    /// Table name.
    pub table: String,
    /// Columns in table order.
    pub columns: Vec<ColumnDef>,
    /// Optional metadata (`binlog_row_metadata`): written after the null bitmap; a decoded
    /// Table_map has what its event carried ([`crate::tablemeta`]).
    pub meta: TableMeta,
}

impl TableMap {
    /// Checks names, table id and column kinds.
    pub fn validate(&self) -> Result<(), EncodeError> {
        if self.table_id.0 > MAX_TABLE_ID {
            return Err(EncodeError::InvalidColumn {
                table_id: self.table_id,
                column: 0,
                detail: "table id exceeds 48 bits".into(),
            });
        }
        check_len("database name", self.db.len(), 255)?;
        check_len("table name", self.table.len(), 255)?;
        for (i, c) in self.columns.iter().enumerate() {
            c.kind
                .validate()
                .map_err(|detail| EncodeError::InvalidColumn {
                    table_id: self.table_id,
                    column: i,
                    detail,
                })?;
        }
        Ok(())
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.validate()?;
        out.extend_from_slice(&self.table_id.0.to_le_bytes()[..6]);
        out.extend_from_slice(&TM_BIT_LEN_EXACT_F.to_le_bytes());
        out.push(self.db.len() as u8);
        out.extend_from_slice(self.db.as_bytes());
        out.push(0);
        out.push(self.table.len() as u8);
        out.extend_from_slice(self.table.as_bytes());
        out.push(0);
        let n = self.columns.len();
        put_lenenc(out, n as u64);
        out.extend(self.columns.iter().map(|c| c.kind.type_code()));
        let mut meta = Vec::with_capacity(2 * n);
        for c in &self.columns {
            c.kind.write_metadata(&mut meta);
        }
        put_lenenc(out, meta.len() as u64);
        out.extend_from_slice(&meta);
        put_bitmap(out, n, |i| self.columns[i].nullable);
        let kinds: Vec<ColumnKind> = self.columns.iter().map(|c| c.kind).collect();
        self.meta.encode(&kinds, out);
        Ok(())
    }

    pub(crate) fn decode(body: &[u8]) -> Result<TableMap, BodyError> {
        let mut c = Cursor::new(body);
        let table_id = TableId(c.u48()?);
        let _flags = c.u16()?;
        let db_len = c.u8()? as usize;
        let db = c.str_nul(db_len, "database name")?;
        let tbl_len = c.u8()? as usize;
        let table = c.str_nul(tbl_len, "table name")?;
        let n = lenenc_usize(&mut c)?;
        let types = c.take(n)?;
        let meta_len = lenenc_usize(&mut c)?;
        let mut meta = Cursor::new(c.take(meta_len)?);
        let mut kinds = Vec::with_capacity(n);
        for &t in types {
            let len = ColumnKind::metadata_len(t)
                .ok_or_else(|| BodyError::Unsupported(format!("column type 0x{t:02x}")))?;
            let m = meta.take(len)?;
            kinds.push(ColumnKind::from_type_and_metadata(t, m).map_err(BodyError::Unsupported)?);
        }
        if !meta.is_empty() {
            return Err(BodyError::Malformed(format!(
                "{} unused metadata bytes",
                meta.remaining()
            )));
        }
        let nullable = read_bitmap(&mut c, n)?;
        let meta = TableMeta::decode(&mut c, &mut kinds)?;
        let columns = kinds
            .into_iter()
            .zip(nullable)
            .map(|(kind, nullable)| ColumnDef { kind, nullable })
            .collect();
        Ok(TableMap {
            table_id,
            db,
            table,
            columns,
            meta,
        })
    }
}

/// A decoded Write/Update/Delete_rows event (v1 or v2).
#[derive(Debug, Clone, PartialEq)]
pub struct RowsEvent {
    /// Which rows event.
    pub kind: RowsKind,
    /// The Table_map this event refers to.
    pub table_id: TableId,
    /// Rows flags ([`STMT_END_F`] on the last event of a statement).
    pub flags: u16,
    /// Number of columns of the table.
    pub column_count: usize,
    /// Columns present in the (before) images. This crate writes all columns.
    pub columns_present: Vec<bool>,
    /// Columns present in the after images (Update_rows only; otherwise empty).
    pub columns_present_after: Vec<bool>,
    /// The rows, each with one value per present column.
    pub rows: Vec<RowChange<'static>>,
}

impl RowsEvent {
    /// Whether this is the last rows event of its statement.
    pub fn is_stmt_end(&self) -> bool {
        self.flags & STMT_END_F != 0
    }
}

/// Every event this crate reads or writes.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// FORMAT_DESCRIPTION (0x0f).
    FormatDescription(FormatDescription),
    /// QUERY (0x02).
    Query(QueryEvent),
    /// STOP (0x03): the server shut down cleanly; the file ends here.
    Stop,
    /// ROTATE (0x04).
    Rotate(RotateEvent),
    /// XID (0x10): commits the transaction.
    Xid(Xid),
    /// TABLE_MAP (0x13).
    TableMap(TableMap),
    /// WRITE/UPDATE/DELETE_ROWS v1 (0x17..0x19) or v2 (0x1e..0x20, read only).
    Rows(RowsEvent),
    /// ANNOTATE_ROWS (0xa0): the SQL text of the statement whose rows follow.
    AnnotateRows(String),
    /// BINLOG_CHECKPOINT (0xa1): name of the oldest file still needed by crash recovery.
    BinlogCheckpoint(String),
    /// GTID (0xa2).
    Gtid(GtidEvent),
    /// GTID_LIST (0xa3).
    GtidList(GtidListEvent),
    /// HEARTBEAT (0x1b): sent by a dump thread while it has nothing to send; never in a
    /// file. The body is the name of the file the dump is in; `next_pos` the position.
    Heartbeat(String),
    /// Any other event, undecoded.
    Other {
        /// Its type.
        event_type: EventType,
        /// Its body (without header and checksum).
        body: Vec<u8>,
    },
}

impl Event {
    /// The event type this event is written as.
    pub fn event_type(&self) -> EventType {
        match self {
            Event::FormatDescription(_) => EventType::FORMAT_DESCRIPTION,
            Event::Query(_) => EventType::QUERY,
            Event::Stop => EventType::STOP,
            Event::Rotate(_) => EventType::ROTATE,
            Event::Xid(_) => EventType::XID,
            Event::TableMap(_) => EventType::TABLE_MAP,
            Event::Rows(r) => EventType::rows_v1(r.kind),
            Event::AnnotateRows(_) => EventType::ANNOTATE_ROWS,
            Event::BinlogCheckpoint(_) => EventType::BINLOG_CHECKPOINT,
            Event::Gtid(_) => EventType::GTID,
            Event::GtidList(_) => EventType::GTID_LIST,
            Event::Heartbeat(_) => EventType::HEARTBEAT,
            Event::Other { event_type, .. } => *event_type,
        }
    }

    /// Header flags written with this event ([`LOG_EVENT_SUPPRESS_USE_F`] for GTIDs, as
    /// MariaDB does; 0 otherwise).
    pub fn default_header_flags(&self) -> u16 {
        match self {
            Event::Gtid(_) => LOG_EVENT_SUPPRESS_USE_F,
            _ => 0,
        }
    }
}

fn check_len(what: &'static str, len: usize, max: usize) -> Result<(), EncodeError> {
    if len > max {
        return Err(EncodeError::TooLong { what, len, max });
    }
    Ok(())
}

fn lenenc_usize(c: &mut Cursor<'_>) -> Result<usize, String> {
    let v = c.lenenc()?;
    usize::try_from(v)
        .ok()
        .filter(|&n| n <= c.remaining() * 8 + 8)
        .ok_or_else(|| format!("implausible count {v}"))
}

/// Why an event body did not decode (the reader adds the position).
#[derive(Debug)]
pub(crate) enum BodyError {
    Malformed(String),
    Unsupported(String),
    UnknownTable(TableId),
}

impl From<String> for BodyError {
    fn from(s: String) -> Self {
        BodyError::Malformed(s)
    }
}

/// Appends the body of `event` (not header, not checksum). Rows events need the table of
/// their id in `tables`.
pub(crate) fn encode_body(
    event: &Event,
    tables: &HashMap<TableId, TableMap>,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    match event {
        Event::FormatDescription(f) => f.encode(out)?,
        Event::Query(q) => q.encode(out)?,
        Event::Stop => {}
        Event::Rotate(r) => {
            out.extend_from_slice(&r.position.0.to_le_bytes());
            out.extend_from_slice(r.next_file.as_bytes());
        }
        Event::Xid(x) => out.extend_from_slice(&x.0.to_le_bytes()),
        Event::TableMap(t) => t.encode(out)?,
        Event::Rows(r) => {
            let table = tables.get(&r.table_id).ok_or(EncodeError::UnknownTable {
                table_id: r.table_id,
            })?;
            let n = table.columns.len();
            let all = |v: &Vec<bool>| v.len() == n && v.iter().all(|b| *b);
            let after_ok = match r.kind {
                RowsKind::Update => all(&r.columns_present_after),
                _ => r.columns_present_after.is_empty(),
            };
            if r.column_count != n || !all(&r.columns_present) || !after_ok {
                return Err(EncodeError::Inconsistent(
                    "only rows events with all columns present can be encoded".into(),
                ));
            }
            write_rows_header(table.table_id, r.kind, r.flags, n, out);
            for change in &r.rows {
                if change.kind() != r.kind {
                    return Err(EncodeError::Inconsistent(format!(
                        "{:?} row in a {} event",
                        change.kind(),
                        r.kind
                    )));
                }
                encode_change(table, change, out)?;
            }
        }
        Event::AnnotateRows(sql) => out.extend_from_slice(sql.as_bytes()),
        Event::BinlogCheckpoint(name) => {
            out.extend_from_slice(&(name.len() as u32).to_le_bytes());
            out.extend_from_slice(name.as_bytes());
        }
        Event::Gtid(g) => g.encode(out),
        Event::GtidList(l) => l.encode(out)?,
        Event::Heartbeat(name) => out.extend_from_slice(name.as_bytes()),
        Event::Other { body, .. } => out.extend_from_slice(body),
    }
    Ok(())
}

/// Appends the post-header and column bitmaps of a v1 rows event with all columns present.
pub(crate) fn write_rows_header(
    table_id: TableId,
    kind: RowsKind,
    flags: u16,
    ncols: usize,
    out: &mut Vec<u8>,
) {
    out.extend_from_slice(&table_id.0.to_le_bytes()[..6]);
    out.extend_from_slice(&flags.to_le_bytes());
    put_lenenc(out, ncols as u64);
    put_bitmap(out, ncols, |_| true);
    if kind == RowsKind::Update {
        put_bitmap(out, ncols, |_| true);
    }
}

/// Appends the image(s) of one row change.
pub(crate) fn encode_change(
    table: &TableMap,
    change: &RowChange,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let wrap = |error: ValueError| EncodeError::Row {
        table_id: table.table_id,
        error,
    };
    match change {
        RowChange::Insert(row) | RowChange::Delete(row) => {
            encode_row_image(&table.columns, row, out).map_err(wrap)
        }
        RowChange::Update { before, after } => {
            encode_row_image(&table.columns, before, out).map_err(wrap)?;
            encode_row_image(&table.columns, after, out).map_err(wrap)
        }
    }
}

/// Decodes an event body. `tables` holds the Table_maps seen so far (rows events need them).
pub(crate) fn decode_body(
    event_type: EventType,
    body: &[u8],
    tables: &HashMap<TableId, TableMap>,
) -> Result<Event, BodyError> {
    Ok(match event_type {
        EventType::FORMAT_DESCRIPTION => Event::FormatDescription(FormatDescription::decode(body)?),
        EventType::QUERY => Event::Query(QueryEvent::decode(body)?),
        EventType::STOP => Event::Stop,
        EventType::ROTATE => {
            let mut c = Cursor::new(body);
            let position = BinlogPos(c.u64()?);
            Event::Rotate(RotateEvent {
                position,
                next_file: utf8(c.rest(), "rotate file name")?,
            })
        }
        EventType::XID => Event::Xid(Xid(Cursor::new(body).u64()?)),
        EventType::TABLE_MAP => Event::TableMap(TableMap::decode(body)?),
        EventType::ANNOTATE_ROWS => Event::AnnotateRows(utf8(body, "annotate text")?),
        EventType::BINLOG_CHECKPOINT => {
            let mut c = Cursor::new(body);
            let len = c.u32()? as usize;
            Event::BinlogCheckpoint(utf8(c.take(len)?, "checkpoint file name")?)
        }
        EventType::GTID => Event::Gtid(GtidEvent::decode(body)?),
        EventType::GTID_LIST => Event::GtidList(GtidListEvent::decode(body)?),
        EventType::HEARTBEAT => Event::Heartbeat(utf8(body, "heartbeat file name")?),
        t => match t.rows_kind() {
            Some((kind, v2)) => Event::Rows(decode_rows(kind, v2, body, tables)?),
            None => Event::Other {
                event_type: t,
                body: body.to_vec(),
            },
        },
    })
}

fn decode_rows(
    kind: RowsKind,
    v2: bool,
    body: &[u8],
    tables: &HashMap<TableId, TableMap>,
) -> Result<RowsEvent, BodyError> {
    let mut c = Cursor::new(body);
    let table_id = TableId(c.u48()?);
    let flags = c.u16()?;
    if v2 {
        let extra = c.u16()? as usize;
        c.take(
            extra
                .checked_sub(2)
                .ok_or_else(|| "bad v2 extra data length".to_string())?,
        )?;
    }
    let table = tables
        .get(&table_id)
        .ok_or(BodyError::UnknownTable(table_id))?;
    let column_count = lenenc_usize(&mut c)?;
    if column_count != table.columns.len() {
        return Err(BodyError::Malformed(format!(
            "rows event has {column_count} columns, Table_map has {}",
            table.columns.len()
        )));
    }
    let columns_present = read_bitmap(&mut c, column_count)?;
    let columns_present_after = if kind == RowsKind::Update {
        read_bitmap(&mut c, column_count)?
    } else {
        Vec::new()
    };
    let none = |v: &[bool]| !v.iter().any(|b| *b);
    if none(&columns_present) || (kind == RowsKind::Update && none(&columns_present_after)) {
        return Err(BodyError::Malformed(
            "rows event with no columns present".into(),
        ));
    }
    let mut rows = Vec::new();
    while !c.is_empty() {
        let first = decode_row_image(&table.columns, &columns_present, &mut c)?;
        rows.push(match kind {
            RowsKind::Write => RowChange::Insert(first),
            RowsKind::Delete => RowChange::Delete(first),
            RowsKind::Update => {
                let after = decode_row_image(&table.columns, &columns_present_after, &mut c)?;
                RowChange::Update {
                    before: first,
                    after,
                }
            }
        });
    }
    Ok(RowsEvent {
        kind,
        table_id,
        flags,
        column_count,
        columns_present,
        columns_present_after,
        rows,
    })
}
