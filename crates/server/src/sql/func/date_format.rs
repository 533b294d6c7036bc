//! DATE_FORMAT(d, fmt) and STR_TO_DATE(s, fmt): MariaDB's `%` specifiers (English names).
//!
//! DATE_FORMAT accepts a zero date ('0000-00-00' formats as such) but not an impossible one
//! (NULL, warning 1292). Its result is a VARCHAR whose length is the format's longest output
//! when the format is a constant. STR_TO_DATE reads the string by the format (spaces in the
//! format skip spaces in the text); a text that does not fit is NULL with warning 1411, text
//! left over gives warning 1292 and the value read so far. Its type is DATE, DATETIME or a
//! time string, after what the (constant) format reads.

use super::calendar::{calc_week, daynr, week_mode, DAY_NAMES, MONTH_NAMES};
use crate::sql::bind::sqltype::SqlType;
use crate::sql::env::Env;
use crate::sql::expr::convert;
use crate::types::{Date, DateTime, Value};
use cohort_protocol::ErrorCode;

/// The most characters `fmt` can produce (DATE_FORMAT's column length, counted as MariaDB
/// does: names are given room for any locale's).
pub fn max_len(fmt: &[u8]) -> u32 {
    let mut n = 0u32;
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] == b'%' && i + 1 < fmt.len() {
            n += match fmt[i + 1] {
                b'M' | b'W' => 64,
                b'a' | b'b' => 32,
                b'D' | b'Y' | b'X' | b'x' => 4,
                b'j' => 3,
                b'H' | b'k' => 7,
                b'f' => 6,
                b'r' => 11,
                b'T' => 8,
                b'c' | b'd' | b'e' | b'h' | b'I' | b'i' | b'l' | b'm' | b'p' | b'S' | b's'
                | b'U' | b'u' | b'V' | b'v' | b'y' => 2,
                _ => 1,
            };
            i += 2;
        } else {
            n += 1;
            i += 1;
        }
    }
    n
}

fn suffix(day: u8) -> &'static str {
    match day {
        11..=13 => "th",
        _ => match day % 10 {
            1 => "st",
            2 => "nd",
            3 => "rd",
            _ => "th",
        },
    }
}

/// DATE_FORMAT of non-NULL arguments.
pub fn date_format(v: &Value, fmt: &Value, env: &Env<'_>) -> Value {
    let dt = match convert::to_datetime_lenient(v) {
        Some((dt, _)) => dt,
        None => return super::interval::bad_datetime(env, v),
    };
    let fmt = convert::to_text(fmt);
    if fmt.is_empty() {
        return Value::Null;
    }
    let d = dt.date;
    let real = d.month != 0 && d.day != 0;
    let mut out = String::new();
    let mut i = 0;
    let h12 = |h: u8| if h.is_multiple_of(12) { 12 } else { h % 12 };
    while i < fmt.len() {
        if fmt[i] != b'%' || i + 1 >= fmt.len() {
            // Copy one UTF-8 character.
            let len = match fmt[i] {
                0xF0..=0xFF => 4,
                0xE0..=0xEF => 3,
                0xC0..=0xDF => 2,
                _ => 1,
            };
            let end = (i + len).min(fmt.len());
            out.push_str(&String::from_utf8_lossy(&fmt[i..end]));
            i = end;
            continue;
        }
        let c = fmt[i + 1];
        i += 2;
        let wd = || ((daynr(d) + 5).rem_euclid(7)) as usize;
        match c {
            b'a' | b'W' if !real => return Value::Null,
            b'a' => out.push_str(&DAY_NAMES[wd()][..3]),
            b'W' => out.push_str(DAY_NAMES[wd()]),
            b'b' | b'M' if d.month == 0 => return Value::Null,
            b'b' => out.push_str(&MONTH_NAMES[usize::from(d.month - 1)][..3]),
            b'M' => out.push_str(MONTH_NAMES[usize::from(d.month - 1)]),
            b'c' => out.push_str(&d.month.to_string()),
            b'D' => out.push_str(&format!("{}{}", d.day, suffix(d.day))),
            b'd' => out.push_str(&format!("{:02}", d.day)),
            b'e' => out.push_str(&d.day.to_string()),
            b'f' => out.push_str(&format!("{:06}", dt.micros)),
            b'H' => out.push_str(&format!("{:02}", dt.hour)),
            b'h' | b'I' => out.push_str(&format!("{:02}", h12(dt.hour))),
            b'i' => out.push_str(&format!("{:02}", dt.minute)),
            b'j' if !real => return Value::Null,
            b'j' => out.push_str(&format!(
                "{:03}",
                daynr(d)
                    - daynr(Date {
                        year: d.year,
                        month: 1,
                        day: 1
                    })
                    + 1
            )),
            b'k' => out.push_str(&dt.hour.to_string()),
            b'l' => out.push_str(&h12(dt.hour).to_string()),
            b'm' => out.push_str(&format!("{:02}", d.month)),
            b'p' => out.push_str(if dt.hour < 12 { "AM" } else { "PM" }),
            b'r' => out.push_str(&format!(
                "{:02}:{:02}:{:02} {}",
                h12(dt.hour),
                dt.minute,
                dt.second,
                if dt.hour < 12 { "AM" } else { "PM" }
            )),
            b'S' | b's' => out.push_str(&format!("{:02}", dt.second)),
            b'T' => out.push_str(&format!("{:02}:{:02}:{:02}", dt.hour, dt.minute, dt.second)),
            b'U' | b'u' | b'V' | b'v' | b'X' | b'x' | b'w' if !real => return Value::Null,
            b'U' => out.push_str(&format!("{:02}", calc_week(d, week_mode(0)).0)),
            b'u' => out.push_str(&format!("{:02}", calc_week(d, week_mode(1)).0)),
            b'V' => out.push_str(&format!("{:02}", calc_week(d, week_mode(2)).0)),
            b'v' => out.push_str(&format!("{:02}", calc_week(d, week_mode(3)).0)),
            b'X' => out.push_str(&format!("{:04}", calc_week(d, week_mode(2)).1)),
            b'x' => out.push_str(&format!("{:04}", calc_week(d, week_mode(3)).1)),
            b'w' => out.push_str(&((wd() + 1) % 7).to_string()),
            b'Y' => out.push_str(&format!("{:04}", d.year)),
            b'y' => out.push_str(&format!("{:02}", d.year % 100)),
            other => out.push(other as char),
        }
    }
    Value::Bytes(out.into_bytes())
}

/// What a STR_TO_DATE format reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrOut {
    Date,
    DateTime(u8),
    Time(u8),
}

/// STR_TO_DATE's result type for a constant format (None: not a constant, DATETIME(6)).
pub fn str_to_date_type(fmt: Option<&[u8]>) -> (StrOut, SqlType) {
    let Some(fmt) = fmt else {
        return (StrOut::DateTime(6), SqlType::datetime(6));
    };
    let (mut date, mut time, mut frac) = (false, false, false);
    let mut i = 0;
    while i + 1 < fmt.len() {
        if fmt[i] == b'%' {
            match fmt[i + 1] {
                b'a' | b'b' | b'c' | b'D' | b'd' | b'e' | b'j' | b'M' | b'm' | b'U' | b'u'
                | b'V' | b'v' | b'W' | b'w' | b'X' | b'x' | b'Y' | b'y' => date = true,
                b'f' => {
                    frac = true;
                    time = true;
                }
                b'H' | b'h' | b'I' | b'i' | b'k' | b'l' | b'p' | b'r' | b'S' | b's' | b'T' => {
                    time = true
                }
                _ => {}
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    let fsp = if frac { 6 } else { 0 };
    match (date, time) {
        (true, false) => (StrOut::Date, SqlType::date()),
        (false, true) => (StrOut::Time(fsp), SqlType::time(fsp)),
        _ => (StrOut::DateTime(fsp), SqlType::datetime(fsp)),
    }
}

#[derive(Default)]
struct Read {
    year: u32,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    micros: u32,
    pm: Option<bool>,
    yday: Option<u32>,
    h12: bool,
}

fn number(s: &[u8], i: &mut usize, max: usize) -> Option<u32> {
    let start = *i;
    while *i < s.len() && *i - start < max && s[*i].is_ascii_digit() {
        *i += 1;
    }
    if *i == start {
        return None;
    }
    std::str::from_utf8(&s[start..*i]).ok()?.parse().ok()
}

fn name(s: &[u8], i: &mut usize, names: &[&str], abbrev: bool) -> Option<usize> {
    let rest = &s[*i..];
    for (k, n) in names.iter().enumerate() {
        let n = if abbrev { &n[..3] } else { n };
        if rest.len() >= n.len() && rest[..n.len()].eq_ignore_ascii_case(n.as_bytes()) {
            *i += n.len();
            return Some(k);
        }
    }
    None
}

/// Read `s` by `fmt`; None when it does not fit.
fn read(s: &[u8], fmt: &[u8]) -> Option<(Read, usize)> {
    let mut r = Read::default();
    let (mut i, mut f) = (0, 0);
    while f < fmt.len() {
        // The text ended first: the rest of the format reads nothing (MariaDB).
        if i >= s.len() {
            break;
        }
        let c = fmt[f];
        if c.is_ascii_whitespace() {
            while i < s.len() && s[i].is_ascii_whitespace() {
                i += 1;
            }
            f += 1;
            continue;
        }
        if c != b'%' || f + 1 >= fmt.len() {
            if s.get(i) != Some(&c) {
                return None;
            }
            i += 1;
            f += 1;
            continue;
        }
        let spec = fmt[f + 1];
        f += 2;
        if spec != b'%' {
            while i < s.len() && s[i].is_ascii_whitespace() {
                i += 1;
            }
        }
        match spec {
            b'Y' => {
                let start = i;
                let y = number(s, &mut i, 4)?;
                r.year = if i - start <= 2 {
                    if y < 70 {
                        y + 2000
                    } else {
                        y + 1900
                    }
                } else {
                    y
                };
            }
            b'y' => {
                let y = number(s, &mut i, 2)?;
                r.year = if y < 70 { y + 2000 } else { y + 1900 };
            }
            b'm' | b'c' => r.month = number(s, &mut i, 2)?,
            b'd' | b'e' => r.day = number(s, &mut i, 2)?,
            b'D' => {
                r.day = number(s, &mut i, 2)?;
                if i + 2 <= s.len() {
                    i += 2;
                }
            }
            b'H' | b'k' => r.hour = number(s, &mut i, 2)?,
            b'h' | b'I' | b'l' => {
                r.hour = number(s, &mut i, 2)?;
                r.h12 = true;
            }
            b'i' => r.minute = number(s, &mut i, 2)?,
            b'S' | b's' => r.second = number(s, &mut i, 2)?,
            b'f' => {
                let start = i;
                let n = number(s, &mut i, 6)?;
                r.micros = n * 10u32.pow(6 - (i - start) as u32);
            }
            b'p' => {
                let rest = &s[i..];
                if rest.len() >= 2 && rest[..2].eq_ignore_ascii_case(b"AM") {
                    r.pm = Some(false);
                } else if rest.len() >= 2 && rest[..2].eq_ignore_ascii_case(b"PM") {
                    r.pm = Some(true);
                } else {
                    return None;
                }
                i += 2;
            }
            b'M' => r.month = name(s, &mut i, &MONTH_NAMES, false)? as u32 + 1,
            b'b' => r.month = name(s, &mut i, &MONTH_NAMES, true)? as u32 + 1,
            b'W' => {
                name(s, &mut i, &DAY_NAMES, false)?;
            }
            b'a' => {
                name(s, &mut i, &DAY_NAMES, true)?;
            }
            b'j' => r.yday = Some(number(s, &mut i, 3)?),
            b'w' => {
                number(s, &mut i, 1)?;
            }
            b'T' => {
                r.hour = number(s, &mut i, 2)?;
                (s.get(i) == Some(&b':')).then_some(())?;
                i += 1;
                r.minute = number(s, &mut i, 2)?;
                (s.get(i) == Some(&b':')).then_some(())?;
                i += 1;
                r.second = number(s, &mut i, 2)?;
            }
            b'r' => {
                r.hour = number(s, &mut i, 2)?;
                r.h12 = true;
                (s.get(i) == Some(&b':')).then_some(())?;
                i += 1;
                r.minute = number(s, &mut i, 2)?;
                (s.get(i) == Some(&b':')).then_some(())?;
                i += 1;
                r.second = number(s, &mut i, 2)?;
                while i < s.len() && s[i].is_ascii_whitespace() {
                    i += 1;
                }
                let rest = &s[i..];
                if rest.len() >= 2 && rest[..2].eq_ignore_ascii_case(b"PM") {
                    r.pm = Some(true);
                    i += 2;
                } else if rest.len() >= 2 && rest[..2].eq_ignore_ascii_case(b"AM") {
                    r.pm = Some(false);
                    i += 2;
                }
            }
            b'%' => {
                (s.get(i) == Some(&b'%')).then_some(())?;
                i += 1;
            }
            _ => {
                // An unknown specifier matches itself.
                (s.get(i) == Some(&spec)).then_some(())?;
                i += 1;
            }
        }
    }
    Some((r, i))
}

/// STR_TO_DATE of non-NULL arguments.
pub fn str_to_date(v: &Value, fmt: &Value, out: StrOut, env: &Env<'_>) -> Value {
    let text = convert::to_text(v);
    let f = convert::to_text(fmt);
    let bad = || {
        env.warn(
            "Warning",
            ErrorCode::WrongValueForType,
            format!(
                "Incorrect datetime value: '{}' for function str_to_date",
                convert::to_string(v)
            ),
        );
        Value::Null
    };
    let Some((mut r, used)) = read(&text, &f) else {
        return bad();
    };
    if r.h12 {
        if r.hour == 0 || r.hour > 12 {
            return bad();
        }
        r.hour %= 12;
    }
    if r.pm == Some(true) {
        if !r.h12 && r.hour > 12 {
            return bad();
        }
        r.hour = r.hour % 12 + 12;
    }
    if let Some(yday) = r.yday {
        if yday == 0 || yday > 366 {
            return bad();
        }
        let d = convert::civil_from_days(
            convert::days_from_civil(i64::from(r.year), 1, 1) + i64::from(yday) - 1,
        );
        r.month = u32::from(d.month);
        r.day = u32::from(d.day);
    }
    if r.month > 12 || r.day > 31 || r.hour > 23 || r.minute > 59 || r.second > 59 {
        return bad();
    }
    if text[used..].iter().any(|c| !c.is_ascii_whitespace()) {
        env.warn(
            "Warning",
            ErrorCode::TruncatedWrongValue,
            format!(
                "Truncated incorrect {} value: '{}'",
                match out {
                    StrOut::Date => "date",
                    StrOut::Time(_) => "time",
                    StrOut::DateTime(_) => "datetime",
                },
                convert::to_string(v)
            ),
        );
    }
    let dt = DateTime {
        date: Date {
            year: r.year as u16,
            month: r.month as u8,
            day: r.day as u8,
        },
        hour: r.hour as u8,
        minute: r.minute as u8,
        second: r.second as u8,
        micros: r.micros,
    };
    if !matches!(out, StrOut::Time(_)) && convert::zero_date_mode_refuses(&dt, env) {
        return bad();
    }
    match out {
        StrOut::Date => Value::Date(dt.date),
        StrOut::DateTime(fsp) => {
            let unit = 10u32.pow(6 - u32::from(fsp.min(6)));
            Value::DateTime(DateTime {
                micros: dt.micros / unit * unit,
                ..dt
            })
        }
        StrOut::Time(fsp) => Value::Time(crate::sql::expr::time_value::truncate_fsp(
            crate::sql::expr::time_value::of_datetime(&dt),
            fsp,
        )),
    }
}
