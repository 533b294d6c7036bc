//! Values at the crate boundary, and their text forms.
//!
//! * [`Cell`] is one result value as the server hands it to the encoders: borrowed, `Copy`,
//!   no allocation. Strings, binary strings and DECIMALs (as their text) are all
//!   [`Cell::Bytes`]; the column definition says which.
//! * [`ParamValue`] is one decoded COM_STMT_EXECUTE parameter: owned, so it can outlive the
//!   packet buffer.
//! * [`Date`], [`DateTime`], [`Time`] are plain field structs (no validation: MySQL allows
//!   zero dates).
//!
//! Text forms, as MySQL prints them in text result sets:
//!
//! | value | text |
//! |---|---|
//! | integers | decimal digits, `-` sign |
//! | DOUBLE / FLOAT | shortest digits that round-trip; fixed notation when the decimal exponent is in −15..=14, else `1e20`, `2.3e15`, `1e-16` |
//! | DATE | `YYYY-MM-DD` |
//! | DATETIME | `YYYY-MM-DD HH:MM:SS` + `.` and fractional digits (6 if micros ≠ 0, or the column's `decimals`) |
//! | TIME | `[-]HH:MM:SS[.ffffff]`, hours = days × 24 + hours, at least 2 digits |

use crate::codec::{put_lenenc_bytes, NULL_MARKER};
use std::fmt::{self, Write};

/// A calendar date; zero parts allowed (`0000-00-00`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

/// A date and time of day with microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct DateTime {
    pub year: u16,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub micros: u32,
}

impl DateTime {
    pub fn date(&self) -> Date {
        Date {
            year: self.year,
            month: self.month,
            day: self.day,
        }
    }

    /// True when hour, minute, second and micros are all zero.
    pub fn is_midnight(&self) -> bool {
        self.hour == 0 && self.minute == 0 && self.second == 0 && self.micros == 0
    }
}

impl From<Date> for DateTime {
    fn from(d: Date) -> DateTime {
        DateTime {
            year: d.year,
            month: d.month,
            day: d.day,
            ..DateTime::default()
        }
    }
}

/// A TIME value: a signed duration `days` × 24h + `hours`:`minutes`:`seconds`.`micros`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Time {
    pub negative: bool,
    pub days: u32,
    pub hours: u8,
    pub minutes: u8,
    pub seconds: u8,
    pub micros: u32,
}

impl Time {
    pub fn is_zero(&self) -> bool {
        self.days == 0
            && self.hours == 0
            && self.minutes == 0
            && self.seconds == 0
            && self.micros == 0
    }
}

/// One result value handed to the row encoders.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell<'a> {
    Null,
    Int(i64),
    UInt(u64),
    Float(f32),
    Double(f64),
    /// Character or binary string, or a DECIMAL as text (`"28"`, `"-1.50"`).
    Bytes(&'a [u8]),
    Date(Date),
    DateTime(DateTime),
    Time(Time),
}

impl<'a> Cell<'a> {
    /// A string cell.
    pub fn str(s: &'a str) -> Cell<'a> {
        Cell::Bytes(s.as_bytes())
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Cell::Null)
    }

    /// Appends this value as a text-row field: `FB` for NULL, else its text form as a
    /// `string<lenenc>`. `frac_digits` fixes the number of fractional-second digits of
    /// DATETIME / TIME values (`None`: 6 when micros ≠ 0, none otherwise).
    pub fn write_text_field(&self, out: &mut Vec<u8>, frac_digits: Option<u8>) {
        match self {
            Cell::Null => out.push(NULL_MARKER),
            Cell::Bytes(b) => put_lenenc_bytes(out, b),
            other => {
                let mut text = TextBuf::new();
                // TextBuf is large enough for every non-Bytes form.
                let _ = other.write_text(&mut text, frac_digits);
                put_lenenc_bytes(out, text.as_bytes());
            }
        }
    }

    /// Writes the text form of this value (nothing for NULL; bytes lossily as UTF-8).
    pub fn write_text(&self, f: &mut impl Write, frac_digits: Option<u8>) -> fmt::Result {
        match *self {
            Cell::Null => Ok(()),
            Cell::Int(v) => write!(f, "{v}"),
            Cell::UInt(v) => write!(f, "{v}"),
            Cell::Float(v) => write_float(f, v),
            Cell::Double(v) => write_double(f, v),
            Cell::Bytes(b) => f.write_str(&String::from_utf8_lossy(b)),
            Cell::Date(d) => write_date(f, d),
            Cell::DateTime(dt) => write_datetime(f, &dt, frac_digits),
            Cell::Time(t) => write_time(f, &t, frac_digits),
        }
    }

    /// The text form as a `String` (tests, diagnostics).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = self.write_text(&mut s, None);
        s
    }
}

/// Exponents (of the first significant digit) printed in fixed notation.
const FIXED_EXPONENTS: std::ops::RangeInclusive<i32> = -15..=14;

/// Writes a DOUBLE the way MySQL prints it: shortest round-trip digits, `1e20` style beyond
/// the fixed-notation range.
pub fn write_double(f: &mut impl Write, v: f64) -> fmt::Result {
    if v == 0.0 {
        // Negative zero too, as MariaDB sends it (`-0e0`, `ROUND(-0.4e0)` are 0).
        return f.write_str("0");
    }
    write_shortest(f, v, !v.is_finite())
}

/// Writes a FLOAT the way MariaDB prints it: rounded to six significant digits (its `FLT_DIG`),
/// then shortest digits of that, same notation rule (`20200102` is `20200100`, `f32::MAX`
/// `3.40282e38`).
pub fn write_float(f: &mut impl Write, v: f32) -> fmt::Result {
    if v == 0.0 {
        // Negative zero too, as for a DOUBLE.
        return f.write_str("0");
    }
    if !v.is_finite() {
        return write_shortest(f, v, true);
    }
    let mut six = TextBuf::new();
    write!(six, "{:.5e}", f64::from(v))?;
    let rounded: f64 = six.as_str().parse().unwrap_or(f64::from(v));
    write_shortest(f, rounded, false)
}

/// Rust's `{}` and `{:e}` both print the shortest round-trip digits; pick the notation by
/// the decimal exponent of the first significant digit.
fn write_shortest<T: fmt::Display + fmt::LowerExp>(
    f: &mut impl Write,
    v: T,
    plain: bool,
) -> fmt::Result {
    if plain {
        return write!(f, "{v}");
    }
    let mut sci = TextBuf::new();
    write!(sci, "{v:e}")?;
    match exponent_of(sci.as_str()) {
        Some(e) if FIXED_EXPONENTS.contains(&e) => write!(f, "{v}"),
        _ => f.write_str(sci.as_str()),
    }
}

fn exponent_of(sci: &str) -> Option<i32> {
    sci.rsplit_once('e')?.1.parse().ok()
}

fn write_date(f: &mut impl Write, d: Date) -> fmt::Result {
    write!(f, "{:04}-{:02}-{:02}", d.year, d.month, d.day)
}

fn write_datetime(f: &mut impl Write, dt: &DateTime, frac_digits: Option<u8>) -> fmt::Result {
    write_date(f, dt.date())?;
    write!(f, " {:02}:{:02}:{:02}", dt.hour, dt.minute, dt.second)?;
    write_fraction(f, dt.micros, frac_digits)
}

fn write_time(f: &mut impl Write, t: &Time, frac_digits: Option<u8>) -> fmt::Result {
    let hours = u64::from(t.days) * 24 + u64::from(t.hours);
    let sign = if t.negative && !t.is_zero() { "-" } else { "" };
    write!(f, "{sign}{hours:02}:{:02}:{:02}", t.minutes, t.seconds)?;
    write_fraction(f, t.micros, frac_digits)
}

/// `.ffffff` truncated to `digits` (default: all 6 when non-zero, none when zero).
fn write_fraction(f: &mut impl Write, micros: u32, digits: Option<u8>) -> fmt::Result {
    let digits = match digits {
        Some(d) => u32::from(d.min(6)),
        None if micros != 0 => 6,
        None => 0,
    };
    if digits == 0 {
        return Ok(());
    }
    let scaled = micros.min(999_999) / 10u32.pow(6 - digits);
    write!(f, ".{scaled:0width$}", width = digits as usize)
}

/// A small stack buffer for number and date text (no allocation per cell).
struct TextBuf {
    bytes: [u8; 64],
    len: usize,
}

impl TextBuf {
    fn new() -> TextBuf {
        TextBuf {
            bytes: [0; 64],
            len: 0,
        }
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    fn as_str(&self) -> &str {
        // Only `write_str` fills the buffer, with whole `&str`s.
        std::str::from_utf8(self.as_bytes()).unwrap_or("")
    }
}

impl Write for TextBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        if end > self.bytes.len() {
            return Err(fmt::Error);
        }
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// One decoded COM_STMT_EXECUTE parameter.
///
/// Integers normalise like the server's `Value`: every value that fits in `i64` is `Int`
/// (whatever its wire type and unsigned flag); `UInt` only holds unsigned values above
/// `i64::MAX`. FLOAT parameters widen to `Double`.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    Null,
    Int(i64),
    UInt(u64),
    Double(f64),
    Bytes(Vec<u8>),
    Date(Date),
    DateTime(DateTime),
    Time(Time),
}

impl ParamValue {
    /// Copies a decoded cell into an owned parameter, normalising integers.
    pub fn from_cell(cell: Cell<'_>) -> ParamValue {
        match cell {
            Cell::Null => ParamValue::Null,
            Cell::Int(v) => ParamValue::Int(v),
            Cell::UInt(v) => match i64::try_from(v) {
                Ok(v) => ParamValue::Int(v),
                Err(_) => ParamValue::UInt(v),
            },
            Cell::Float(v) => ParamValue::Double(f64::from(v)),
            Cell::Double(v) => ParamValue::Double(v),
            Cell::Bytes(b) => ParamValue::Bytes(b.to_vec()),
            Cell::Date(d) => ParamValue::Date(d),
            Cell::DateTime(dt) => ParamValue::DateTime(dt),
            Cell::Time(t) => ParamValue::Time(t),
        }
    }

    /// Borrows this parameter as a cell (e.g. to echo it back or re-encode it).
    pub fn as_cell(&self) -> Cell<'_> {
        match self {
            ParamValue::Null => Cell::Null,
            ParamValue::Int(v) => Cell::Int(*v),
            ParamValue::UInt(v) => Cell::UInt(*v),
            ParamValue::Double(v) => Cell::Double(*v),
            ParamValue::Bytes(b) => Cell::Bytes(b),
            ParamValue::Date(d) => Cell::Date(*d),
            ParamValue::DateTime(dt) => Cell::DateTime(*dt),
            ParamValue::Time(t) => Cell::Time(*t),
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, ParamValue::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn double(v: f64) -> String {
        Cell::Double(v).to_text()
    }

    #[test]
    fn doubles_print_like_mysql() {
        assert_eq!(double(1.5), "1.5");
        assert_eq!(double(1e20), "1e20");
        assert_eq!(double(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(double(1e14), "100000000000000");
        assert_eq!(double(1e15), "1e15");
        assert_eq!(double(2.3e14), "230000000000000");
        assert_eq!(double(2.3e15), "2.3e15");
        assert_eq!(double(1e-15), "0.000000000000001");
        assert_eq!(double(1e-16), "1e-16");
        assert_eq!(double(3.4e-15), "0.0000000000000034");
        assert_eq!(double(3.4e-16), "3.4e-16");
        assert_eq!(double(1.2345678901234567e19), "1.2345678901234567e19");
        assert_eq!(double(-44000.0), "-44000");
        assert_eq!(double(0.0), "0");
        assert_eq!(double(-2.5e-20), "-2.5e-20");
        assert_eq!(double(f64::MAX), "1.7976931348623157e308");
    }

    #[test]
    fn floats_show_six_significant_digits() {
        assert_eq!(Cell::Float(0.1).to_text(), "0.1");
        assert_eq!(Cell::Float(3.4028235e38).to_text(), "3.40282e38");
        assert_eq!(Cell::Float(-1.25).to_text(), "-1.25");
        assert_eq!(Cell::Float(20200102.0).to_text(), "20200100");
        assert_eq!(Cell::Float(1.2345678).to_text(), "1.23457");
        assert_eq!(Cell::Float(1.5e15).to_text(), "1.5e15");
        assert_eq!(Cell::Float(1e-45).to_text(), "1.4013e-45");
        assert_eq!(Cell::Float(99999.95).to_text(), "100000");
    }

    #[test]
    fn integers_and_strings() {
        assert_eq!(Cell::Int(i64::MIN).to_text(), "-9223372036854775808");
        assert_eq!(Cell::UInt(u64::MAX).to_text(), "18446744073709551615");
        assert_eq!(Cell::str("abc").to_text(), "abc");
    }

    #[test]
    fn temporal_text() {
        let d = Date {
            year: 2024,
            month: 2,
            day: 9,
        };
        assert_eq!(Cell::Date(d).to_text(), "2024-02-09");
        let mut dt = DateTime::from(d);
        dt.hour = 7;
        dt.second = 5;
        assert_eq!(Cell::DateTime(dt).to_text(), "2024-02-09 07:00:05");
        dt.micros = 120;
        assert_eq!(Cell::DateTime(dt).to_text(), "2024-02-09 07:00:05.000120");
        let mut s = String::new();
        Cell::DateTime(dt).write_text(&mut s, Some(3)).unwrap();
        assert_eq!(s, "2024-02-09 07:00:05.000");
        let t = Time {
            negative: true,
            days: 1,
            hours: 2,
            minutes: 3,
            seconds: 4,
            micros: 500_000,
        };
        assert_eq!(Cell::Time(t).to_text(), "-26:03:04.500000");
        assert_eq!(Cell::Time(Time::default()).to_text(), "00:00:00");
    }

    #[test]
    fn text_field_encoding() {
        let mut out = Vec::new();
        Cell::Null.write_text_field(&mut out, None);
        Cell::Int(28).write_text_field(&mut out, None);
        Cell::str("").write_text_field(&mut out, None);
        assert_eq!(out, [0xFB, 2, b'2', b'8', 0]);
    }

    #[test]
    fn param_values_normalise_integers() {
        assert_eq!(ParamValue::from_cell(Cell::UInt(5)), ParamValue::Int(5));
        assert_eq!(
            ParamValue::from_cell(Cell::UInt(u64::MAX)),
            ParamValue::UInt(u64::MAX)
        );
        assert_eq!(
            ParamValue::from_cell(Cell::Float(0.5)),
            ParamValue::Double(0.5)
        );
        let p = ParamValue::Bytes(b"xy".to_vec());
        assert_eq!(p.as_cell(), Cell::Bytes(b"xy"));
    }
}
