//! Row images: the null bitmap plus the packed values of the present columns.

use crate::decimal;
use crate::error::ValueError;
use crate::types::{BinValue, ColumnDef, ColumnKind};
use crate::wire::Cursor;
use std::borrow::Cow;

/// Appends a row image of every column: a null bitmap of `(n + 7) / 8` bytes (bit set =
/// NULL; the unused high bits are set, as MariaDB does) followed by the non-NULL values.
///
/// On error `out` may hold a partial image; callers truncate it.
pub fn encode_row_image(
    columns: &[ColumnDef],
    row: &[BinValue],
    out: &mut Vec<u8>,
) -> Result<(), ValueError> {
    if row.len() != columns.len() {
        return Err(ValueError::ColumnCount {
            expected: columns.len(),
            got: row.len(),
        });
    }
    let n = columns.len();
    let bitmap_at = out.len();
    let nbytes = n.div_ceil(8);
    out.resize(bitmap_at + nbytes, 0);
    if !n.is_multiple_of(8) {
        out[bitmap_at + nbytes - 1] = 0xffu8 << (n % 8);
    }
    for (i, (col, value)) in columns.iter().zip(row).enumerate() {
        if let BinValue::Null = value {
            if !col.nullable {
                return Err(ValueError::NullInNotNull { column: i });
            }
            out[bitmap_at + i / 8] |= 1 << (i % 8);
            continue;
        }
        encode_value(&col.kind, value, out).map_err(|detail| ValueError::Invalid {
            column: i,
            kind: col.kind,
            detail,
        })?;
    }
    Ok(())
}

/// Decodes one row image of the columns flagged in `present` (a partial image has values
/// only for those); returns the values in column order.
pub(crate) fn decode_row_image(
    columns: &[ColumnDef],
    present: &[bool],
    cur: &mut Cursor<'_>,
) -> Result<Vec<BinValue<'static>>, String> {
    let count = present.iter().filter(|p| **p).count();
    let bitmap = cur.take(count.div_ceil(8))?;
    let mut values = Vec::with_capacity(count);
    let present_columns = columns.iter().zip(present).filter(|(_, p)| **p);
    for (idx, (col, _)) in present_columns.enumerate() {
        let is_null = bitmap[idx / 8] & (1 << (idx % 8)) != 0;
        if is_null {
            values.push(BinValue::Null);
        } else {
            values.push(decode_value(&col.kind, cur)?);
        }
    }
    Ok(values)
}

fn int_range(kind: &ColumnKind) -> (i128, i128, usize) {
    let (bits, unsigned) = match *kind {
        ColumnKind::Tiny { unsigned } => (8, unsigned),
        ColumnKind::Short { unsigned } => (16, unsigned),
        ColumnKind::Int24 { unsigned } => (24, unsigned),
        ColumnKind::Long { unsigned } => (32, unsigned),
        ColumnKind::LongLong { unsigned } => (64, unsigned),
        _ => unreachable!("not an integer kind"),
    };
    if unsigned {
        (0, (1i128 << bits) - 1, bits / 8)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1, bits / 8)
    }
}

fn mismatch(kind: &ColumnKind, value: &BinValue) -> String {
    format!("{} value for a {kind:?} column", value.variant_name())
}

fn check_fraction(micro: u32, fsp: u8) -> Result<(), String> {
    if micro > 999_999 {
        return Err(format!("microseconds {micro} > 999999"));
    }
    let unit = 10u32.pow(6 - fsp as u32);
    if !micro.is_multiple_of(unit) {
        return Err(format!(
            "microseconds {micro} have more precision than fsp {fsp}"
        ));
    }
    Ok(())
}

/// Appends the fraction bytes of a DATETIME2/TIMESTAMP2 value (big-endian).
fn push_fraction(micro: u32, fsp: u8, out: &mut Vec<u8>) {
    match fsp {
        0 => {}
        1 | 2 => out.push((micro / 10_000) as u8),
        3 | 4 => out.extend_from_slice(&((micro / 100) as u16).to_be_bytes()),
        _ => out.extend_from_slice(&micro.to_be_bytes()[1..]),
    }
}

fn read_fraction(fsp: u8, cur: &mut Cursor<'_>) -> Result<u32, String> {
    let micro = match fsp {
        0 => 0,
        1 | 2 => cur.u8()? as u32 * 10_000,
        3 | 4 => u16::from_be_bytes(cur.array()?) as u32 * 100,
        _ => {
            let b: [u8; 3] = cur.array()?;
            u32::from_be_bytes([0, b[0], b[1], b[2]])
        }
    };
    check_fraction(micro, fsp)?;
    Ok(micro)
}

/// Offset added to the 40-bit integer part of a DATETIME2 so that it is stored positive.
const DATETIME2_OFFSET: u64 = 0x80_0000_0000;

fn blob_max(len_bytes: u8) -> u64 {
    (1u64 << (8 * len_bytes as u32)) - 1
}

/// Appends the packed form of one non-NULL value of a column of `kind`.
pub fn encode_value(kind: &ColumnKind, value: &BinValue, out: &mut Vec<u8>) -> Result<(), String> {
    match kind {
        ColumnKind::Tiny { .. }
        | ColumnKind::Short { .. }
        | ColumnKind::Int24 { .. }
        | ColumnKind::Long { .. }
        | ColumnKind::LongLong { .. } => {
            let v: i128 = match value {
                BinValue::Int(v) => *v as i128,
                BinValue::UInt(v) => *v as i128,
                _ => return Err(mismatch(kind, value)),
            };
            let (min, max, width) = int_range(kind);
            if v < min || v > max {
                return Err(format!("{v} out of range for {kind:?}"));
            }
            out.extend_from_slice(&(v as u64).to_le_bytes()[..width]);
        }
        ColumnKind::Float => match value {
            BinValue::Float(f) => out.extend_from_slice(&f.to_le_bytes()),
            _ => return Err(mismatch(kind, value)),
        },
        ColumnKind::Double => match value {
            BinValue::Double(f) => out.extend_from_slice(&f.to_le_bytes()),
            _ => return Err(mismatch(kind, value)),
        },
        ColumnKind::NewDecimal { precision, scale } => match value {
            BinValue::Decimal(d) => {
                let at = out.len();
                decimal::encode(d, *precision, *scale, out).inspect_err(|_| out.truncate(at))?
            }
            _ => return Err(mismatch(kind, value)),
        },
        ColumnKind::String { max_bytes } | ColumnKind::VarString { max_bytes } => match value {
            BinValue::Bytes(b) => {
                if b.len() > *max_bytes as usize {
                    return Err(format!("{} bytes exceed the maximum {max_bytes}", b.len()));
                }
                if *max_bytes < 256 {
                    out.push(b.len() as u8);
                } else {
                    out.extend_from_slice(&(b.len() as u16).to_le_bytes());
                }
                out.extend_from_slice(b);
            }
            _ => return Err(mismatch(kind, value)),
        },
        ColumnKind::Blob { len_bytes } => match value {
            BinValue::Bytes(b) => {
                if b.len() as u64 > blob_max(*len_bytes) {
                    return Err(format!(
                        "{} bytes exceed a {len_bytes}-byte length",
                        b.len()
                    ));
                }
                out.extend_from_slice(&(b.len() as u64).to_le_bytes()[..*len_bytes as usize]);
                out.extend_from_slice(b);
            }
            _ => return Err(mismatch(kind, value)),
        },
        ColumnKind::Enum { pack_len: n } | ColumnKind::Set { pack_len: n } => {
            let v: u64 = match value {
                BinValue::Int(v) => *v as u64,
                BinValue::UInt(v) => *v,
                _ => return Err(mismatch(kind, value)),
            };
            let n = *n as usize;
            if n < 8 && v >> (8 * n) != 0 {
                return Err(format!("{v} does not fit in {n} bytes"));
            }
            out.extend_from_slice(&v.to_le_bytes()[..n]);
        }
        ColumnKind::Year => {
            let y: i128 = match value {
                BinValue::Int(v) => *v as i128,
                BinValue::UInt(v) => *v as i128,
                _ => return Err(mismatch(kind, value)),
            };
            match y {
                0 => out.push(0),
                1901..=2155 => out.push((y - 1900) as u8),
                _ => return Err(format!("{y} out of range for YEAR")),
            }
        }
        ColumnKind::Date => match *value {
            BinValue::Date { year, month, day } => {
                check_date(year, month, day)?;
                let packed = day as u32 | (month as u32) << 5 | (year as u32) << 9;
                out.extend_from_slice(&packed.to_le_bytes()[..3]);
            }
            _ => return Err(mismatch(kind, value)),
        },
        ColumnKind::DateTime2 { fsp } => match *value {
            BinValue::DateTime {
                year,
                month,
                day,
                hour,
                minute,
                second,
                micro,
            } => {
                check_date(year, month, day)?;
                check_time(hour, minute, second)?;
                check_fraction(micro, *fsp)?;
                let ym = year as u64 * 13 + month as u64;
                let ymd = (ym << 5) | day as u64;
                let hms = (hour as u64) << 12 | (minute as u64) << 6 | second as u64;
                let int_part = ((ymd << 17) | hms) + DATETIME2_OFFSET;
                out.extend_from_slice(&int_part.to_be_bytes()[3..]);
                push_fraction(micro, *fsp, out);
            }
            _ => return Err(mismatch(kind, value)),
        },
        ColumnKind::Timestamp2 { fsp } => match *value {
            BinValue::Timestamp { secs, micro } => {
                check_fraction(micro, *fsp)?;
                out.extend_from_slice(&secs.to_be_bytes());
                push_fraction(micro, *fsp, out);
            }
            _ => return Err(mismatch(kind, value)),
        },
        ColumnKind::Time2 { fsp } => match *value {
            BinValue::Time { micros } => {
                let a = micros.unsigned_abs();
                check_fraction((a % 1_000_000) as u32, *fsp)?;
                let secs = a / 1_000_000;
                if secs > 1023 * 3600 {
                    return Err(format!("TIME of {secs} seconds out of range"));
                }
                let hms = ((secs / 3600) << 12) | (((secs / 60) % 60) << 6) | (secs % 60);
                let (shift, units, nbytes) = time2_layout(*fsp, a % 1_000_000);
                let v = ((hms << shift) | units) as i64;
                let v = if micros < 0 { -v } else { v };
                let stored = (v + (0x80_0000i64 << shift)) as u64;
                out.extend_from_slice(&stored.to_be_bytes()[8 - nbytes..]);
            }
            _ => return Err(mismatch(kind, value)),
        },
        ColumnKind::Bit { bits } => {
            let n = match *value {
                BinValue::UInt(u) => u,
                BinValue::Int(i) if i >= 0 => i as u64,
                _ => return Err(mismatch(kind, value)),
            };
            if *bits < 64 && n >> bits != 0 {
                return Err(format!("{n} does not fit BIT({bits})"));
            }
            let nbytes = usize::from(*bits).div_ceil(8);
            out.extend_from_slice(&n.to_be_bytes()[8 - nbytes..]);
        }
    }
    Ok(())
}

/// TIME2's fraction layout for `fsp`: how far the `hms` part is shifted, the fraction in the
/// stored units (1/100 s, 1/10000 s or microseconds) and the total byte count.
fn time2_layout(fsp: u8, micros: u64) -> (u32, u64, usize) {
    match fsp {
        0 => (0, 0, 3),
        1 | 2 => (8, micros / 10_000, 4),
        3 | 4 => (16, micros / 100, 5),
        _ => (24, micros, 6),
    }
}

fn check_date(year: u16, month: u8, day: u8) -> Result<(), String> {
    if year > 9999 || month > 12 || day > 31 {
        return Err(format!("invalid date {year:04}-{month:02}-{day:02}"));
    }
    Ok(())
}

fn check_time(hour: u8, minute: u8, second: u8) -> Result<(), String> {
    if hour > 23 || minute > 59 || second > 59 {
        return Err(format!("invalid time {hour:02}:{minute:02}:{second:02}"));
    }
    Ok(())
}

/// Reads one non-NULL value of a column of `kind`.
pub(crate) fn decode_value(
    kind: &ColumnKind,
    cur: &mut Cursor<'_>,
) -> Result<BinValue<'static>, String> {
    Ok(match *kind {
        ColumnKind::Tiny { .. }
        | ColumnKind::Short { .. }
        | ColumnKind::Int24 { .. }
        | ColumnKind::Long { .. }
        | ColumnKind::LongLong { .. } => {
            let (_, _, width) = int_range(kind);
            let bytes = cur.take(width)?;
            let mut le = [0u8; 8];
            le[..width].copy_from_slice(bytes);
            let raw = u64::from_le_bytes(le);
            if kind.is_unsigned() {
                BinValue::UInt(raw)
            } else {
                let shift = 64 - 8 * width as u32;
                BinValue::Int(((raw << shift) as i64) >> shift)
            }
        }
        ColumnKind::Float => BinValue::Float(f32::from_le_bytes(cur.array()?)),
        ColumnKind::Double => BinValue::Double(f64::from_le_bytes(cur.array()?)),
        ColumnKind::NewDecimal { precision, scale } => {
            let bytes = cur.take(decimal::binary_size(precision, scale))?;
            BinValue::Decimal(decimal::decode(bytes, precision, scale)?)
        }
        ColumnKind::String { max_bytes } | ColumnKind::VarString { max_bytes } => {
            let len = if max_bytes < 256 {
                cur.u8()? as usize
            } else {
                cur.u16()? as usize
            };
            if len > max_bytes as usize {
                return Err(format!(
                    "string of {len} bytes exceeds the maximum {max_bytes}"
                ));
            }
            BinValue::Bytes(Cow::Owned(cur.take(len)?.to_vec()))
        }
        ColumnKind::Blob { len_bytes } => {
            let raw = cur.take(len_bytes as usize)?;
            let mut le = [0u8; 8];
            le[..raw.len()].copy_from_slice(raw);
            let len = u64::from_le_bytes(le);
            let len = usize::try_from(len).map_err(|_| "blob length overflow".to_string())?;
            BinValue::Bytes(Cow::Owned(cur.take(len)?.to_vec()))
        }
        ColumnKind::Enum { pack_len: n } | ColumnKind::Set { pack_len: n } => {
            let raw = cur.take(n as usize)?;
            let mut le = [0u8; 8];
            le[..raw.len()].copy_from_slice(raw);
            BinValue::UInt(u64::from_le_bytes(le))
        }
        ColumnKind::Year => match cur.u8()? {
            0 => BinValue::Int(0),
            b => BinValue::Int(1900 + i64::from(b)),
        },
        ColumnKind::Date => {
            let b: [u8; 3] = cur.array()?;
            let packed = u32::from_le_bytes([b[0], b[1], b[2], 0]);
            let (year, month, day) = (
                (packed >> 9) as u16,
                ((packed >> 5) & 0x0f) as u8,
                (packed & 0x1f) as u8,
            );
            check_date(year, month, day)?;
            BinValue::Date { year, month, day }
        }
        ColumnKind::DateTime2 { fsp } => {
            let b: [u8; 5] = cur.array()?;
            let raw = u64::from_be_bytes([0, 0, 0, b[0], b[1], b[2], b[3], b[4]]);
            let int_part = raw
                .checked_sub(DATETIME2_OFFSET)
                .ok_or_else(|| "negative DATETIME2 value".to_string())?;
            let ymd = int_part >> 17;
            let hms = int_part & 0x1_ffff;
            let ym = ymd >> 5;
            let (year, month, day) = ((ym / 13) as u16, (ym % 13) as u8, (ymd & 0x1f) as u8);
            let (hour, minute, second) = (
                (hms >> 12) as u8,
                ((hms >> 6) & 0x3f) as u8,
                (hms & 0x3f) as u8,
            );
            check_date(year, month, day)?;
            check_time(hour, minute, second)?;
            let micro = read_fraction(fsp, cur)?;
            BinValue::DateTime {
                year,
                month,
                day,
                hour,
                minute,
                second,
                micro,
            }
        }
        ColumnKind::Timestamp2 { fsp } => {
            let secs = u32::from_be_bytes(cur.array()?);
            let micro = read_fraction(fsp, cur)?;
            BinValue::Timestamp { secs, micro }
        }
        ColumnKind::Time2 { fsp } => {
            let (shift, _, nbytes) = time2_layout(fsp, 0);
            let mut be = [0u8; 8];
            be[8 - nbytes..].copy_from_slice(cur.take(nbytes)?);
            let v = u64::from_be_bytes(be) as i64 - (0x80_0000i64 << shift);
            let a = v.unsigned_abs();
            let hms = a >> shift;
            let units = a & ((1u64 << shift) - 1);
            let micros = match fsp {
                0 => 0,
                1 | 2 => units * 10_000,
                3 | 4 => units * 100,
                _ => units,
            };
            let (h, m, s) = (hms >> 12, (hms >> 6) & 0x3f, hms & 0x3f);
            if m > 59 || s > 59 || micros > 999_999 {
                return Err(format!("invalid TIME2 {h}:{m}:{s}.{micros}"));
            }
            let t = (((h * 60 + m) * 60 + s) * 1_000_000 + micros) as i64;
            BinValue::Time {
                micros: if v < 0 { -t } else { t },
            }
        }
        ColumnKind::Bit { bits } => {
            let nbytes = usize::from(bits).div_ceil(8);
            let mut be = [0u8; 8];
            be[8 - nbytes..].copy_from_slice(cur.take(nbytes)?);
            BinValue::UInt(u64::from_be_bytes(be))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(kind: ColumnKind, v: BinValue) -> Vec<u8> {
        let mut out = Vec::new();
        encode_value(&kind, &v, &mut out).unwrap();
        let mut cur = Cursor::new(&out);
        assert_eq!(decode_value(&kind, &mut cur).unwrap(), v);
        assert!(cur.is_empty());
        out
    }

    #[test]
    fn time2_and_bit() {
        let t = |fsp, micros| enc(ColumnKind::Time2 { fsp }, BinValue::Time { micros });
        assert_eq!(t(0, 0), [0x80, 0, 0]);
        assert_eq!(t(0, -1_000_000), [0x7f, 0xff, 0xff]);
        assert_eq!(t(0, 45_296_000_000), [0x80, 0xc8, 0xb8]);
        assert_eq!(t(1, -1_500_000), [0x7f, 0xff, 0xfe, 0xce]);
        assert_eq!(t(3, 1_001_000).len(), 5);
        assert_eq!(t(6, -3_020_399_999_999).len(), 6);
        // Byte order is value order.
        let vals = [
            -3_020_399_999_999i64,
            -1_500_000,
            -1,
            0,
            1,
            999_999,
            3_020_399_999_999,
        ];
        let bytes: Vec<Vec<u8>> = vals.iter().map(|&v| t(6, v)).collect();
        assert!(bytes.windows(2).all(|w| w[0] < w[1]));
        let mut out = Vec::new();
        assert!(encode_value(
            &ColumnKind::Time2 { fsp: 2 },
            &BinValue::Time { micros: 1 },
            &mut out
        )
        .is_err());
        assert_eq!(
            enc(ColumnKind::Bit { bits: 9 }, BinValue::UInt(300)),
            [1, 0x2c]
        );
        assert_eq!(enc(ColumnKind::Bit { bits: 1 }, BinValue::UInt(1)), [1]);
        assert_eq!(
            enc(ColumnKind::Bit { bits: 64 }, BinValue::UInt(u64::MAX)),
            [0xff; 8]
        );
        assert!(encode_value(&ColumnKind::Bit { bits: 3 }, &BinValue::UInt(8), &mut out).is_err());
    }

    #[test]
    fn integers() {
        assert_eq!(
            enc(ColumnKind::Long { unsigned: false }, BinValue::Int(5)),
            [5, 0, 0, 0]
        );
        assert_eq!(
            enc(ColumnKind::Int24 { unsigned: false }, BinValue::Int(-2)),
            [0xfe, 0xff, 0xff]
        );
        assert_eq!(
            enc(ColumnKind::Tiny { unsigned: true }, BinValue::UInt(255)),
            [0xff]
        );
        assert_eq!(
            enc(
                ColumnKind::LongLong { unsigned: true },
                BinValue::UInt(u64::MAX)
            ),
            [0xff; 8]
        );
        let mut out = Vec::new();
        assert!(encode_value(
            &ColumnKind::Tiny { unsigned: false },
            &BinValue::Int(128),
            &mut out
        )
        .is_err());
        assert!(encode_value(
            &ColumnKind::Short { unsigned: true },
            &BinValue::Int(-1),
            &mut out
        )
        .is_err());
        assert!(encode_value(
            &ColumnKind::Long { unsigned: false },
            &BinValue::Bytes(vec![].into()),
            &mut out
        )
        .is_err());
        // Int/UInt are interchangeable on input when the value fits.
        encode_value(
            &ColumnKind::Long { unsigned: true },
            &BinValue::Int(7),
            &mut out,
        )
        .unwrap();
        assert_eq!(out, [7, 0, 0, 0]);
    }

    /// YEAR is one byte, the year minus 1900, and 0 for `0000` (as MariaDB writes it; its
    /// `mariadb-binlog -vv` prints that byte as 1900).
    #[test]
    fn year() {
        assert_eq!(enc(ColumnKind::Year, BinValue::Int(2024)), [124]);
        assert_eq!(enc(ColumnKind::Year, BinValue::Int(1901)), [1]);
        assert_eq!(enc(ColumnKind::Year, BinValue::Int(2155)), [255]);
        assert_eq!(enc(ColumnKind::Year, BinValue::Int(0)), [0]);
        let mut out = Vec::new();
        for bad in [1900, 2156, -1] {
            assert!(encode_value(&ColumnKind::Year, &BinValue::Int(bad), &mut out).is_err());
        }
        assert!(out.is_empty());
    }

    /// ENUM is the member position and SET the bitmask, little-endian in the column's pack
    /// length; the Table_map metadata is the real type and that length.
    #[test]
    fn enum_and_set() {
        assert_eq!(
            enc(ColumnKind::Enum { pack_len: 1 }, BinValue::UInt(3)),
            [3]
        );
        assert_eq!(
            enc(ColumnKind::Enum { pack_len: 2 }, BinValue::UInt(300)),
            [44, 1]
        );
        assert_eq!(
            enc(ColumnKind::Set { pack_len: 2 }, BinValue::UInt(0x202)),
            [2, 2]
        );
        assert_eq!(
            enc(ColumnKind::Set { pack_len: 8 }, BinValue::UInt(u64::MAX)),
            [0xff; 8]
        );
        let mut out = Vec::new();
        assert!(encode_value(
            &ColumnKind::Enum { pack_len: 1 },
            &BinValue::UInt(256),
            &mut out
        )
        .is_err());
        let mut meta = Vec::new();
        ColumnKind::Set { pack_len: 2 }.write_metadata(&mut meta);
        assert_eq!(meta, [0xf8, 2]);
        assert_eq!(
            ColumnKind::from_type_and_metadata(0xfe, &meta),
            Ok(ColumnKind::Set { pack_len: 2 })
        );
        assert_eq!(
            ColumnKind::from_type_and_metadata(0xfe, &[0xf7, 1]),
            Ok(ColumnKind::Enum { pack_len: 1 })
        );
    }

    #[test]
    fn temporal() {
        // 2024-02-29 → 29 | 2<<5 | 2024<<9
        assert_eq!(
            enc(
                ColumnKind::Date,
                BinValue::Date {
                    year: 2024,
                    month: 2,
                    day: 29
                }
            ),
            [0x5d, 0xd0, 0x0f]
        );
        let dt = BinValue::DateTime {
            year: 2024,
            month: 1,
            day: 2,
            hour: 3,
            minute: 4,
            second: 5,
            micro: 0,
        };
        // (2024*13+1)<<22 | 2<<17 | 3<<12 | 4<<6 | 5, + 0x8000000000
        let ym = 2024u64 * 13 + 1;
        let want = (((ym << 5 | 2) << 17) | 3 << 12 | 4 << 6 | 5) + DATETIME2_OFFSET;
        assert_eq!(
            enc(ColumnKind::DateTime2 { fsp: 0 }, dt),
            want.to_be_bytes()[3..]
        );
        let dt6 = BinValue::DateTime {
            year: 2024,
            month: 1,
            day: 2,
            hour: 3,
            minute: 4,
            second: 5,
            micro: 123_456,
        };
        let bytes = enc(ColumnKind::DateTime2 { fsp: 6 }, dt6);
        assert_eq!(&bytes[5..], [0x01, 0xe2, 0x40]);
        let dt2 = BinValue::DateTime {
            year: 1,
            month: 1,
            day: 1,
            hour: 0,
            minute: 0,
            second: 0,
            micro: 120_000,
        };
        assert_eq!(enc(ColumnKind::DateTime2 { fsp: 2 }, dt2)[5..], [12]);
        let ts = BinValue::Timestamp {
            secs: 1_700_000_000,
            micro: 500,
        };
        assert_eq!(
            enc(ColumnKind::Timestamp2 { fsp: 4 }, ts),
            [0x65, 0x53, 0xf1, 0x00, 0x00, 0x05]
        );
        let mut out = Vec::new();
        let bad = BinValue::Timestamp {
            secs: 1,
            micro: 123_456,
        };
        assert!(encode_value(&ColumnKind::Timestamp2 { fsp: 3 }, &bad, &mut out).is_err());
    }

    #[test]
    fn strings() {
        assert_eq!(
            enc(
                ColumnKind::String { max_bytes: 240 },
                BinValue::Bytes(b"ab".to_vec().into())
            ),
            [2, b'a', b'b']
        );
        assert_eq!(
            enc(
                ColumnKind::String { max_bytes: 480 },
                BinValue::Bytes(b"ab".to_vec().into())
            ),
            [2, 0, b'a', b'b']
        );
        assert_eq!(
            enc(
                ColumnKind::VarString { max_bytes: 255 },
                BinValue::Bytes(b"x".to_vec().into())
            ),
            [1, b'x']
        );
        assert_eq!(
            enc(
                ColumnKind::VarString { max_bytes: 256 },
                BinValue::Bytes(b"x".to_vec().into())
            ),
            [1, 0, b'x']
        );
        assert_eq!(
            enc(
                ColumnKind::Blob { len_bytes: 3 },
                BinValue::Bytes(b"x".to_vec().into())
            ),
            [1, 0, 0, b'x']
        );
        let mut out = Vec::new();
        assert!(encode_value(
            &ColumnKind::VarString { max_bytes: 2 },
            &BinValue::Bytes(b"abc".to_vec().into()),
            &mut out
        )
        .is_err());
        assert!(encode_value(
            &ColumnKind::Blob { len_bytes: 1 },
            &BinValue::Bytes(vec![0; 256].into()),
            &mut out
        )
        .is_err());
    }

    #[test]
    fn null_bitmap() {
        let cols = [
            ColumnDef::not_null(ColumnKind::Long { unsigned: false }),
            ColumnDef::nullable(ColumnKind::Long { unsigned: false }),
            ColumnDef::nullable(ColumnKind::Long { unsigned: false }),
        ];
        let mut out = Vec::new();
        encode_row_image(
            &cols,
            &[BinValue::Int(1), BinValue::Null, BinValue::Int(3)],
            &mut out,
        )
        .unwrap();
        assert_eq!(out, [0xfa, 1, 0, 0, 0, 3, 0, 0, 0]);
        let mut out = Vec::new();
        let err = encode_row_image(
            &cols,
            &[BinValue::Null, BinValue::Null, BinValue::Null],
            &mut out,
        );
        assert_eq!(err, Err(ValueError::NullInNotNull { column: 0 }));
    }
}
