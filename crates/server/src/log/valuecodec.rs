//! The binary encoding of values, rows and table definitions inside the durable files (redo
//! records, checkpoint blocks). Compact, exact (every `Value` round-trips bit for bit, `-0.0`
//! and NaN payloads included) and strict: decoders return [`CodecError`] on malformed input and
//! never panic, so a damaged file is reported, not crashed on.
//!
//! # Versioning
//!
//! The layouts below are version [`CODEC_VERSION`]. The encoding carries no version byte of its
//! own per value; every file that holds encoded values records `CODEC_VERSION` in its header
//! (redo segment header, checkpoint header) and refuses a version it cannot read
//! ([`codec_readable`]). A change of any layout below bumps the constant.
//!
//! | version | change |
//! |---|---|
//! | 1 | first layout; DECIMAL as tag 4 (`rust_decimal`'s 96-bit form, at most 28 digits) |
//! | 2 | DECIMAL as tag 8 (65 digits, scale 38, exact); tag 4 is still read, so version 1 files stay readable |
//! | 3 | a table definition ends with its FOREIGN KEYs and CHECK constraints; versions 1 and 2 are read without them |
//! | 4 | TIME values (value tag 20) and the TIME / BIT column types (data type tags 30, 31); older versions never hold them |
//! | 5 | a column ends with `opt<generated>` (generated columns); older versions are read without it |
//! | 6 | FLOAT / DOUBLE with UNSIGNED or (M,D) (data type tags 32, 33); older versions never hold them |
//! | 7 | collations utf8mb3_general_ci (33) and utf8mb3_bin (83); a table definition ends with its default collation; older versions are read as utf8mb4_general_ci |
//!
//! # Primitives
//!
//! | name | bytes |
//! |---|---|
//! | `varint` | unsigned LEB128, 1–10 bytes (7 bits per byte, low group first, high bit = more) |
//! | `zigzag` | `varint` of `(n << 1) ^ (n >> 63)` (small negative numbers stay short) |
//! | `bool` | one byte, 0 or 1 (anything else is an error) |
//! | `bytes` | `varint` length, then the bytes |
//! | `str` | `bytes` holding UTF-8 |
//! | `opt<T>` | `0`, or `1` then `T` |
//! | `u16le`, `u32le`, `u64le` | fixed width, little-endian |
//!
//! # Value: a tag byte, then
//!
//! | tag | variant | payload |
//! |---|---|---|
//! | 0 | `Null` | — |
//! | 1 | `Int(i64)` | `zigzag` |
//! | 2 | `UInt(u64)` | `varint` |
//! | 3 | `Double(f64)` | `u64le` of `f64::to_bits` |
//! | 4 | `Decimal` (read only, version 1) | 16 bytes: `u32le` flags (scale in bits 16–23, at most 38; sign in bit 31; no other bits), then the 96-bit coefficient as `u32le` lo, mid, hi |
//! | 5 | `Bytes` | `bytes` |
//! | 6 | `Date` | `u16le` year, `u8` month, `u8` day |
//! | 7 | `DateTime` | date as above, `u8` hour, minute, second, `u32le` micros |
//! | 8 | `Decimal` | `u8` scale (≤ 81), `bool` negative, `bytes` coefficient little-endian without high zero bytes (below 10^81; a zero is never negative) |
//! | 20 | `Time` | `zigzag` signed microseconds |
//!
//! A row is `varint` column count, then each value.
//!
//! # TableDef
//!
//! ```text
//! table   := str name, varint ncols, column*, opt<index> primary_key, varint nidx, index*,
//!            str engine, varint auto_increment_start, opt<str> comment,
//!            fks, checks (version 3), collation default_collation (version 7)
//! column  := str name, datatype, bool nullable, default, bool auto_increment,
//!            bool on_update_current_timestamp, opt<str> comment, opt<generated> (version 5)
//! generated := str expr, bool stored
//! default := 0 (None) | 1 value (Value) | 2 (CurrentTimestamp) | 3 str expr (Expr)
//! index   := str name, varint nparts, part*, bool unique
//! part    := varint column, opt<varint> prefix_len
//! datatype:= tag byte, then:
//!   1 TinyInt: u8 flags (bit 0 unsigned, bit 1 declared TINYINT(1))
//!   2 SmallInt / 3 MediumInt / 4 Int / 5 BigInt: bool unsigned
//!   6 Decimal: u8 precision, u8 scale        7 Float        8 Double
//!   9 Char / 10 VarChar: varint len, collation     11 Text: varint max_bytes, collation
//!   12 Binary / 13 VarBinary: varint len     14 Blob: varint max_bytes
//!   15 Date    16 DateTime: u8 fsp    17 Timestamp: u8 fsp    18 Year
//!   30 Time: u8 fsp (≤ 6)    31 Bit: u8 width (1..=64)
//!   32 Float / 33 Double with attributes (plain ones stay 7 / 8): u8 flags (bit 0 unsigned,
//!      bit 1 sized), then if sized u8 M, u8 D (D ≤ 30, D ≤ M)
//! collation := 0 utf8mb4_general_ci | 1 utf8mb4_bin | 2 binary | 33 utf8mb3_general_ci
//!              | 83 utf8mb3_bin (version 7; MariaDB's ids) | 32 utf8mb4_unicode_520_ci
//!              | 214 utf8mb3_unicode_520_ci | 224 utf8mb4_unicode_ci | 192 utf8mb3_unicode_ci
//!              | 8 latin1_swedish_ci | 47 latin1_bin | 48 latin1_general_ci
//!              | 49 latin1_general_cs | 5 latin1_german1_ci (MariaDB's ids; new tags, no new
//!              version: a reader that lacks one never had a column to read it for)
//! ```

use crate::storage::{
    CheckDef, ColumnDef, ColumnDefault, FkAction, ForeignKeyDef, GeneratedDef, IndexDef, IndexPart,
    TableDef,
};
use crate::types::IntDisplay;
use crate::types::{Collation, DataType, Date, DateTime, Decimal, Value};
use std::fmt;

/// The version of every layout in this file, recorded in the header of each file that uses it.
pub const CODEC_VERSION: u8 = 7;

/// True for a codec version this build reads: the current one and version 1 (whose only
/// difference is the DECIMAL layout, still decoded).
pub fn codec_readable(version: u8) -> bool {
    (1..=CODEC_VERSION).contains(&version)
}

/// Malformed input: what was expected, and the offset (within the decoded buffer) where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodecError {
    pub offset: usize,
    pub what: String,
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.what, self.offset)
    }
}

impl std::error::Error for CodecError {}

pub type CodecResult<T> = Result<T, CodecError>;

// ---- writing ----

pub fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn put_zigzag(out: &mut Vec<u8>, n: i64) {
    put_varint(out, ((n << 1) ^ (n >> 63)) as u64);
}

pub fn put_bool(out: &mut Vec<u8>, b: bool) {
    out.push(u8::from(b));
}

pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put_bytes(out, s.as_bytes());
}

fn put_opt_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        None => out.push(0),
        Some(s) => {
            out.push(1);
            put_str(out, s);
        }
    }
}

fn put_date(out: &mut Vec<u8>, d: &Date) {
    out.extend_from_slice(&d.year.to_le_bytes());
    out.push(d.month);
    out.push(d.day);
}

pub fn encode_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.push(0),
        Value::Int(n) => {
            out.push(1);
            put_zigzag(out, *n);
        }
        Value::UInt(n) => {
            out.push(2);
            put_varint(out, *n);
        }
        Value::Double(d) => {
            out.push(3);
            out.extend_from_slice(&d.to_bits().to_le_bytes());
        }
        Value::Decimal(d) => {
            out.push(8);
            out.push(d.scale());
            put_bool(out, d.is_negative());
            let (bytes, len) = d.coefficient_le_bytes();
            put_bytes(out, &bytes[..len]);
        }
        Value::Bytes(b) => {
            out.push(5);
            put_bytes(out, b);
        }
        Value::Date(d) => {
            out.push(6);
            put_date(out, d);
        }
        Value::DateTime(dt) => {
            out.push(7);
            put_date(out, &dt.date);
            out.extend_from_slice(&[dt.hour, dt.minute, dt.second]);
            out.extend_from_slice(&dt.micros.to_le_bytes());
        }
        Value::Time(t) => {
            out.push(20);
            put_zigzag(out, *t);
        }
    }
}

pub fn encode_row(out: &mut Vec<u8>, row: &[Value]) {
    put_varint(out, row.len() as u64);
    for v in row {
        encode_value(out, v);
    }
}

pub fn collation_tag(c: Collation) -> u8 {
    match c {
        Collation::Utf8mb4GeneralCi => 0,
        Collation::Utf8mb4Bin => 1,
        Collation::Binary => 2,
        // Tags from 32 on for the UCA collations (3.. are left to other character sets);
        // utf8mb3's are MariaDB's ids.
        Collation::Utf8mb4Unicode520Ci => 32,
        Collation::Utf8mb3GeneralCi => 33,
        Collation::Utf8mb3Bin => 83,
        Collation::Utf8mb3Unicode520Ci => 214,
        Collation::Utf8mb4UnicodeCi => 224,
        Collation::Utf8mb3UnicodeCi => 192,
        // latin1's are MariaDB's ids too (new tags: no format version change, since a
        // reader that knew none of them had no latin1 columns to read).
        Collation::Latin1SwedishCi => 8,
        Collation::Latin1Bin => 47,
        Collation::Latin1GeneralCi => 48,
        Collation::Latin1GeneralCs => 49,
        Collation::Latin1German1Ci => 5,
    }
}

fn encode_data_type(out: &mut Vec<u8>, t: &DataType) {
    match t {
        // Integers: [tag 1..=5, unsigned]. TINYINT(1): [1, unsigned | 2]. Any other display
        // width or ZEROFILL: [34, tag 1..=5, unsigned | zerofill << 1, width] (written since
        // widths are kept; a table of default widths is encoded as before).
        DataType::TinyInt { .. }
        | DataType::SmallInt { .. }
        | DataType::MediumInt { .. }
        | DataType::Int { .. }
        | DataType::BigInt { .. } => {
            let tag = match t {
                DataType::TinyInt { .. } => 1,
                DataType::SmallInt { .. } => 2,
                DataType::MediumInt { .. } => 3,
                DataType::Int { .. } => 4,
                _ => 5,
            };
            let unsigned = u8::from(t.is_unsigned());
            match t.int_display().unwrap_or_default() {
                d if d == IntDisplay::default() => out.extend_from_slice(&[tag, unsigned]),
                d if tag == 1 && d == IntDisplay::width(1) => {
                    out.extend_from_slice(&[1, unsigned | 2])
                }
                d => {
                    out.extend_from_slice(&[34, tag, unsigned | u8::from(d.zerofill) << 1, d.width])
                }
            }
        }
        DataType::Decimal { precision, scale } => out.extend_from_slice(&[6, *precision, *scale]),
        DataType::Float {
            unsigned: false,
            m_d: None,
        } => out.push(7),
        DataType::Double {
            unsigned: false,
            m_d: None,
        } => out.push(8),
        DataType::Float { unsigned, m_d } | DataType::Double { unsigned, m_d } => {
            out.push(if matches!(t, DataType::Float { .. }) {
                32
            } else {
                33
            });
            out.push(u8::from(*unsigned) | u8::from(m_d.is_some()) << 1);
            if let Some((m, d)) = m_d {
                out.extend_from_slice(&[*m, *d]);
            }
        }
        DataType::Char { len, collation } | DataType::VarChar { len, collation } => {
            out.push(if matches!(t, DataType::Char { .. }) {
                9
            } else {
                10
            });
            put_varint(out, u64::from(*len));
            out.push(collation_tag(*collation));
        }
        DataType::Text {
            max_bytes,
            collation,
        } => {
            out.push(11);
            put_varint(out, *max_bytes);
            out.push(collation_tag(*collation));
        }
        DataType::Binary { len } => {
            out.push(12);
            put_varint(out, u64::from(*len));
        }
        DataType::VarBinary { len } => {
            out.push(13);
            put_varint(out, u64::from(*len));
        }
        DataType::Blob { max_bytes } => {
            out.push(14);
            put_varint(out, *max_bytes);
        }
        DataType::Date => out.push(15),
        DataType::DateTime { fsp } => out.extend_from_slice(&[16, *fsp]),
        DataType::Timestamp { fsp } => out.extend_from_slice(&[17, *fsp]),
        DataType::Year => out.push(18),
        // 19..=23 are left for other new types; ENUM and SET carry their members.
        DataType::Enum { members, collation } | DataType::Set { members, collation } => {
            out.push(if matches!(t, DataType::Enum { .. }) {
                24
            } else {
                25
            });
            out.push(collation_tag(*collation));
            put_varint(out, members.len() as u64);
            for m in members {
                put_str(out, m);
            }
        }
        DataType::Time { fsp } => out.extend_from_slice(&[30, *fsp]),
        DataType::Bit { width } => out.extend_from_slice(&[31, *width]),
    }
}

fn encode_default(out: &mut Vec<u8>, d: &ColumnDefault) {
    match d {
        ColumnDefault::None => out.push(0),
        ColumnDefault::Value(v) => {
            out.push(1);
            encode_value(out, v);
        }
        ColumnDefault::CurrentTimestamp => out.push(2),
        ColumnDefault::Expr(e) => {
            out.push(3);
            put_str(out, e);
        }
    }
}

fn encode_column(out: &mut Vec<u8>, c: &ColumnDef) {
    put_str(out, &c.name);
    encode_data_type(out, &c.data_type);
    put_bool(out, c.nullable);
    encode_default(out, &c.default);
    put_bool(out, c.auto_increment);
    put_bool(out, c.on_update_current_timestamp);
    put_opt_str(out, c.comment.as_deref());
    match &c.generated {
        None => out.push(0),
        Some(g) => {
            out.push(1);
            put_str(out, &g.expr);
            put_bool(out, g.stored);
        }
    }
}

fn encode_index(out: &mut Vec<u8>, idx: &IndexDef) {
    put_str(out, &idx.name);
    put_varint(out, idx.parts.len() as u64);
    for p in &idx.parts {
        put_varint(out, p.column as u64);
        match p.prefix_len {
            None => out.push(0),
            Some(n) => {
                out.push(1);
                put_varint(out, u64::from(n));
            }
        }
    }
    // Flags: bit 0 UNIQUE, bit 1 implicit (a byte that was the UNIQUE bool before).
    out.push(u8::from(idx.unique) | (u8::from(idx.implicit) << 1));
}

pub fn encode_table_def(out: &mut Vec<u8>, def: &TableDef) {
    put_str(out, &def.name);
    put_varint(out, def.columns.len() as u64);
    for c in &def.columns {
        encode_column(out, c);
    }
    match &def.primary_key {
        None => out.push(0),
        Some(pk) => {
            out.push(1);
            encode_index(out, pk);
        }
    }
    put_varint(out, def.indexes.len() as u64);
    for idx in &def.indexes {
        encode_index(out, idx);
    }
    put_str(out, &def.engine);
    put_varint(out, def.auto_increment_start);
    put_opt_str(out, def.comment.as_deref());
    put_varint(out, def.foreign_keys.len() as u64);
    for fk in &def.foreign_keys {
        put_str(out, &fk.name);
        put_varint(out, fk.columns.len() as u64);
        for c in &fk.columns {
            put_str(out, c);
        }
        put_str(out, &fk.parent_db);
        put_str(out, &fk.parent_table);
        put_varint(out, fk.parent_columns.len() as u64);
        for c in &fk.parent_columns {
            put_str(out, c);
        }
        out.push(fk_action_code(fk.on_delete));
        out.push(fk_action_code(fk.on_update));
    }
    put_varint(out, def.checks.len() as u64);
    for c in &def.checks {
        put_str(out, &c.name);
        put_opt_str(out, c.column.as_deref());
        put_str(out, &c.expr);
    }
    out.push(collation_tag(def.default_collation));
}

fn fk_action_code(a: FkAction) -> u8 {
    match a {
        FkAction::Restrict => 0,
        FkAction::NoAction => 1,
        FkAction::Cascade => 2,
        FkAction::SetNull => 3,
    }
}

fn decode_fk_action(r: &mut Reader<'_>) -> CodecResult<FkAction> {
    Ok(match r.u8()? {
        0 => FkAction::Restrict,
        1 => FkAction::NoAction,
        2 => FkAction::Cascade,
        3 => FkAction::SetNull,
        _ => return Err(r.error("foreign key action")),
    })
}

// ---- reading ----

/// A cursor over an encoded buffer. Every read checks bounds and returns [`CodecError`].
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, pos: 0 }
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// An error at the current position.
    pub fn error(&self, what: impl Into<String>) -> CodecError {
        CodecError {
            offset: self.pos,
            what: what.into(),
        }
    }

    /// Fail unless every byte was consumed.
    pub fn finish(&self) -> CodecResult<()> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(self.error(format!("{} trailing bytes", self.remaining())))
        }
    }

    pub fn take(&mut self, n: usize) -> CodecResult<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.error(format!("need {n} bytes, {} left", self.remaining())));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn array<const N: usize>(&mut self) -> CodecResult<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    pub fn u8(&mut self) -> CodecResult<u8> {
        Ok(self.array::<1>()?[0])
    }

    pub fn u16(&mut self) -> CodecResult<u16> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    pub fn u32(&mut self) -> CodecResult<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    pub fn u64(&mut self) -> CodecResult<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    pub fn varint(&mut self) -> CodecResult<u64> {
        let start = self.pos;
        let mut n: u64 = 0;
        for i in 0..10 {
            let b = self.u8()?;
            if i == 9 && b > 1 {
                self.pos = start;
                return Err(self.error("varint overflows u64"));
            }
            n |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        self.pos = start;
        Err(self.error("varint longer than 10 bytes"))
    }

    fn varint_u32(&mut self) -> CodecResult<u32> {
        let n = self.varint()?;
        u32::try_from(n).map_err(|_| self.error(format!("{n} does not fit in u32")))
    }

    /// A count of items that each take at least one byte: bounded by the bytes left, so a
    /// damaged count cannot make a decoder allocate without limit.
    pub fn count(&mut self) -> CodecResult<usize> {
        let n = self.varint()?;
        if n > self.remaining() as u64 {
            return Err(self.error(format!(
                "count {n} exceeds the {} bytes left",
                self.remaining()
            )));
        }
        Ok(n as usize)
    }

    pub fn bool(&mut self) -> CodecResult<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(self.error(format!("bad bool byte {b}"))),
        }
    }

    pub fn bytes(&mut self) -> CodecResult<&'a [u8]> {
        let n = self.count()?;
        self.take(n)
    }

    pub fn str(&mut self) -> CodecResult<String> {
        let b = self.bytes()?;
        match std::str::from_utf8(b) {
            Ok(s) => Ok(s.to_string()),
            Err(_) => Err(self.error("string is not UTF-8")),
        }
    }

    fn opt_str(&mut self) -> CodecResult<Option<String>> {
        Ok(if self.bool()? {
            Some(self.str()?)
        } else {
            None
        })
    }
}

fn decode_zigzag(z: u64) -> i64 {
    ((z >> 1) as i64) ^ -((z & 1) as i64)
}

/// Bits of the version 1 decimal flags word that may be set: scale (16..24) and sign (31).
const DECIMAL_FLAG_BITS: u32 = 0x80FF_0000;

/// A version 1 (tag 4) decimal. Its writer could produce scales up to 29 (which its reader
/// then refused, leaving the data directory unreadable); any scale up to 38 is read back
/// exactly here.
fn decode_legacy_decimal(r: &mut Reader<'_>) -> CodecResult<Decimal> {
    let bytes: [u8; 16] = r.array()?;
    let word = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    let flags = word(0);
    let scale = (flags >> 16) & 0xff;
    if flags & !DECIMAL_FLAG_BITS != 0 || scale > cohort_decimal::MAX_SCALE as u32 {
        return Err(r.error(format!("bad decimal flags {flags:#010x}")));
    }
    let coefficient = word(4) as u128 | (word(8) as u128) << 32 | (word(12) as u128) << 64;
    Ok(Decimal::from_u128(
        flags >> 31 == 1,
        coefficient,
        scale as u8,
    ))
}

fn decode_decimal(r: &mut Reader<'_>) -> CodecResult<Decimal> {
    let scale = r.u8()?;
    let negative = r.bool()?;
    let bytes = r.bytes()?;
    if bytes.last() == Some(&0) {
        return Err(r.error("decimal coefficient has a high zero byte"));
    }
    Decimal::from_coefficient_le_bytes(negative, bytes, scale).ok_or_else(|| {
        r.error(format!(
            "bad decimal (scale {scale}, {} bytes)",
            bytes.len()
        ))
    })
}

fn decode_date(r: &mut Reader<'_>) -> CodecResult<Date> {
    Ok(Date {
        year: r.u16()?,
        month: r.u8()?,
        day: r.u8()?,
    })
}

fn decode_datetime(r: &mut Reader<'_>) -> CodecResult<DateTime> {
    Ok(DateTime {
        date: decode_date(r)?,
        hour: r.u8()?,
        minute: r.u8()?,
        second: r.u8()?,
        micros: r.u32()?,
    })
}

pub fn decode_value(r: &mut Reader<'_>) -> CodecResult<Value> {
    Ok(match r.u8()? {
        0 => Value::Null,
        1 => Value::Int(decode_zigzag(r.varint()?)),
        2 => Value::UInt(r.varint()?),
        3 => Value::Double(f64::from_bits(r.u64()?)),
        4 => Value::Decimal(decode_legacy_decimal(r)?),
        5 => Value::Bytes(r.bytes()?.to_vec()),
        6 => Value::Date(decode_date(r)?),
        7 => Value::DateTime(decode_datetime(r)?),
        20 => Value::Time(decode_zigzag(r.varint()?)),
        8 => Value::Decimal(decode_decimal(r)?),
        t => return Err(r.error(format!("unknown value tag {t}"))),
    })
}

pub fn decode_row(r: &mut Reader<'_>) -> CodecResult<Vec<Value>> {
    let n = r.count()?;
    let mut row = Vec::with_capacity(n);
    for _ in 0..n {
        row.push(decode_value(r)?);
    }
    Ok(row)
}

pub fn decode_collation(r: &mut Reader<'_>) -> CodecResult<Collation> {
    match r.u8()? {
        0 => Ok(Collation::Utf8mb4GeneralCi),
        1 => Ok(Collation::Utf8mb4Bin),
        2 => Ok(Collation::Binary),
        32 => Ok(Collation::Utf8mb4Unicode520Ci),
        33 => Ok(Collation::Utf8mb3GeneralCi),
        83 => Ok(Collation::Utf8mb3Bin),
        214 => Ok(Collation::Utf8mb3Unicode520Ci),
        224 => Ok(Collation::Utf8mb4UnicodeCi),
        192 => Ok(Collation::Utf8mb3UnicodeCi),
        8 => Ok(Collation::Latin1SwedishCi),
        47 => Ok(Collation::Latin1Bin),
        48 => Ok(Collation::Latin1GeneralCi),
        49 => Ok(Collation::Latin1GeneralCs),
        5 => Ok(Collation::Latin1German1Ci),
        t => Err(r.error(format!("unknown collation tag {t}"))),
    }
}

fn decode_data_type(r: &mut Reader<'_>) -> CodecResult<DataType> {
    Ok(match r.u8()? {
        1 => match r.u8()? {
            b @ 0..=3 => DataType::TinyInt {
                unsigned: b & 1 != 0,
                display: IntDisplay::width(if b & 2 != 0 { 1 } else { 0 }),
            },
            b => return Err(r.error(format!("bad TINYINT flags {b}"))),
        },
        34 => {
            let (tag, flags, width) = (r.u8()?, r.u8()?, r.u8()?);
            if flags > 3 {
                return Err(r.error(format!("bad integer flags {flags}")));
            }
            let unsigned = flags & 1 != 0;
            let display = IntDisplay {
                width,
                zerofill: flags & 2 != 0,
            };
            match tag {
                1 => DataType::TinyInt { unsigned, display },
                2 => DataType::SmallInt { unsigned, display },
                3 => DataType::MediumInt { unsigned, display },
                4 => DataType::Int { unsigned, display },
                5 => DataType::BigInt { unsigned, display },
                t => return Err(r.error(format!("bad integer type {t}"))),
            }
        }
        2 => DataType::SmallInt {
            unsigned: r.bool()?,
            display: IntDisplay::default(),
        },
        3 => DataType::MediumInt {
            unsigned: r.bool()?,
            display: IntDisplay::default(),
        },
        4 => DataType::Int {
            unsigned: r.bool()?,
            display: IntDisplay::default(),
        },
        5 => DataType::BigInt {
            unsigned: r.bool()?,
            display: IntDisplay::default(),
        },
        6 => DataType::Decimal {
            precision: r.u8()?,
            scale: r.u8()?,
        },
        7 => DataType::FLOAT,
        8 => DataType::DOUBLE,
        9 => DataType::Char {
            len: r.varint_u32()?,
            collation: decode_collation(r)?,
        },
        10 => DataType::VarChar {
            len: r.varint_u32()?,
            collation: decode_collation(r)?,
        },
        11 => DataType::Text {
            max_bytes: r.varint()?,
            collation: decode_collation(r)?,
        },
        12 => DataType::Binary {
            len: r.varint_u32()?,
        },
        13 => DataType::VarBinary {
            len: r.varint_u32()?,
        },
        14 => DataType::Blob {
            max_bytes: r.varint()?,
        },
        15 => DataType::Date,
        16 => DataType::DateTime { fsp: r.u8()? },
        17 => DataType::Timestamp { fsp: r.u8()? },
        18 => DataType::Year,
        tag @ (24 | 25) => {
            let collation = decode_collation(r)?;
            let n = r.varint()?;
            let limit = if tag == 24 {
                crate::types::enumset::MAX_ENUM_MEMBERS
            } else {
                crate::types::enumset::MAX_SET_MEMBERS
            };
            if n as usize > limit {
                return Err(r.error(format!("{n} members")));
            }
            let mut members = Vec::with_capacity(n as usize);
            for _ in 0..n {
                members.push(r.str()?);
            }
            if tag == 24 {
                DataType::Enum { members, collation }
            } else {
                DataType::Set { members, collation }
            }
        }
        30 => match r.u8()? {
            fsp @ 0..=6 => DataType::Time { fsp },
            f => return Err(r.error(format!("TIME precision {f}"))),
        },
        31 => match r.u8()? {
            width @ 1..=64 => DataType::Bit { width },
            w => return Err(r.error(format!("BIT width {w}"))),
        },
        tag @ (32 | 33) => {
            let flags = r.u8()?;
            if flags > 3 {
                return Err(r.error(format!("bad FLOAT flags {flags}")));
            }
            let m_d = match flags & 2 != 0 {
                true => match (r.u8()?, r.u8()?) {
                    (m, d) if d <= 30 && d <= m => Some((m, d)),
                    (m, d) => return Err(r.error(format!("FLOAT size ({m},{d})"))),
                },
                false => None,
            };
            let unsigned = flags & 1 != 0;
            match tag {
                32 => DataType::Float { unsigned, m_d },
                _ => DataType::Double { unsigned, m_d },
            }
        }
        t => return Err(r.error(format!("unknown data type tag {t}"))),
    })
}

fn decode_default(r: &mut Reader<'_>) -> CodecResult<ColumnDefault> {
    match r.u8()? {
        0 => Ok(ColumnDefault::None),
        1 => Ok(ColumnDefault::Value(decode_value(r)?)),
        2 => Ok(ColumnDefault::CurrentTimestamp),
        3 => Ok(ColumnDefault::Expr(r.str()?)),
        t => Err(r.error(format!("unknown default tag {t}"))),
    }
}

fn decode_column(r: &mut Reader<'_>, version: u8) -> CodecResult<ColumnDef> {
    Ok(ColumnDef {
        name: r.str()?,
        data_type: decode_data_type(r)?,
        nullable: r.bool()?,
        default: decode_default(r)?,
        auto_increment: r.bool()?,
        on_update_current_timestamp: r.bool()?,
        comment: r.opt_str()?,
        generated: if version >= 5 && r.bool()? {
            Some(GeneratedDef {
                expr: r.str()?,
                stored: r.bool()?,
            })
        } else {
            None
        },
    })
}

fn decode_index(r: &mut Reader<'_>) -> CodecResult<IndexDef> {
    let name = r.str()?;
    let n = r.count()?;
    let mut parts = Vec::with_capacity(n);
    for _ in 0..n {
        let column = usize::try_from(r.varint()?).map_err(|_| r.error("column out of range"))?;
        let prefix_len = if r.bool()? {
            Some(r.varint_u32()?)
        } else {
            None
        };
        parts.push(IndexPart { column, prefix_len });
    }
    let flags = r.u8()?;
    if flags > 3 {
        return Err(r.error("bad index flags"));
    }
    Ok(IndexDef {
        name,
        parts,
        unique: flags & 1 != 0,
        implicit: flags & 2 != 0,
    })
}

/// A table definition of the current codec version.
pub fn decode_table_def(r: &mut Reader<'_>) -> CodecResult<TableDef> {
    decode_table_def_of(r, CODEC_VERSION)
}

/// A table definition written by codec `version` (FOREIGN KEYs from version 3 on).
pub fn decode_table_def_of(r: &mut Reader<'_>, version: u8) -> CodecResult<TableDef> {
    let name = r.str()?;
    let n = r.count()?;
    let mut columns = Vec::with_capacity(n);
    for _ in 0..n {
        columns.push(decode_column(r, version)?);
    }
    let primary_key = if r.bool()? {
        Some(decode_index(r)?)
    } else {
        None
    };
    let n = r.count()?;
    let mut indexes = Vec::with_capacity(n);
    for _ in 0..n {
        indexes.push(decode_index(r)?);
    }
    let engine = r.str()?;
    let auto_increment_start = r.varint()?;
    let comment = r.opt_str()?;
    let mut foreign_keys = Vec::new();
    if version >= 3 {
        let n = r.count()?;
        for _ in 0..n {
            let name = r.str()?;
            let k = r.count()?;
            let mut columns = Vec::with_capacity(k);
            for _ in 0..k {
                columns.push(r.str()?);
            }
            let parent_db = r.str()?;
            let parent_table = r.str()?;
            let k = r.count()?;
            let mut parent_columns = Vec::with_capacity(k);
            for _ in 0..k {
                parent_columns.push(r.str()?);
            }
            foreign_keys.push(ForeignKeyDef {
                name,
                columns,
                parent_db,
                parent_table,
                parent_columns,
                on_delete: decode_fk_action(r)?,
                on_update: decode_fk_action(r)?,
            });
        }
    }
    let mut checks = Vec::new();
    if version >= 3 {
        let n = r.count()?;
        for _ in 0..n {
            checks.push(CheckDef {
                name: r.str()?,
                column: r.opt_str()?,
                expr: r.str()?,
            });
        }
    }
    let default_collation = if version >= 7 {
        decode_collation(r)?
    } else {
        Collation::Utf8mb4GeneralCi
    };
    Ok(TableDef {
        name,
        columns,
        primary_key,
        indexes,
        engine,
        auto_increment_start,
        comment,
        foreign_keys,
        checks,
        default_collation,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Values compare by their encoding: `f64` NaN is not `==` itself.
    fn same(a: &[Value], b: &[Value]) -> bool {
        let (mut x, mut y) = (Vec::new(), Vec::new());
        encode_row(&mut x, a);
        encode_row(&mut y, b);
        x == y && a.len() == b.len()
    }

    /// Decimals of up to 65 digits, scale up to 38 (inline and wide coefficients).
    pub(crate) fn arb_decimal() -> impl Strategy<Value = Decimal> {
        prop_oneof![
            (any::<i64>(), 0u8..=18).prop_map(|(m, s)| Decimal::new(m as i128, s)),
            (any::<bool>(), "[0-9]{1,65}", 0usize..=38).prop_map(|(neg, digits, scale)| {
                let scale = scale.min(digits.len());
                let (i, f) = digits.split_at(digits.len() - scale);
                let text = format!("{}{i}.{f}0", if neg { "-" } else { "" });
                let d: Decimal = text.parse().unwrap();
                d.rescale(scale as u8).unwrap()
            }),
        ]
    }

    pub(crate) fn arb_value() -> impl Strategy<Value = Value> {
        let date = (any::<u16>(), any::<u8>(), any::<u8>()).prop_map(|(year, month, day)| Date {
            year,
            month,
            day,
        });
        prop_oneof![
            Just(Value::Null),
            any::<i64>().prop_map(Value::Int),
            any::<u64>().prop_map(Value::UInt),
            any::<u64>().prop_map(|b| Value::Double(f64::from_bits(b))),
            arb_decimal().prop_map(Value::Decimal),
            proptest::collection::vec(any::<u8>(), 0..40).prop_map(Value::Bytes),
            date.clone().prop_map(Value::Date),
            any::<i64>().prop_map(Value::Time),
            (date, any::<[u8; 3]>(), any::<u32>()).prop_map(|(date, t, micros)| {
                Value::DateTime(DateTime {
                    date,
                    hour: t[0],
                    minute: t[1],
                    second: t[2],
                    micros,
                })
            }),
        ]
    }

    fn arb_collation() -> impl Strategy<Value = Collation> {
        prop_oneof![
            Just(Collation::Utf8mb4GeneralCi),
            Just(Collation::Utf8mb4Bin),
            Just(Collation::Binary),
            Just(Collation::Utf8mb4Unicode520Ci),
            Just(Collation::Utf8mb3GeneralCi),
            Just(Collation::Utf8mb3Bin),
            Just(Collation::Utf8mb3Unicode520Ci),
            Just(Collation::Utf8mb4UnicodeCi),
            Just(Collation::Utf8mb3UnicodeCi),
            Just(Collation::Latin1SwedishCi),
            Just(Collation::Latin1Bin),
            Just(Collation::Latin1GeneralCi),
            Just(Collation::Latin1GeneralCs),
            Just(Collation::Latin1German1Ci)
        ]
    }

    fn arb_data_type() -> impl Strategy<Value = DataType> {
        let u = any::<bool>();
        prop_oneof![
            (u, any::<bool>()).prop_map(|(unsigned, bool_width)| DataType::TinyInt {
                unsigned,
                display: IntDisplay::width(u8::from(bool_width)),
            }),
            (0u8..=5, u, any::<u8>(), any::<bool>()).prop_map(|(k, unsigned, width, zerofill)| {
                let display = IntDisplay { width, zerofill };
                match k {
                    0 | 1 => DataType::TinyInt { unsigned, display },
                    2 => DataType::SmallInt { unsigned, display },
                    3 => DataType::MediumInt { unsigned, display },
                    4 => DataType::Int { unsigned, display },
                    _ => DataType::BigInt { unsigned, display },
                }
            }),
            u.prop_map(|unsigned| DataType::SmallInt {
                unsigned,
                display: Default::default()
            }),
            u.prop_map(|unsigned| DataType::MediumInt {
                unsigned,
                display: Default::default()
            }),
            u.prop_map(|unsigned| DataType::Int {
                unsigned,
                display: Default::default()
            }),
            u.prop_map(|unsigned| DataType::BigInt {
                unsigned,
                display: Default::default()
            }),
            (any::<u8>(), any::<u8>())
                .prop_map(|(precision, scale)| DataType::Decimal { precision, scale }),
            Just(DataType::FLOAT),
            Just(DataType::DOUBLE),
            (any::<bool>(), any::<bool>(), 1u8..=255, 0u8..=30).prop_map(
                |(double, unsigned, m, d)| {
                    let m_d = Some((m.max(d), d));
                    match double {
                        true => DataType::Double { unsigned, m_d },
                        false => DataType::Float { unsigned, m_d },
                    }
                }
            ),
            (any::<bool>(), any::<bool>()).prop_map(|(double, unsigned)| match double {
                true => DataType::Double {
                    unsigned,
                    m_d: None
                },
                false => DataType::Float {
                    unsigned,
                    m_d: None
                },
            }),
            (any::<u32>(), arb_collation())
                .prop_map(|(len, collation)| DataType::Char { len, collation }),
            (any::<u32>(), arb_collation())
                .prop_map(|(len, collation)| DataType::VarChar { len, collation }),
            (any::<u64>(), arb_collation()).prop_map(|(max_bytes, collation)| DataType::Text {
                max_bytes,
                collation
            }),
            any::<u32>().prop_map(|len| DataType::Binary { len }),
            any::<u32>().prop_map(|len| DataType::VarBinary { len }),
            any::<u64>().prop_map(|max_bytes| DataType::Blob { max_bytes }),
            Just(DataType::Date),
            Just(DataType::Year),
            (
                proptest::collection::vec("[a-z ,']{0,6}", 0..70),
                arb_collation()
            )
                .prop_map(|(members, collation)| DataType::Enum { members, collation }),
            (
                proptest::collection::vec("[a-z ']{0,6}", 0..65),
                arb_collation()
            )
                .prop_map(|(members, collation)| DataType::Set { members, collation }),
            any::<u8>().prop_map(|fsp| DataType::DateTime { fsp }),
            any::<u8>().prop_map(|fsp| DataType::Timestamp { fsp }),
            (0u8..=6).prop_map(|fsp| DataType::Time { fsp }),
            (1u8..=64).prop_map(|width| DataType::Bit { width }),
        ]
    }

    fn arb_default() -> impl Strategy<Value = ColumnDefault> {
        prop_oneof![
            Just(ColumnDefault::None),
            Just(ColumnDefault::CurrentTimestamp),
            "[a-z`( )+0-9]{1,12}".prop_map(ColumnDefault::Expr),
            // NaN is not == itself; TableDef equality is checked with ==.
            arb_value()
                .prop_filter("no NaN", |v| !matches!(v, Value::Double(d) if d.is_nan()))
                .prop_map(ColumnDefault::Value),
        ]
    }

    fn arb_column() -> impl Strategy<Value = ColumnDef> {
        (
            "[a-zA-Z_é]{1,12}",
            arb_data_type(),
            any::<[bool; 3]>(),
            arb_default(),
            proptest::option::of(".{0,20}"),
            proptest::option::of((".{0,20}", any::<bool>())),
        )
            .prop_map(|(name, data_type, b, default, comment, gen)| ColumnDef {
                name,
                data_type,
                nullable: b[0],
                default,
                auto_increment: b[1],
                on_update_current_timestamp: b[2],
                comment,
                generated: gen.map(|(expr, stored)| GeneratedDef { expr, stored }),
            })
    }

    fn arb_index() -> impl Strategy<Value = IndexDef> {
        let part = (0usize..5000, proptest::option::of(any::<u32>()))
            .prop_map(|(column, prefix_len)| IndexPart { column, prefix_len });
        (
            "[a-z]{1,10}",
            proptest::collection::vec(part, 0..4),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(name, parts, unique, implicit)| IndexDef {
                name,
                parts,
                implicit,
                unique,
            })
    }

    pub(crate) fn arb_table_def() -> impl Strategy<Value = TableDef> {
        (
            "[a-z_]{1,16}",
            proptest::collection::vec(arb_column(), 0..6),
            proptest::option::of(arb_index()),
            proptest::collection::vec(arb_index(), 0..3),
            "[A-Za-z]{0,8}",
            any::<u64>(),
            proptest::option::of(".{0,30}"),
            (
                proptest::collection::vec(arb_foreign_key(), 0..3),
                proptest::collection::vec(arb_check(), 0..3),
                arb_collation(),
            ),
        )
            .prop_map(
                |(
                    name,
                    columns,
                    primary_key,
                    indexes,
                    engine,
                    auto_increment_start,
                    comment,
                    (foreign_keys, checks, default_collation),
                )| {
                    TableDef {
                        name,
                        columns,
                        primary_key,
                        indexes,
                        engine,
                        auto_increment_start,
                        comment,
                        foreign_keys,
                        checks,
                        default_collation,
                    }
                },
            )
    }

    fn arb_action() -> impl Strategy<Value = FkAction> {
        prop_oneof![
            Just(FkAction::Restrict),
            Just(FkAction::NoAction),
            Just(FkAction::Cascade),
            Just(FkAction::SetNull),
        ]
    }

    fn arb_foreign_key() -> impl Strategy<Value = ForeignKeyDef> {
        (
            "[a-z_]{1,12}",
            proptest::collection::vec("[a-z]{1,6}", 1..3),
            "[a-z]{1,6}",
            "[a-z]{1,6}",
            proptest::collection::vec("[a-z]{1,6}", 1..3),
            arb_action(),
            arb_action(),
        )
            .prop_map(
                |(name, columns, parent_db, parent_table, parent_columns, on_delete, on_update)| {
                    ForeignKeyDef {
                        name,
                        columns,
                        parent_db,
                        parent_table,
                        parent_columns,
                        on_delete,
                        on_update,
                    }
                },
            )
    }

    fn arb_check() -> impl Strategy<Value = CheckDef> {
        (
            "[a-z_]{1,12}",
            proptest::option::of("[a-z]{1,6}"),
            ".{0,30}",
        )
            .prop_map(|(name, column, expr)| CheckDef { name, column, expr })
    }

    proptest! {
        #[test]
        fn rows_round_trip(row in proptest::collection::vec(arb_value(), 0..12)) {
            let mut buf = Vec::new();
            encode_row(&mut buf, &row);
            let mut r = Reader::new(&buf);
            let back = decode_row(&mut r).unwrap();
            r.finish().unwrap();
            prop_assert!(same(&row, &back));
        }

        #[test]
        fn table_defs_round_trip(def in arb_table_def()) {
            let mut buf = Vec::new();
            encode_table_def(&mut buf, &def);
            let mut r = Reader::new(&buf);
            let back = decode_table_def(&mut r).unwrap();
            r.finish().unwrap();
            prop_assert_eq!(def, back);
        }

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode_row(&mut Reader::new(&bytes));
            let _ = decode_table_def(&mut Reader::new(&bytes));
            let _ = decode_value(&mut Reader::new(&bytes));
        }

        #[test]
        fn truncated_encodings_are_errors(def in arb_table_def(), cut in any::<prop::sample::Index>()) {
            let mut buf = Vec::new();
            encode_table_def(&mut buf, &def);
            let cut = cut.index(buf.len());
            prop_assert!(decode_table_def(&mut Reader::new(&buf[..cut])).is_err());
        }
    }

    #[test]
    fn edge_values_are_exact() {
        let row = vec![
            Value::Int(i64::MIN),
            Value::Int(i64::MAX),
            Value::Int(-1),
            Value::UInt(u64::MAX),
            Value::Double(-0.0),
            Value::Double(f64::from_bits(0x7ff8_dead_beef_0001)),
            Value::Decimal(Decimal::new(-1, 3)),
            Value::Decimal(Decimal::max_of(65, 30)),
            Value::Decimal("12345.678901234567890123456789".parse().unwrap()),
            Value::Bytes(vec![]),
            Value::Date(Date::default()),
            Value::DateTime(DateTime {
                date: Date {
                    year: 9999,
                    month: 12,
                    day: 31,
                },
                hour: 23,
                minute: 59,
                second: 59,
                micros: 999_999,
            }),
        ];
        let mut buf = Vec::new();
        encode_row(&mut buf, &row);
        let back = decode_row(&mut Reader::new(&buf)).unwrap();
        assert!(same(&row, &back));
        let Value::Double(z) = back[4] else { panic!() };
        assert!(z.is_sign_negative());
        let Value::Decimal(d) = &back[6] else {
            panic!()
        };
        assert_eq!((d.scale(), d.is_negative()), (3, true));
    }

    /// Every DECIMAL(M,D) extreme round-trips with its scale (the version 1 layout held 28
    /// digits: `DECIMAL(65,30)` values could not be written back).
    #[test]
    fn decimal_extremes_are_exact() {
        let mut row = Vec::new();
        for (p, s) in [
            (65, 30),
            (65, 0),
            (65, 38),
            (38, 38),
            (1, 0),
            (1, 1),
            (10, 2),
        ] {
            let max = Decimal::max_of(p, s);
            let tiny = Decimal::new(1, s);
            for d in [
                max.clone(),
                max.neg(),
                tiny.clone(),
                tiny.neg(),
                Decimal::new(0, s),
            ] {
                row.push(Value::Decimal(d));
            }
        }
        let mut buf = Vec::new();
        encode_row(&mut buf, &row);
        let mut r = Reader::new(&buf);
        let back = decode_row(&mut r).unwrap();
        r.finish().unwrap();
        for (a, b) in row.iter().zip(&back) {
            let (Value::Decimal(a), Value::Decimal(b)) = (a, b) else {
                panic!()
            };
            assert_eq!((a.to_string(), a.scale()), (b.to_string(), b.scale()));
        }
    }

    /// Version 1 files stay readable, including the scale-29 decimals its writer produced
    /// for DECIMAL(65,30) columns (then refused with "bad decimal flags").
    #[test]
    fn version_1_decimals_are_read() {
        // rust_decimal's `0.5` rescaled to 29 digits: flags (scale 29), then 5 × 10^28.
        let bricked: [u8; 17] = [
            4, 0, 0, 29, 0, 0, 0, 0, 80, 229, 11, 185, 54, 215, 7, 143, 161,
        ];
        let v = decode_value(&mut Reader::new(&bricked)).unwrap();
        assert_eq!(v, Value::Decimal("0.5".parse().unwrap()));
        let Value::Decimal(d) = v else { panic!() };
        assert_eq!(d.scale(), 29);
        // -12.345: sign bit, scale 3, coefficient 12345.
        let mut old = vec![4, 0, 0, 3, 0x80];
        old.extend_from_slice(&12345u32.to_le_bytes());
        old.extend_from_slice(&[0; 8]);
        let v = decode_value(&mut Reader::new(&old)).unwrap();
        assert_eq!(convert_text(&v), "-12.345");
        assert!(codec_readable(1) && codec_readable(CODEC_VERSION) && !codec_readable(8));
    }

    /// A version 6 table definition (no default collation at its end) reads as
    /// utf8mb4_general_ci; version 7 keeps a utf8mb3 one, and utf8mb3 column collations.
    #[test]
    fn version_6_tables_default_to_utf8mb4_and_version_7_keeps_utf8mb3() {
        let mut def = TableDef {
            name: "t".into(),
            columns: vec![ColumnDef {
                name: "c".into(),
                data_type: DataType::Char {
                    len: 5,
                    collation: Collation::Utf8mb3Bin,
                },
                nullable: true,
                default: ColumnDefault::None,
                auto_increment: false,
                on_update_current_timestamp: false,
                comment: None,
                generated: None,
            }],
            primary_key: None,
            indexes: Vec::new(),
            engine: "InnoDB".into(),
            auto_increment_start: 1,
            comment: None,
            foreign_keys: Vec::new(),
            checks: Vec::new(),
            default_collation: Collation::Utf8mb3GeneralCi,
        };
        let mut out = Vec::new();
        encode_table_def(&mut out, &def);
        assert_eq!(decode_table_def(&mut Reader::new(&out)).unwrap(), def);
        // Version 6 wrote no default collation (and no utf8mb3 columns).
        def.columns[0].data_type = DataType::Char {
            len: 5,
            collation: Collation::Utf8mb4Bin,
        };
        let mut out = Vec::new();
        encode_table_def(&mut out, &def);
        out.pop();
        let mut r = Reader::new(&out);
        let old = decode_table_def_of(&mut r, 6).unwrap();
        assert!(r.is_empty());
        assert_eq!(old.default_collation, Collation::Utf8mb4GeneralCi);
        assert_eq!(old.columns, def.columns);
    }

    /// FLOAT / DOUBLE without attributes keep their version 1 tags (7, 8), so tables written
    /// before version 6 read back the same; with UNSIGNED or (M,D) they take tags 32 / 33.
    #[test]
    fn float_attributes_round_trip_and_plain_floats_keep_their_tags() {
        for (t, tag) in [(DataType::FLOAT, 7u8), (DataType::DOUBLE, 8)] {
            let mut out = Vec::new();
            encode_data_type(&mut out, &t);
            assert_eq!(out, [tag]);
            assert_eq!(decode_data_type(&mut Reader::new(&out)).unwrap(), t);
        }
        for t in [
            DataType::Float {
                unsigned: false,
                m_d: Some((8, 2)),
            },
            DataType::Double {
                unsigned: true,
                m_d: Some((255, 30)),
            },
            DataType::Float {
                unsigned: true,
                m_d: None,
            },
        ] {
            let mut out = Vec::new();
            encode_data_type(&mut out, &t);
            assert!(matches!(out[0], 32 | 33));
            assert_eq!(decode_data_type(&mut Reader::new(&out)).unwrap(), t);
        }
        for bad in [&[32u8, 4][..], &[33, 2, 3, 5], &[32, 2, 40, 31]] {
            assert!(decode_data_type(&mut Reader::new(bad)).is_err(), "{bad:?}");
        }
    }

    fn convert_text(v: &Value) -> String {
        match v {
            Value::Decimal(d) => d.to_string(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn malformed_inputs_are_errors() {
        // Unknown tag, bad bool, overlong varint, decimal with a scale of 39, huge count.
        assert!(decode_value(&mut Reader::new(&[9])).is_err());
        let mut bad_decimal = vec![4, 0, 0, 39, 0];
        bad_decimal.extend_from_slice(&[0; 12]);
        assert!(decode_value(&mut Reader::new(&bad_decimal)).is_err());
        // Version 2 decimals: negative zero, a high zero byte, a coefficient of 10^81, a
        // scale beyond the buffer.
        assert!(decode_value(&mut Reader::new(&[8, 0, 1, 0])).is_err());
        assert!(decode_value(&mut Reader::new(&[8, 0, 0, 2, 1, 0])).is_err());
        assert!(decode_value(&mut Reader::new(&[
            8, 0, 0, 34, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
        ]))
        .is_err());
        assert!(decode_value(&mut Reader::new(&[8, 82, 0, 1, 1])).is_err());
        assert!(decode_value(&mut Reader::new(&[8, 81, 0, 1, 1])).is_ok());
        assert!(Reader::new(&[0xff; 11]).varint().is_err());
        assert!(Reader::new(&[2]).bool().is_err());
        let mut huge = Vec::new();
        put_varint(&mut huge, u64::MAX);
        assert!(decode_row(&mut Reader::new(&huge)).is_err());
        assert!(Reader::new(&[1, 0xff]).str().is_err());
    }

    #[test]
    fn small_ints_are_short() {
        let mut buf = Vec::new();
        encode_value(&mut buf, &Value::Int(-3));
        assert_eq!(buf.len(), 2);
    }
}
