//! Encoding and decoding errors.

use std::fmt;

use crate::types::ColumnKind;
use crate::{BinlogPos, TableId};

/// A row image that cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueError {
    /// The row has a different number of values than the table has columns.
    ColumnCount { expected: usize, got: usize },
    /// NULL for a NOT NULL column (0-based index).
    NullInNotNull { column: usize },
    /// A value that does not match or does not fit its column (0-based index).
    Invalid {
        column: usize,
        kind: ColumnKind,
        detail: String,
    },
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueError::ColumnCount { expected, got } => {
                write!(f, "row has {got} values, table has {expected} columns")
            }
            ValueError::NullInNotNull { column } => write!(f, "NULL in NOT NULL column {column}"),
            ValueError::Invalid {
                column,
                kind,
                detail,
            } => {
                write!(f, "column {column} ({kind:?}): {detail}")
            }
        }
    }
}

impl std::error::Error for ValueError {}

/// Why events could not be encoded. The writer's buffer is left as it was before the failed
/// call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// A row value does not fit the table definition.
    Row {
        table_id: TableId,
        error: ValueError,
    },
    /// A column kind with parameters the format cannot express (0-based index).
    InvalidColumn {
        table_id: TableId,
        column: usize,
        detail: String,
    },
    /// A name or string longer than its length field allows.
    TooLong {
        what: &'static str,
        len: usize,
        max: usize,
    },
    /// The event would end past offset `u32::MAX`: binlog v4 positions are 32-bit, so the
    /// file must be rotated first.
    PositionOverflow { end: u64 },
    /// A Rows event for a table id with no Table_map written before it by this writer.
    UnknownTable { table_id: TableId },
    /// An event body that does not agree with itself (e.g. rows of another kind).
    Inconsistent(String),
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::Row { table_id, error } => write!(f, "table id {}: {error}", table_id.0),
            EncodeError::InvalidColumn {
                table_id,
                column,
                detail,
            } => {
                write!(f, "table id {}: column {column}: {detail}", table_id.0)
            }
            EncodeError::TooLong { what, len, max } => {
                write!(f, "{what} is {len} bytes, the maximum is {max}")
            }
            EncodeError::PositionOverflow { end } => {
                write!(
                    f,
                    "binlog position {end} exceeds 4 GiB; rotate the file first"
                )
            }
            EncodeError::UnknownTable { table_id } => {
                write!(
                    f,
                    "rows event for table id {} without a Table_map",
                    table_id.0
                )
            }
            EncodeError::Inconsistent(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for EncodeError {}

/// Why reading stopped. Every variant but [`DecodeError::BadMagic`] carries the file offset
/// of the event where it happened; [`crate::BinlogReader::valid_end`] is the end of the last
/// good event, where a writer recovering the file should cut it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// The file does not start with `FE 62 69 6E`.
    BadMagic,
    /// The file ends inside an event (a torn write at the tail).
    Truncated {
        pos: BinlogPos,
        needed: u64,
        available: u64,
    },
    /// The common header is impossible (size too small, `next_pos` not `pos + size`).
    BadHeader { pos: BinlogPos, detail: String },
    /// The CRC32 stored in the event does not match its bytes.
    BadChecksum {
        pos: BinlogPos,
        stored: u32,
        computed: u32,
    },
    /// The first event is not a Format_description event, or it is not checksum-aware.
    BadFormatDescription { pos: BinlogPos, detail: String },
    /// A checksum-valid event whose body does not parse.
    Malformed { pos: BinlogPos, detail: String },
    /// A rows event for a table id that no earlier Table_map defined.
    UnknownTable { pos: BinlogPos, table_id: TableId },
    /// A valid event using a feature this crate does not decode (e.g. ENUM columns).
    Unsupported { pos: BinlogPos, detail: String },
}

impl DecodeError {
    /// The offset of the offending event.
    pub fn pos(&self) -> Option<BinlogPos> {
        match self {
            DecodeError::BadMagic => None,
            DecodeError::Truncated { pos, .. }
            | DecodeError::BadHeader { pos, .. }
            | DecodeError::BadChecksum { pos, .. }
            | DecodeError::BadFormatDescription { pos, .. }
            | DecodeError::Malformed { pos, .. }
            | DecodeError::UnknownTable { pos, .. }
            | DecodeError::Unsupported { pos, .. } => Some(*pos),
        }
    }

    /// Whether this looks like damage (a torn or corrupt tail) rather than a well-formed
    /// event this crate cannot interpret.
    pub fn is_damage(&self) -> bool {
        matches!(
            self,
            DecodeError::Truncated { .. }
                | DecodeError::BadHeader { .. }
                | DecodeError::BadChecksum { .. }
        )
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::BadMagic => f.write_str("not a binlog file (bad magic)"),
            DecodeError::Truncated {
                pos,
                needed,
                available,
            } => write!(
                f,
                "event at {} is truncated: needs {needed} bytes, {available} available",
                pos.0
            ),
            DecodeError::BadHeader { pos, detail } => {
                write!(f, "bad event header at {}: {detail}", pos.0)
            }
            DecodeError::BadChecksum {
                pos,
                stored,
                computed,
            } => write!(
                f,
                "CRC32 mismatch in event at {}: stored {stored:#010x}, computed {computed:#010x}",
                pos.0
            ),
            DecodeError::BadFormatDescription { pos, detail } => {
                write!(f, "bad Format_description at {}: {detail}", pos.0)
            }
            DecodeError::Malformed { pos, detail } => {
                write!(f, "malformed event at {}: {detail}", pos.0)
            }
            DecodeError::UnknownTable { pos, table_id } => {
                write!(
                    f,
                    "rows event at {} for unmapped table id {}",
                    pos.0, table_id.0
                )
            }
            DecodeError::Unsupported { pos, detail } => {
                write!(f, "unsupported event at {}: {detail}", pos.0)
            }
        }
    }
}

impl std::error::Error for DecodeError {}
