//! TIME values: signed microseconds (`Value::Time`), their text (`[-]HH:MM:SS[.ffffff]`, hours
//! past 24 allowed), and the ways MariaDB reads a TIME from a string or a number.
//!
//! Accepted text: `[-][D ]HH:MM:SS[.f]`, `[-][D ]HH:MM`, `[-]D HH`, `[-]HHMMSS[.f]` (also
//! `MMSS`, `SS`), and a whole datetime (`YYYY-MM-DD HH:MM:SS`, whose time part is kept).
//! Numbers read as `HHMMSS[.f]` (or `YYYYMMDDHHMMSS` from 10^10 on). Fractions beyond the
//! target precision are truncated, as MariaDB does without `TIME_ROUND_FRACTIONAL`. Minutes or
//! seconds of 60 and more make the value invalid; hours past 838 clip to the range.

use crate::types::{DateTime, Decimal, Value};

/// The largest TIME magnitude, 838:59:59.999999, in microseconds.
pub const MAX_MICROS: i64 = (838 * 3600 + 59 * 60 + 59) * 1_000_000 + 999_999;

/// How a conversion to TIME went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parsed {
    /// The whole input was a time.
    Exact,
    /// A datetime whose date part was dropped (a note when stored).
    DateDropped,
    /// Trailing characters were ignored (a truncation warning).
    Trailing,
    /// Out of range: clipped to ±838:59:59.999999.
    Clipped,
}

/// Microseconds from parts.
pub fn from_parts(neg: bool, hours: i64, minutes: i64, seconds: i64, micros: i64) -> i64 {
    let v = ((hours * 60 + minutes) * 60 + seconds)
        .saturating_mul(1_000_000)
        .saturating_add(micros);
    if neg {
        -v
    } else {
        v
    }
}

/// Clip to the TIME range; the flag says whether it had to.
pub fn clip(v: i64) -> (i64, bool) {
    if v > MAX_MICROS {
        (MAX_MICROS, true)
    } else if v < -MAX_MICROS {
        (-MAX_MICROS, true)
    } else {
        (v, false)
    }
}

/// Drop fractional digits past `fsp` (toward zero).
pub fn truncate_fsp(v: i64, fsp: u8) -> i64 {
    if fsp >= 6 {
        return v;
    }
    let unit = 10i64.pow(6 - u32::from(fsp));
    v / unit * unit
}

/// The text of a TIME with exactly `fsp` fractional digits (`None`: 6 when there is a
/// fraction, none otherwise).
pub fn format(v: i64, fsp: Option<u8>) -> String {
    let neg = v < 0;
    let a = v.unsigned_abs();
    let micros = a % 1_000_000;
    let secs = a / 1_000_000;
    let mut s = format!(
        "{}{:02}:{:02}:{:02}",
        if neg { "-" } else { "" },
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    );
    let digits = fsp.unwrap_or(if micros != 0 { 6 } else { 0 }).min(6);
    if digits > 0 {
        let f = format!("{micros:06}");
        s.push('.');
        s.push_str(&f[..digits as usize]);
    }
    s
}

/// The number a TIME stands for in numeric context: `HHMMSS[.ffffff]` (`fsp` digits).
pub fn to_number(v: i64, fsp: u8) -> Value {
    let neg = v < 0;
    let a = v.unsigned_abs() as i128;
    let secs = a / 1_000_000;
    let n = (secs / 3600) * 10_000 + ((secs / 60) % 60) * 100 + secs % 60;
    if fsp == 0 {
        let n = n as i64;
        return Value::Int(if neg { -n } else { n });
    }
    let micros = a % 1_000_000;
    let scaled = (n * 1_000_000 + micros) / 10i128.pow(6 - u32::from(fsp.min(6)));
    Value::Decimal(Decimal::new(if neg { -scaled } else { scaled }, fsp.min(6)))
}

/// The seconds of a TIME (TIME_TO_SEC), with the fraction as a decimal when there is one.
pub fn seconds(v: i64) -> (i64, i64) {
    (v / 1_000_000, v % 1_000_000)
}

/// Parse text as a TIME. `None`: not a time at all (or minutes/seconds out of range).
pub fn parse(s: &[u8]) -> Option<(i64, Parsed)> {
    let text = std::str::from_utf8(s).ok()?;
    let t = text.trim_matches(|c: char| c == ' ' || c == '\t' || c == '\n');
    if t.is_empty() {
        return None;
    }
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, t),
    };
    // A whole datetime ('2020-01-02 03:04:05', or 12+ digits): its time part.
    if !neg && looks_like_datetime(body) {
        if let Some((dt, _)) = crate::sql::expr::datetime_text::parse_lenient(body.as_bytes()) {
            return Some((of_datetime(&dt), Parsed::DateDropped));
        }
    }
    let b = body.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| -> Option<(i64, usize)> {
        let start = *i;
        let mut n: i64 = 0;
        while *i < b.len() && b[*i].is_ascii_digit() {
            n = n.saturating_mul(10).saturating_add(i64::from(b[*i] - b'0'));
            *i += 1;
        }
        (*i > start).then_some((n, *i - start))
    };
    let (first, first_len) = digits(&mut i)?;
    let mut days = 0;
    let mut parts: Vec<i64> = vec![first];
    let mut compact = true;
    // 'D HH…'
    if i < b.len() && b[i] == b' ' && i + 1 < b.len() && b[i + 1].is_ascii_digit() {
        let mut j = i + 1;
        if let Some((h, _)) = digits(&mut j) {
            days = first;
            parts = vec![h];
            i = j;
            compact = false;
        }
    }
    while parts.len() < 3 && i + 1 < b.len() && b[i] == b':' && b[i + 1].is_ascii_digit() {
        i += 1;
        let (n, _) = digits(&mut i)?;
        parts.push(n);
        compact = false;
    }
    let mut micros = 0;
    let mut frac_ok = true;
    if i < b.len() && b[i] == b'.' && (parts.len() == 3 || compact) {
        i += 1;
        let start = i;
        let mut m = 0i64;
        let mut k = 0;
        while i < b.len() && b[i].is_ascii_digit() {
            if k < 6 {
                m = m * 10 + i64::from(b[i] - b'0');
                k += 1;
            }
            i += 1;
        }
        frac_ok = i > start;
        while k < 6 {
            m *= 10;
            k += 1;
        }
        micros = m;
    }
    let _ = first_len;
    let (h, m, sec) = if compact && days == 0 && parts.len() == 1 {
        let n = parts[0];
        (n / 10_000, (n / 100) % 100, n % 100)
    } else {
        match parts.as_slice() {
            [h] => (*h, 0, 0),
            [h, m] => (*h, *m, 0),
            [h, m, s] => (*h, *m, *s),
            _ => return None,
        }
    };
    if m > 59 || sec > 59 {
        return None;
    }
    let v = from_parts(
        neg,
        days.saturating_mul(24).saturating_add(h),
        m,
        sec,
        micros,
    );
    let (v, clipped) = clip(v);
    let status = if clipped {
        Parsed::Clipped
    } else if i < b.len() || !frac_ok {
        Parsed::Trailing
    } else {
        Parsed::Exact
    };
    Some((v, status))
}

fn looks_like_datetime(s: &str) -> bool {
    let b = s.as_bytes();
    let lead = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if lead >= 2 && b.get(lead).is_some_and(|&c| c == b'-' || c == b'/') {
        return true;
    }
    // 'YYYYMMDDHHMMSS' written out.
    lead >= 12 && (lead == b.len() || b[lead] == b'.')
}

/// The time of day of a datetime.
pub fn of_datetime(dt: &DateTime) -> i64 {
    from_parts(
        false,
        i64::from(dt.hour),
        i64::from(dt.minute),
        i64::from(dt.second),
        i64::from(dt.micros),
    )
}

/// A number read as a TIME (`HHMMSS[.f]`): `n` the integer part, `micros` the fraction.
pub fn from_number(n: i128, micros: i64) -> Option<(i64, Parsed)> {
    let neg = n < 0 || (n == 0 && micros < 0);
    let a = n.unsigned_abs();
    if a >= 10_000_000_000 {
        let (dt, _) = crate::sql::expr::convert::datetime_from_number(a as i128)?;
        let mut v = of_datetime(&dt) + micros.abs();
        if neg {
            v = -v;
        }
        return Some((v, Parsed::DateDropped));
    }
    let (h, m, s) = (a / 10_000, (a / 100) % 100, a % 100);
    if m > 59 || s > 59 {
        return None;
    }
    let v = from_parts(neg, h as i64, m as i64, s as i64, micros.abs());
    let (v, clipped) = clip(v);
    Some((
        v,
        if clipped {
            Parsed::Clipped
        } else {
            Parsed::Exact
        },
    ))
}

/// Any value read as a TIME (CAST, comparisons, column stores): `None` when it is none.
pub fn from_value(v: &Value) -> Option<(i64, Parsed)> {
    match v {
        Value::Null => None,
        Value::Time(t) => Some((*t, Parsed::Exact)),
        Value::Int(i) => from_number(i128::from(*i), 0),
        Value::UInt(u) => from_number(i128::from(*u), 0),
        Value::Double(f) => {
            if !f.is_finite() {
                return None;
            }
            let n = f.trunc();
            let micros = ((f - n) * 1_000_000.0).trunc() as i64;
            from_number(n as i128, micros)
        }
        Value::Decimal(d) => {
            let scaled = d
                .checked_mul(&Decimal::new(1_000_000, 0))
                .ok()?
                .to_i128(cohort_decimal::Rounding::Down)?;
            let whole = scaled / 1_000_000;
            from_number(whole, (scaled % 1_000_000) as i64)
        }
        Value::Bytes(b) => parse(b),
        Value::Date(_) => Some((0, Parsed::DateDropped)),
        Value::DateTime(dt) => Some((of_datetime(dt), Parsed::DateDropped)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Option<String> {
        parse(s.as_bytes()).map(|(v, _)| format(v, None))
    }

    #[test]
    fn parses_mariadb_forms() {
        assert_eq!(p("12:34:56").as_deref(), Some("12:34:56"));
        assert_eq!(p("1 02:03:04.12345").as_deref(), Some("26:03:04.123450"));
        assert_eq!(p("123456").as_deref(), Some("12:34:56"));
        assert_eq!(p("12:34").as_deref(), Some("12:34:00"));
        assert_eq!(p("12").as_deref(), Some("00:00:12"));
        assert_eq!(p("1234").as_deref(), Some("00:12:34"));
        assert_eq!(p("1:2:3").as_deref(), Some("01:02:03"));
        assert_eq!(p("1 2:3").as_deref(), Some("26:03:00"));
        assert_eq!(p("-838:59:59.9999").as_deref(), Some("-838:59:59.999900"));
        assert_eq!(
            p("2020-01-02 03:04:05.6").as_deref(),
            Some("03:04:05.600000")
        );
        assert_eq!(p("10:70:00"), None);
        assert_eq!(p("abc"), None);
        assert_eq!(p("900:00:00").as_deref(), Some("838:59:59.999999"));
    }

    #[test]
    fn numbers() {
        assert_eq!(from_number(123456, 0).map(|x| x.0), Some(45_296_000_000));
        assert_eq!(from_number(8385960, 0), None);
        assert_eq!(format(-1_500_000, Some(3)), "-00:00:01.500");
        assert_eq!(to_number(45_296_000_000, 0), Value::Int(123456));
    }
}
