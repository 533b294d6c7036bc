//! Row images between the engine's [`Value`]s and the binlog's [`BinValue`]s.
//!
//! In one-log mode the binlog is the redo log, so the mapping must round-trip exactly:
//! `to_value(kind_of(t), to_bin(t, v)) == v` for every value a column of type `t` can hold.
//!
//! | DataType | binlog column | notes |
//! |---|---|---|
//! | TINYINT…BIGINT | Tiny / Short / Int24 / Long / LongLong | unsigned columns carry `UInt` |
//! | DECIMAL(p,s) | NewDecimal | exact, at `s` digits |
//! | FLOAT / DOUBLE | Float / Double | |
//! | CHAR(n) / BINARY(n) | String, max bytes 4n / n | trailing spaces stripped (as MariaDB) |
//! | latin1 CHAR / VARCHAR / TEXT | as above, max bytes n | the text's latin1 bytes |
//! | VARCHAR(n) / VARBINARY(n) | VarString, max bytes 4n / n | |
//! | TEXT / BLOB family | Blob, length prefix 1–4 bytes | |
//! | DATE / DATETIME(f) / TIMESTAMP(f) | Date / DateTime2 / Timestamp2 | TIMESTAMP as UTC seconds |

use crate::storage::TableDef;
use crate::types::collation::Charset;
use crate::types::{latin1, DataType, Date, DateTime, Decimal, Value};
use cohort_binlog::{
    BinValue, ColumnDef as BinColumn, ColumnKind, KeyPart, RowMetadata, TableId, TableMap,
    TableMeta,
};
use std::borrow::Cow;

/// The binlog column kind of a declared type.
pub fn kind_of(t: &DataType) -> ColumnKind {
    match *t {
        DataType::TinyInt { unsigned, .. } => ColumnKind::Tiny { unsigned },
        DataType::SmallInt { unsigned, .. } => ColumnKind::Short { unsigned },
        DataType::MediumInt { unsigned, .. } => ColumnKind::Int24 { unsigned },
        DataType::Int { unsigned, .. } => ColumnKind::Long { unsigned },
        DataType::BigInt { unsigned, .. } => ColumnKind::LongLong { unsigned },
        DataType::Decimal { precision, scale } => ColumnKind::NewDecimal { precision, scale },
        DataType::Float { .. } => ColumnKind::Float,
        DataType::Double { .. } => ColumnKind::Double,
        DataType::Char { len, collation } => ColumnKind::String {
            max_bytes: (len * collation.mbmaxlen()).min(1020) as u16,
        },
        DataType::Binary { len } => ColumnKind::String {
            max_bytes: len.min(1020) as u16,
        },
        DataType::VarChar { len, collation } => ColumnKind::VarString {
            max_bytes: (len as u64 * collation.mbmaxlen() as u64).min(65535) as u16,
        },
        DataType::VarBinary { len } => ColumnKind::VarString {
            max_bytes: len.min(65535) as u16,
        },
        DataType::Text { max_bytes, .. } | DataType::Blob { max_bytes } => ColumnKind::Blob {
            len_bytes: blob_len_bytes(max_bytes),
        },
        DataType::Date => ColumnKind::Date,
        DataType::DateTime { fsp } => ColumnKind::DateTime2 { fsp },
        DataType::Timestamp { fsp } => ColumnKind::Timestamp2 { fsp },
        DataType::Year => ColumnKind::Year,
        DataType::Enum { ref members, .. } => ColumnKind::Enum {
            pack_len: if members.len() < 256 { 1 } else { 2 },
        },
        DataType::Set { ref members, .. } => ColumnKind::Set {
            pack_len: set_pack_len(members.len()),
        },
        DataType::Time { fsp } => ColumnKind::Time2 { fsp },
        DataType::Bit { width } => ColumnKind::Bit { bits: width },
    }
}

/// The bytes of a SET of `members` members in a row image: 1 to 4, then 8 (as MariaDB packs
/// it; a 40-member SET is 8 bytes, not 5).
pub fn set_pack_len(members: usize) -> u8 {
    match members.div_ceil(8) {
        0 => 1,
        n @ 1..=4 => n as u8,
        _ => 8,
    }
}

fn blob_len_bytes(max_bytes: u64) -> u8 {
    match max_bytes {
        0..=255 => 1,
        256..=65535 => 2,
        65536..=16_777_215 => 3,
        _ => 4,
    }
}

/// The Table_map of a table, with the optional metadata `binlog_row_metadata` asks for
/// ([`cohort_binlog::tablemeta`]): MINIMAL adds signedness and character sets, FULL also the
/// column names and the primary key.
pub fn table_map(id: u64, db: &str, def: &TableDef, level: RowMetadata) -> TableMap {
    let meta = match level {
        RowMetadata::NoLog => TableMeta::default(),
        RowMetadata::Minimal | RowMetadata::Full => {
            let full = level == RowMetadata::Full;
            TableMeta {
                signedness: true,
                charsets: Some(
                    def.columns
                        .iter()
                        .filter(|c| kind_of(&c.data_type).is_character())
                        .map(|c| collation_id(&c.data_type))
                        .collect(),
                ),
                column_names: full.then(|| def.columns.iter().map(|c| c.name.clone()).collect()),
                enum_set_charsets: Some(
                    def.columns
                        .iter()
                        .filter(|c| c.data_type.is_enum_or_set())
                        .map(|c| collation_id(&c.data_type))
                        .collect(),
                ),
                set_values: full.then(|| members_of(def, true)),
                enum_values: full.then(|| members_of(def, false)),
                primary_key: def.primary_key.as_ref().filter(|_| full).map(|pk| {
                    pk.parts
                        .iter()
                        .map(|p| KeyPart {
                            column: p.column as u32,
                            prefix: p.prefix_len.unwrap_or(0),
                        })
                        .collect()
                }),
            }
        }
    };
    TableMap {
        table_id: TableId(id),
        db: db.to_string(),
        table: def.name.clone(),
        columns: def
            .columns
            .iter()
            .map(|c| BinColumn {
                kind: kind_of(&c.data_type),
                nullable: c.nullable,
            })
            .collect(),
        meta,
    }
}

/// The member lists of the table's SET (`sets`) or ENUM columns, in column order, in each
/// column's character set (latin1 bytes for a latin1 column, as MariaDB writes them).
fn members_of(def: &TableDef, sets: bool) -> Vec<Vec<Vec<u8>>> {
    def.columns
        .iter()
        .filter_map(|c| {
            let members = match &c.data_type {
                DataType::Set { members, .. } if sets => members,
                DataType::Enum { members, .. } if !sets => members,
                _ => return None,
            };
            let bytes = |m: &String| match is_latin1(&c.data_type) {
                true => latin1::encode(m).0,
                false => m.clone().into_bytes(),
            };
            Some(members.iter().map(bytes).collect())
        })
        .collect()
}

/// MariaDB's collation id of a character (or binary) column: utf8mb4_general_ci 45,
/// utf8mb4_bin 46, binary 63, utf8mb3_general_ci 33, utf8mb3_bin 83.
pub fn collation_id(t: &DataType) -> u16 {
    t.collation().id()
}

/// One row as binlog values.
pub fn row_to_bin<'a>(def: &TableDef, row: &'a [Value]) -> Vec<BinValue<'a>> {
    def.columns
        .iter()
        .zip(row)
        .map(|(c, v)| to_bin(&c.data_type, v))
        .collect()
}

/// One binlog row back as engine values.
pub fn row_from_bin(def: &TableDef, row: &[BinValue]) -> Vec<Value> {
    def.columns
        .iter()
        .zip(row)
        .map(|(c, v)| from_bin(&c.data_type, v))
        .collect()
}

/// One value in the binlog's form for a column of type `t`. Strings are borrowed from `v`:
/// encoding a commit's row images copies each string once, into the event bytes.
pub fn to_bin<'a>(t: &DataType, v: &'a Value) -> BinValue<'a> {
    match (t, v) {
        (_, Value::Null) => BinValue::Null,
        (DataType::Enum { .. } | DataType::Set { .. }, Value::Bytes(b)) => {
            BinValue::UInt(crate::types::enumset::number_of(t, b))
        }
        (DataType::Time { fsp }, v) => BinValue::Time {
            micros: match v {
                Value::Time(t) => crate::sql::time_value::truncate_fsp(*t, *fsp),
                _ => 0,
            },
        },
        (DataType::Bit { .. }, v) => BinValue::UInt(match v {
            Value::Int(i) => *i as u64,
            Value::UInt(u) => *u,
            _ => 0,
        }),
        (DataType::Float { .. }, v) => BinValue::Float(v.stored_f64() as f32),
        (DataType::Double { .. }, v) => BinValue::Double(v.stored_f64()),
        (DataType::Decimal { scale, .. }, v) => BinValue::Decimal(decimal_at(v, *scale)),
        (t, Value::Int(i)) if t.is_unsigned() => BinValue::UInt(*i as u64),
        (_, Value::Int(i)) => BinValue::Int(*i),
        (t, Value::UInt(u)) if !t.is_unsigned() => BinValue::Int(*u as i64),
        (_, Value::UInt(u)) => BinValue::UInt(*u),
        (DataType::Char { .. }, Value::Bytes(b)) => in_charset(t, strip_spaces(b)),
        (_, Value::Bytes(b)) => in_charset(t, b),
        (DataType::Timestamp { fsp }, Value::DateTime(dt)) => BinValue::Timestamp {
            secs: epoch_seconds(dt).clamp(0, u32::MAX as i64) as u32,
            micro: truncate_micros(dt.micros, *fsp),
        },
        (DataType::DateTime { fsp }, Value::DateTime(dt)) => datetime_bin(dt, *fsp),
        (_, Value::Date(d)) => BinValue::Date {
            year: d.year,
            month: d.month,
            day: d.day,
        },
        (_, Value::DateTime(dt)) => BinValue::Date {
            year: dt.date.year,
            month: dt.date.month,
            day: dt.date.day,
        },
        (_, Value::Double(d)) => BinValue::Double(*d),
        (_, Value::Decimal(d)) => BinValue::Decimal(d.clone()),
        (_, Value::Time(t)) => BinValue::Time { micros: *t },
    }
}

/// A binlog value back in the engine's form for a column of type `t`. An unsigned column's
/// value read through a Table_map without signedness (`binlog_row_metadata = NO_LOG`, the
/// default) comes back as a negative `Int` of the column's width: it is read back unsigned.
pub fn from_bin(t: &DataType, v: &BinValue) -> Value {
    match v {
        BinValue::Null => Value::Null,
        BinValue::Int(_) | BinValue::UInt(_) if t.is_enum_or_set() => {
            let n = match v {
                BinValue::Int(i) => *i as u64,
                BinValue::UInt(u) => *u,
                _ => 0,
            };
            Value::Bytes(crate::types::enumset::text_of(t, n))
        }
        BinValue::Int(i) if t.is_unsigned() => unsigned_value(as_unsigned(t, *i)),
        BinValue::Int(i) => Value::Int(*i),
        BinValue::UInt(u) => unsigned_value(*u),
        BinValue::Float(f) => Value::Double(*f as f64),
        BinValue::Double(d) => Value::Double(*d),
        BinValue::Decimal(d) => Value::Decimal(d.clone()),
        BinValue::Bytes(b) if is_latin1(t) => Value::Bytes(latin1::decode(b).into_bytes()),
        BinValue::Bytes(b) => Value::Bytes(b.to_vec()),
        BinValue::Date { year, month, day } => Value::Date(Date {
            year: *year,
            month: *month,
            day: *day,
        }),
        BinValue::DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
            micro,
        } => Value::DateTime(DateTime {
            date: Date {
                year: *year,
                month: *month,
                day: *day,
            },
            hour: *hour,
            minute: *minute,
            second: *second,
            micros: *micro,
        }),
        BinValue::Timestamp { secs, micro } => {
            let _ = t;
            Value::DateTime(from_epoch_seconds(*secs as i64, *micro))
        }
        BinValue::Time { micros } => Value::Time(*micros),
    }
}

/// An unsigned integer as the engine keeps it: `Int` when it fits.
fn unsigned_value(u: u64) -> Value {
    match i64::try_from(u) {
        Ok(i) => Value::Int(i),
        Err(_) => Value::UInt(u),
    }
}

/// A sign-extended integer of an unsigned column's width, read back unsigned.
fn as_unsigned(t: &DataType, i: i64) -> u64 {
    match t {
        DataType::TinyInt { .. } => i as u8 as u64,
        DataType::SmallInt { .. } => i as u16 as u64,
        DataType::MediumInt { .. } => (i as u64) & 0xff_ffff,
        DataType::Int { .. } => i as u32 as u64,
        _ => i as u64,
    }
}

/// A column's value at the column's scale (stored values already are: this is a copy).
fn decimal_at(v: &Value, scale: u8) -> Decimal {
    let d = match v {
        Value::Decimal(d) if d.scale() == scale => return d.clone(),
        Value::Decimal(d) => d.clone(),
        Value::Int(i) => Decimal::from(*i),
        Value::UInt(u) => Decimal::from(*u),
        Value::Double(f) => Decimal::from_f64(*f)
            .and_then(Result::ok)
            .unwrap_or_default(),
        _ => Decimal::ZERO,
    };
    d.rescale(scale).unwrap_or(d)
}

/// Is `t` a latin1 string column (whose row image bytes are latin1, not UTF-8)?
fn is_latin1(t: &DataType) -> bool {
    t.collation().charset() == Charset::Latin1
}

/// A string's bytes in its column's character set: latin1 columns are encoded (a character
/// latin1 lacks, which storing never lets in, as `?`); the others are their UTF-8, borrowed.
fn in_charset<'a>(t: &DataType, b: &'a [u8]) -> BinValue<'a> {
    if b.is_ascii() || !is_latin1(t) {
        return BinValue::Bytes(Cow::Borrowed(b));
    }
    BinValue::Bytes(Cow::Owned(latin1::encode(&String::from_utf8_lossy(b)).0))
}

fn strip_spaces(b: &[u8]) -> &[u8] {
    let end = b.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1);
    &b[..end]
}

fn truncate_micros(micros: u32, fsp: u8) -> u32 {
    let unit = 10u32.pow(6 - fsp.min(6) as u32);
    micros / unit * unit
}

fn datetime_bin(dt: &DateTime, fsp: u8) -> BinValue<'static> {
    BinValue::DateTime {
        year: dt.date.year,
        month: dt.date.month,
        day: dt.date.day,
        hour: dt.hour,
        minute: dt.minute,
        second: dt.second,
        micro: truncate_micros(dt.micros, fsp),
    }
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// UTC seconds since the epoch; the zero timestamp is 0.
pub fn epoch_seconds(dt: &DateTime) -> i64 {
    if dt.date.year == 0 {
        return 0;
    }
    let days = days_from_civil(
        dt.date.year as i64,
        dt.date.month as i64,
        dt.date.day as i64,
    );
    days * 86400 + dt.hour as i64 * 3600 + dt.minute as i64 * 60 + dt.second as i64
}

/// The civil UTC time of `secs` since the epoch; 0 is the zero timestamp.
pub fn from_epoch_seconds(secs: i64, micros: u32) -> DateTime {
    if secs == 0 && micros == 0 {
        return DateTime::default();
    }
    let days = secs.div_euclid(86400);
    let rem = secs.rem_euclid(86400);
    let z = days + 719468;
    let era = if z >= 0 { z } else { z - 146096 } / 146097;
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    DateTime {
        date: Date {
            year: y as u16,
            month: m as u8,
            day: d as u8,
        },
        hour: (rem / 3600) as u8,
        minute: (rem % 3600 / 60) as u8,
        second: (rem % 60) as u8,
        micros,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Collation;

    fn round_trip(t: DataType, v: Value) {
        let b = to_bin(&t, &v);
        let back = from_bin(&t, &b);
        assert_eq!(back, v, "type {t:?}");
        let mut buf = Vec::new();
        cohort_binlog::encode_value(&kind_of(&t), &b, &mut buf).unwrap();
    }

    #[test]
    fn set_pack_lengths_are_mariadbs() {
        // MariaDB 10.11's table map for SET(8 / 9 / 32 / 33 / 40 / 64 members).
        let lens: Vec<u8> = [8, 9, 32, 33, 40, 64].map(set_pack_len).to_vec();
        assert_eq!(lens, vec![1, 2, 4, 8, 8, 8]);
    }

    #[test]
    fn values_round_trip_through_binlog_form() {
        round_trip(
            DataType::Int {
                unsigned: false,
                display: Default::default(),
            },
            Value::Int(-5),
        );
        round_trip(
            DataType::BigInt {
                unsigned: true,
                display: Default::default(),
            },
            Value::UInt(u64::MAX),
        );
        round_trip(
            DataType::BigInt {
                unsigned: true,
                display: Default::default(),
            },
            Value::Int(7),
        );
        round_trip(
            DataType::Decimal {
                precision: 10,
                scale: 2,
            },
            Value::Decimal("-12.50".parse().unwrap()),
        );
        round_trip(DataType::DOUBLE, Value::Double(0.1));
        round_trip(
            DataType::Char {
                len: 10,
                collation: Collation::Utf8mb4GeneralCi,
            },
            Value::str("abc"),
        );
        round_trip(
            DataType::Blob { max_bytes: 65535 },
            Value::Bytes(vec![0, 1, 255]),
        );
        round_trip(
            DataType::Date,
            Value::Date(Date {
                year: 2024,
                month: 2,
                day: 29,
            }),
        );
        let dt = DateTime {
            date: Date {
                year: 2026,
                month: 11,
                day: 21,
            },
            hour: 23,
            minute: 59,
            second: 58,
            micros: 123456,
        };
        round_trip(DataType::DateTime { fsp: 6 }, Value::DateTime(dt));
        round_trip(DataType::Timestamp { fsp: 6 }, Value::DateTime(dt));
        round_trip(
            DataType::Timestamp { fsp: 0 },
            Value::DateTime(DateTime::default()),
        );
    }

    #[test]
    fn string_values_are_borrowed_not_copied() {
        let char10 = DataType::Char {
            len: 10,
            collation: Collation::Utf8mb4GeneralCi,
        };
        let padded = Value::str("ab  ");
        let Value::Bytes(held) = &padded else {
            unreachable!()
        };
        match to_bin(&char10, &padded) {
            BinValue::Bytes(Cow::Borrowed(b)) => {
                assert_eq!(b, b"ab", "CHAR drops its trailing spaces");
                assert_eq!(b.as_ptr(), held.as_ptr(), "the row's own bytes");
            }
            other => panic!("expected borrowed bytes, got {other:?}"),
        }
        let blob = Value::Bytes(vec![0, 1, 255]);
        let bin = to_bin(&DataType::Blob { max_bytes: 65535 }, &blob);
        assert!(matches!(bin, BinValue::Bytes(Cow::Borrowed(_))));
    }

    #[test]
    fn epoch_conversion_matches_known_dates() {
        let dt = DateTime {
            date: Date {
                year: 2000,
                month: 3,
                day: 1,
            },
            ..DateTime::default()
        };
        assert_eq!(epoch_seconds(&dt), 951868800);
        assert_eq!(from_epoch_seconds(951868800, 0), dt);
    }
}
