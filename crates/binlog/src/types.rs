//! Column kinds (the binlog's view of a column type), cell values and row changes.

use cohort_decimal::Decimal;
use std::borrow::Cow;
use std::fmt;

/// MySQL/MariaDB column type codes as they appear in a Table_map event.
pub mod type_code {
    /// TINYINT, 1 byte.
    pub const TINY: u8 = 0x01;
    /// SMALLINT, 2 bytes.
    pub const SHORT: u8 = 0x02;
    /// INT, 4 bytes.
    pub const LONG: u8 = 0x03;
    /// FLOAT, 4 bytes IEEE-754.
    pub const FLOAT: u8 = 0x04;
    /// DOUBLE, 8 bytes IEEE-754.
    pub const DOUBLE: u8 = 0x05;
    /// Pre-5.6 TIMESTAMP (not written by us).
    pub const TIMESTAMP: u8 = 0x07;
    /// BIGINT, 8 bytes.
    pub const LONGLONG: u8 = 0x08;
    /// MEDIUMINT, 3 bytes.
    pub const INT24: u8 = 0x09;
    /// DATE, 3 bytes packed.
    pub const DATE: u8 = 0x0a;
    /// Pre-5.6 TIME (not written by us).
    pub const TIME: u8 = 0x0b;
    /// Pre-5.6 DATETIME (not written by us).
    pub const DATETIME: u8 = 0x0c;
    /// YEAR.
    pub const YEAR: u8 = 0x0d;
    /// VARCHAR.
    pub const VARCHAR: u8 = 0x0f;
    /// BIT (not written by us).
    pub const BIT: u8 = 0x10;
    /// TIMESTAMP with the 5.6 format.
    pub const TIMESTAMP2: u8 = 0x11;
    /// DATETIME with the 5.6 format.
    pub const DATETIME2: u8 = 0x12;
    /// TIME with the 5.6 format (not written by us).
    pub const TIME2: u8 = 0x13;
    /// DECIMAL, packed binary decimal.
    pub const NEWDECIMAL: u8 = 0xf6;
    /// ENUM (only as a CHAR real type in the metadata).
    pub const ENUM: u8 = 0xf7;
    /// SET (only as a CHAR real type in the metadata).
    pub const SET: u8 = 0xf8;
    /// BLOB/TEXT of any size (the size is in the metadata).
    pub const BLOB: u8 = 0xfc;
    /// Old VAR_STRING (not written by us).
    pub const VAR_STRING: u8 = 0xfd;
    /// CHAR (and ENUM/SET through the real type in the metadata).
    pub const STRING: u8 = 0xfe;
    /// GEOMETRY (not written by us).
    pub const GEOMETRY: u8 = 0xff;
}

/// How a column's values are laid out in row images: the binlog's view of a column type,
/// independent of the server's own type system.
///
/// Length limits are in **bytes** (e.g. `CHAR(120)` in utf8mb4 has `max_bytes = 480`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnKind {
    /// TINYINT: 1 byte little-endian.
    Tiny { unsigned: bool },
    /// SMALLINT: 2 bytes little-endian.
    Short { unsigned: bool },
    /// MEDIUMINT: 3 bytes little-endian.
    Int24 { unsigned: bool },
    /// INT: 4 bytes little-endian.
    Long { unsigned: bool },
    /// BIGINT: 8 bytes little-endian.
    LongLong { unsigned: bool },
    /// FLOAT: 4 bytes IEEE-754 little-endian.
    Float,
    /// DOUBLE: 8 bytes IEEE-754 little-endian.
    Double,
    /// DECIMAL(precision, scale): packed binary decimal (see [`crate::decimal`]).
    /// `1 <= precision <= 65`, `scale <= 38`, `scale <= precision`.
    NewDecimal { precision: u8, scale: u8 },
    /// CHAR(n) (type 0xfe, real type 0xfe): `max_bytes <= 1023`; values carry a 1-byte
    /// length prefix if `max_bytes < 256`, else 2 bytes. Callers pass values with the
    /// trailing pad spaces already removed, as MariaDB does.
    String { max_bytes: u16 },
    /// VARCHAR(n) (type 0x0f): length prefix 1 byte if `max_bytes < 256`, else 2 bytes.
    VarString { max_bytes: u16 },
    /// TINY/-/MEDIUM/LONG BLOB or TEXT (type 0xfc): `len_bytes` (1..=4) little-endian
    /// length prefix.
    Blob { len_bytes: u8 },
    /// DATE: 3 bytes, `day | month << 5 | year << 9`, little-endian.
    Date,
    /// DATETIME(fsp) in the 5.6 format: 5 bytes big-endian + `(fsp + 1) / 2` fraction bytes.
    DateTime2 { fsp: u8 },
    /// TIMESTAMP(fsp) in the 5.6 format: 4 bytes big-endian seconds + fraction bytes.
    Timestamp2 { fsp: u8 },
    /// YEAR: 1 byte, the year minus 1900 (0 for the year `0000`). Values are `Int` years.
    /// MariaDB counts it as an unsigned number in the SIGNEDNESS optional metadata.
    Year,
    /// ENUM (type 0xfe, real type 0xf7 in the metadata): the member's 1-based position
    /// (0 for ''), `pack_len` (1 or 2) bytes little-endian. Values are `UInt`/`Int`.
    Enum { pack_len: u8 },
    /// SET (type 0xfe, real type 0xf8): the members' bitmask, `pack_len` (1..=8) bytes
    /// little-endian. Values are `UInt`/`Int`.
    Set { pack_len: u8 },
    /// TIME(fsp) in the 5.6 format (type 0x13, metadata fsp): 3 bytes big-endian of
    /// `hour << 12 | minute << 6 | second` plus `(fsp + 1) / 2` fraction bytes, the whole
    /// signed and offset so that byte order is value order. Values are `Time` microseconds.
    Time2 { fsp: u8 },
    /// BIT(bits), 1..=64 (type 0x10, metadata `bits % 8`, `bits / 8`): `(bits + 7) / 8`
    /// bytes big-endian. Values are `UInt`.
    Bit { bits: u8 },
}

impl ColumnKind {
    /// The type byte written into the Table_map column-type array.
    pub fn type_code(&self) -> u8 {
        match self {
            ColumnKind::Tiny { .. } => type_code::TINY,
            ColumnKind::Short { .. } => type_code::SHORT,
            ColumnKind::Int24 { .. } => type_code::INT24,
            ColumnKind::Long { .. } => type_code::LONG,
            ColumnKind::LongLong { .. } => type_code::LONGLONG,
            ColumnKind::Float => type_code::FLOAT,
            ColumnKind::Double => type_code::DOUBLE,
            ColumnKind::NewDecimal { .. } => type_code::NEWDECIMAL,
            ColumnKind::String { .. } => type_code::STRING,
            ColumnKind::VarString { .. } => type_code::VARCHAR,
            ColumnKind::Blob { .. } => type_code::BLOB,
            ColumnKind::Date => type_code::DATE,
            ColumnKind::DateTime2 { .. } => type_code::DATETIME2,
            ColumnKind::Timestamp2 { .. } => type_code::TIMESTAMP2,
            ColumnKind::Year => type_code::YEAR,
            ColumnKind::Enum { .. } | ColumnKind::Set { .. } => type_code::STRING,
            ColumnKind::Time2 { .. } => type_code::TIME2,
            ColumnKind::Bit { .. } => type_code::BIT,
        }
    }

    /// Whether the column has a character set in the Table_map optional metadata: CHAR,
    /// VARCHAR, TEXT and their binary forms (collation 63).
    pub fn is_character(&self) -> bool {
        matches!(
            self,
            ColumnKind::String { .. } | ColumnKind::VarString { .. } | ColumnKind::Blob { .. }
        )
    }

    /// Whether the column counts as numeric for the Table_map SIGNEDNESS optional metadata.
    pub fn is_numeric(&self) -> bool {
        matches!(
            self,
            ColumnKind::Tiny { .. }
                | ColumnKind::Short { .. }
                | ColumnKind::Int24 { .. }
                | ColumnKind::Long { .. }
                | ColumnKind::LongLong { .. }
                | ColumnKind::Float
                | ColumnKind::Double
                | ColumnKind::NewDecimal { .. }
                | ColumnKind::Year
        )
    }

    /// Whether this is an unsigned integer column.
    pub fn is_unsigned(&self) -> bool {
        match self {
            ColumnKind::Tiny { unsigned }
            | ColumnKind::Short { unsigned }
            | ColumnKind::Int24 { unsigned }
            | ColumnKind::Long { unsigned }
            | ColumnKind::LongLong { unsigned } => *unsigned,
            ColumnKind::Year => true,
            _ => false,
        }
    }

    /// Returns the same kind with the integer signedness set (no-op for other kinds).
    pub fn with_unsigned(self, unsigned: bool) -> ColumnKind {
        match self {
            ColumnKind::Tiny { .. } => ColumnKind::Tiny { unsigned },
            ColumnKind::Short { .. } => ColumnKind::Short { unsigned },
            ColumnKind::Int24 { .. } => ColumnKind::Int24 { unsigned },
            ColumnKind::Long { .. } => ColumnKind::Long { unsigned },
            ColumnKind::LongLong { .. } => ColumnKind::LongLong { unsigned },
            other => other,
        }
    }

    /// Checks the parameters against what the format can express.
    pub fn validate(&self) -> Result<(), String> {
        Err(match *self {
            ColumnKind::NewDecimal { precision, scale }
                if precision == 0 || precision > 65 || scale > 38 || scale > precision =>
            {
                format!("invalid DECIMAL({precision},{scale})")
            }
            ColumnKind::String { max_bytes } if max_bytes > 1023 => {
                format!("CHAR max_bytes {max_bytes} > 1023")
            }
            ColumnKind::Blob { len_bytes } if !(1..=4).contains(&len_bytes) => {
                format!("BLOB len_bytes {len_bytes} not in 1..=4")
            }
            ColumnKind::DateTime2 { fsp }
            | ColumnKind::Timestamp2 { fsp }
            | ColumnKind::Time2 { fsp }
                if fsp > 6 =>
            {
                format!("fractional seconds precision {fsp} > 6")
            }
            ColumnKind::Enum { pack_len } if !(1..=2).contains(&pack_len) => {
                format!("ENUM pack length {pack_len} not in 1..=2")
            }
            ColumnKind::Set { pack_len } if !(1..=8).contains(&pack_len) => {
                format!("SET pack length {pack_len} not in 1..=8")
            }
            ColumnKind::Bit { bits } if !(1..=64).contains(&bits) => {
                format!("BIT({bits}) not in 1..=64")
            }
            _ => return Ok(()),
        })
    }

    /// Appends this column's Table_map metadata bytes.
    pub fn write_metadata(&self, out: &mut Vec<u8>) {
        match *self {
            ColumnKind::Float => out.push(4),
            ColumnKind::Double => out.push(8),
            ColumnKind::NewDecimal { precision, scale } => {
                out.extend_from_slice(&[precision, scale])
            }
            ColumnKind::String { max_bytes } => {
                // Byte 0 carries the real type with bits 8..9 of the length folded into its
                // bits 4..5 (inverted); byte 1 is the low byte of the length.
                let hi = ((max_bytes & 0x300) >> 4) as u8;
                out.push(type_code::STRING ^ hi);
                out.push((max_bytes & 0xff) as u8);
            }
            ColumnKind::VarString { max_bytes } => out.extend_from_slice(&max_bytes.to_le_bytes()),
            ColumnKind::Blob { len_bytes } => out.push(len_bytes),
            ColumnKind::DateTime2 { fsp }
            | ColumnKind::Timestamp2 { fsp }
            | ColumnKind::Time2 { fsp } => out.push(fsp),
            ColumnKind::Enum { pack_len } => out.extend_from_slice(&[type_code::ENUM, pack_len]),
            ColumnKind::Set { pack_len } => out.extend_from_slice(&[type_code::SET, pack_len]),
            ColumnKind::Bit { bits } => out.extend_from_slice(&[bits % 8, bits / 8]),
            ColumnKind::Tiny { .. }
            | ColumnKind::Short { .. }
            | ColumnKind::Int24 { .. }
            | ColumnKind::Long { .. }
            | ColumnKind::LongLong { .. }
            | ColumnKind::Date
            | ColumnKind::Year => {}
        }
    }

    /// Number of metadata bytes a column of type `code` carries in a Table_map, for every
    /// type MariaDB can write (so unknown columns can at least be skipped).
    pub(crate) fn metadata_len(code: u8) -> Option<usize> {
        use type_code::*;
        Some(match code {
            TINY | SHORT | LONG | LONGLONG | INT24 | DATE | TIMESTAMP | TIME | DATETIME | YEAR => 0,
            0x06 | 0x0e => 0,
            FLOAT | DOUBLE | BLOB | GEOMETRY | TIMESTAMP2 | DATETIME2 | TIME2 => 1,
            0xf9..=0xfb => 1,
            VARCHAR | BIT | NEWDECIMAL | VAR_STRING | STRING | ENUM | SET => 2,
            _ => return None,
        })
    }

    /// Rebuilds a kind from a Table_map type byte and its metadata. Integer kinds come back
    /// signed; the caller applies the SIGNEDNESS optional metadata.
    pub(crate) fn from_type_and_metadata(code: u8, meta: &[u8]) -> Result<ColumnKind, String> {
        use type_code::*;
        let kind = match code {
            TINY => ColumnKind::Tiny { unsigned: false },
            SHORT => ColumnKind::Short { unsigned: false },
            INT24 => ColumnKind::Int24 { unsigned: false },
            LONG => ColumnKind::Long { unsigned: false },
            LONGLONG => ColumnKind::LongLong { unsigned: false },
            FLOAT => match meta {
                [4] => ColumnKind::Float,
                _ => return Err(format!("FLOAT with metadata {meta:02x?}")),
            },
            DOUBLE => match meta {
                [8] => ColumnKind::Double,
                _ => return Err(format!("DOUBLE with metadata {meta:02x?}")),
            },
            NEWDECIMAL => ColumnKind::NewDecimal {
                precision: meta[0],
                scale: meta[1],
            },
            STRING => {
                let (b0, b1) = (meta[0], meta[1]);
                let (real_type, max_bytes) = if b0 & 0x30 != 0x30 {
                    (b0 | 0x30, ((((b0 & 0x30) ^ 0x30) as u16) << 4) | b1 as u16)
                } else {
                    (b0, b1 as u16)
                };
                match real_type {
                    STRING => ColumnKind::String { max_bytes },
                    ENUM => ColumnKind::Enum { pack_len: b1 },
                    SET => ColumnKind::Set { pack_len: b1 },
                    _ => {
                        return Err(format!("unsupported CHAR real type 0x{real_type:02x}"));
                    }
                }
            }
            VARCHAR => ColumnKind::VarString {
                max_bytes: u16::from_le_bytes([meta[0], meta[1]]),
            },
            BLOB => ColumnKind::Blob { len_bytes: meta[0] },
            DATE => ColumnKind::Date,
            YEAR => ColumnKind::Year,
            DATETIME2 => ColumnKind::DateTime2 { fsp: meta[0] },
            TIMESTAMP2 => ColumnKind::Timestamp2 { fsp: meta[0] },
            TIME2 => ColumnKind::Time2 { fsp: meta[0] },
            BIT => ColumnKind::Bit {
                bits: meta[1].saturating_mul(8).saturating_add(meta[0]),
            },
            other => return Err(format!("unsupported column type 0x{other:02x}")),
        };
        kind.validate()?;
        Ok(kind)
    }
}

/// A column as the binlog sees it: its layout and whether it may hold NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ColumnDef {
    /// Value layout.
    pub kind: ColumnKind,
    /// Whether NULL is allowed (the Table_map null bitmap).
    pub nullable: bool,
}

impl ColumnDef {
    /// A NOT NULL column.
    pub fn not_null(kind: ColumnKind) -> Self {
        ColumnDef {
            kind,
            nullable: false,
        }
    }
    /// A nullable column.
    pub fn nullable(kind: ColumnKind) -> Self {
        ColumnDef {
            kind,
            nullable: true,
        }
    }
}

/// One cell of a row image.
///
/// Canonical forms (what the decoder returns): signed integer columns give `Int`, unsigned
/// give `UInt`; DECIMAL gives a `Decimal` with exactly the column's scale (e.g. `-12.340`).
/// The encoder also accepts `Int`/`UInt` for either signedness when the value fits, and
/// decimals with fewer fraction digits (or extra trailing zeros).
#[derive(Debug, Clone, PartialEq)]
pub enum BinValue<'a> {
    /// SQL NULL (only for nullable columns).
    Null,
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// FLOAT.
    Float(f32),
    /// DOUBLE.
    Double(f64),
    /// DECIMAL, exact.
    Decimal(Decimal),
    /// CHAR/VARCHAR/TEXT/BLOB bytes (already in the column's character set). Borrowed when
    /// encoding a row the caller still holds (no copy per value), owned when decoded.
    Bytes(Cow<'a, [u8]>),
    /// DATE (zero parts allowed, as in `0000-00-00`).
    Date { year: u16, month: u8, day: u8 },
    /// DATETIME(fsp); `micro` must have no more precision than the column's fsp.
    DateTime {
        year: u16,
        month: u8,
        day: u8,
        hour: u8,
        minute: u8,
        second: u8,
        micro: u32,
    },
    /// TIMESTAMP(fsp): seconds since the Unix epoch (UTC) and microseconds.
    Timestamp { secs: u32, micro: u32 },
    /// TIME(fsp): signed microseconds; no more precision than the column's fsp.
    Time { micros: i64 },
}

impl BinValue<'_> {
    /// A short name of the variant, for error messages.
    pub fn variant_name(&self) -> &'static str {
        match self {
            BinValue::Null => "Null",
            BinValue::Int(_) => "Int",
            BinValue::UInt(_) => "UInt",
            BinValue::Float(_) => "Float",
            BinValue::Double(_) => "Double",
            BinValue::Decimal(_) => "Decimal",
            BinValue::Bytes(_) => "Bytes",
            BinValue::Date { .. } => "Date",
            BinValue::DateTime { .. } => "DateTime",
            BinValue::Timestamp { .. } => "Timestamp",
            BinValue::Time { .. } => "Time",
        }
    }

    /// At least the bytes its packed form takes in a row image (for sizing buffers).
    pub fn size_hint(&self) -> usize {
        match self {
            BinValue::Null => 0,
            BinValue::Decimal(_) => 32,
            BinValue::Bytes(b) => b.len() + 4,
            _ => 8,
        }
    }
}

/// The kind of a rows event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RowsKind {
    /// Write_rows (INSERT): after images.
    Write,
    /// Update_rows: before + after images.
    Update,
    /// Delete_rows: before images.
    Delete,
}

impl fmt::Display for RowsKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RowsKind::Write => "Write_rows",
            RowsKind::Update => "Update_rows",
            RowsKind::Delete => "Delete_rows",
        })
    }
}

/// One row change with full images (one value per column, in column order).
#[derive(Debug, Clone, PartialEq)]
pub enum RowChange<'a> {
    /// An inserted row (its after image).
    Insert(Vec<BinValue<'a>>),
    /// An updated row.
    Update {
        /// The row before the change.
        before: Vec<BinValue<'a>>,
        /// The row after the change.
        after: Vec<BinValue<'a>>,
    },
    /// A deleted row (its before image).
    Delete(Vec<BinValue<'a>>),
}

impl RowChange<'_> {
    /// At least the bytes its row images take in a rows event (null bitmaps and values).
    pub fn size_hint(&self) -> usize {
        let image = |row: &[BinValue]| {
            row.len() / 8 + 1 + row.iter().map(BinValue::size_hint).sum::<usize>()
        };
        match self {
            RowChange::Insert(row) | RowChange::Delete(row) => image(row),
            RowChange::Update { before, after } => image(before) + image(after),
        }
    }

    /// Which rows event carries this change.
    pub fn kind(&self) -> RowsKind {
        match self {
            RowChange::Insert(_) => RowsKind::Write,
            RowChange::Update { .. } => RowsKind::Update,
            RowChange::Delete(_) => RowsKind::Delete,
        }
    }
}
