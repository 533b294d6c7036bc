//! The runtime value of one SQL cell.

pub use cohort_decimal::Decimal;
use std::fmt;

/// A calendar date as MySQL stores it: zero parts are allowed (`'0000-00-00'`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

/// A date and time with microseconds. TIMESTAMP columns use it too (session time zone is UTC).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct DateTime {
    pub date: Date,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub micros: u32,
}

/// One SQL value.
///
/// `Int` holds every signed integer and `UInt` the unsigned ones that do not fit in `i64`
/// (and values of unsigned columns); comparisons between the two are numeric.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    UInt(u64),
    Double(f64),
    Decimal(Decimal),
    /// Character or binary string; the column type tells which.
    Bytes(Vec<u8>),
    Date(Date),
    DateTime(DateTime),
    /// A TIME value in signed microseconds (|v| ≤ 838:59:59.999999 for stored values).
    Time(i64),
}

impl Value {
    /// A FLOAT / DOUBLE column's stored value as a double (what the binlog's row image and
    /// CHECKSUM TABLE's record image encode); 0 for anything else.
    pub fn stored_f64(&self) -> f64 {
        match self {
            Value::Int(i) => *i as f64,
            Value::UInt(u) => *u as f64,
            Value::Double(d) => *d,
            Value::Decimal(d) => d.to_f64(),
            _ => 0.0,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// A string value from text.
    /// A string value. Characters that stand for raw bytes of the query text become those
    /// bytes again (see [`super::raw_text`]).
    pub fn str(s: &str) -> Value {
        Value::Bytes(super::raw_text::to_bytes(s))
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {:02}:{:02}:{:02}",
            self.date, self.hour, self.minute, self.second
        )?;
        if self.micros != 0 {
            write!(f, ".{:06}", self.micros)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows are vectors of values: the enum must not grow with the exact decimal. It was 24
    /// bytes with the 16-byte `rust_decimal` (the other variants fit beside `Bytes`' vector,
    /// whose capacity holds the tag); `Decimal` is 16 bytes too (wide ones are boxed).
    #[test]
    fn value_stays_24_bytes() {
        assert_eq!(std::mem::size_of::<Decimal>(), 16);
        assert_eq!(std::mem::size_of::<Value>(), 24);
    }
}
