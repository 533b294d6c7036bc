//! The row image MariaDB's `CHECKSUM TABLE` hashes, built from Cohort's values, so that a
//! Cohort table and an InnoDB table with the same definition and rows give the same checksum.
//!
//! # MariaDB's algorithm (InnoDB, no live checksum)
//!
//! The table checksum is the sum, modulo 2^32, of one CRC-32 (zlib's, ISO 3309) per row; an
//! empty table gives 0, and row order does not matter. A row's CRC runs over, in order:
//!
//! 1. the row's null bytes, if the table has any (see below);
//! 2. each column in declaration order that is not generated and not NULL (a NULL column adds
//!    nothing beyond its null bit): its bytes as below. Generated columns, VIRTUAL and STORED
//!    alike, add nothing (measured on MariaDB 10.11: a STORED column's value does not change
//!    the checksum).
//!
//! CRC-32 over pieces equals CRC-32 over their concatenation, so the row's CRC is that of one
//! byte string; MariaDB's grouping of adjacent fixed-size fields does not show.
//!
//! ## Null bytes
//!
//! Every nullable column (generated ones too) owns one bit, in declaration order, bit 0 of byte
//! 0 first. A table with no VARCHAR/VARBINARY/TEXT/BLOB column (a "fixed" record) reserves
//! bit 0 of byte 0 first (the old "deleted" bit), and the checksum sets it. The null bytes
//! are `(nullable columns + reserved bit + 7) / 8`, possibly none; the unused high bits of
//! the last byte are set. A column's bit is 1 when it is NULL. A nullable generated column's
//! bit is always set (its value is not part of the image).
//!
//! ## Column bytes (the field's in-memory record format, or its string value)
//!
//! | type | bytes |
//! |---|---|
//! | TINYINT … BIGINT | 1/2/3/4/8 bytes, two's complement, little-endian (signed or not) |
//! | FLOAT / DOUBLE | IEEE-754 single / double, little-endian |
//! | DECIMAL(p,s) | the packed binary decimal ([`cohort_binlog::decimal`]) |
//! | CHAR(n) utf8mb4 | the text padded with spaces to 4n bytes (the column's maximum) |
//! | CHAR(n) latin1 | the text in latin1, padded with spaces to n bytes |
//! | BINARY(n) | the bytes padded with 0x00 to n |
//! | VARCHAR / VARBINARY / TEXT / BLOB (and JSON, a LONGTEXT) | the bytes, no length |
//! | DATE | 3 bytes little-endian: `day + 32·month + 512·year` |
//! | DATETIME(f) | 5 bytes big-endian `((year·13 + month) << 22 \| day << 17 \| hour << 12 \| minute << 6 \| second) + 2^39`, then the fraction |
//! | TIMESTAMP(f) | 4 bytes big-endian UTC seconds since 1970 (0 for the zero timestamp), then the fraction |
//! | fraction (f digits) | f = 1,2: 1 byte of 1/100 s; 3,4: 2 bytes big-endian of 1/10000 s; 5,6: 3 bytes of µs |
//! | TIME(f) | `hour << 12 \| minute << 6 \| second`, shifted left by 0/8/16/24 bits and ORed with the fraction units (f = 0, 1–2, 3–4, 5–6), negated for negative times, plus `0x800000` shifted alike; 3/4/5/6 bytes big-endian |
//! | YEAR | 1 byte: year − 1900, 0 for 0000 |
//! | ENUM | the member number, 1 byte (< 256 members) or 2, little-endian |
//! | SET | the member bitmask, little-endian, `(members + 7) / 8` bytes, 5–7 rounded up to 8 |
//! | BIT(w) | `(w + 7) / 8` bytes big-endian |
//!
//! ## What cannot match
//!
//! Cohort's character columns are utf8mb4 or utf8mb3, whose bytes are the same UTF-8, or
//! latin1, whose values are encoded to latin1 bytes for the image; a CHAR(n) pads to n times
//! the character set's bytes per character (4n, 3n, n), as MariaDB's.
//! Cohort refuses other character sets (ascii, latin2 …), `ROW_FORMAT` (MariaDB's explicit
//! `ROW_FORMAT=DYNAMIC` makes a "packed" record without the reserved bit) and `CHECKSUM=1`,
//! and has no `old_mode` (`COMPAT_5_1_CHECKSUM` hashes NULL columns too), so none of those
//! can differ silently.

use crate::log::rowimage::epoch_seconds;
use crate::sql::expr::time_value::truncate_fsp;
use crate::storage::TableDef;
use crate::types::collation::Charset;
use crate::types::{latin1, DataType, Date, DateTime, Value};

/// How one column contributes its bytes.
#[derive(Clone, Copy, Debug)]
enum Part {
    /// An integer of this many little-endian bytes.
    Int(usize),
    Float,
    Double,
    Decimal {
        precision: u8,
        scale: u8,
    },
    Date,
    DateTime {
        fsp: u8,
    },
    Timestamp {
        fsp: u8,
    },
    Time {
        fsp: u8,
    },
    Year,
    /// ENUM or SET: the number, this many little-endian bytes.
    Number(usize),
    /// BIT: this many big-endian bytes.
    Bit(usize),
    /// Fixed-length string: padded with `pad` to `len` bytes.
    Padded {
        len: usize,
        pad: u8,
    },
    /// Variable-length string: its bytes.
    Var,
    /// Generated column (VIRTUAL or STORED): nothing, and its null bit set.
    Skip,
}

/// Bytes of padding fed to the CRC a slice at a time (no per-row allocation).
const SPACES: [u8; 64] = [b' '; 64];
const ZEROS: [u8; 64] = [0; 64];

/// The per-table layout of MariaDB's checksum row image; [`RecordImage::row_crc`] hashes rows.
pub struct RecordImage<'a> {
    def: &'a TableDef,
    parts: Vec<Part>,
    /// Each column's null bit (byte, mask), for nullable columns.
    null_bits: Vec<Option<(usize, u8)>>,
    /// The null bytes' constant part: the reserved bit and the unused high bits.
    null_base: Vec<u8>,
    /// Reused per row: the null bytes, and a value's encoding.
    nulls: Vec<u8>,
    scratch: Vec<u8>,
}

impl<'a> RecordImage<'a> {
    pub fn new(def: &'a TableDef) -> RecordImage<'a> {
        let packed = def.columns.iter().any(|c| {
            matches!(
                c.data_type,
                DataType::VarChar { .. }
                    | DataType::VarBinary { .. }
                    | DataType::Text { .. }
                    | DataType::Blob { .. }
            )
        });
        let mut bit = usize::from(!packed);
        let mut null_bits = Vec::with_capacity(def.columns.len());
        let mut parts = Vec::with_capacity(def.columns.len());
        for c in &def.columns {
            if c.nullable {
                null_bits.push(Some((bit / 8, 1u8 << (bit % 8))));
                bit += 1;
            } else {
                null_bits.push(None);
            }
            parts.push(if c.generated.is_some() {
                Part::Skip
            } else {
                part_of(&c.data_type)
            });
        }
        let mut null_base = vec![0u8; bit.div_ceil(8)];
        if let Some(last) = null_base.last_mut() {
            if bit % 8 != 0 {
                *last |= 0xffu8 << (bit % 8);
            }
        }
        if !packed {
            if let Some(first) = null_base.first_mut() {
                *first |= 1;
            }
        }
        RecordImage {
            def,
            parts,
            null_bits,
            nulls: null_base.clone(),
            null_base,
            scratch: Vec::with_capacity(32),
        }
    }

    /// The CRC-32 of one row (values in column order) as MariaDB computes it.
    pub fn row_crc(&mut self, row: &[Value]) -> u32 {
        let mut h = crc32fast::Hasher::new();
        if !self.null_base.is_empty() {
            self.nulls.copy_from_slice(&self.null_base);
            for (i, v) in row.iter().enumerate() {
                if let Some(Some((byte, mask))) = self.null_bits.get(i) {
                    if v.is_null() || matches!(self.parts[i], Part::Skip) {
                        self.nulls[*byte] |= mask;
                    }
                }
            }
            h.update(&self.nulls);
        }
        for (i, v) in row.iter().enumerate().take(self.parts.len()) {
            if v.is_null() {
                continue;
            }
            self.column(i, v, &mut h);
        }
        h.finalize()
    }

    /// Feeds one non-NULL value's bytes.
    fn column(&mut self, i: usize, v: &Value, h: &mut crc32fast::Hasher) {
        match self.parts[i] {
            Part::Skip => {}
            Part::Int(n) => h.update(&int_bits(v).to_le_bytes()[..n]),
            Part::Float => h.update(&(v.stored_f64() as f32).to_le_bytes()),
            Part::Double => h.update(&v.stored_f64().to_le_bytes()),
            Part::Decimal { precision, scale } => {
                self.scratch.clear();
                let ok = match v {
                    Value::Decimal(d) => {
                        cohort_binlog::decimal::encode(d, precision, scale, &mut self.scratch)
                            .is_ok()
                    }
                    _ => false,
                };
                if !ok {
                    // Not a stored DECIMAL value (cannot happen for table rows): zeros of the
                    // field's length keep the image well-formed.
                    self.scratch.clear();
                    let len = cohort_binlog::decimal::binary_size(precision, scale);
                    self.scratch.resize(len, 0);
                }
                h.update(&self.scratch);
            }
            Part::Date => {
                let d = date_of(v);
                let packed = u32::from(d.day) | u32::from(d.month) << 5 | u32::from(d.year) << 9;
                h.update(&packed.to_le_bytes()[..3]);
            }
            Part::DateTime { fsp } => {
                let dt = datetime_of(v);
                let ym = u64::from(dt.date.year) * 13 + u64::from(dt.date.month);
                let ymd = ym << 5 | u64::from(dt.date.day);
                let hms =
                    u64::from(dt.hour) << 12 | u64::from(dt.minute) << 6 | u64::from(dt.second);
                let int_part = (ymd << 17 | hms) + (1u64 << 39);
                h.update(&int_part.to_be_bytes()[3..]);
                fraction(dt.micros, fsp, h);
            }
            Part::Timestamp { fsp } => {
                let dt = datetime_of(v);
                let secs = epoch_seconds(&dt).clamp(0, i64::from(u32::MAX)) as u32;
                h.update(&secs.to_be_bytes());
                fraction(dt.micros, fsp, h);
            }
            Part::Time { fsp } => {
                let micros = match v {
                    Value::Time(t) => truncate_fsp(*t, fsp),
                    _ => 0,
                };
                let a = micros.unsigned_abs();
                let secs = a / 1_000_000;
                let frac = a % 1_000_000;
                let hms = (secs / 3600) << 12 | ((secs / 60) % 60) << 6 | (secs % 60);
                let (shift, units, nbytes) = match fsp {
                    0 => (0, 0, 3),
                    1 | 2 => (8, frac / 10_000, 4),
                    3 | 4 => (16, frac / 100, 5),
                    _ => (24, frac, 6),
                };
                let mag = (hms << shift | units) as i64;
                let signed = if micros < 0 { -mag } else { mag };
                let stored = (signed + (0x80_0000i64 << shift)) as u64;
                h.update(&stored.to_be_bytes()[8 - nbytes..]);
            }
            Part::Year => {
                let y = int_bits(v) as i64;
                h.update(&[if (1901..=2155).contains(&y) {
                    (y - 1900) as u8
                } else {
                    0
                }]);
            }
            Part::Number(n) => {
                let num = match v {
                    Value::Bytes(b) => {
                        crate::types::enumset::number_of(&self.def.columns[i].data_type, b)
                    }
                    other => int_bits(other),
                };
                h.update(&num.to_le_bytes()[..n]);
            }
            Part::Bit(n) => h.update(&int_bits(v).to_be_bytes()[8 - n..]),
            Part::Padded { len, pad } => {
                let b = self.column_bytes(i, v);
                let b = &b[..b.len().min(len)];
                h.update(b);
                let fill = if pad == b' ' { &SPACES } else { &ZEROS };
                let mut left = len - b.len();
                while left > 0 {
                    let k = left.min(fill.len());
                    h.update(&fill[..k]);
                    left -= k;
                }
            }
            Part::Var => h.update(self.column_bytes(i, v)),
        }
    }

    /// A string value's bytes in its column's character set: UTF-8 as stored, except a
    /// latin1 column's, which are encoded to latin1 (into the scratch buffer).
    fn column_bytes<'v>(&'v mut self, i: usize, v: &'v Value) -> &'v [u8] {
        let b = bytes_of(v);
        if self.def.columns[i].data_type.collation().charset() != Charset::Latin1 || b.is_ascii() {
            return b;
        }
        self.scratch.clear();
        let text = String::from_utf8_lossy(b);
        self.scratch
            .extend(text.chars().map(|c| latin1::encode_char(c).unwrap_or(b'?')));
        &self.scratch
    }
}

/// The contribution kind of a declared type.
fn part_of(t: &DataType) -> Part {
    match *t {
        DataType::TinyInt { .. } => Part::Int(1),
        DataType::SmallInt { .. } => Part::Int(2),
        DataType::MediumInt { .. } => Part::Int(3),
        DataType::Int { .. } => Part::Int(4),
        DataType::BigInt { .. } => Part::Int(8),
        DataType::Decimal { precision, scale } => Part::Decimal { precision, scale },
        DataType::Float { .. } => Part::Float,
        DataType::Double { .. } => Part::Double,
        DataType::Char { len, collation } => Part::Padded {
            len: len as usize * collation.mbmaxlen() as usize,
            pad: b' ',
        },
        DataType::Binary { len } => Part::Padded {
            len: len as usize,
            pad: 0,
        },
        DataType::VarChar { .. }
        | DataType::VarBinary { .. }
        | DataType::Text { .. }
        | DataType::Blob { .. } => Part::Var,
        DataType::Date => Part::Date,
        DataType::DateTime { fsp } => Part::DateTime { fsp },
        DataType::Timestamp { fsp } => Part::Timestamp { fsp },
        DataType::Time { fsp } => Part::Time { fsp },
        DataType::Year => Part::Year,
        DataType::Enum { ref members, .. } => Part::Number(if members.len() < 256 { 1 } else { 2 }),
        DataType::Set { ref members, .. } => Part::Number(usize::from(
            crate::log::rowimage::set_pack_len(members.len()),
        )),
        DataType::Bit { width } => Part::Bit(usize::from(width).div_ceil(8).max(1)),
    }
}

/// An integer value's 64 bits (two's complement for negatives).
fn int_bits(v: &Value) -> u64 {
    match v {
        Value::Int(i) => *i as u64,
        Value::UInt(u) => *u,
        Value::Double(d) => *d as i64 as u64,
        _ => 0,
    }
}

fn bytes_of(v: &Value) -> &[u8] {
    match v {
        Value::Bytes(b) => b,
        _ => &[],
    }
}

fn date_of(v: &Value) -> Date {
    match v {
        Value::Date(d) => *d,
        Value::DateTime(dt) => dt.date,
        _ => Date::default(),
    }
}

fn datetime_of(v: &Value) -> DateTime {
    match v {
        Value::DateTime(dt) => *dt,
        Value::Date(d) => DateTime {
            date: *d,
            ..DateTime::default()
        },
        _ => DateTime::default(),
    }
}

/// The fraction bytes of a DATETIME or TIMESTAMP with `fsp` digits (big-endian).
fn fraction(micros: u32, fsp: u8, h: &mut crc32fast::Hasher) {
    match fsp {
        0 => {}
        1 | 2 => h.update(&[(micros / 10_000) as u8]),
        3 | 4 => h.update(&((micros / 100) as u16).to_be_bytes()),
        _ => h.update(&micros.to_be_bytes()[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{ColumnDef, ColumnDefault};

    fn col(name: &str, data_type: DataType, nullable: bool) -> ColumnDef {
        ColumnDef {
            name: name.into(),
            data_type,
            nullable,
            default: ColumnDefault::None,
            auto_increment: false,
            on_update_current_timestamp: false,
            comment: None,
            generated: None,
        }
    }

    fn def(columns: Vec<ColumnDef>) -> TableDef {
        TableDef {
            name: "t".into(),
            columns,
            primary_key: None,
            indexes: Vec::new(),
            engine: "InnoDB".into(),
            auto_increment_start: 1,
            comment: None,
            foreign_keys: Vec::new(),
            checks: Vec::new(),
            default_collation: crate::types::Collation::Utf8mb4GeneralCi,
        }
    }

    /// `CREATE TABLE ck1 (id INT PRIMARY KEY, a INT)`, row (1, 2): MariaDB 10.11 answers
    /// 3876845686 — null byte 0xFD (reserved bit, a's bit clear, unused bits set), then the
    /// two 4-byte integers.
    #[test]
    fn fixed_record_with_a_nullable_int() {
        let t = def(vec![
            col(
                "id",
                DataType::Int {
                    unsigned: false,
                    display: Default::default(),
                },
                false,
            ),
            col(
                "a",
                DataType::Int {
                    unsigned: false,
                    display: Default::default(),
                },
                true,
            ),
        ]);
        let mut img = RecordImage::new(&t);
        assert_eq!(img.row_crc(&[Value::Int(1), Value::Int(2)]), 3876845686);
        assert_eq!(
            img.row_crc(&[Value::Int(1), Value::Null]),
            crc32fast::hash(&[0xff, 1, 0, 0, 0])
        );
    }
}
