//! Reading a date out of text the lenient way MariaDB does where a string meets a date: in a
//! comparison with a DATE / DATETIME / TIMESTAMP, and in `CAST(s AS DATE|DATETIME)`.
//!
//! Unlike [`convert::parse_datetime`] (the strict form a column assignment uses), the value is
//! read as far as it goes and what follows is ignored (MariaDB warns "Truncated incorrect
//! datetime value"): `'2019-12-31x'` is 2019-12-31, `'2019-12-31 10:00x'` is 10:00 that day,
//! `'20191231x'` is 2019-12-31, `'2019-12-31 10'` is 10:00. A string with no date at its start
//! (`'a'`, `''`, `'2019'`) or with a part out of range (`'2019-13-01'`, `'2019-12-31 25:00'`)
//! is no date: `None`. A comparison then uses the zero date ([`compare_form`]).

use crate::sql::expr::convert;
use crate::types::{Date, DateTime};

/// The datetime at the start of `s`, if it starts with a valid one (flag: a time part was
/// present). Day numbers past the month's end are invalid, as in CAST.
pub fn parse_lenient(s: &[u8]) -> Option<(DateTime, bool)> {
    read(s).map(|r| (r.value, r.has_time))
}

/// What a lenient read of a datetime left behind, for MariaDB's warning 1292.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leftover {
    /// The whole text (but trailing spaces) was the datetime.
    Nothing,
    /// More than six fractional digits, dropped: a Note "Truncated incorrect datetime value".
    FractionDigits,
    /// Other characters after the datetime: a Warning "Truncated incorrect date value" when
    /// the read stopped before any time digit, "… datetime value" after one.
    Text,
}

/// A lenient read of a datetime at the start of a string.
#[derive(Debug, Clone, Copy)]
pub struct Reading {
    pub value: DateTime,
    /// A time digit was read (`'2020-01-01 0x'`, but not `'2020-01-01 x'`).
    pub has_time: bool,
    pub leftover: Leftover,
}

impl Reading {
    /// MariaDB's warning 1292 for this read: level and message, or `None` when clean.
    pub fn warning(&self, text: &str) -> Option<(&'static str, String)> {
        let kind = if self.has_time { "datetime" } else { "date" };
        match self.leftover {
            Leftover::Nothing => None,
            Leftover::FractionDigits => Some((
                "Note",
                format!("Truncated incorrect datetime value: '{text}'"),
            )),
            Leftover::Text => Some((
                "Warning",
                format!("Truncated incorrect {kind} value: '{text}'"),
            )),
        }
    }
}

/// The datetime at the start of `s` with what followed it ([`parse_lenient`]).
pub fn read(s: &[u8]) -> Option<Reading> {
    read_with(s, false)
}

/// [`read`] as a comparison with a date reads: any day up to 31 ([`compare_form`]).
pub fn read_compared(s: &[u8]) -> Option<Reading> {
    read_with(s, true)
}

fn read_with(s: &[u8], any_day: bool) -> Option<Reading> {
    let parts = scan(s)?;
    let value = parts.to_datetime(any_day)?;
    let rest = &s[parts.end.min(s.len())..];
    let leftover = if rest.iter().any(|c| !c.is_ascii_whitespace()) {
        Leftover::Text
    } else if parts.long_fraction {
        Leftover::FractionDigits
    } else {
        Leftover::Nothing
    };
    Some(Reading {
        value,
        has_time: parts.has_time,
        leftover,
    })
}

/// The datetime a comparison with a temporal value reads from `s`: the leading datetime, with
/// any day up to 31 (MariaDB compares `'2019-02-30'` as such), or the zero date when there is
/// none.
pub fn compare_form(s: &[u8]) -> DateTime {
    scan(s)
        .and_then(|p| p.to_datetime(true))
        .unwrap_or_default()
}

/// A value as a datetime warning shows it: a string's bytes past ASCII as `\xHH` (MariaDB
/// prints `'2020-01-01\xC3\xA9'` for `'2020-01-01é'`), anything else as its text.
pub fn shown(v: &crate::types::Value) -> String {
    let crate::types::Value::Bytes(b) = v else {
        return convert::to_string(v);
    };
    let mut out = String::with_capacity(b.len());
    for &c in b {
        if c.is_ascii() {
            out.push(char::from(c));
        } else {
            out.push_str(&format!("\\x{c:02X}"));
        }
    }
    out
}

/// The warning 1292 MariaDB gives for a string read leniently as a datetime that had more
/// than the datetime in it; nothing for any other value.
pub fn warn_leftover(env: &crate::sql::env::Env<'_>, v: &crate::types::Value) {
    let crate::types::Value::Bytes(b) = v else {
        return;
    };
    if let Some((level, msg)) = read(b).and_then(|r| r.warning(&shown(v))) {
        env.warn(level, cohort_protocol::ErrorCode::TruncatedWrongValue, msg);
    }
}

/// A datetime as text with exactly `fsp` fractional digits (DATETIME(fsp) as a string).
pub fn with_fsp(dt: &DateTime, fsp: u8) -> String {
    let whole = DateTime { micros: 0, ..*dt }.to_string();
    if fsp == 0 {
        return whole;
    }
    let frac = format!("{:06}", dt.micros);
    format!("{whole}.{}", &frac[..usize::from(fsp.min(6))])
}

/// The numeric fields read from the text.
struct Parts {
    year: u32,
    /// Digits in the year (two-digit years are 19xx / 20xx; one digit is the year itself:
    /// `1-1-1` is 0001-01-01).
    year_digits: usize,
    month: u32,
    day: u32,
    time: [u32; 3],
    micros: u32,
    has_time: bool,
    /// More than six fractional digits were dropped.
    long_fraction: bool,
    /// Offset in the text just past what was read.
    end: usize,
}

impl Parts {
    fn ending_at(mut self, end: usize) -> Parts {
        self.end = end;
        self
    }

    fn to_datetime(&self, any_day: bool) -> Option<DateTime> {
        let mut year = self.year;
        if self.year_digits == 2 && (year, self.month, self.day) != (0, 0, 0) {
            year += if year < 70 { 2000 } else { 1900 };
        }
        if year > 9999 || self.month > 12 || self.day > 31 {
            return None;
        }
        if !any_day
            && self.month > 0
            && self.day > u32::from(convert::days_in_month(year as u16, self.month as u8))
        {
            return None;
        }
        let [h, m, sec] = self.time;
        if h > 23 || m > 59 || sec > 59 {
            return None;
        }
        Some(DateTime {
            date: Date {
                year: year as u16,
                month: self.month as u8,
                day: self.day as u8,
            },
            hour: h as u8,
            minute: m as u8,
            second: sec as u8,
            micros: self.micros,
        })
    }
}

/// A run of ASCII digits at `s[i..]`: (value, digits); the value saturates, so leading zeros
/// of any number are read (`'000001'` is 1) and a huge run is out of every range.
fn digits(s: &[u8], i: usize) -> (u32, usize) {
    let i = i.min(s.len());
    let n = s[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let v = s[i..i + n].iter().fold(0u32, |v, c| {
        v.saturating_mul(10).saturating_add(u32::from(c - b'0'))
    });
    (v, n)
}

fn scan(s: &[u8]) -> Option<Parts> {
    let start = s.iter().position(|c| !c.is_ascii_whitespace())?;
    let s = &s[start..];
    let (_, run) = digits(s, 0);
    if run == 0 {
        return None;
    }
    let next = s.get(run).copied();
    // `YYYYMMDDhhmmss.ffffff`: only a full date and time takes a fraction.
    let fraction = matches!(run, 12 | 14) && next == Some(b'.');
    if fraction || !next.is_some_and(|c| c.is_ascii_punctuation()) {
        let parts = match run {
            6 | 8 | 12 | 14 => Some(compact(&s[..run])),
            5 | 7 | 9 | 10 | 11 | 13 => Some(compact_groups(&s[..run])),
            _ => None,
        };
        if let Some(mut parts) = parts {
            let mut end = run;
            if fraction {
                end = read_fraction(s, run, &mut parts);
            }
            // Digits after a run of digits make it no compact datetime ('20200101 10',
            // '20200101x5' are NULL in MariaDB).
            if s[end..].iter().any(u8::is_ascii_digit) {
                return None;
            }
            return Some(parts.ending_at(start + end));
        }
    }
    delimited(s).map(|p| {
        let end = p.end;
        p.ending_at(start + end)
    })
}

/// `YYMMDD`, `YYYYMMDD`, `YYMMDDhhmmss`, `YYYYMMDDhhmmss`.
fn compact(s: &[u8]) -> Parts {
    let field = |r: std::ops::Range<usize>| digits(&s[r], 0).0;
    let yd = if s.len() == 8 || s.len() == 14 { 4 } else { 2 };
    let has_time = s.len() > 8;
    let t = yd + 4;
    Parts {
        year: field(0..yd),
        year_digits: yd,
        month: field(yd..yd + 2),
        day: field(yd + 2..yd + 4),
        time: if has_time {
            [field(t..t + 2), field(t + 2..t + 4), field(t + 4..t + 6)]
        } else {
            [0; 3]
        },
        micros: 0,
        has_time,
        long_fraction: false,
        end: s.len(),
    }
}

/// Digits of another length (5, 7, 9–11, 13), as MariaDB reads them: a two-digit year, then
/// month, day, hour, minute and second two digits each, the last one or two (`'30011'` is
/// 2030-01-01, `'30000000004'` 2030-00-00); a 13th digit is a fraction, dropped.
fn compact_groups(s: &[u8]) -> Parts {
    let mut f = [0u32; 6];
    for (k, chunk) in s.chunks(2).take(6).enumerate() {
        f[k] = chunk.iter().fold(0, |a, &c| a * 10 + u32::from(c - b'0'));
    }
    Parts {
        year: f[0],
        year_digits: 2,
        month: f[1],
        day: f[2],
        time: [f[3], f[4], f[5]],
        micros: 0,
        has_time: s.len() > 6,
        long_fraction: false,
        end: s.len(),
    }
}

/// `Y-M-D[( |T)h[:m[:s[.ffffff]]]]`, any punctuation between the parts; stops at the first
/// character that does not fit.
fn delimited(s: &[u8]) -> Option<Parts> {
    let mut i = 0;
    let mut date = [(0u32, 0usize); 3];
    for (k, part) in date.iter_mut().enumerate() {
        if k > 0 {
            if !s.get(i).is_some_and(|c| c.is_ascii_punctuation()) {
                return None;
            }
            i += 1;
        }
        let (v, n) = digits(s, i);
        if n == 0 {
            return None;
        }
        *part = (v, n);
        i += n;
    }
    let mut parts = Parts {
        year: date[0].0,
        year_digits: date[0].1,
        month: date[1].0,
        day: date[2].0,
        time: [0; 3],
        micros: 0,
        has_time: false,
        long_fraction: false,
        end: i,
    };
    // Date and time are separated by a space, a `T` or any punctuation ('2020,1,1,1' is
    // 2020-01-01 01:00:00 in MariaDB), and so are the time's parts.
    if !s
        .get(i)
        .is_some_and(|&c| c == b' ' || c == b'T' || c.is_ascii_punctuation())
    {
        return Some(parts);
    }
    i += 1;
    while s.get(i) == Some(&b' ') {
        i += 1;
    }
    for k in 0..3 {
        if k > 0 {
            if !s.get(i).is_some_and(|c| c.is_ascii_punctuation()) {
                break;
            }
            i += 1;
        }
        let (v, n) = digits(s, i);
        if n == 0 {
            // A separator that ends the text is part of it ('2020-01-01 10:' is clean).
            break;
        }
        parts.time[k] = v;
        parts.has_time = true;
        i += n;
        if k == 2 && s.get(i) == Some(&b'.') {
            i = read_fraction(s, i, &mut parts);
        }
    }
    parts.end = i;
    Some(parts)
}

/// The fraction after the `.` at `s[dot]` into `parts` (its first six digits); returns the
/// offset past its digits.
fn read_fraction(s: &[u8], dot: usize, parts: &mut Parts) -> usize {
    let n = s[dot + 1..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    let frac = &s[dot + 1..dot + 1 + n.min(6)];
    let mut micros = digits(frac, 0).0;
    for _ in frac.len()..6 {
        micros *= 10;
    }
    parts.micros = micros;
    parts.long_fraction = n > 6;
    dot + 1 + n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(s: &str) -> String {
        parse_lenient(s.as_bytes()).map_or("NULL".into(), |(d, _)| d.to_string())
    }

    #[test]
    fn reads_the_leading_datetime() {
        assert_eq!(show("2019-12-31x"), "2019-12-31 00:00:00");
        assert_eq!(show("2019-12-31 10:00x"), "2019-12-31 10:00:00");
        assert_eq!(show("2019-12-31 10"), "2019-12-31 10:00:00");
        assert_eq!(show("20191231x"), "2019-12-31 00:00:00");
        assert_eq!(show(" 2019/12/31"), "2019-12-31 00:00:00");
        assert_eq!(show("99-12-31"), "1999-12-31 00:00:00");
        assert_eq!(show("2019-12-31 1:2:3.5"), "2019-12-31 01:02:03.500000");
        for bad in [
            "a",
            "",
            "2019",
            "201912",
            "2019-13-01",
            "2019-12-31 25:00",
            "2019-02-30",
        ] {
            assert_eq!(show(bad), "NULL", "{bad}");
        }
        assert_eq!(
            compare_form(b"2019-02-30").to_string(),
            "2019-02-30 00:00:00"
        );
        assert_eq!(compare_form(b"a").to_string(), "0000-00-00 00:00:00");
    }

    fn leftover(s: &str) -> Option<(bool, Leftover)> {
        read(s.as_bytes()).map(|r| (r.has_time, r.leftover))
    }

    #[test]
    fn time_parts_take_any_digits_and_report_what_follows() {
        assert_eq!(show("2020-01-01 00:00:000"), "2020-01-01 00:00:00");
        assert_eq!(show("2020-01-01 001"), "2020-01-01 01:00:00");
        assert_eq!(show("2020-01-01 00:00:123"), "NULL");
        assert_eq!(show("20200101101010.5"), "2020-01-01 10:10:10.500000");
        for bad in ["20200101 10", "20200101x5", "2001011 5"] {
            assert_eq!(show(bad), "NULL", "{bad}");
        }
        use Leftover::*;
        assert_eq!(leftover("2020-01-01 x"), Some((false, Text)));
        assert_eq!(leftover("2020-01-01 0x"), Some((true, Text)));
        assert_eq!(leftover("2020-01-01 10:"), Some((true, Nothing)));
        assert_eq!(leftover("2020-01-01T"), Some((false, Nothing)));
        assert_eq!(leftover("2020-01-01 10:00:00:"), Some((true, Text)));
        assert_eq!(
            leftover("2020-01-01 1:2:3.1234567"),
            Some((true, FractionDigits))
        );
        assert_eq!(leftover("20200101 "), Some((false, Nothing)));
        assert_eq!(
            leftover("100,000,000,000,000,000,000.0"),
            Some((true, Text))
        );
    }
}
