//! Value conversions with MySQL's rules: strings to numbers and dates, numbers to strings, and
//! the conversion of a value assigned to a column (INSERT / UPDATE), which is where strict
//! mode decides between an error and a warning.
//!
//! | target column | accepted | strict-mode error (non-strict: warning + adjusted value) |
//! |---|---|---|
//! | integer | numbers (rounded), numeric strings, dates | 1264 out of range (clamped), 1366 not a number (0), 1265 trailing garbage (prefix) |
//! | DECIMAL(p,s) | numbers and numeric strings, rounded to `s` (note 1265) | 1264 (clamped), 1366 |
//! | FLOAT / DOUBLE | numbers and numeric strings | 1366 |
//! | CHAR / VARCHAR / TEXT | anything, printed; must be valid UTF-8 | 1406 too long (truncated), 1366 bad UTF-8 |
//! | BINARY / VARBINARY / BLOB | anything, printed | 1406 |
//! | DATE / DATETIME / TIMESTAMP | dates, date strings, YYYYMMDD[hhmmss] numbers | 1292 incorrect value (zero date) |

use crate::error::{Error, Result};
use crate::session::state::Warning;
use crate::storage::ColumnDef;
use crate::types::collation::Charset;
use crate::types::{latin1, DataType, Date, DateTime, Decimal, Value};
use cohort_decimal::{ParseError, Rounding};
use cohort_protocol::ErrorCode;
use std::borrow::Cow;
use std::cell::RefCell;

/// A number in the most exact form available.
#[derive(Clone, Debug, PartialEq)]
pub enum Num {
    I(i64),
    U(u64),
    D(Decimal),
    F(f64),
}

impl Num {
    pub fn to_f64(&self) -> f64 {
        match self {
            Num::I(i) => *i as f64,
            Num::U(u) => *u as f64,
            Num::D(d) => d.to_f64(),
            Num::F(f) => *f,
        }
    }

    /// The exact decimal of an integer or decimal; a DOUBLE's shortest digits. None for NaN,
    /// infinities and doubles beyond the decimal range.
    pub fn to_decimal(&self) -> Option<Decimal> {
        match self {
            Num::I(i) => Some(Decimal::from(*i)),
            Num::U(u) => Some(Decimal::from(*u)),
            Num::D(d) => Some(d.clone()),
            Num::F(f) => Decimal::from_f64(*f)?.ok(),
        }
    }

    /// True for the exact kinds (integers and decimals).
    pub fn is_exact(&self) -> bool {
        !matches!(self, Num::F(_))
    }

    /// Rounded to an integer (half away from zero), saturating.
    pub fn to_i128(&self) -> i128 {
        match self {
            Num::I(i) => *i as i128,
            Num::U(u) => *u as i128,
            Num::D(d) => d.to_i128(Rounding::HalfUp).unwrap_or(if d.is_negative() {
                i128::MIN
            } else {
                i128::MAX
            }),
            Num::F(f) => {
                if f.is_nan() {
                    0
                } else {
                    // Half to even, as MariaDB's rint: CAST(2.5e0 AS SIGNED) is 2.
                    f.round_ties_even().clamp(-1.7e38, 1.7e38) as i128
                }
            }
        }
    }

    pub fn is_zero(&self) -> bool {
        match self {
            Num::I(i) => *i == 0,
            Num::U(u) => *u == 0,
            Num::D(d) => d.is_zero(),
            Num::F(f) => *f == 0.0,
        }
    }

    pub fn into_value(self) -> Value {
        match self {
            Num::I(i) => Value::Int(i),
            Num::U(u) => Value::UInt(u),
            Num::D(d) => Value::Decimal(d),
            Num::F(f) => Value::Double(f),
        }
    }
}

/// The numeric prefix of a string: the number, how many bytes it used, and whether the whole
/// string (but surrounding spaces) was a number.
pub struct ParsedNum {
    pub num: Num,
    pub used: usize,
    pub complete: bool,
}

/// Parse the numeric prefix of `s` as MySQL does in a numeric context.
pub fn parse_num(s: &[u8]) -> ParsedNum {
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_whitespace() {
        i += 1;
    }
    let start = i;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        i += 1;
    }
    let int_start = i;
    while i < s.len() && s[i].is_ascii_digit() {
        i += 1;
    }
    let mut int_digits = i - int_start;
    let mut frac = false;
    if i < s.len() && s[i] == b'.' {
        let dot = i;
        i += 1;
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
        let frac_digits = i - dot - 1;
        if frac_digits > 0 {
            frac = true;
        } else if int_digits == 0 {
            // A lone '.' is not a number: nothing of it is used.
            i = dot;
        }
        int_digits += frac_digits;
    }
    if int_digits == 0 {
        return ParsedNum {
            num: Num::I(0),
            used: 0,
            complete: false,
        };
    }
    let mut exp = false;
    if i < s.len() && (s[i] == b'e' || s[i] == b'E') {
        let mut j = i + 1;
        if j < s.len() && (s[j] == b'+' || s[j] == b'-') {
            j += 1;
        }
        let ds = j;
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
        }
        if j > ds {
            exp = true;
            i = j;
        }
    }
    let text = std::str::from_utf8(&s[start..i]).unwrap_or("0");
    let num = number_from_text(text, frac, exp);
    let rest = &s[i..];
    ParsedNum {
        num,
        used: i,
        complete: rest.iter().all(|c| c.is_ascii_whitespace()),
    }
}

fn number_from_text(text: &str, frac: bool, exp: bool) -> Num {
    if !frac && !exp {
        if let Ok(i) = text.parse::<i64>() {
            return Num::I(i);
        }
        if let Ok(u) = text.trim_start_matches('+').parse::<u64>() {
            return Num::U(u);
        }
    }
    if !exp {
        if let Ok(p) = Decimal::parse(text.as_bytes()) {
            return Num::D(p.value);
        }
    }
    Num::F(text.parse::<f64>().unwrap_or(0.0))
}

/// The exact decimal of the numeric prefix of a string (exponents included: `'1.5e3'` is
/// 1500), with the prefix's [`ParsedNum`]. The value is None when there is no prefix or it
/// overflows the decimal range (the caller reports the problem); `Some(Err)` on overflow.
pub fn parse_decimal(s: &[u8]) -> (ParsedNum, Option<Result<Decimal, ParseError>>) {
    let p = parse_num(s);
    if p.used == 0 {
        return (p, None);
    }
    let text = s[..p.used].trim_ascii_start();
    let d = Decimal::parse(text).map(|x| x.value);
    (p, Some(d))
}

/// A value in a numeric context (lossy: strings use their numeric prefix).
pub fn to_num(v: &Value) -> Num {
    match v {
        Value::Null => Num::I(0),
        Value::Int(i) => Num::I(*i),
        Value::UInt(u) => Num::U(*u),
        Value::Double(f) => Num::F(*f),
        Value::Decimal(d) => Num::D(d.clone()),
        Value::Bytes(b) => parse_num(b).num,
        Value::Date(d) => Num::I(date_number(*d)),
        Value::DateTime(dt) => {
            let n = date_number(dt.date) * 1_000_000
                + dt.hour as i64 * 10_000
                + dt.minute as i64 * 100
                + dt.second as i64;
            if dt.micros == 0 {
                Num::I(n)
            } else {
                Num::D(Decimal::new(n as i128 * 1_000_000 + dt.micros as i128, 6))
            }
        }
        Value::Time(t) => {
            match super::time_value::to_number(*t, if t % 1_000_000 != 0 { 6 } else { 0 }) {
                Value::Decimal(d) => Num::D(d),
                other => Num::I(to_i64(&other)),
            }
        }
    }
}

/// Like [`to_num`] but strings in arithmetic are DOUBLE, as in MySQL.
pub fn to_arith_num(v: &Value) -> Num {
    match v {
        Value::Bytes(b) => Num::F(parse_num(b).num.to_f64()),
        other => to_num(other),
    }
}

fn date_number(d: Date) -> i64 {
    d.year as i64 * 10_000 + d.month as i64 * 100 + d.day as i64
}

/// SQL truth value: NULL is unknown; numbers are true when non-zero; strings by their number.
pub fn to_bool(v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i != 0),
        Value::UInt(u) => Some(*u != 0),
        Value::Double(f) => Some(*f != 0.0),
        Value::Decimal(d) => Some(!d.is_zero()),
        Value::Bytes(b) => Some(parse_num(b).num.to_f64() != 0.0),
        Value::Date(_) | Value::DateTime(_) => Some(!to_num(v).is_zero()),
        Value::Time(t) => Some(*t != 0),
    }
}

/// Integer value (rounded, saturating to i64).
pub fn to_i64(v: &Value) -> i64 {
    to_num(v)
        .to_i128()
        .clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

/// The text of a value (what CONCAT or a string column sees).
pub fn to_text(v: &Value) -> Cow<'_, [u8]> {
    match v {
        Value::Bytes(b) => Cow::Borrowed(b.as_slice()),
        Value::Null => Cow::Borrowed(&[]),
        Value::Int(i) => Cow::Owned(i.to_string().into_bytes()),
        Value::UInt(u) => Cow::Owned(u.to_string().into_bytes()),
        Value::Double(f) => Cow::Owned(format_double(*f).into_bytes()),
        Value::Decimal(d) => Cow::Owned(d.to_string().into_bytes()),
        Value::Date(d) => Cow::Owned(d.to_string().into_bytes()),
        Value::DateTime(dt) => Cow::Owned(dt.to_string().into_bytes()),
        Value::Time(t) => Cow::Owned(super::time_value::format(*t, None).into_bytes()),
    }
}

/// The text of a value as a `String` (lossy for invalid UTF-8).
pub fn to_string(v: &Value) -> String {
    String::from_utf8_lossy(&to_text(v)).into_owned()
}

/// A DOUBLE printed like MariaDB: shortest round-trip digits, exponent form outside
/// `1e-15 ..< 1e15` (`-0.000000006984919312868695`, `1.5e-16`, `1e15`); zero is `0`, also
/// negative zero (`-c` of a zero FLOAT column is `0`).
pub fn format_double(f: f64) -> String {
    if f == 0.0 {
        return "0".to_string();
    }
    if !f.is_finite() {
        return if f.is_nan() { "NaN" } else { "inf" }.to_string();
    }
    let exp = f.abs().log10().floor() as i32;
    if !(-15..15).contains(&exp) {
        let s = format!("{f:e}");
        return s;
    }
    format!("{f}")
}

/// Bytes converted to utf8mb4 as MariaDB converts a binary string (`CAST(b AS CHAR)`): valid
/// UTF-8 stays, every byte of no character becomes '?' (`X'0041FF'` is '\0A?').
pub fn utf8_or_question_marks(b: Vec<u8>) -> Vec<u8> {
    if std::str::from_utf8(&b).is_ok() {
        return b;
    }
    let mut out = Vec::with_capacity(b.len());
    let mut rest = &b[..];
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.extend_from_slice(s.as_bytes());
                break;
            }
            Err(e) => {
                let good = e.valid_up_to();
                out.extend_from_slice(&rest[..good]);
                out.push(b'?');
                rest = &rest[good + 1..];
            }
        }
    }
    out
}

/// A DOUBLE of a type with `d` fixed decimals printed like MariaDB: exactly `d` fractional
/// digits (`2.500`); an integer part past 1e15 keeps a double's digits and then zeros.
pub fn format_double_fixed(f: f64, d: u8) -> String {
    if !f.is_finite() {
        return format_double(f);
    }
    let d = usize::from(d);
    // Display never uses an exponent: the shortest round-trip digits, padded with zeros.
    let shortest = format!("{}", if f == 0.0 { 0.0 } else { f });
    let frac = shortest.find('.').map_or(0, |dot| shortest.len() - dot - 1);
    if frac > d {
        let r = format!("{f:.d$}");
        // Rounding to `d` places may leave a negative zero ('-0.00'): MariaDB shows '0.00'.
        if r.starts_with('-') && r[1..].bytes().all(|b| b == b'0' || b == b'.') {
            return r[1..].to_string();
        }
        return r;
    }
    let mut s = shortest;
    if d > 0 {
        if frac == 0 {
            s.push('.');
        }
        s.extend(std::iter::repeat_n('0', d - frac));
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Dates

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// The date `days` after 1970-01-01.
pub fn civil_from_days(days: i64) -> Date {
    let z = days + 719468;
    let era = if z >= 0 { z } else { z - 146096 } / 146097;
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let y = if m <= 2 { y + 1 } else { y };
    Date {
        year: y.clamp(0, 9999) as u16,
        month: m,
        day: d,
    }
}

pub fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        _ => 31,
    }
}

/// Seconds since the epoch of a datetime taken as UTC.
pub fn unix_seconds(dt: &DateTime) -> i64 {
    days_from_civil(
        dt.date.year as i64,
        dt.date.month as u32,
        dt.date.day as u32,
    ) * 86_400
        + dt.hour as i64 * 3600
        + dt.minute as i64 * 60
        + dt.second as i64
}

/// The UTC datetime of `secs` seconds and `micros` microseconds after the epoch.
pub fn datetime_from_unix(secs: i64, micros: u32) -> DateTime {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    DateTime {
        date: civil_from_days(days),
        hour: (rem / 3600) as u8,
        minute: (rem / 60 % 60) as u8,
        second: (rem % 60) as u8,
        micros,
    }
}

/// The current UTC time.
pub fn now_utc() -> DateTime {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    datetime_from_unix(d.as_secs() as i64, d.subsec_micros())
}

/// Cut the microseconds of `dt` to `fsp` digits, as MariaDB stores and casts a datetime
/// (rounding is sql_mode TIME_ROUND_FRACTIONAL's, which Cohort refuses: `sql/sql_mode.rs`).
pub fn truncate_fsp(dt: DateTime, fsp: u8) -> DateTime {
    if fsp >= 6 {
        return dt;
    }
    let unit = 10u32.pow(6 - fsp as u32);
    DateTime {
        micros: dt.micros - dt.micros % unit,
        ..dt
    }
}

/// Parse a date or datetime string: `YYYY-MM-DD[ HH:MM[:SS[.ffffff]]]` (any punctuation as
/// delimiter, `T` before the time), `YYYYMMDD[HHMMSS]`, `YYMMDD[HHMMSS]`. The flag says
/// whether a time part was present.
pub fn parse_datetime(s: &[u8]) -> Option<(DateTime, bool)> {
    let s = std::str::from_utf8(s).ok()?.trim();
    if s.is_empty() {
        return None;
    }
    if s.bytes().all(|c| c.is_ascii_digit()) {
        return parse_compact(s);
    }
    let (date_part, time_part) = match s.find([' ', 'T']) {
        Some(p) => (&s[..p], Some(s[p + 1..].trim())),
        None => (s, None),
    };
    let dp: Vec<&str> = date_part
        .split(|c: char| c.is_ascii_punctuation())
        .collect();
    if dp.len() != 3
        || dp
            .iter()
            .any(|p| p.is_empty() || !p.bytes().all(|c| c.is_ascii_digit()))
    {
        return None;
    }
    let mut year: u32 = dp[0].parse().ok()?;
    if dp[0].len() <= 2 {
        year += if year < 70 { 2000 } else { 1900 };
    }
    let date = make_date(year, dp[1].parse().ok()?, dp[2].parse().ok()?)?;
    let mut dt = DateTime {
        date,
        ..DateTime::default()
    };
    let Some(tp) = time_part.filter(|t| !t.is_empty()) else {
        return Some((dt, false));
    };
    let (hms, frac) = match tp.find('.') {
        Some(p) => (&tp[..p], Some(&tp[p + 1..])),
        None => (tp, None),
    };
    let tparts: Vec<&str> = hms.split(':').collect();
    if tparts.len() > 3 {
        return None;
    }
    let num = |p: &str| -> Option<u8> {
        if p.is_empty() || p.len() > 2 || !p.bytes().all(|c| c.is_ascii_digit()) {
            None
        } else {
            p.parse().ok()
        }
    };
    dt.hour = num(tparts[0])?;
    dt.minute = if tparts.len() >= 2 {
        num(tparts[1])?
    } else {
        0
    };
    dt.second = if tparts.len() == 3 {
        num(tparts[2])?
    } else {
        0
    };
    if dt.hour > 23 || dt.minute > 59 || dt.second > 59 {
        return None;
    }
    if let Some(f) = frac {
        if !f.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let digits: String = f.chars().chain(std::iter::repeat('0')).take(6).collect();
        dt.micros = digits.parse().ok()?;
    }
    Some((dt, true))
}

fn parse_compact(s: &str) -> Option<(DateTime, bool)> {
    let n = |r: std::ops::Range<usize>| -> Option<u32> { s.get(r)?.parse().ok() };
    let (year, rest) = match s.len() {
        8 | 14 => (n(0..4)?, 4),
        6 | 12 => {
            let y = n(0..2)?;
            (y + if y < 70 { 2000 } else { 1900 }, 2)
        }
        5 | 7 | 9 | 10 | 11 | 13 => return parse_compact_groups(s),
        _ => return None,
    };
    let date = make_date(year, n(rest..rest + 2)?, n(rest + 2..rest + 4)?)?;
    let mut dt = DateTime {
        date,
        ..DateTime::default()
    };
    if s.len() == 14 || s.len() == 12 {
        let t = rest + 4;
        dt.hour = n(t..t + 2)? as u8;
        dt.minute = n(t + 2..t + 4)? as u8;
        dt.second = n(t + 4..t + 6)? as u8;
        if dt.hour > 23 || dt.minute > 59 || dt.second > 59 {
            return None;
        }
        return Some((dt, true));
    }
    Some((dt, false))
}

/// Digits of another length (5, 7, 9–11, 13), as MariaDB reads them: a two-digit year, then
/// month, day, hour, minute and second two digits each, the last one or two (`'30011'` is
/// 2030-01-01, `'30010112345'` 2030-01-01 12:34:05); a 13th digit is a fraction, dropped.
fn parse_compact_groups(s: &str) -> Option<(DateTime, bool)> {
    let b = s.as_bytes();
    let mut fields = [0u32; 6];
    for (k, chunk) in b.chunks(2).take(6).enumerate() {
        fields[k] = chunk.iter().fold(0, |a, &c| a * 10 + u32::from(c - b'0'));
    }
    let y = fields[0];
    let date = make_date(y + if y < 70 { 2000 } else { 1900 }, fields[1], fields[2])?;
    let (hour, minute, second) = (fields[3], fields[4], fields[5]);
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let dt = DateTime {
        date,
        hour: hour as u8,
        minute: minute as u8,
        second: second as u8,
        ..DateTime::default()
    };
    Some((dt, s.len() > 6))
}

/// A valid date (zero month/day allowed, as without NO_ZERO_IN_DATE).
fn make_date(year: u32, month: u32, day: u32) -> Option<Date> {
    if year > 9999 || month > 12 || day > 31 {
        return None;
    }
    if month > 0 && day > days_in_month(year as u16, month as u8) as u32 {
        return None;
    }
    Some(Date {
        year: year as u16,
        month: month as u8,
        day: day as u8,
    })
}

/// A number as a datetime, the way MariaDB reads one: `YYMMDD`, `YYYYMMDD`, `YYMMDDhhmmss`
/// or `YYYYMMDDhhmmss`, a two-digit year meaning 2000–2069 below 70 and 1970–1999 from 70.
/// Numbers between the shapes (below 101, 691232–700100, 991232–10000100, …) are not dates,
/// and 0 is the zero date.
pub fn datetime_from_number(n: i128) -> Option<(DateTime, bool)> {
    // (smallest valid, largest valid, added to make it YYYYMMDD[hhmmss], digits)
    const SHAPES: [(i128, i128, i128, usize); 6] = [
        (101, 691_231, 20_000_000, 8),
        (700_101, 991_231, 19_000_000, 8),
        (10_000_101, 99_991_231, 0, 8),
        (101_000_000, 691_231_235_959, 20_000_000_000_000, 14),
        (700_101_000_000, 991_231_235_959, 19_000_000_000_000, 14),
        (10_000_101_000_000, 99_991_231_235_959, 0, 14),
    ];
    if n == 0 {
        return parse_compact("00000000");
    }
    let &(_, _, add, width) = SHAPES
        .iter()
        .find(|(lo, hi, _, _)| (*lo..=*hi).contains(&n))?;
    parse_compact(&format!("{:0width$}", n + add))
}

/// The integer a string starts with, as CAST(… AS SIGNED) reads it: leading spaces, a sign,
/// digits; the rest (a fraction, an exponent, text) is ignored (`'1e2'` is 1, `' -3.9x'` is
/// -3). Saturates past the i128 range; 0 without digits. The flag says whether nothing but
/// trailing spaces followed.
pub fn integer_prefix(b: &[u8]) -> (i128, bool) {
    let mut i = 0;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    let neg = b.get(i) == Some(&b'-');
    if matches!(b.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let start = i;
    let mut n: i128 = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        n = n.saturating_mul(10).saturating_add(i128::from(b[i] - b'0'));
        i += 1;
    }
    let complete = i > start && b[i..].iter().all(|&c| c == b' ');
    (if neg { -n } else { n }, complete)
}

/// A number as a time of day for HOUR / MINUTE / SECOND, the way MariaDB reads one: `hhmmss`
/// (hours may exceed 23; minutes and seconds must be below 60), or a datetime from 8 digits
/// up. The sign is ignored (a negative time has the same parts).
pub fn time_parts_from_number(n: i128) -> Option<(u32, u8, u8)> {
    let n = n.abs();
    if n >= 10_000_000 {
        let (dt, _) = datetime_from_number(n)?;
        return Some((u32::from(dt.hour), dt.minute, dt.second));
    }
    let (h, m, s) = (n / 10_000, (n / 100) % 100, n % 100);
    if m > 59 || s > 59 {
        return None;
    }
    Some((h as u32, m as u8, s as u8))
}

/// Any value as a datetime (for comparisons): dates at midnight; invalid → zero.
pub fn to_datetime_lossy(v: &Value) -> DateTime {
    to_datetime(v).map(|(d, _)| d).unwrap_or_default()
}

/// Any value as a datetime the way an expression reads one (CAST, DATE(), HOUR(), …): a
/// string's leading datetime, what follows ignored ([`datetime_text::parse_lenient`]). A
/// column assignment reads strictly ([`to_datetime`]).
pub fn to_datetime_lenient(v: &Value) -> Option<(DateTime, bool)> {
    match v {
        Value::Bytes(b) => super::datetime_text::parse_lenient(b),
        other => to_datetime(other),
    }
}

/// Any value as a datetime, if it is one.
pub fn to_datetime(v: &Value) -> Option<(DateTime, bool)> {
    match v {
        Value::DateTime(dt) => Some((*dt, true)),
        Value::Date(d) => Some((
            DateTime {
                date: *d,
                ..DateTime::default()
            },
            false,
        )),
        Value::Bytes(b) => parse_datetime(b),
        Value::Null => None,
        other => {
            let whole = date_number_part(other)?;
            let (mut dt, timed) = datetime_from_number(whole)?;
            // YYYYMMDDhhmmss.ffffff: the fraction is the microseconds (cut to 6 digits); a
            // date-only number's fraction is dropped, as MariaDB reads them, but 0.5 is the
            // zero datetime and half a second.
            if timed || whole == 0 {
                dt.micros = number_micros(other);
            }
            Some((dt, timed))
        }
    }
}

/// The first six digits of a number's fraction, as microseconds.
fn number_micros(v: &Value) -> u32 {
    match to_num(v) {
        Num::D(d) if d.scale() > 0 => d
            .abs()
            .round_to(6, Rounding::Down)
            .and_then(|x| x.rescale(6))
            .ok()
            .and_then(|x| x.coefficient_u128())
            .map_or(0, |c| (c % 1_000_000) as u32),
        Num::F(f) if f.is_finite() => ((f.abs().fract() * 1e6) as u32).min(999_999),
        _ => 0,
    }
}

/// The integer part of a number read as a date (truncated: 20191231.7 is 2019-12-31); a
/// negative number is no date (-0.001 is NULL, -0.0 is zero).
fn date_number_part(v: &Value) -> Option<i128> {
    match to_num(v) {
        Num::I(i) => Some(i128::from(i)),
        Num::U(u) => Some(i128::from(u)),
        Num::D(d) => {
            let t = d.to_i128(Rounding::Down).unwrap_or(i128::MAX);
            (!d.is_negative() || d.is_zero()).then_some(t)
        }
        Num::F(f) => (f >= 0.0).then_some(f.trunc().min(1e30) as i128),
    }
}

// ---------------------------------------------------------------------------------------------
// Assignment to a column

/// Whether conversion problems are errors; looked up only when a problem occurs.
#[derive(Clone, Copy)]
pub enum Strict<'a> {
    Yes,
    No,
    /// The session's sql_mode decides.
    Mode(&'a crate::sql::env::Env<'a>),
    /// IGNORE: not strict, but the session's NO_ZERO_DATE / NO_ZERO_IN_DATE still turn a
    /// date they refuse into the zero date with a warning (as MariaDB's INSERT / UPDATE
    /// IGNORE).
    Ignore(&'a crate::sql::env::Env<'a>),
}

impl Strict<'_> {
    pub fn get(self) -> bool {
        match self {
            Strict::Yes => true,
            Strict::No | Strict::Ignore(_) => false,
            Strict::Mode(env) => env.strict(),
        }
    }
}

/// How problems found while converting a value for a column are reported.
pub struct StoreCtx<'a> {
    /// Strict mode (and no IGNORE): problems are errors.
    pub strict: Strict<'a>,
    /// 1-based row number within the statement, for messages.
    pub row: u64,
    pub warnings: &'a RefCell<Vec<Warning>>,
    /// The session's time zone (None: SYSTEM, or values copied as stored): a TIMESTAMP is
    /// given in it and kept in UTC.
    pub zone: Option<&'a crate::sql::time_zone::Zone>,
    /// The (database, table) a statement writes: MariaDB names a column `db`.`t`.`c` in a
    /// date's 1292; and only such a statement applies sql_mode's NO_ZERO_DATE /
    /// NO_ZERO_IN_DATE (not ALTER's copy, not a definition's default). None otherwise.
    pub table: Option<(&'a str, &'a str)>,
}

impl StoreCtx<'_> {
    fn problem(&self, code: ErrorCode, message: String) -> Result<()> {
        if self.strict.get() {
            return Err(Error::new(code, message));
        }
        self.warn("Warning", code, message);
        Ok(())
    }

    fn warn(&self, level: &'static str, code: ErrorCode, message: String) {
        self.warnings.borrow_mut().push(Warning {
            level,
            code: code.number(),
            message,
        });
    }

    fn out_of_range(&self, col: &ColumnDef) -> Result<()> {
        self.problem(
            ErrorCode::WarnDataOutOfRange,
            format!(
                "Out of range value for column '{}' at row {}",
                col.name, self.row
            ),
        )
    }

    fn truncated(&self, col: &ColumnDef) -> Result<()> {
        self.problem(
            ErrorCode::WarnDataTruncated,
            format!(
                "Data truncated for column '{}' at row {}",
                col.name, self.row
            ),
        )
    }

    fn incorrect(&self, what: &str, v: &[u8], col: &ColumnDef) -> Result<()> {
        let temporal = what.ends_with("date") || what.ends_with("time");
        let code = if temporal {
            ErrorCode::TruncatedWrongValue
        } else {
            ErrorCode::TruncatedWrongValueForField
        };
        let column = match self.table {
            Some((db, t)) if temporal => format!(
                "`{}`.`{}`.`{}`",
                db.replace('`', "``"),
                t.replace('`', "``"),
                col.name.replace('`', "``")
            ),
            _ => format!("'{}'", col.name),
        };
        self.problem(
            code,
            format!(
                "Incorrect {what} value: '{}' for column {column} at row {}",
                String::from_utf8_lossy(v),
                self.row
            ),
        )
    }
}

/// The first member of an ENUM: the default of a NOT NULL ENUM column without DEFAULT.
pub fn enum_first_member(dt: &DataType) -> Option<Value> {
    match dt {
        DataType::Enum { members, .. } => members.first().map(|m| Value::str(m)),
        _ => None,
    }
}

/// The "implicit default" of a type: what a NOT NULL column gets in non-strict mode.
pub fn implicit_default(dt: &DataType) -> Value {
    match dt {
        t if t.is_integer() && t.is_unsigned() => Value::UInt(0),
        t if t.is_integer() => Value::Int(0),
        DataType::Decimal { scale, .. } => Value::Decimal(Decimal::new(0, *scale)),
        DataType::Float { .. } | DataType::Double { .. } => Value::Double(0.0),
        DataType::Binary { len } => Value::Bytes(vec![0; *len as usize]),
        DataType::Date => Value::Date(Date::default()),
        DataType::DateTime { .. } | DataType::Timestamp { .. } => {
            Value::DateTime(DateTime::default())
        }
        DataType::Year => Value::Int(0),
        DataType::Time { .. } => Value::Time(0),
        DataType::Bit { .. } => Value::UInt(0),
        _ => Value::Bytes(Vec::new()),
    }
}

/// Convert `v` for storage in `col`. NULL passes through (the caller checks nullability).
pub fn store_value(v: Value, col: &ColumnDef, sc: &StoreCtx<'_>) -> Result<Value> {
    if v.is_null() {
        return Ok(v);
    }
    let dt = &col.data_type;
    match dt {
        t if t.is_integer() => store_int(v, col, sc),
        DataType::Decimal { precision, scale } => store_decimal(v, *precision, *scale, col, sc),
        DataType::Float { .. } | DataType::Double { .. } => store_double(v, col, sc),
        DataType::Char { len, .. } | DataType::VarChar { len, .. } => store_text(
            v,
            Some(*len as usize),
            None,
            matches!(dt, DataType::Char { .. }),
            col,
            sc,
        ),
        DataType::Text { max_bytes, .. } => {
            store_text(v, None, Some(*max_bytes as usize), false, col, sc)
        }
        DataType::Binary { len } => store_binary(v, *len as usize, true, col, sc),
        DataType::VarBinary { len } => store_binary(v, *len as usize, false, col, sc),
        DataType::Blob { max_bytes } => store_binary(
            v,
            (*max_bytes).min(usize::MAX as u64) as usize,
            false,
            col,
            sc,
        ),
        DataType::Date => store_date(v, col, sc),
        DataType::DateTime { fsp } => store_datetime(v, *fsp, false, col, sc),
        DataType::Timestamp { fsp } => store_datetime(v, *fsp, true, col, sc),
        DataType::Year => store_year(v, col, sc),
        DataType::Enum { .. } | DataType::Set { .. } => store_enum_or_set(v, col, sc),
        DataType::Time { fsp } => store_time(v, *fsp, col, sc),
        DataType::Bit { width } => store_bit(v, *width, col, sc),
        _ => Ok(v),
    }
}

/// Convert `v` for an ENUM or SET column, as MariaDB: a string names a member (the
/// collation's way) or, for SET, comma-separated members; a string that names none but is a
/// number, or a number, is the member position / bitmask. Anything else is 1265 (a warning
/// and '' — or the valid part of a SET — outside strict mode). The value kept is the text.
fn store_enum_or_set(v: Value, col: &ColumnDef, sc: &StoreCtx<'_>) -> Result<Value> {
    use crate::types::enumset;
    let dt = &col.data_type;
    let is_set = matches!(dt, DataType::Set { .. });
    let (members, coll) = match dt {
        DataType::Enum { members, collation } | DataType::Set { members, collation } => {
            (members, *collation)
        }
        _ => return Ok(v),
    };
    let limit: u64 = if is_set {
        if members.len() >= 64 {
            u64::MAX
        } else {
            (1u64 << members.len()) - 1
        }
    } else {
        members.len() as u64
    };
    // A number: the position / bitmask.
    let by_number = |n: i128, sc: &StoreCtx<'_>| -> Result<Value> {
        let ok = if is_set {
            n >= 0 && n as u64 <= limit
        } else {
            n >= 1 && n as u64 <= limit
        };
        if !ok {
            sc.truncated(col)?;
            let kept = if is_set && n > 0 {
                (n as u64) & limit
            } else {
                0
            };
            return Ok(Value::Bytes(enumset::text_of(dt, kept)));
        }
        Ok(Value::Bytes(enumset::text_of(dt, n as u64)))
    };
    match v {
        Value::Int(i) => by_number(i as i128, sc),
        Value::UInt(u) => by_number(u as i128, sc),
        Value::Double(_) | Value::Decimal(_) => by_number(to_num(&v).to_i128(), sc),
        other => {
            let b = match other {
                Value::Bytes(b) => b,
                o => to_text(&o).into_owned(),
            };
            let found = if is_set {
                enumset::set_bits(members, coll, &b).map(|bits| enumset::set_text(members, bits))
            } else {
                match enumset::enum_position(members, coll, &b) {
                    Some(i) => Ok(members[i - 1].as_bytes().to_vec()),
                    None => Err(0),
                }
            };
            match found {
                Ok(text) if !text.is_empty() || is_set => Ok(Value::Bytes(text)),
                Ok(_) | Err(_) => {
                    let p = parse_num(&b);
                    if p.used > 0 && p.complete && p.used == b.len() {
                        if let Num::I(n) = p.num {
                            return by_number(n as i128, sc);
                        }
                    }
                    sc.truncated(col)?;
                    let kept = match found {
                        Err(bits) if is_set => bits,
                        _ => 0,
                    };
                    Ok(Value::Bytes(enumset::text_of(dt, kept)))
                }
            }
        }
    }
}

/// Convert `v` for a YEAR column, as MariaDB: the number is rounded; 1901..=2155 is kept,
/// 1..=69 means 2001..=2069 and 70..=99 means 1970..=1999; 0 is the year `0000` for a number
/// or a 4-character string (`'0000'`), 2000 for any other string (`'0'`, `'00'`). Anything
/// else is out of range (1264) and stored as `0000`; text that is no number is 1366.
fn store_year(v: Value, col: &ColumnDef, sc: &StoreCtx<'_>) -> Result<Value> {
    let (n, zero_is_2000) = match &v {
        Value::Bytes(b) => {
            let p = parse_num(b);
            if p.used == 0 {
                sc.incorrect("integer", b, col)?;
                return Ok(Value::Int(0));
            }
            if !p.complete {
                sc.truncated(col)?;
            } else if p.used < b.len() {
                sc.warn(
                    "Note",
                    ErrorCode::WarnDataTruncated,
                    format!("Data truncated for column '{}' at row {}", col.name, sc.row),
                );
            }
            (p.num.to_i128(), b.len() != 4)
        }
        Value::Date(_) | Value::DateTime(_) => {
            let text = to_text(&v).into_owned();
            return store_year(Value::Bytes(text), col, sc);
        }
        other => (to_num(other).to_i128(), false),
    };
    Ok(Value::Int(match n {
        1901..=2155 => n as i64,
        0 if zero_is_2000 => 2000,
        0 => 0,
        1..=69 => 2000 + n as i64,
        70..=99 => 1900 + n as i64,
        _ => {
            sc.out_of_range(col)?;
            0
        }
    }))
}

/// Whether `v` is the year 0 of a YEAR table column, which MariaDB's text protocol prints as
/// `0000` (binary rows carry the number). A YEAR-typed expression such as `MAX(a)` prints its
/// number, `0`.
pub fn is_year_0000(v: &Value, c: &cohort_protocol::ColumnDefinition) -> bool {
    matches!(v, Value::Int(0))
        && c.column_type == cohort_protocol::ColumnType::YEAR
        && !c.org_table.is_empty()
}

/// The text of a YEAR value: four digits, `0000` for 0.
pub fn year_text(v: &Value) -> String {
    match v {
        Value::Int(n) => format!("{n:04}"),
        other => to_string(other),
    }
}

/// The range of an integer column type.
pub fn int_range(dt: &DataType) -> (i128, i128) {
    let bits = match dt {
        DataType::TinyInt { .. } => 8,
        DataType::SmallInt { .. } => 16,
        DataType::MediumInt { .. } => 24,
        DataType::Int { .. } => 32,
        _ => 64,
    };
    if dt.is_unsigned() {
        (0, (1i128 << bits) - 1)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    }
}

fn int_value(n: i128, dt: &DataType) -> Value {
    if dt.is_unsigned() {
        Value::UInt(n as u64)
    } else {
        Value::Int(n as i64)
    }
}

fn store_int(v: Value, col: &ColumnDef, sc: &StoreCtx<'_>) -> Result<Value> {
    let n = match &v {
        Value::Bytes(b) => {
            let p = parse_num(b);
            if p.used == 0 {
                sc.incorrect("integer", b, col)?;
            } else if !p.complete {
                sc.truncated(col)?;
            }
            if let Num::F(f) = p.num {
                if !f.is_finite() {
                    sc.out_of_range(col)?;
                }
            }
            p.num.to_i128()
        }
        other => to_num(other).to_i128(),
    };
    let (min, max) = int_range(&col.data_type);
    if n < min || n > max {
        sc.out_of_range(col)?;
        return Ok(int_value(n.clamp(min, max), &col.data_type));
    }
    Ok(int_value(n, &col.data_type))
}

/// Convert `v` for a `DECIMAL(precision, scale)` column: rounded half up to `scale` (note
/// 1265 when digits are lost), out of range → 1264 and the nearest limit.
fn store_decimal(
    v: Value,
    precision: u8,
    scale: u8,
    col: &ColumnDef,
    sc: &StoreCtx<'_>,
) -> Result<Value> {
    let exact = match &v {
        Value::Bytes(b) => {
            let (p, d) = parse_decimal(b);
            if p.used == 0 {
                sc.incorrect("decimal", b, col)?;
            } else if !p.complete {
                sc.truncated(col)?;
            } else if p.used < b.len() {
                // Only spaces follow the number: a note, as MariaDB.
                sc.warn(
                    "Note",
                    ErrorCode::WarnDataTruncated,
                    format!("Data truncated for column '{}' at row {}", col.name, sc.row),
                );
            }
            match d {
                None => Ok(Decimal::ZERO),
                Some(Ok(d)) => Ok(d),
                Some(Err(_)) => Err(!b.trim_ascii_start().starts_with(b"-")),
            }
        }
        Value::Double(f) => match Decimal::from_f64(*f) {
            Some(Ok(d)) => Ok(d),
            Some(Err(_)) => Err(*f > 0.0),
            None if f.is_nan() => Ok(Decimal::ZERO),
            None => Err(*f > 0.0),
        },
        other => to_num(other).to_decimal().ok_or(false),
    };
    let max = Decimal::max_of(precision, scale);
    let d = match exact {
        Ok(d) => d,
        Err(positive) => {
            sc.out_of_range(col)?;
            return Ok(Value::Decimal(if positive { max } else { max.neg() }));
        }
    };
    let int_digits = precision.saturating_sub(scale) as u32;
    let r = match d.rescale(scale) {
        Ok(r) if r.fits_integer_digits(int_digits) => r,
        _ => {
            sc.out_of_range(col)?;
            return Ok(Value::Decimal(if d.is_negative() {
                max.neg()
            } else {
                max
            }));
        }
    };
    if r != d {
        sc.warn(
            "Note",
            ErrorCode::WarnDataTruncated,
            format!("Data truncated for column '{}' at row {}", col.name, sc.row),
        );
    }
    Ok(Value::Decimal(r))
}

fn store_double(v: Value, col: &ColumnDef, sc: &StoreCtx<'_>) -> Result<Value> {
    let f = match &v {
        Value::Bytes(b) => {
            let p = parse_num(b);
            if p.used == 0 {
                sc.incorrect("double", b, col)?;
            } else if !p.complete {
                sc.truncated(col)?;
            }
            p.num.to_f64()
        }
        other => to_num(other).to_f64(),
    };
    let (single, unsigned, m_d) = match &col.data_type {
        DataType::Float { unsigned, m_d } => (true, *unsigned, *m_d),
        DataType::Double { unsigned, m_d } => (false, *unsigned, *m_d),
        _ => (false, false, None),
    };
    let mut f = f;
    if unsigned && f < 0.0 {
        sc.out_of_range(col)?;
        f = 0.0;
    }
    if let Some((m, d)) = m_d {
        let (r, clipped) = super::float_m_d::round_to(f, m, d, single);
        if clipped {
            sc.out_of_range(col)?;
        }
        f = r;
    }
    if single {
        let g = f as f32;
        if g.is_infinite() && f.is_finite() {
            sc.out_of_range(col)?;
            return Ok(Value::Double(f32::MAX.copysign(g) as f64));
        }
        return Ok(Value::Double(g as f64));
    }
    Ok(Value::Double(f))
}

fn store_text(
    v: Value,
    max_chars: Option<usize>,
    max_bytes: Option<usize>,
    is_char: bool,
    col: &ColumnDef,
    sc: &StoreCtx<'_>,
) -> Result<Value> {
    let mut bytes = match v {
        Value::Bytes(b) => b,
        other => to_text(&other).into_owned(),
    };
    let latin1_col = col.data_type.collation().charset() == Charset::Latin1;
    if latin1_col && std::str::from_utf8(&bytes).is_err() {
        // Bytes that are no UTF-8 come from a binary string (`X'C4'`): a latin1 column
        // reads them as latin1, every byte a character, as MariaDB does.
        bytes = latin1::decode(&bytes).into_bytes();
    }
    if let Err(e) = std::str::from_utf8(&bytes) {
        let bad = &bytes[e.valid_up_to()..];
        let shown: String = bad.iter().take(4).map(|b| format!("\\x{b:02X}")).collect();
        sc.problem(
            ErrorCode::TruncatedWrongValueForField,
            format!(
                "Incorrect string value: '{shown}' for column '{}' at row {}",
                col.name, sc.row
            ),
        )?;
        bytes = String::from_utf8_lossy(&bytes).into_owned().into_bytes();
    }
    let (max_chars, max_bytes) = match col.data_type.collation().charset() {
        Charset::Utf8mb3 => {
            outside_charset(&mut bytes, |c| (c as u32) <= 0xFFFF, col, sc)?;
            (max_chars, max_bytes)
        }
        Charset::Latin1 => {
            outside_charset(&mut bytes, |c| latin1::encode_char(c).is_some(), col, sc)?;
            // One byte a character: a TEXT's byte bound is a character bound.
            (max_chars.or(max_bytes), None)
        }
        _ => (max_chars, max_bytes),
    };
    if let Some(max) = max_chars {
        if bytes.len() > max {
            let s = std::str::from_utf8(&bytes).unwrap_or("");
            if let Some((cut, _)) = s.char_indices().nth(max) {
                truncate_excess(&mut bytes, cut, col, sc)?;
            }
        }
    }
    if let Some(max) = max_bytes {
        if bytes.len() > max {
            let s = std::str::from_utf8(&bytes).unwrap_or("");
            let mut cut = max;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            truncate_excess(&mut bytes, cut, col, sc)?;
        }
    }
    if is_char {
        let end = bytes.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1);
        bytes.truncate(end);
    }
    Ok(Value::Bytes(bytes))
}

/// A utf8mb3 column holds only the BMP, a latin1 one only latin1's 256 characters (`holds`
/// says which): any other character is 1366 (strict) or a warning and `?` in its place, as
/// MariaDB converts it. The message shows at most 6 bytes from the first such character
/// (`\xNN` for non-ASCII bytes, `...` when more follow) and names the column with its table.
fn outside_charset(
    bytes: &mut Vec<u8>,
    holds: impl Fn(char) -> bool,
    col: &ColumnDef,
    sc: &StoreCtx<'_>,
) -> Result<()> {
    if bytes.is_ascii() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(bytes).into_owned();
    let Some((at, _)) = text.char_indices().find(|&(_, c)| !holds(c)) else {
        return Ok(());
    };
    let rest = &bytes[at..];
    let mut shown: String = rest
        .iter()
        .take(6)
        .map(|&b| match b {
            0x20..=0x7E => (b as char).to_string(),
            _ => format!("\\x{b:02X}"),
        })
        .collect();
    if rest.len() > 6 {
        shown.push_str("...");
    }
    let column = match sc.table {
        Some((db, t)) => format!(
            "`{}`.`{}`.`{}`",
            db.replace('`', "``"),
            t.replace('`', "``"),
            col.name.replace('`', "``")
        ),
        None => format!("'{}'", col.name),
    };
    sc.problem(
        ErrorCode::TruncatedWrongValueForField,
        format!(
            "Incorrect string value: '{shown}' for column {column} at row {}",
            sc.row
        ),
    )?;
    *bytes = text
        .chars()
        .map(|c| if holds(c) { c } else { '?' })
        .collect::<String>()
        .into_bytes();
    Ok(())
}

/// Cut `bytes` at `cut`: silently (a note) when only spaces are lost, else 1406.
fn truncate_excess(
    bytes: &mut Vec<u8>,
    cut: usize,
    col: &ColumnDef,
    sc: &StoreCtx<'_>,
) -> Result<()> {
    if bytes[cut..].iter().all(|&c| c == b' ') {
        sc.warn(
            "Note",
            ErrorCode::WarnDataTruncated,
            format!("Data truncated for column '{}' at row {}", col.name, sc.row),
        );
    } else if sc.strict.get() {
        return Err(Error::new(
            ErrorCode::DataTooLong,
            format!("Data too long for column '{}' at row {}", col.name, sc.row),
        ));
    } else {
        sc.warn(
            "Warning",
            ErrorCode::WarnDataTruncated,
            format!("Data truncated for column '{}' at row {}", col.name, sc.row),
        );
    }
    bytes.truncate(cut);
    Ok(())
}

fn store_binary(
    v: Value,
    max: usize,
    pad: bool,
    col: &ColumnDef,
    sc: &StoreCtx<'_>,
) -> Result<Value> {
    let mut bytes = match v {
        Value::Bytes(b) => b,
        other => to_text(&other).into_owned(),
    };
    if bytes.len() > max {
        truncate_excess_binary(&mut bytes, max, col, sc)?;
    }
    if pad && bytes.len() < max {
        bytes.resize(max, 0);
    }
    Ok(Value::Bytes(bytes))
}

fn truncate_excess_binary(
    bytes: &mut Vec<u8>,
    max: usize,
    col: &ColumnDef,
    sc: &StoreCtx<'_>,
) -> Result<()> {
    if sc.strict.get() {
        return Err(Error::new(
            ErrorCode::DataTooLong,
            format!("Data too long for column '{}' at row {}", col.name, sc.row),
        ));
    }
    sc.warn(
        "Warning",
        ErrorCode::WarnDataTruncated,
        format!("Data truncated for column '{}' at row {}", col.name, sc.row),
    );
    bytes.truncate(max);
    Ok(())
}

/// sql_mode's NO_ZERO_DATE / NO_ZERO_IN_DATE on a date a conversion makes (CAST … AS DATE /
/// DATETIME, DATE(), STR_TO_DATE): true if the mode refuses it, and MariaDB's answer is then
/// NULL with a warning. The zero date (every field 0) is NO_ZERO_DATE's; a zero month or day
/// in any other value NO_ZERO_IN_DATE's. An ordinary date never reads the mode.
pub fn zero_date_mode_refuses(dt: &DateTime, env: &crate::sql::env::Env<'_>) -> bool {
    let d = &dt.date;
    if d.month != 0 && d.day != 0 {
        return false;
    }
    let mode = env.sql_mode();
    match *dt == DateTime::default() {
        true => mode.contains("NO_ZERO_DATE"),
        false => mode.contains("NO_ZERO_IN_DATE"),
    }
}

/// sql_mode's NO_ZERO_DATE (the date 0000-00-00) and NO_ZERO_IN_DATE (a zero month or day in
/// another date) on a stored value: 1292 in strict mode, else a warning (1264, 1265) and the
/// zero date is stored, as MariaDB does. True: store the zero date. Only a statement under
/// the session's sql_mode checks (not IGNORE, not ALTER's copy).
fn zero_date_refused(
    dt: &DateTime,
    v: &Value,
    what: &str,
    col: &ColumnDef,
    sc: &StoreCtx<'_>,
) -> Result<bool> {
    let (Strict::Mode(env) | Strict::Ignore(env), Some(_)) = (sc.strict, sc.table) else {
        return Ok(false);
    };
    let d = &dt.date;
    let zero = *dt == DateTime::default();
    let zero_part = !zero && d.year != 0 && (d.month == 0 || d.day == 0);
    let mode = env.sql_mode();
    let timestamp = matches!(col.data_type, DataType::Timestamp { .. });
    let (code, message) = if zero && mode.contains("NO_ZERO_DATE") && timestamp {
        // A TIMESTAMP's zero is "truncated", a DATE's / DATETIME's "out of range" (MariaDB).
        (ErrorCode::WarnDataTruncated, "Data truncated")
    } else if zero && mode.contains("NO_ZERO_DATE") {
        (ErrorCode::WarnDataOutOfRange, "Out of range value")
    } else if zero_part && mode.contains("NO_ZERO_IN_DATE") {
        (ErrorCode::WarnDataTruncated, "Data truncated")
    } else {
        return Ok(false);
    };
    if sc.strict.get() {
        sc.incorrect(what, &to_text(v), col)?;
    }
    sc.warn(
        "Warning",
        code,
        format!("{message} for column '{}' at row {}", col.name, sc.row),
    );
    Ok(true)
}

fn store_date(v: Value, col: &ColumnDef, sc: &StoreCtx<'_>) -> Result<Value> {
    match to_datetime(&v) {
        Some((dt, _)) if zero_date_refused(&dt, &v, "date", col, sc)? => {
            Ok(Value::Date(Date::default()))
        }
        Some((dt, _)) => {
            // A number under 1 (0.5) is the zero date and a fraction of a second: MariaDB
            // drops that fraction silently.
            let zero_number = !matches!(v, Value::Bytes(_)) && dt.date == Date::default();
            let micros = dt.micros != 0 && !zero_number;
            if dt.hour != 0 || dt.minute != 0 || dt.second != 0 || micros {
                sc.warn(
                    "Note",
                    ErrorCode::WarnDataTruncated,
                    format!("Data truncated for column '{}' at row {}", col.name, sc.row),
                );
            }
            Ok(Value::Date(dt.date))
        }
        None => {
            sc.incorrect("date", &to_text(&v), col)?;
            Ok(Value::Date(Date::default()))
        }
    }
}

fn store_datetime(
    v: Value,
    fsp: u8,
    timestamp: bool,
    col: &ColumnDef,
    sc: &StoreCtx<'_>,
) -> Result<Value> {
    let what = "datetime";
    let Some((dt, _)) = to_datetime(&v) else {
        sc.incorrect(what, &to_text(&v), col)?;
        return Ok(Value::DateTime(DateTime::default()));
    };
    if zero_date_refused(&dt, &v, what, col, sc)? {
        return Ok(Value::DateTime(DateTime::default()));
    }
    let mut dt = truncate_fsp(dt, fsp);
    if let (true, Some(z)) = (timestamp, sc.zone) {
        let (utc, gap) = z.to_utc_checked(&dt);
        dt = utc;
        if gap {
            // A local time the clocks skip: the instant they changed (MariaDB).
            if sc.strict.get() {
                sc.incorrect(what, &to_text(&v), col)?;
            }
            sc.warn(
                "Warning",
                ErrorCode::InvalidTimestamp,
                format!(
                    "Invalid TIMESTAMP value in column '{}' at row {}",
                    col.name, sc.row
                ),
            );
        }
    }
    if timestamp && dt != DateTime::default() {
        let secs = unix_seconds(&dt);
        if !(1..=2_147_483_647).contains(&secs) || dt.date.month == 0 || dt.date.day == 0 {
            // Outside TIMESTAMP's range: 1292 in strict mode, else 1264 (MariaDB).
            if sc.strict.get() || dt.date.month == 0 || dt.date.day == 0 {
                sc.incorrect(what, &to_text(&v), col)?;
            } else {
                sc.out_of_range(col)?;
            }
            return Ok(Value::DateTime(DateTime::default()));
        }
    }
    Ok(Value::DateTime(dt))
}

/// Convert `v` for a TIME(fsp) column, as MariaDB: what is no time, or has trailing
/// characters, is 1265 (stored as 00:00:00 when none); past ±838:59:59 clips with 1264; in
/// strict mode each of these is 1292. A datetime keeps its time with a 1265 note.
fn store_time(v: Value, fsp: u8, col: &ColumnDef, sc: &StoreCtx<'_>) -> Result<Value> {
    use super::time_value::{self, Parsed};
    let parsed = time_value::from_value(&v);
    let bad = match parsed {
        None | Some((_, Parsed::Trailing | Parsed::Clipped)) => true,
        Some((_, Parsed::Exact | Parsed::DateDropped)) => false,
    };
    if bad && sc.strict.get() {
        let text = match &v {
            Value::Double(f) => format_double(*f).into_bytes(),
            other => to_text(other).into_owned(),
        };
        sc.incorrect("time", &text, col)?;
    }
    let t = match parsed {
        None => {
            sc.truncated(col)?;
            0
        }
        Some((t, Parsed::Clipped)) => {
            sc.out_of_range(col)?;
            t
        }
        Some((t, Parsed::Trailing)) => {
            sc.truncated(col)?;
            t
        }
        Some((t, Parsed::DateDropped)) => {
            if !matches!(v, Value::Date(_)) {
                sc.warn(
                    "Note",
                    ErrorCode::WarnDataTruncated,
                    format!("Data truncated for column '{}' at row {}", col.name, sc.row),
                );
            }
            t
        }
        Some((t, Parsed::Exact)) => t,
    };
    Ok(Value::Time(time_value::truncate_fsp(t, fsp)))
}

/// Convert `v` for a BIT(width) column: numbers are rounded; a string is its bytes read as a
/// big-endian number. More bits than the column has is 1406 in strict mode, otherwise 1264
/// with the largest value stored.
fn store_bit(v: Value, width: u8, col: &ColumnDef, sc: &StoreCtx<'_>) -> Result<Value> {
    let max: u64 = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let n: Option<u64> = match &v {
        Value::Bytes(b) => {
            let significant = b.iter().skip_while(|&&c| c == 0).count();
            if significant > 8 {
                None
            } else {
                Some(b.iter().fold(0u64, |a, &c| (a << 8) | u64::from(c)))
            }
        }
        other => {
            let i = to_num(other).to_i128();
            u64::try_from(i).ok()
        }
    };
    match n {
        Some(n) if n <= max => Ok(Value::UInt(n)),
        _ => {
            if sc.strict.get() {
                return Err(Error::new(
                    ErrorCode::DataTooLong,
                    format!("Data too long for column '{}' at row {}", col.name, sc.row),
                ));
            }
            sc.out_of_range(col)?;
            Ok(Value::UInt(max))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Result columns

/// Give every value of a DECIMAL result column the column's scale, as MariaDB prints it
/// (`GREATEST(1.5, 2)` is `2.0`, `FLOOR` of a large decimal an integer in a DECIMAL column).
pub fn fit_decimal_columns(
    columns: &[cohort_protocol::column::ColumnDefinition],
    rows: &mut [Vec<Value>],
) {
    use cohort_protocol::column::ColumnType;
    for (i, c) in columns.iter().enumerate() {
        if c.column_type != ColumnType::NEWDECIMAL || c.decimals > cohort_decimal::MAX_SCALE {
            continue;
        }
        for row in rows.iter_mut() {
            let Some(v) = row.get_mut(i) else { continue };
            let d = match v {
                Value::Decimal(d) if d.scale() != c.decimals => d.clone(),
                Value::Int(n) => Decimal::from(*n),
                Value::UInt(n) => Decimal::from(*n),
                _ => continue,
            };
            if let Ok(r) = d.rescale(c.decimals) {
                *v = Value::Decimal(r);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Index keys

/// `v` converted exactly to column type `dt`, for an index lookup; None when the conversion
/// would change which rows compare equal (then the caller scans instead).
pub fn exact_key(v: &Value, dt: &DataType) -> Option<Value> {
    match dt {
        t if t.is_integer() => {
            let n: i128 = match v {
                Value::Int(i) => *i as i128,
                Value::UInt(u) => *u as i128,
                Value::Decimal(d) if d.round_to(0, Rounding::Down).ok()? == *d => {
                    d.to_i128(Rounding::Down)?
                }
                Value::Double(f) if f.fract() == 0.0 && f.abs() < 1e19 => *f as i128,
                Value::Bytes(b) => {
                    let p = parse_num(b);
                    if !p.complete {
                        return None;
                    }
                    return exact_key(&p.num.into_value(), dt);
                }
                _ => return None,
            };
            let (min, max) = int_range(dt);
            (min..=max).contains(&n).then(|| int_value(n, dt))
        }
        // A YEAR column holds 0 or 1901..=2155 as integers; other numbers match no row, but
        // a scan decides that (a key lookup on a converted 2-digit year would differ).
        // An ENUM key is the member a string names (the comparison is the collation's); a
        // SET key only a value already in its stored form ('b,a' is no 'a,b').
        DataType::Enum { members, collation } => match v {
            Value::Bytes(b) => crate::types::enumset::enum_position(members, *collation, b)
                .map(|i| Value::str(&members[i - 1])),
            _ => None,
        },
        DataType::Set { members, collation } => match v {
            Value::Bytes(b) => {
                let bits = crate::types::enumset::set_bits(members, *collation, b).ok()?;
                let text = crate::types::enumset::set_text(members, bits);
                (text == *b).then_some(Value::Bytes(text))
            }
            _ => None,
        },
        DataType::Year => match exact_key(
            v,
            &DataType::SmallInt {
                unsigned: false,
                display: Default::default(),
            },
        )? {
            Value::Int(n) if n == 0 || (1901..=2155).contains(&n) => Some(Value::Int(n)),
            _ => None,
        },
        DataType::Decimal { scale, .. } => {
            let d = match v {
                Value::Int(i) => Decimal::from(*i),
                Value::UInt(u) => Decimal::from(*u),
                Value::Decimal(d) => d.clone(),
                Value::Bytes(b) => {
                    let p = parse_num(b);
                    if !p.complete {
                        return None;
                    }
                    match p.num {
                        Num::F(_) => return None,
                        n => n.to_decimal()?,
                    }
                }
                _ => return None,
            };
            let r = d.rescale(*scale).ok()?;
            (r == d).then_some(Value::Decimal(r))
        }
        DataType::Float { .. } | DataType::Double { .. } => match v {
            Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) => {
                Some(Value::Double(to_num(v).to_f64()))
            }
            Value::Bytes(b) => {
                let p = parse_num(b);
                p.complete.then(|| Value::Double(p.num.to_f64()))
            }
            _ => None,
        },
        DataType::Char { .. }
        | DataType::VarChar { .. }
        | DataType::Text { .. }
        | DataType::Binary { .. }
        | DataType::VarBinary { .. }
        | DataType::Blob { .. } => match v {
            Value::Bytes(_) => Some(v.clone()),
            _ => None,
        },
        DataType::Date => match to_datetime(v)? {
            (dt, _) if dt.hour == 0 && dt.minute == 0 && dt.second == 0 && dt.micros == 0 => {
                matches!(v, Value::Date(_) | Value::DateTime(_) | Value::Bytes(_))
                    .then_some(Value::Date(dt.date))
            }
            _ => None,
        },
        DataType::DateTime { .. } | DataType::Timestamp { .. } => match v {
            Value::Date(_) | Value::DateTime(_) | Value::Bytes(_) => {
                Some(Value::DateTime(to_datetime(v)?.0))
            }
            _ => None,
        },
        DataType::Time { fsp } => match super::time_value::from_value(v)? {
            (t, super::time_value::Parsed::Exact)
                if super::time_value::truncate_fsp(t, *fsp) == t =>
            {
                Some(Value::Time(t))
            }
            _ => None,
        },
        DataType::Bit { width } => match exact_key(
            v,
            &DataType::BigInt {
                unsigned: true,
                display: Default::default(),
            },
        )? {
            Value::UInt(n) if *width >= 64 || n < (1u64 << width) => Some(Value::UInt(n)),
            Value::Int(n) if n >= 0 && (*width >= 64 || (n as u64) < (1u64 << width)) => {
                Some(Value::UInt(n as u64))
            }
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_numeric_prefixes() {
        let p = parse_num(b" 12abc");
        assert_eq!((p.num, p.used, p.complete), (Num::I(12), 3, false));
        let p = parse_num(b"1.50");
        assert_eq!(p.num, Num::D(Decimal::new(150, 2)));
        assert_eq!(
            p.num.clone().into_value(),
            Value::Decimal("1.50".parse().unwrap())
        );
        assert!(p.complete);
        assert_eq!(parse_num(b"abc").used, 0);
        assert_eq!(parse_num(b"1e3").num, Num::F(1000.0));
        assert_eq!(parse_num(b"18446744073709551615").num, Num::U(u64::MAX));
        assert!(parse_num(b"5 ").complete);
        // A lone '.' (found by the SQL fuzzer: an underflow in an overflow-checked build).
        for text in [&b"."[..], b" .", b"-.", b".e5", b"+.x"] {
            let p = parse_num(text);
            assert_eq!((p.num, p.used, p.complete), (Num::I(0), 0, false));
        }
    }

    #[test]
    fn parses_dates() {
        let (dt, t) = parse_datetime(b"2024-01-02").unwrap();
        assert_eq!(dt.date.to_string(), "2024-01-02");
        assert!(!t);
        let (dt, t) = parse_datetime(b"2024-1-2 3:04:05.5").unwrap();
        assert_eq!(dt.to_string(), "2024-01-02 03:04:05.500000");
        assert!(t);
        assert!(parse_datetime(b"2024-02-30").is_none());
        assert!(parse_datetime(b"abc").is_none());
        assert_eq!(parse_datetime(b"20240102").unwrap().0.date.day, 2);
        let d = civil_from_days(days_from_civil(2000, 2, 29));
        assert_eq!(d.to_string(), "2000-02-29");
    }

    #[test]
    fn formats_doubles() {
        assert_eq!(format_double(1.5), "1.5");
        assert_eq!(format_double(100.0), "100");
        assert_eq!(format_double(1e20), "1e20");
        assert_eq!(format_double(-0.0), "0");
        assert_eq!(format_double_fixed(2.5, 3), "2.500");
        assert_eq!(format_double_fixed(1.0, 0), "1");
        assert_eq!(format_double_fixed(1e-20, 2), "0.00");
        assert_eq!(format_double_fixed(-1e-20, 2), "0.00");
        assert_eq!(format_double_fixed(1.005, 1), "1.0");
        assert_eq!(format_double(1e-14), "0.00000000000001");
        assert_eq!(format_double(1.5e-16), "1.5e-16");
        assert_eq!(format_double(1e15), "1e15");
        assert_eq!(format_double(0.1 + 0.2), "0.30000000000000004");
    }

    #[test]
    fn exact_keys() {
        let int = DataType::Int {
            unsigned: false,
            display: Default::default(),
        };
        assert_eq!(exact_key(&Value::str("5"), &int), Some(Value::Int(5)));
        assert_eq!(exact_key(&Value::str("5a"), &int), None);
        assert_eq!(exact_key(&Value::Int(1 << 40), &int), None);
        let vc = DataType::VarChar {
            len: 5,
            collation: crate::types::Collation::Utf8mb4GeneralCi,
        };
        assert_eq!(exact_key(&Value::Int(5), &vc), None);
    }
}
