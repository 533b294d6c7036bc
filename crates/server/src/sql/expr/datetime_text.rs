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
    let parts = scan(s)?;
    let dt = parts.to_datetime(false)?;
    Some((dt, parts.has_time))
}

/// The datetime a comparison with a temporal value reads from `s`: the leading datetime, with
/// any day up to 31 (MariaDB compares `'2019-02-30'` as such), or the zero date when there is
/// none.
pub fn compare_form(s: &[u8]) -> DateTime {
    scan(s)
        .and_then(|p| p.to_datetime(true))
        .unwrap_or_default()
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
}

impl Parts {
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

/// A run of ASCII digits at `s[i..]`: (value, digits); at most 9 digits are taken.
fn digits(s: &[u8], i: usize) -> (u32, usize) {
    let n = s[i.min(s.len())..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    let v = s[i..i + n]
        .iter()
        .take(9)
        .fold(0u32, |v, c| v * 10 + u32::from(c - b'0'));
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
    if !next.is_some_and(|c| c.is_ascii_punctuation()) {
        match run {
            6 | 8 | 12 | 14 => return compact(&s[..run]),
            5 | 7 | 9 | 10 | 11 | 13 => return compact_groups(&s[..run]),
            _ => {}
        }
    }
    delimited(s)
}

/// `YYMMDD`, `YYYYMMDD`, `YYMMDDhhmmss`, `YYYYMMDDhhmmss`.
fn compact(s: &[u8]) -> Option<Parts> {
    let field = |r: std::ops::Range<usize>| digits(&s[r], 0).0;
    let yd = if s.len() == 8 || s.len() == 14 { 4 } else { 2 };
    let has_time = s.len() > 8;
    let t = yd + 4;
    Some(Parts {
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
    })
}

/// Digits of another length (5, 7, 9–11, 13), as MariaDB reads them: a two-digit year, then
/// month, day, hour, minute and second two digits each, the last one or two (`'30011'` is
/// 2030-01-01, `'30000000004'` 2030-00-00); a 13th digit is a fraction, dropped.
fn compact_groups(s: &[u8]) -> Option<Parts> {
    let mut f = [0u32; 6];
    for (k, chunk) in s.chunks(2).take(6).enumerate() {
        f[k] = chunk.iter().fold(0, |a, &c| a * 10 + u32::from(c - b'0'));
    }
    Some(Parts {
        year: f[0],
        year_digits: 2,
        month: f[1],
        day: f[2],
        time: [f[3], f[4], f[5]],
        micros: 0,
        has_time: s.len() > 6,
    })
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
        if n == 0 || n > 2 {
            if n > 2 {
                return None;
            }
            break;
        }
        parts.time[k] = v;
        parts.has_time = true;
        i += n;
        if k == 2 && s.get(i) == Some(&b'.') {
            let n = s[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            let frac = &s[i + 1..i + 1 + n.min(6)];
            let mut micros = digits(frac, 0).0;
            for _ in frac.len()..6 {
                micros *= 10;
            }
            parts.micros = micros;
        }
    }
    Some(parts)
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
}
