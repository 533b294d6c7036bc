//! The static type of a bound expression: what the result-set column definition says and how
//! the value compares (class and collation).
//!
//! Values carry no type of their own ([`Value`](crate::types::Value)); the binder computes a
//! [`SqlType`] for every expression once, at bind (or prepare) time.

use super::derivation::Derivation;
use crate::types::{Collation, DataType};
use cohort_protocol::column::ColumnType;

/// How values of a type behave in comparisons and arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Int,
    Decimal,
    Double,
    /// Character string (has a collation).
    Str,
    /// Binary string.
    Bin,
    Date,
    DateTime,
    /// TIME (a signed duration, `Value::Time`).
    Time,
    /// The type of a bare NULL literal.
    Null,
}

/// MariaDB's "not fixed decimals" marker sent for strings and doubles.
pub const NOT_FIXED_DEC: u8 = 39;
/// A DOUBLE's decimals below this are fixed (shown with exactly that many digits, as
/// `ROUND(x, 3)`); from it on a double shows its shortest digits (MariaDB's
/// FLOATING_POINT_DECIMALS).
pub const FLOATING_POINT_DECIMALS: u8 = 31;

/// The static type of an expression or column.
#[derive(Clone, Debug, PartialEq)]
pub struct SqlType {
    pub class: Class,
    pub wire: ColumnType,
    pub unsigned: bool,
    /// Collation of a character string; `Binary` otherwise.
    pub collation: Collation,
    /// `column_length` as sent in the column definition (bytes).
    pub length: u32,
    pub decimals: u8,
    pub nullable: bool,
    /// The column type of an ENUM or SET column's value (its members): numeric context
    /// reads its number (see [`crate::types::enumset`]). None for everything else.
    pub enumset: Option<std::sync::Arc<DataType>>,
    /// How strongly its collation binds where it meets others ([`Derivation`]).
    pub derivation: Derivation,
    /// A ZEROFILL integer column's value: its display width, to which CAST / CONCAT to a
    /// string pad it with zeros (the text protocol pads by the column definition's flag).
    pub zerofill: Option<u8>,
}

impl SqlType {
    fn new(class: Class, wire: ColumnType, length: u32) -> SqlType {
        SqlType {
            class,
            wire,
            unsigned: false,
            collation: Collation::Binary,
            length,
            decimals: 0,
            nullable: true,
            enumset: None,
            derivation: Derivation::of_class(class),
            zerofill: None,
        }
    }

    /// A signed integer expression; LONG for short results, LONGLONG otherwise (MariaDB).
    pub fn int(length: u32) -> SqlType {
        let wire = if length < 11 {
            ColumnType::LONG
        } else {
            ColumnType::LONGLONG
        };
        SqlType::new(Class::Int, wire, length)
    }

    pub fn bigint() -> SqlType {
        SqlType::new(Class::Int, ColumnType::LONGLONG, 21)
    }

    pub fn ubigint() -> SqlType {
        let mut t = SqlType::new(Class::Int, ColumnType::LONGLONG, 20);
        t.unsigned = true;
        t
    }

    /// DECIMAL(precision, scale). Expressions may exceed a column's 65 digits (MariaDB's
    /// working range is 81, and `a + b` of two DECIMAL(65,0) has precision 66).
    pub fn decimal(precision: u32, scale: u8) -> SqlType {
        let precision = precision.clamp(1, 81);
        let len = precision + u32::from(scale > 0) + 1;
        let mut t = SqlType::new(Class::Decimal, ColumnType::NEWDECIMAL, len);
        t.decimals = scale;
        t
    }

    /// FLOAT: a 32-bit float (`CAST(x AS FLOAT)`, a FLOAT column).
    pub fn float() -> SqlType {
        let mut t = SqlType::new(Class::Double, ColumnType::FLOAT, 12);
        t.decimals = NOT_FIXED_DEC;
        t
    }

    pub fn double() -> SqlType {
        let mut t = SqlType::new(Class::Double, ColumnType::DOUBLE, 22);
        t.decimals = NOT_FIXED_DEC;
        t
    }

    /// A VARCHAR-like expression of at most `chars` characters (utf8mb4).
    pub fn varchar(chars: u32) -> SqlType {
        let mut t = SqlType::new(Class::Str, ColumnType::VAR_STRING, chars.saturating_mul(4));
        t.collation = Collation::Utf8mb4GeneralCi;
        t.decimals = NOT_FIXED_DEC;
        t
    }

    /// A long text expression (BLOB wire type, character set utf8mb4).
    pub fn text() -> SqlType {
        let mut t = SqlType::new(Class::Str, ColumnType::BLOB, u32::MAX);
        t.collation = Collation::Utf8mb4GeneralCi;
        t.decimals = NOT_FIXED_DEC;
        t
    }

    pub fn varbinary(bytes: u32) -> SqlType {
        let mut t = SqlType::new(Class::Bin, ColumnType::VAR_STRING, bytes);
        t.decimals = NOT_FIXED_DEC;
        t
    }

    pub fn date() -> SqlType {
        SqlType::new(Class::Date, ColumnType::DATE, 10)
    }

    pub fn datetime(fsp: u8) -> SqlType {
        let mut t = SqlType::new(Class::DateTime, ColumnType::DATETIME, datetime_len(fsp));
        t.decimals = fsp;
        t
    }

    /// YEAR: an unsigned integer of 4 digits, sent with the YEAR wire type (so a client
    /// prints `0000` for 0).
    pub fn year() -> SqlType {
        let mut t = SqlType::new(Class::Int, ColumnType::YEAR, 4);
        t.unsigned = true;
        t
    }

    /// TIME(fsp).
    pub fn time(fsp: u8) -> SqlType {
        let len = 10 + if fsp > 0 { u32::from(fsp) + 1 } else { 0 };
        let mut t = SqlType::new(Class::Time, ColumnType::TIME, len);
        t.decimals = fsp;
        t
    }

    /// BIT(width): an unsigned integer sent as its big-endian bytes (wire type BIT).
    pub fn bit(width: u8) -> SqlType {
        let mut t = SqlType::new(Class::Int, ColumnType::BIT, u32::from(width));
        t.unsigned = true;
        t
    }

    pub fn null() -> SqlType {
        SqlType::new(Class::Null, ColumnType::NULL, 0)
    }

    pub fn not_null(mut self) -> SqlType {
        self.nullable = false;
        self
    }

    pub fn with_nullable(mut self, nullable: bool) -> SqlType {
        self.nullable = nullable;
        self
    }

    /// The type of a value of column type `dt`.
    pub fn from_data_type(dt: &DataType, nullable: bool) -> SqlType {
        // An integer column's length in expressions is its type's default display width
        // (MariaDB: `x + 0` of an INT(5) is 12 long), but TINYINT(1)'s stays 1. A result
        // column reading the column as is sends the declared width (`coldef::table_column`).
        let int = |wire: ColumnType| {
            let width = match dt.int_width() {
                Some(1) if matches!(dt, DataType::TinyInt { .. }) => 1,
                _ => dt.storage().int_width().unwrap_or(0),
            };
            let mut t = SqlType::new(Class::Int, wire, u32::from(width));
            t.unsigned = dt.is_unsigned();
            t.zerofill = dt.is_zerofill().then(|| dt.int_width().unwrap_or(0));
            t
        };
        let t = match dt {
            DataType::TinyInt { .. } => int(ColumnType::TINY),
            DataType::SmallInt { .. } => int(ColumnType::SHORT),
            DataType::MediumInt { .. } => int(ColumnType::INT24),
            DataType::Int { .. } => int(ColumnType::LONG),
            DataType::BigInt { .. } => int(ColumnType::LONGLONG),
            DataType::Decimal { precision, scale } => SqlType::decimal(*precision as u32, *scale),
            DataType::Float {
                m_d: None,
                unsigned,
            } => {
                let mut t = SqlType::float();
                t.unsigned = *unsigned;
                t
            }
            DataType::Double {
                m_d: None,
                unsigned,
            } => {
                let mut t = SqlType::double();
                t.unsigned = *unsigned;
                t
            }
            // FLOAT(M,D) / DOUBLE(M,D): length M, D fixed decimals (shown with exactly D).
            DataType::Float {
                m_d: Some((m, d)),
                unsigned,
            }
            | DataType::Double {
                m_d: Some((m, d)),
                unsigned,
            } => {
                let wire = match dt {
                    DataType::Float { .. } => ColumnType::FLOAT,
                    _ => ColumnType::DOUBLE,
                };
                let mut t = SqlType::new(Class::Double, wire, u32::from(*m));
                t.decimals = *d;
                t.unsigned = *unsigned;
                t
            }
            DataType::Char { len, collation } => {
                text_type(ColumnType::STRING, len.saturating_mul(4), *collation)
            }
            DataType::VarChar { len, collation } => {
                text_type(ColumnType::VAR_STRING, len.saturating_mul(4), *collation)
            }
            DataType::Text {
                max_bytes,
                collation,
            } => {
                let len = max_bytes.saturating_mul(4).min(u32::MAX as u64) as u32;
                text_type(ColumnType::BLOB, len, *collation)
            }
            DataType::Binary { len } => text_type(ColumnType::STRING, *len, Collation::Binary),
            DataType::VarBinary { len } => {
                text_type(ColumnType::VAR_STRING, *len, Collation::Binary)
            }
            DataType::Blob { max_bytes } => text_type(
                ColumnType::BLOB,
                (*max_bytes).min(u32::MAX as u64) as u32,
                Collation::Binary,
            ),
            DataType::Date => SqlType::date(),
            DataType::DateTime { fsp } => SqlType::datetime(*fsp),
            DataType::Timestamp { fsp } => {
                let mut t = SqlType::datetime(*fsp);
                t.wire = ColumnType::TIMESTAMP;
                t
            }
            DataType::Year => SqlType::year(),
            DataType::Enum { collation, .. } | DataType::Set { collation, .. } => {
                let chars = crate::types::enumset::max_chars(dt);
                let mut t = text_type(ColumnType::STRING, chars.saturating_mul(4), *collation);
                t.enumset = Some(std::sync::Arc::new(dt.clone()));
                t
            }
            DataType::Time { fsp } => SqlType::time(*fsp),
            DataType::Bit { width } => SqlType::bit(*width),
        };
        t.with_nullable(nullable)
    }

    /// Maximum number of characters a value of this type prints as (for CONCAT lengths).
    pub fn char_len(&self) -> u32 {
        match self.class {
            Class::Str => self.length / 4,
            _ => self.length,
        }
    }
}

fn text_type(wire: ColumnType, length: u32, collation: Collation) -> SqlType {
    let class = if collation == Collation::Binary {
        Class::Bin
    } else {
        Class::Str
    };
    let mut t = SqlType::new(class, wire, length);
    t.collation = collation;
    t.derivation = Derivation::Implicit;
    t
}

/// Display length of DATETIME(fsp).
pub fn datetime_len(fsp: u8) -> u32 {
    19 + if fsp > 0 { fsp as u32 + 1 } else { 0 }
}
