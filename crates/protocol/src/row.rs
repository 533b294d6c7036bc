//! Result rows (text and binary protocol) and the binary value codec they share with
//! COM_STMT_EXECUTE parameters.
//!
//! Text row (COM_QUERY results): one field per column, each `FB` (NULL) or the value's text
//! as a `string<lenenc>`.
//!
//! Binary row (COM_STMT_EXECUTE results):
//!
//! ```text
//! 00 | NULL bitmap: (columns + 7 + 2) / 8 bytes, column i at bit i + 2 | non-NULL values
//! ```
//!
//! Binary values, by wire type (little-endian):
//!
//! | type | bytes |
//! |---|---|
//! | TINY | 1 |
//! | SHORT, YEAR | 2 |
//! | LONG, INT24 | 4 |
//! | LONGLONG | 8 |
//! | FLOAT | 4 (IEEE single) |
//! | DOUBLE | 8 (IEEE double) |
//! | DATE, DATETIME, TIMESTAMP | length 0 / 4 / 7 / 11, then `year u16, month, day, [hour, minute, second, [micros u32]]` |
//! | TIME | length 0 / 8 / 12, then `negative u8, days u32, hours, minutes, seconds, [micros u32]` |
//! | strings, DECIMAL, BLOB, ENUM, SET, BIT, JSON, GEOMETRY | `string<lenenc>` |
//!
//! The shortest length form is always chosen when encoding (0 for an all-zero value).

use crate::codec::{put_lenenc_bytes, put_u16, put_u32, put_u64, Reader, NULL_MARKER};
use crate::column::{column_flags, ColumnDefinition, ColumnType};
use crate::error::{ProtocolError, Result};
use crate::value::{Cell, Date, DateTime, Time};

/// The header byte of a binary row.
pub const BINARY_ROW_HEADER: u8 = 0x00;
/// Bit offset of column 0 in a binary row's NULL bitmap.
const ROW_BITMAP_OFFSET: usize = 2;

/// Bytes of the NULL bitmap of a binary row with `columns` columns.
pub fn binary_row_bitmap_len(columns: usize) -> usize {
    (columns + 7 + ROW_BITMAP_OFFSET) / 8
}

/// The fractional-second digits a column's `decimals` ask for (temporal types only).
fn frac_digits(column: &ColumnDefinition) -> Option<u8> {
    (column.column_type.has_fractional_seconds() && column.decimals <= 6).then_some(column.decimals)
}

fn check_count(columns: usize, cells: usize) -> Result<()> {
    if columns != cells {
        return Err(ProtocolError::ColumnCountMismatch { columns, cells });
    }
    Ok(())
}

/// Appends a text-row payload. DATETIME / TIMESTAMP / TIME values get exactly the column's
/// `decimals` fractional digits; an integer column flagged ZEROFILL is padded with zeros to
/// its `column_length`.
pub fn write_text_row(
    out: &mut Vec<u8>,
    columns: &[ColumnDefinition],
    cells: &[Cell],
) -> Result<()> {
    check_count(columns.len(), cells.len())?;
    for (column, cell) in columns.iter().zip(cells) {
        if column.flags & column_flags::ZEROFILL != 0 {
            if let Some(padded) = zerofilled(column, cell) {
                put_lenenc_bytes(out, padded.as_bytes());
                continue;
            }
        }
        cell.write_text_field(out, frac_digits(column));
    }
    Ok(())
}

/// The text of an integer cell of a ZEROFILL integer column: padded with zeros to the
/// column's display width (YEAR, also flagged ZEROFILL, prints its own 4 digits).
fn zerofilled(column: &ColumnDefinition, cell: &Cell) -> Option<String> {
    let width = column.column_length.min(255) as usize;
    match (column.column_type, cell) {
        (
            ColumnType::TINY
            | ColumnType::SHORT
            | ColumnType::INT24
            | ColumnType::LONG
            | ColumnType::LONGLONG,
            Cell::Int(n),
        ) => Some(format!("{n:0width$}")),
        (
            ColumnType::TINY
            | ColumnType::SHORT
            | ColumnType::INT24
            | ColumnType::LONG
            | ColumnType::LONGLONG,
            Cell::UInt(n),
        ) => Some(format!("{n:0width$}")),
        _ => None,
    }
}

/// Appends a binary-row payload, each value encoded as its column's wire type.
pub fn write_binary_row(
    out: &mut Vec<u8>,
    columns: &[ColumnDefinition],
    cells: &[Cell],
) -> Result<()> {
    check_count(columns.len(), cells.len())?;
    out.push(BINARY_ROW_HEADER);
    let bitmap_at = out.len();
    out.resize(bitmap_at + binary_row_bitmap_len(cells.len()), 0);
    for (i, (column, cell)) in columns.iter().zip(cells).enumerate() {
        if cell.is_null() {
            let bit = i + ROW_BITMAP_OFFSET;
            out[bitmap_at + bit / 8] |= 1 << (bit % 8);
            continue;
        }
        write_binary_value(out, cell, column.column_type).map_err(|()| {
            ProtocolError::CellTypeMismatch {
                column: i,
                type_code: column.column_type.0,
            }
        })?;
    }
    Ok(())
}

/// Appends one non-NULL value in the binary encoding of wire type `ty`. Integers fit into
/// any integer or floating type (narrowing keeps the low bytes); floats only into
/// FLOAT / DOUBLE; dates into the date types; any value into a string-like type (as text).
/// `Err(())` when the cell cannot be sent as `ty`.
pub(crate) fn write_binary_value(out: &mut Vec<u8>, cell: &Cell, ty: ColumnType) -> Result<(), ()> {
    match ty {
        ColumnType::TINY => out.push(int_bits(cell)? as u8),
        ColumnType::SHORT | ColumnType::YEAR => put_u16(out, int_bits(cell)? as u16),
        ColumnType::LONG | ColumnType::INT24 => put_u32(out, int_bits(cell)? as u32),
        ColumnType::LONGLONG => put_u64(out, int_bits(cell)?),
        ColumnType::FLOAT => out.extend_from_slice(&(as_f64(cell)? as f32).to_le_bytes()),
        ColumnType::DOUBLE => out.extend_from_slice(&as_f64(cell)?.to_le_bytes()),
        ColumnType::DATE => put_binary_date(out, as_datetime(cell)?.date()),
        ColumnType::DATETIME | ColumnType::TIMESTAMP => {
            put_binary_datetime(out, &as_datetime(cell)?)
        }
        ColumnType::TIME => match cell {
            Cell::Time(t) => put_binary_time(out, t),
            _ => return Err(()),
        },
        ColumnType::NULL => return Err(()),
        _ => put_as_bytes(out, cell),
    }
    Ok(())
}

/// Integer cells as their 64-bit two's-complement pattern.
fn int_bits(cell: &Cell) -> Result<u64, ()> {
    match *cell {
        Cell::Int(v) => Ok(v as u64),
        Cell::UInt(v) => Ok(v),
        _ => Err(()),
    }
}

fn as_f64(cell: &Cell) -> Result<f64, ()> {
    match *cell {
        Cell::Int(v) => Ok(v as f64),
        Cell::UInt(v) => Ok(v as f64),
        Cell::Float(v) => Ok(f64::from(v)),
        Cell::Double(v) => Ok(v),
        _ => Err(()),
    }
}

fn as_datetime(cell: &Cell) -> Result<DateTime, ()> {
    match *cell {
        Cell::Date(d) => Ok(DateTime::from(d)),
        Cell::DateTime(dt) => Ok(dt),
        _ => Err(()),
    }
}

fn put_as_bytes(out: &mut Vec<u8>, cell: &Cell) {
    // Same as a text-row field for every non-NULL cell.
    cell.write_text_field(out, None);
}

fn put_binary_date(out: &mut Vec<u8>, d: Date) {
    if d == Date::default() {
        out.push(0);
        return;
    }
    out.push(4);
    put_u16(out, d.year);
    out.extend_from_slice(&[d.month, d.day]);
}

fn put_binary_datetime(out: &mut Vec<u8>, dt: &DateTime) {
    let len = if dt.micros != 0 {
        11
    } else if !dt.is_midnight() {
        7
    } else if dt.date() != Date::default() {
        4
    } else {
        0
    };
    out.push(len);
    if len == 0 {
        return;
    }
    put_u16(out, dt.year);
    out.extend_from_slice(&[dt.month, dt.day]);
    if len >= 7 {
        out.extend_from_slice(&[dt.hour, dt.minute, dt.second]);
    }
    if len == 11 {
        put_u32(out, dt.micros);
    }
}

fn put_binary_time(out: &mut Vec<u8>, t: &Time) {
    if t.is_zero() {
        out.push(0);
        return;
    }
    out.push(if t.micros != 0 { 12 } else { 8 });
    out.push(u8::from(t.negative));
    put_u32(out, t.days);
    out.extend_from_slice(&[t.hours, t.minutes, t.seconds]);
    if t.micros != 0 {
        put_u32(out, t.micros);
    }
}

/// Reads one binary value of wire type `ty`. Integers come back as `Int` when signed and
/// `UInt` when `unsigned`; FLOAT as `Float`; DATE as `Date`, DATETIME / TIMESTAMP as
/// `DateTime`; the NULL type as `Null` (it has no bytes).
pub fn read_binary_value<'a>(
    r: &mut Reader<'a>,
    ty: ColumnType,
    unsigned: bool,
) -> Result<Cell<'a>> {
    let int = |bits: u64, width: u32| -> Cell<'a> {
        if unsigned {
            Cell::UInt(bits)
        } else {
            let shift = 64 - width;
            Cell::Int(((bits << shift) as i64) >> shift)
        }
    };
    Ok(match ty {
        ColumnType::NULL => Cell::Null,
        ColumnType::TINY => int(u64::from(r.u8("TINY value")?), 8),
        ColumnType::SHORT | ColumnType::YEAR => int(u64::from(r.u16("SHORT value")?), 16),
        ColumnType::LONG | ColumnType::INT24 => int(u64::from(r.u32("LONG value")?), 32),
        ColumnType::LONGLONG => int(r.u64("LONGLONG value")?, 64),
        ColumnType::FLOAT => Cell::Float(f32::from_bits(r.u32("FLOAT value")?)),
        ColumnType::DOUBLE => Cell::Double(f64::from_bits(r.u64("DOUBLE value")?)),
        ColumnType::DATE => Cell::Date(read_binary_datetime(r)?.date()),
        ColumnType::DATETIME | ColumnType::TIMESTAMP | NEWDATE => {
            Cell::DateTime(read_binary_datetime(r)?)
        }
        ColumnType::TIME => Cell::Time(read_binary_time(r)?),
        ty if is_bytes_type(ty) => Cell::Bytes(r.lenenc_bytes("string value")?),
        ty => return Err(ProtocolError::UnsupportedType { type_code: ty.0 }),
    })
}

/// `MYSQL_TYPE_NEWDATE`, internal to MySQL but decodable like DATETIME.
const NEWDATE: ColumnType = ColumnType(0x0e);

/// Types whose binary value is a `string<lenenc>`.
fn is_bytes_type(ty: ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::DECIMAL
            | ColumnType::VARCHAR
            | ColumnType::BIT
            | ColumnType::JSON
            | ColumnType::NEWDECIMAL
            | ColumnType::ENUM
            | ColumnType::SET
            | ColumnType::TINY_BLOB
            | ColumnType::MEDIUM_BLOB
            | ColumnType::LONG_BLOB
            | ColumnType::BLOB
            | ColumnType::VAR_STRING
            | ColumnType::STRING
            | ColumnType::GEOMETRY
    )
}

fn read_binary_datetime(r: &mut Reader<'_>) -> Result<DateTime> {
    let len = r.u8("datetime length")?;
    let mut dt = DateTime::default();
    if !matches!(len, 0 | 4 | 7 | 11) {
        return Err(ProtocolError::Malformed {
            what: "datetime length",
        });
    }
    if len >= 4 {
        dt.year = r.u16("datetime")?;
        dt.month = r.u8("datetime")?;
        dt.day = r.u8("datetime")?;
    }
    if len >= 7 {
        dt.hour = r.u8("datetime")?;
        dt.minute = r.u8("datetime")?;
        dt.second = r.u8("datetime")?;
    }
    if len == 11 {
        dt.micros = r.u32("datetime")?;
    }
    Ok(dt)
}

fn read_binary_time(r: &mut Reader<'_>) -> Result<Time> {
    let len = r.u8("time length")?;
    let mut t = Time::default();
    if !matches!(len, 0 | 8 | 12) {
        return Err(ProtocolError::Malformed {
            what: "time length",
        });
    }
    if len >= 8 {
        t.negative = r.u8("time")? != 0;
        t.days = r.u32("time")?;
        t.hours = r.u8("time")?;
        t.minutes = r.u8("time")?;
        t.seconds = r.u8("time")?;
    }
    if len == 12 {
        t.micros = r.u32("time")?;
    }
    Ok(t)
}

/// Splits a text-row payload into `columns` fields (`None` = NULL). Client side.
pub fn parse_text_row(payload: &[u8], columns: usize) -> Result<Vec<Option<&[u8]>>> {
    let mut r = Reader::new(payload);
    let mut fields = Vec::with_capacity(columns);
    for _ in 0..columns {
        if r.peek_u8() == Some(NULL_MARKER) {
            r.skip(1, "text row")?;
            fields.push(None);
        } else {
            fields.push(Some(r.lenenc_bytes("text row field")?));
        }
    }
    if !r.is_empty() {
        return Err(ProtocolError::Malformed {
            what: "text row (extra bytes)",
        });
    }
    Ok(fields)
}

/// Decodes a binary-row payload using the columns' types and UNSIGNED flags. Client side.
pub fn parse_binary_row<'a>(
    payload: &'a [u8],
    columns: &[ColumnDefinition],
) -> Result<Vec<Cell<'a>>> {
    let mut r = Reader::new(payload);
    if r.u8("binary row header")? != BINARY_ROW_HEADER {
        return Err(ProtocolError::Malformed {
            what: "binary row header",
        });
    }
    let bitmap = r.bytes(binary_row_bitmap_len(columns.len()), "binary row bitmap")?;
    let mut cells = Vec::with_capacity(columns.len());
    for (i, column) in columns.iter().enumerate() {
        let bit = i + ROW_BITMAP_OFFSET;
        if bitmap[bit / 8] & (1 << (bit % 8)) != 0 {
            cells.push(Cell::Null);
            continue;
        }
        let unsigned = column.flags & column_flags::UNSIGNED != 0;
        cells.push(read_binary_value(&mut r, column.column_type, unsigned)?);
    }
    if !r.is_empty() {
        return Err(ProtocolError::Malformed {
            what: "binary row (extra bytes)",
        });
    }
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::charset;

    fn col(ty: ColumnType) -> ColumnDefinition {
        ColumnDefinition::simple("c", ty, charset::BINARY, 20)
    }

    fn binary(ty: ColumnType, cell: Cell) -> Vec<u8> {
        let mut out = Vec::new();
        write_binary_value(&mut out, &cell, ty).unwrap();
        out
    }

    #[test]
    fn integer_widths() {
        assert_eq!(binary(ColumnType::TINY, Cell::Int(-1)), [0xFF]);
        assert_eq!(binary(ColumnType::SHORT, Cell::Int(258)), [2, 1]);
        assert_eq!(binary(ColumnType::LONG, Cell::Int(1)), [1, 0, 0, 0]);
        assert_eq!(binary(ColumnType::INT24, Cell::UInt(1)), [1, 0, 0, 0]);
        assert_eq!(
            binary(ColumnType::LONGLONG, Cell::Int(-2)),
            [0xFE; 1]
                .iter()
                .chain([0xFF; 7].iter())
                .copied()
                .collect::<Vec<_>>()
        );
        assert_eq!(binary(ColumnType::DOUBLE, Cell::Int(2)), 2f64.to_le_bytes());
        assert_eq!(
            binary(ColumnType::FLOAT, Cell::Double(0.5)),
            0.5f32.to_le_bytes()
        );
    }

    #[test]
    fn temporal_length_forms() {
        let zero = DateTime::default();
        assert_eq!(binary(ColumnType::DATETIME, Cell::DateTime(zero)), [0]);
        let d = Date {
            year: 2024,
            month: 12,
            day: 31,
        };
        assert_eq!(
            binary(ColumnType::DATE, Cell::Date(d)),
            [4, 0xE8, 0x07, 12, 31]
        );
        let mut dt = DateTime::from(d);
        assert_eq!(binary(ColumnType::DATETIME, Cell::DateTime(dt)).len(), 5);
        dt.second = 1;
        assert_eq!(
            binary(ColumnType::TIMESTAMP, Cell::DateTime(dt)),
            [7, 0xE8, 0x07, 12, 31, 0, 0, 1]
        );
        dt.micros = 1;
        assert_eq!(binary(ColumnType::DATETIME, Cell::DateTime(dt)).len(), 12);
        assert_eq!(binary(ColumnType::TIME, Cell::Time(Time::default())), [0]);
        let t = Time {
            negative: true,
            days: 1,
            hours: 2,
            minutes: 3,
            seconds: 4,
            micros: 0,
        };
        assert_eq!(
            binary(ColumnType::TIME, Cell::Time(t)),
            [8, 1, 1, 0, 0, 0, 2, 3, 4]
        );
    }

    #[test]
    fn strings_and_decimals_are_lenenc() {
        assert_eq!(
            binary(ColumnType::NEWDECIMAL, Cell::str("28")),
            [2, b'2', b'8']
        );
        assert_eq!(
            binary(ColumnType::VAR_STRING, Cell::Int(-5)),
            [2, b'-', b'5']
        );
    }

    #[test]
    fn mismatches_are_errors() {
        let mut out = Vec::new();
        assert!(write_binary_value(&mut out, &Cell::str("x"), ColumnType::LONG).is_err());
        assert!(write_binary_value(&mut out, &Cell::Double(1.0), ColumnType::LONGLONG).is_err());
        assert!(write_binary_value(&mut out, &Cell::Int(1), ColumnType::DATE).is_err());
        let err = write_binary_row(&mut out, &[col(ColumnType::LONG)], &[Cell::str("x")]);
        assert_eq!(
            err,
            Err(ProtocolError::CellTypeMismatch {
                column: 0,
                type_code: 3
            })
        );
        assert!(write_text_row(&mut out, &[], &[Cell::Null]).is_err());
    }

    #[test]
    fn sum_row_and_empty_range_row() {
        let cols = [col(ColumnType::NEWDECIMAL)];
        let mut out = Vec::new();
        write_binary_row(&mut out, &cols, &[Cell::str("28")]).unwrap();
        assert_eq!(out, [0x00, 0x00, 0x02, b'2', b'8']);
        out.clear();
        write_binary_row(&mut out, &cols, &[Cell::Null]).unwrap();
        assert_eq!(out, [0x00, 0x04]);
    }

    #[test]
    fn binary_row_round_trip_with_nulls() {
        let mut unsigned = col(ColumnType::LONGLONG);
        unsigned.flags |= column_flags::UNSIGNED;
        let cols: Vec<ColumnDefinition> = vec![
            col(ColumnType::TINY),
            col(ColumnType::LONG),
            unsigned,
            col(ColumnType::DOUBLE),
            col(ColumnType::VAR_STRING),
            col(ColumnType::DATE),
            col(ColumnType::TIME),
            col(ColumnType::FLOAT),
        ];
        let cells = [
            Cell::Int(-7),
            Cell::Null,
            Cell::UInt(u64::MAX),
            Cell::Double(1e-300),
            Cell::str("héllo"),
            Cell::Date(Date {
                year: 1,
                month: 2,
                day: 3,
            }),
            Cell::Null,
            Cell::Float(1.25),
        ];
        let mut out = Vec::new();
        write_binary_row(&mut out, &cols, &cells).unwrap();
        assert_eq!(out[1], 0b0000_1000); // column 1 at bit 3
        assert_eq!(out[2], 0b0000_0001); // column 6 at bit 8
        assert_eq!(parse_binary_row(&out, &cols).unwrap(), cells);
    }

    #[test]
    fn zerofill_integer_columns_are_padded_to_their_length() {
        let mut int5 = col(ColumnType::LONG);
        int5.column_length = 5;
        int5.flags = column_flags::UNSIGNED | column_flags::ZEROFILL;
        let mut big = col(ColumnType::LONGLONG);
        big.column_length = 20;
        big.flags = column_flags::UNSIGNED | column_flags::ZEROFILL;
        // YEAR is flagged ZEROFILL too but prints its own digits; a plain INT(5) is not padded.
        let mut year = col(ColumnType::YEAR);
        year.column_length = 4;
        year.flags = column_flags::UNSIGNED | column_flags::ZEROFILL;
        let mut plain = col(ColumnType::LONG);
        plain.column_length = 5;
        let cols = [int5.clone(), int5, big, year, plain];
        let cells = [
            Cell::Int(42),
            Cell::UInt(123456),
            Cell::UInt(3),
            Cell::Int(2024),
            Cell::Int(42),
        ];
        let mut out = Vec::new();
        write_text_row(&mut out, &cols, &cells).unwrap();
        let fields = parse_text_row(&out, 5).unwrap();
        assert_eq!(
            fields,
            vec![
                Some(&b"00042"[..]),
                Some(&b"123456"[..]),
                Some(&b"00000000000000000003"[..]),
                Some(&b"2024"[..]),
                Some(&b"42"[..]),
            ]
        );
    }

    #[test]
    fn text_row_round_trip() {
        let cols = [
            col(ColumnType::LONG),
            col(ColumnType::VAR_STRING),
            col(ColumnType::DATETIME),
        ];
        let dt = DateTime {
            year: 2020,
            month: 1,
            day: 2,
            hour: 3,
            minute: 4,
            second: 5,
            micros: 999,
        };
        let mut out = Vec::new();
        write_text_row(
            &mut out,
            &cols,
            &[Cell::Int(1), Cell::Null, Cell::DateTime(dt)],
        )
        .unwrap();
        let fields = parse_text_row(&out, 3).unwrap();
        assert_eq!(
            fields,
            vec![Some(&b"1"[..]), None, Some(&b"2020-01-02 03:04:05"[..])]
        );
        let mut cols6 = cols.clone();
        cols6[2].decimals = 6;
        out.clear();
        write_text_row(
            &mut out,
            &cols6,
            &[Cell::Int(1), Cell::Null, Cell::DateTime(dt)],
        )
        .unwrap();
        assert_eq!(
            parse_text_row(&out, 3).unwrap()[2],
            Some(&b"2020-01-02 03:04:05.000999"[..])
        );
    }

    #[test]
    fn truncated_rows_are_errors() {
        let cols = [col(ColumnType::LONGLONG)];
        assert!(parse_binary_row(&[0, 0, 1, 2], &cols).is_err());
        assert!(parse_binary_row(&[], &cols).is_err());
        assert!(parse_text_row(&[5, b'a'], 1).is_err());
        assert!(parse_text_row(&[1, b'a', 9], 1).is_err());
    }
}
