//! The row-size limit of CREATE / ALTER TABLE (1118): the fixed part of a row, as MariaDB lays
//! it out, may not pass 65535 bytes. Each column counts its packed length (a VARCHAR its
//! bytes, characters times the character set's bytes per character, plus a 1- or 2-byte
//! length; a TEXT / BLOB only its length and pointer), plus a bit per nullable column (and a
//! delete mark for tables with only fixed-width columns) rounded up to bytes.

use crate::error::{Error, Result};
use crate::storage::TableDef;
use crate::types::DataType;
use cohort_protocol::ErrorCode;

/// The largest row MariaDB's tables take, BLOBs not counted.
const MAX_ROW: u64 = 65_535;

/// 1118 when the row of `def` is too large.
pub fn check(def: &TableDef) -> Result<()> {
    let mut bytes = 0u64;
    let mut null_bits = 0u64;
    let mut packed = false;
    for c in &def.columns {
        null_bits += u64::from(c.nullable);
        let (len, bits) = packed_len(&c.data_type);
        bytes += len;
        null_bits += bits;
        packed |= matches!(
            c.data_type,
            DataType::VarChar { .. }
                | DataType::VarBinary { .. }
                | DataType::Text { .. }
                | DataType::Blob { .. }
        );
    }
    if !packed {
        // A delete mark for fixed-width rows.
        null_bits += 1;
    }
    if bytes + null_bits.div_ceil(8) <= MAX_ROW {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::TooBigRowsize,
        "Row size too large. The maximum row size for the used table type, not counting BLOBs, \
         is 65535. This includes storage overhead, check the manual. You have to change some \
         columns to TEXT or BLOBs",
    ))
}

/// A column's packed bytes, and the bits it keeps among the null bits (BIT's odd bits).
fn packed_len(t: &DataType) -> (u64, u64) {
    let var = |n: u64| n + if n < 256 { 1 } else { 2 };
    let frac = |fsp: u8| u64::from(fsp).div_ceil(2);
    let len = match t {
        DataType::TinyInt { .. } | DataType::Year => 1,
        DataType::SmallInt { .. } => 2,
        DataType::MediumInt { .. } => 3,
        DataType::Int { .. } => 4,
        DataType::BigInt { .. } => 8,
        DataType::Float { .. } => 4,
        DataType::Double { .. } => 8,
        DataType::Decimal { precision, scale } => decimal_bytes(*precision, *scale),
        DataType::Char { len, collation } => u64::from(*len) * u64::from(collation.mbmaxlen()),
        DataType::VarChar { len, collation } => {
            var(u64::from(*len) * u64::from(collation.mbmaxlen()))
        }
        DataType::Binary { len } => u64::from(*len),
        DataType::VarBinary { len } => var(u64::from(*len)),
        DataType::Text { max_bytes, .. } | DataType::Blob { max_bytes } => match max_bytes {
            0..=255 => 9,
            256..=65_535 => 10,
            65_536..=16_777_215 => 11,
            _ => 12,
        },
        DataType::Date => 3,
        DataType::DateTime { fsp } => 5 + frac(*fsp),
        DataType::Timestamp { fsp } => 4 + frac(*fsp),
        DataType::Time { fsp } => 3 + frac(*fsp),
        DataType::Enum { members, .. } => 1 + u64::from(members.len() > 255),
        DataType::Set { members, .. } => match members.len().div_ceil(8) {
            n @ 1..=4 => n as u64,
            _ => 8,
        },
        DataType::Bit { width } => return (u64::from(*width) / 8, u64::from(*width) % 8),
    };
    (len, 0)
}

/// DECIMAL(p, s)'s binary bytes: 4 for each 9 digits on either side of the point, fewer for
/// the rest.
fn decimal_bytes(precision: u8, scale: u8) -> u64 {
    const REST: [u64; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
    let side = |digits: u64| (digits / 9) * 4 + REST[(digits % 9) as usize];
    side(u64::from(precision.saturating_sub(scale))) + side(u64::from(scale))
}
