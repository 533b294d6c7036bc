//! Sans-IO encoder and decoder of MariaDB binary-log (v4) events.
//!
//! Cohort writes its binlog in the format MariaDB 10.11 writes, so that
//! `mariadb-binlog -c -vv --base64-output=decode-rows` reads it, and, in one-log mode, replays
//! it as its redo log. This crate turns transactions into event bytes ([`EventWriter`],
//! [`FileHeader`]) and file images back into events ([`BinlogReader`], [`read_all`]); it does
//! no I/O.
//!
//! # File layout
//!
//! ```text
//! offset 0   FE 62 69 6E                      magic "\xfebin"
//! offset 4   Format_description               always first; says "CRC32 on"
//!            Gtid_list [Binlog_checkpoint]    GTID state at the start of the file
//!            events…                          transactions, DDL
//!            Rotate | Stop                    last event of a closed file
//! ```
//!
//! # Event framing
//!
//! Every event is a 19-byte common header, a body, and a 4-byte CRC32 trailer (all integers
//! little-endian unless noted):
//!
//! ```text
//! timestamp u32 | type u8 | server_id u32 | event_size u32 | next_pos u32 | flags u16
//! ```
//!
//! `event_size` counts header + body + CRC; `next_pos` is the **absolute** file offset of the
//! next event, so events are encoded for a known start position ([`BinlogPos`]) and offsets
//! are 32-bit (a file must be rotated before 4 GiB; [`EncodeError::PositionOverflow`]).
//!
//! The CRC is CRC-32 with the IEEE polynomial as zlib computes it (`crc32fast`), over header
//! and body. The Format_description's header flag [`LOG_EVENT_BINLOG_IN_USE_F`] marks a file
//! still being written: it is set when the file is created and cleared in place at close
//! ([`FDE_FLAGS_OFFSET`], [`fde_flags_bytes`]), and it is **excluded from the FDE's CRC** so
//! that toggling it needs no checksum update. `mariadb-binlog` warns about a file left in use.
//!
//! # What is written per transaction
//!
//! A row-based transaction ([`EventWriter::write_transaction`]):
//!
//! ```text
//! GTID        seq, domain, flags2 = TRANSACTIONAL|ALLOW_PARALLEL (0x0c), plus GROUP_COMMIT_ID
//!             and a commit_id shared by the whole group commit when given (0x0e)
//! per statement:
//!   [Annotate_rows]  the SQL text (optional)
//!   Table_map        table id → db, name, column types, metadata, nullability
//!   Write_rows_v1 / Update_rows_v1 / Delete_rows_v1
//!                    full row images; split into events of ~8 KiB of rows
//!                    (DEFAULT_MAX_ROWS_EVENT_SIZE); STMT_END_F on the last one only
//! Xid         commits
//! ```
//!
//! A DDL statement ([`EventWriter::write_ddl`]): a standalone GTID (flags2 STANDALONE |
//! ALLOW_PARALLEL | DDL = `0x29`) followed by a Query event; no Xid.
//!
//! Row images: a null bitmap (bit set = NULL, unused high bits set as MariaDB does), then
//! each non-NULL value packed by its [`ColumnKind`]; Update_rows carries before + after
//! images. All columns are always present. Signedness of integer columns is not part of the
//! classic Table_map: when a table has unsigned integer columns the Table_map carries the
//! SIGNEDNESS optional-metadata field (as MariaDB does with `binlog_row_metadata=MINIMAL`),
//! so that decoding gives back [`BinValue::UInt`] exactly.
//!
//! # Event types
//!
//! | code | event | written | decoded | body |
//! |-----:|-------|:-------:|:-------:|------|
//! | 0x02 | Query | DDL | yes | thread_id u32, exec_time u32, db_len u8, error_code u16, status_vars_len u16, status_vars, db NUL, SQL |
//! | 0x03 | Stop | clean shutdown | yes | empty |
//! | 0x04 | Rotate | file switch | yes | position u64, next file name |
//! | 0x0f | Format_description | first | yes | version u16 = 4, server version (50 bytes), created u32, header len u8 = 19, post-header lengths (171 bytes), checksum alg u8 |
//! | 0x10 | Xid | commit | yes | xid u64 |
//! | 0x13 | Table_map | per statement | yes | table id u48, flags u16, db, table, ncols, types, metadata, null bitmap, [optional metadata] |
//! | 0x17 | Write_rows_v1 | inserts | yes | table id u48, flags u16, ncols, present bitmap, rows |
//! | 0x18 | Update_rows_v1 | updates | yes | as 0x17 plus an after-image bitmap; before+after per row |
//! | 0x19 | Delete_rows_v1 | deletes | yes | as 0x17 |
//! | 0x1e–0x20 | Write/Update/Delete_rows v2 | no | yes | v1 plus extra-data u16 |
//! | 0xa0 | Annotate_rows | optional | yes | SQL text |
//! | 0xa1 | Binlog_checkpoint | optional | yes | name_len u32, file name |
//! | 0xa2 | GTID | per transaction | yes | seq u64, domain u32, flags2 u8, commit_id u64 or 6 zero bytes |
//! | 0xa3 | Gtid_list | file start | yes | count u32, (domain u32, server u32, seq u64)* |
//! | other | — | no | raw ([`Event::Other`]) | |
//!
//! # Column kinds
//!
//! | kind | type | metadata | value |
//! |------|-----:|----------|-------|
//! | Tiny/Short/Int24/Long/LongLong | 01/02/09/03/08 | — | 1/2/3/4/8 bytes LE |
//! | Float/Double | 04/05 | size (4/8) | IEEE LE |
//! | NewDecimal | f6 | precision, scale | packed binary decimal ([`decimal`]) |
//! | String (CHAR) | fe | real type ^ ((len & 0x300) >> 4), len & 0xff | 1-byte length if max < 256 else 2, bytes |
//! | VarString (VARCHAR) | 0f | max bytes u16 | 1-byte length if max < 256 else 2, bytes |
//! | Blob (BLOB/TEXT) | fc | length bytes (1–4) | length (1–4 bytes LE), bytes |
//! | Date | 0a | — | 3 bytes LE: day \| month << 5 \| year << 9 |
//! | DateTime2 | 12 | fsp | 5 bytes BE packed + (fsp+1)/2 fraction bytes BE |
//! | Timestamp2 | 11 | fsp | 4 bytes BE seconds + fraction bytes BE |

pub mod decimal;
mod error;
mod events;
pub mod querystatus;
mod reader;
mod rowimage;
pub mod tablemeta;
mod types;
mod wire;
mod writer;

pub use cohort_decimal::Decimal;
pub use error::{DecodeError, EncodeError, ValueError};
pub use events::{
    event_crc32, gtid_flags, Event, EventHeader, EventType, FormatDescription, Gtid, GtidEvent,
    GtidListEvent, QueryEvent, RotateEvent, RowsEvent, TableMap, CHECKSUM_ALG_CRC32,
    CHECKSUM_ALG_OFF, CHECKSUM_LEN, DEFAULT_SERVER_VERSION, HEADER_LEN, LOG_EVENT_ARTIFICIAL_F,
    LOG_EVENT_BINLOG_IN_USE_F, LOG_EVENT_IGNORABLE_F, LOG_EVENT_SUPPRESS_USE_F, MAGIC,
    MAX_TABLE_ID, NO_FOREIGN_KEY_CHECKS_F, RELAXED_UNIQUE_CHECKS_F, SERVER_VERSION_LEN, STMT_END_F,
    TM_BIT_LEN_EXACT_F,
};
pub use querystatus::QueryStatus;
pub use reader::{read_all, BinlogReader, DecodedEvent, EventDecoder, ReadOutcome};
pub use rowimage::{encode_row_image, encode_value};
pub use tablemeta::{KeyPart, RowMetadata, TableMeta};
pub use types::{type_code, BinValue, ColumnDef, ColumnKind, RowChange, RowsKind};
pub use writer::{
    encode_transaction, fde_flags_bytes, set_in_use, synthetic_event, EventWriter, FileHeader,
    RowsStatement, Span, Transaction, DEFAULT_MAX_ROWS_EVENT_SIZE, FDE_FLAGS_OFFSET,
};

/// A byte offset in a binlog file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct BinlogPos(pub u64);

/// The XID of a committed transaction (the Xid event).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Xid(pub u64);

/// A GTID sequence number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct GtidSeq(pub u64);

/// A Table_map table id (48 bits on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct TableId(pub u64);

/// A server id (event headers, GTIDs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ServerId(pub u32);

/// Decodes one row image of `columns` (all present) from the start of `bytes`; returns the
/// values and the number of bytes used. The inverse of [`encode_row_image`].
pub fn decode_row_image(
    columns: &[ColumnDef],
    bytes: &[u8],
) -> Result<(Vec<BinValue<'static>>, usize), String> {
    let mut cur = wire::Cursor::new(bytes);
    let present = vec![true; columns.len()];
    let values = rowimage::decode_row_image(columns, &present, &mut cur)?;
    Ok((values, bytes.len() - cur.remaining()))
}
