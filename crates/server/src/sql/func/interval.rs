//! INTERVAL arithmetic: `DATE_ADD` / `DATE_SUB` / `ADDDATE` / `SUBDATE` / `TIMESTAMPADD`,
//! `expr ± INTERVAL n unit`, and `TIMESTAMPDIFF`, as MariaDB 10.11 does them.
//!
//! * The value of a simple unit is an integer (a decimal rounds half away from zero, a string
//!   is read up to its leading integer with warning 1292), except SECOND, which keeps six
//!   fractional digits (truncated). A compound unit (`DAY_HOUR`, `HOUR_MINUTE`, …) reads its
//!   value as text: a leading `-` makes it negative, then digit groups separated by anything;
//!   missing leading groups are zero (`'1:2' DAY_SECOND` is 1 minute 2 seconds), too many make
//!   the result NULL, and a microsecond group of fewer than six digits is a fraction
//!   (`'1.5' SECOND_MICROSECOND` is 1.5 seconds).
//! * Month arithmetic (MONTH, QUARTER, YEAR, YEAR_MONTH) keeps the day, clamped to the new
//!   month's end (`2020-01-31 + 1 MONTH` is 2020-02-29); everything else moves a count of
//!   microseconds.
//! * A date that is not one (or has a zero month or day) is NULL with warning 1292; a result
//!   outside 0001-01-01 … 9999-12-31 (0000 … 9999 for months) is NULL with warning 1441.
//! * The result type follows the first argument: DATE stays DATE for date units, DATETIME
//!   otherwise; a string or a number gives a string, a date when it had no time and the unit
//!   is a date unit, else a datetime whose fraction has the digits of either side.

use crate::sql::bind::sqltype::{Class, SqlType};
use crate::sql::env::Env;
use crate::sql::expr::convert::{self, Num};
use crate::types::{Date, DateTime, Value};
use cohort_protocol::column::ColumnType;
use cohort_protocol::ErrorCode;

/// An INTERVAL unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Microsecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
    SecondMicrosecond,
    MinuteMicrosecond,
    MinuteSecond,
    HourMicrosecond,
    HourSecond,
    HourMinute,
    DayMicrosecond,
    DaySecond,
    DayMinute,
    DayHour,
    YearMonth,
}

const US: i128 = 1_000_000;

impl Unit {
    /// A unit by name (upper case); TIMESTAMPADD / TIMESTAMPDIFF also take `SQL_TSI_` names.
    pub fn parse(name: &str) -> Option<Unit> {
        use Unit::*;
        let n = name.to_ascii_uppercase();
        let n = n.strip_prefix("SQL_TSI_").unwrap_or(&n).to_string();
        Some(match n.as_str() {
            "MICROSECOND" => Microsecond,
            "SECOND" => Second,
            "MINUTE" => Minute,
            "HOUR" => Hour,
            "DAY" => Day,
            "WEEK" => Week,
            "MONTH" => Month,
            "QUARTER" => Quarter,
            "YEAR" => Year,
            "SECOND_MICROSECOND" => SecondMicrosecond,
            "MINUTE_MICROSECOND" => MinuteMicrosecond,
            "MINUTE_SECOND" => MinuteSecond,
            "HOUR_MICROSECOND" => HourMicrosecond,
            "HOUR_SECOND" => HourSecond,
            "HOUR_MINUTE" => HourMinute,
            "DAY_MICROSECOND" => DayMicrosecond,
            "DAY_SECOND" => DaySecond,
            "DAY_MINUTE" => DayMinute,
            "DAY_HOUR" => DayHour,
            "YEAR_MONTH" => YearMonth,
            _ => return None,
        })
    }

    /// True for the units that are single words (the ones TIMESTAMPADD / TIMESTAMPDIFF take).
    pub fn is_simple(self) -> bool {
        self.parts().len() == 1
    }

    /// True if the unit moves whole months.
    fn is_months(self) -> bool {
        matches!(
            self,
            Unit::Month | Unit::Quarter | Unit::Year | Unit::YearMonth
        )
    }

    /// True if the unit moves whole days or months (a DATE stays a DATE).
    pub fn is_date_unit(self) -> bool {
        self.is_months() || matches!(self, Unit::Day | Unit::Week)
    }

    /// The size of each part, in microseconds (in months for month units), left to right.
    fn parts(self) -> &'static [i128] {
        use Unit::*;
        const D: i128 = 86_400 * US;
        const H: i128 = 3_600 * US;
        const M: i128 = 60 * US;
        match self {
            Microsecond => &[1],
            Second => &[US],
            Minute => &[M],
            Hour => &[H],
            Day => &[D],
            Week => &[7 * D],
            Month => &[1],
            Quarter => &[3],
            Year => &[12],
            SecondMicrosecond => &[US, 1],
            MinuteMicrosecond => &[M, US, 1],
            MinuteSecond => &[M, US],
            HourMicrosecond => &[H, M, US, 1],
            HourSecond => &[H, M, US],
            HourMinute => &[H, M],
            DayMicrosecond => &[D, H, M, US, 1],
            DaySecond => &[D, H, M, US],
            DayMinute => &[D, H, M],
            DayHour => &[D, H],
            YearMonth => &[12, 1],
        }
    }

    /// True if the last part is microseconds.
    fn has_micros(self) -> bool {
        self != Unit::Month && self.parts().last() == Some(&1) && !self.is_months()
    }
}

/// What DATE_ADD returns, chosen at bind time from the first argument's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Out {
    Date,
    DateTime(u8),
    /// A string (the first argument was a string or a number); `u8`: the interval's digits.
    Text(u8),
    /// A TIME moved by a time interval (NULL past the TIME range).
    Time(u8),
}

/// The fractional digits an interval value brings: six for microsecond units, a SECOND
/// value's own (a double or a string: six), none otherwise.
fn interval_fsp(unit: Unit, value: &SqlType) -> u8 {
    if unit.has_micros() {
        return 6;
    }
    if unit != Unit::Second {
        return 0;
    }
    match value.class {
        Class::Int | Class::Null => 0,
        Class::Decimal => value.decimals.min(6),
        _ => 6,
    }
}

/// The fractional digits a string or number argument brings to a text result: a literal's
/// own (`'10:00:00.5'`: 1, a decimal's scale), six for anything else (a column, an expression).
pub fn text_fsp(date_expr: &crate::sql::expr::Expr, date: &SqlType) -> u8 {
    use crate::sql::expr::Expr;
    match (date_expr, date.class) {
        (Expr::Lit(v @ Value::Bytes(_)), _) => text_fraction_digits(v),
        (Expr::Lit(Value::Decimal(d)), _) => d.scale().min(6),
        (Expr::Lit(_), _) | (_, Class::Int | Class::Null) => 0,
        // A string column: any digits.
        (Expr::Col(_), _) => 6,
        _ if date.decimals <= 6 => date.decimals,
        _ => 6,
    }
}

/// The result type of DATE_ADD(`date`, INTERVAL `value` `unit`).
pub fn bind_type(
    date_expr: &crate::sql::expr::Expr,
    date: &SqlType,
    unit: Unit,
    value: &SqlType,
) -> (Out, SqlType) {
    let fsp = interval_fsp(unit, value);
    match date.class {
        Class::Date if unit.is_date_unit() => (Out::Date, SqlType::date()),
        Class::Date => (Out::DateTime(fsp), SqlType::datetime(fsp)),
        Class::DateTime => {
            let fsp = fsp.max(date.decimals.min(6));
            (Out::DateTime(fsp), SqlType::datetime(fsp))
        }
        // TIME + months is a DATETIME (MariaDB's type; the value is NULL).
        Class::Time if unit.is_months() => {
            let fsp = fsp.max(date.decimals.min(6));
            (
                Out::DateTime(fsp),
                SqlType::datetime(fsp).with_nullable(true),
            )
        }
        Class::Time => {
            let fsp = fsp.max(date.decimals.min(6));
            (Out::Time(fsp), SqlType::time(fsp).with_nullable(true))
        }
        _ => {
            let fsp = fsp.max(text_fsp(date_expr, date));
            let len = 19 + if fsp > 0 { u32::from(fsp) + 1 } else { 0 };
            let mut t = SqlType::varchar(len);
            t.wire = ColumnType::STRING;
            t.decimals = fsp;
            (Out::Text(fsp), t)
        }
    }
}

/// An interval: a signed count of months or of microseconds.
#[derive(Clone, Copy, Debug)]
pub struct Interval {
    pub months: i128,
    pub micros: i128,
}

fn truncated(env: &Env<'_>, kind: &str, v: &Value) {
    env.warn(
        "Warning",
        ErrorCode::TruncatedWrongValue,
        format!(
            "Truncated incorrect {kind} value: '{}'",
            convert::to_string(v)
        ),
    );
}

/// An integer interval value: a decimal or double rounds half away from zero; a string is read
/// up to its leading integer (warning 1292 when more followed).
pub fn int_value(v: &Value, env: &Env<'_>) -> i128 {
    match v {
        Value::Bytes(b) => {
            let (i, complete) = convert::integer_prefix(b);
            if !complete {
                truncated(env, "INTEGER", v);
            }
            i
        }
        other => match convert::to_num(other) {
            Num::F(f) => f.round().clamp(-1e30, 1e30) as i128,
            Num::D(d) => d
                .round_to(0, cohort_decimal::Rounding::HalfUp)
                .ok()
                .and_then(|r| r.to_i128(cohort_decimal::Rounding::Down))
                .unwrap_or(i128::MAX),
            n => n.to_i128(),
        },
    }
}

/// A SECOND value in microseconds (fraction truncated to six digits).
fn second_value(v: &Value, env: &Env<'_>) -> i128 {
    let text = match v {
        Value::Bytes(b) => {
            let (parsed, d) = convert::parse_decimal(b);
            if !parsed.complete {
                truncated(env, "DECIMAL", v);
            }
            match d {
                Some(Ok(d)) => d.to_string(),
                _ => "0".to_string(),
            }
        }
        other => match convert::to_num(other) {
            Num::F(f) => return (f * 1e6).trunc().clamp(-1e36, 1e36) as i128,
            Num::D(d) => d.to_string(),
            n => return n.to_i128().saturating_mul(US),
        },
    };
    let (neg, t) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text.as_str()),
    };
    let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
    let whole: i128 = whole.parse().unwrap_or(i128::MAX / US);
    let mut f = frac.chars().take(6).collect::<String>();
    while f.len() < 6 {
        f.push('0');
    }
    let us = whole
        .saturating_mul(US)
        .saturating_add(f.parse::<i128>().unwrap_or(0));
    if neg {
        -us
    } else {
        us
    }
}

/// A compound unit's value: digit groups as described in the module doc; None for too many.
fn compound_value(unit: Unit, v: &Value) -> Option<i128> {
    let text = convert::to_text(v);
    let mut b: &[u8] = &text;
    while let [c, rest @ ..] = b {
        if c.is_ascii_whitespace() {
            b = rest;
        } else {
            break;
        }
    }
    let neg = b.first() == Some(&b'-');
    let parts = unit.parts();
    let mut groups: Vec<(i128, usize)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        let mut n: i128 = 0;
        while i < b.len() && b[i].is_ascii_digit() {
            n = n.saturating_mul(10).saturating_add(i128::from(b[i] - b'0'));
            i += 1;
        }
        groups.push((n.min(i128::from(u64::MAX)), i - start));
        if groups.len() > parts.len() {
            return None;
        }
    }
    if groups.is_empty() {
        return Some(0);
    }
    if unit.has_micros() {
        let (last, digits) = groups.last_mut()?;
        if *digits < 6 {
            *last *= 10i128.pow(6 - *digits as u32);
        }
    }
    let skip = parts.len() - groups.len();
    let total = groups
        .iter()
        .zip(&parts[skip..])
        .fold(0i128, |acc, ((n, _), size)| {
            acc.saturating_add(n.saturating_mul(*size))
        });
    Some(if neg { -total } else { total })
}

/// The interval of `v` in `unit`; None when the value cannot be one (NULL result).
pub fn interval_of(unit: Unit, v: &Value, env: &Env<'_>) -> Option<Interval> {
    if v.is_null() {
        return None;
    }
    let amount = if unit.is_simple() {
        match unit {
            Unit::Second => second_value(v, env),
            _ => int_value(v, env).saturating_mul(unit.parts()[0]),
        }
    } else {
        compound_value(unit, v)?
    };
    Some(if unit.is_months() {
        Interval {
            months: amount,
            micros: 0,
        }
    } else {
        Interval {
            months: 0,
            micros: amount,
        }
    })
}

/// Warning 1292 for a value that is no date, and NULL.
pub fn bad_datetime(env: &Env<'_>, v: &Value) -> Value {
    env.warn(
        "Warning",
        ErrorCode::TruncatedWrongValue,
        format!(
            "Incorrect datetime value: '{}'",
            crate::sql::expr::datetime_text::shown(v)
        ),
    );
    Value::Null
}

/// Warning 1441 (a result out of range), and NULL.
pub fn overflow(env: &Env<'_>) -> Value {
    env.warn(
        "Warning",
        ErrorCode::DatetimeFunctionOverflow,
        "Datetime function: datetime field overflow",
    );
    Value::Null
}

/// A value as a datetime for date arithmetic: None (after warning 1292) when it is no date or
/// has a zero month or day. The flag says whether it had a time part.
pub fn date_arg(v: &Value, env: &Env<'_>) -> Option<(DateTime, bool)> {
    match convert::to_datetime_lenient(v) {
        Some((dt, t)) if dt.date.month != 0 && dt.date.day != 0 => Some((dt, t)),
        _ => {
            bad_datetime(env, v);
            None
        }
    }
}

/// Microseconds since 1970-01-01 00:00:00.
pub fn total_micros(dt: &DateTime) -> i128 {
    i128::from(convert::unix_seconds(dt)) * US + i128::from(dt.micros)
}

/// The datetime `us` microseconds after the epoch, if within 0001-01-01 … 9999-12-31.
pub fn from_micros(us: i128) -> Option<DateTime> {
    const MIN_DAY: i128 = -719_162; // 0001-01-01
    const MAX_DAY: i128 = 2_932_896; // 9999-12-31
    let day = us.div_euclid(86_400 * US);
    if !(MIN_DAY..=MAX_DAY).contains(&day) {
        return None;
    }
    let secs = us.div_euclid(US) as i64;
    Some(convert::datetime_from_unix(secs, us.rem_euclid(US) as u32))
}

/// `dt` moved by `iv` (negated when `sub`); None when out of range.
pub fn add(dt: DateTime, iv: Interval, sub: bool) -> Option<DateTime> {
    let sign = if sub { -1 } else { 1 };
    if iv.months != 0 || iv.micros == 0 {
        let period =
            i128::from(dt.date.year) * 12 + i128::from(dt.date.month) - 1 + sign * iv.months;
        if !(0..120_000).contains(&period) {
            return None;
        }
        let year = (period / 12) as u16;
        let month = (period % 12) as u8 + 1;
        let day = dt.date.day.min(convert::days_in_month(year, month));
        return Some(DateTime {
            date: Date { year, month, day },
            ..dt
        });
    }
    from_micros(total_micros(&dt).checked_add(sign * iv.micros)?)
}

/// The fractional digits a string shows for its time (`'10:00:00.5'`: 1).
pub fn text_fraction_digits(v: &Value) -> u8 {
    let Value::Bytes(b) = v else {
        return 0;
    };
    let Some(dot) = b.iter().rposition(|&c| c == b'.') else {
        return 0;
    };
    if !b[..dot].contains(&b':') {
        return 0;
    }
    b[dot + 1..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count()
        .min(6) as u8
}

/// DATE_ADD / DATE_SUB of evaluated arguments.
pub fn eval(unit: Unit, sub: bool, out: Out, date: &Value, n: &Value, env: &Env<'_>) -> Value {
    if date.is_null() || n.is_null() {
        return Value::Null;
    }
    if let Value::Time(t) = date {
        return time_add(*t, unit, sub, out, n, env);
    }
    if let Out::Time(_) = out {
        return Value::Null;
    }
    let Some((dt, has_time)) = date_arg(date, env) else {
        return Value::Null;
    };
    let Some(iv) = interval_of(unit, n, env) else {
        return Value::Null;
    };
    let Some(r) = add(dt, iv, sub) else {
        return overflow(env);
    };
    match out {
        Out::Date => Value::Date(r.date),
        Out::DateTime(fsp) => {
            let unit = 10u32.pow(6 - u32::from(fsp.min(6)));
            Value::DateTime(DateTime {
                micros: r.micros / unit * unit,
                ..r
            })
        }
        Out::Text(fsp) => {
            if !has_time && unit.is_date_unit() {
                Value::Bytes(r.date.to_string().into_bytes())
            } else {
                Value::Bytes(crate::sql::expr::datetime_text::with_fsp(&r, fsp).into_bytes())
            }
        }
        Out::Time(_) => Value::Null,
    }
}

/// TIME ± INTERVAL: a time interval moves the duration (NULL past ±838:59:59.999999); a
/// month interval gives NULL.
fn time_add(t: i64, unit: Unit, sub: bool, out: Out, n: &Value, env: &Env<'_>) -> Value {
    use crate::sql::expr::time_value;
    let Out::Time(fsp) = out else {
        return Value::Null;
    };
    let Some(iv) = interval_of(unit, n, env) else {
        return Value::Null;
    };
    if iv.months != 0 {
        return Value::Null;
    }
    let d = if sub { -iv.micros } else { iv.micros };
    let r = i128::from(t) + d;
    if r.abs() > i128::from(time_value::MAX_MICROS) {
        env.warn(
            "Warning",
            ErrorCode::DatetimeFunctionOverflow,
            "Datetime function: time field overflow",
        );
        return Value::Null;
    }
    Value::Time(time_value::truncate_fsp(r as i64, fsp))
}

/// TIMESTAMPDIFF(unit, a, b): `b - a` in whole units.
pub fn diff(unit: Unit, a: &Value, b: &Value, env: &Env<'_>) -> Value {
    if a.is_null() || b.is_null() {
        return Value::Null;
    }
    let (Some((x, _)), Some((y, _))) = (date_arg(a, env), date_arg(b, env)) else {
        return Value::Null;
    };
    let d = total_micros(&y) - total_micros(&x);
    if unit.is_months() {
        let mut months = (i128::from(y.date.year) - i128::from(x.date.year)) * 12
            + i128::from(y.date.month)
            - i128::from(x.date.month);
        let rest = |t: &DateTime| (t.date.day, t.hour, t.minute, t.second, t.micros);
        if d >= 0 && months > 0 && rest(&y) < rest(&x) {
            months -= 1;
        } else if d < 0 && months < 0 && rest(&y) > rest(&x) {
            months += 1;
        }
        let per = unit.parts()[0];
        return Value::Int((months / per) as i64);
    }
    Value::Int((d / unit.parts()[0]) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(s: &str) -> DateTime {
        convert::parse_datetime(s.as_bytes()).unwrap().0
    }

    #[test]
    fn months_clamp_the_day() {
        let iv = Interval {
            months: 1,
            micros: 0,
        };
        assert_eq!(
            add(dt("2020-01-31"), iv, false).unwrap().date.to_string(),
            "2020-02-29"
        );
        assert_eq!(
            add(dt("2020-03-31"), iv, true).unwrap().date.to_string(),
            "2020-02-29"
        );
    }

    #[test]
    fn compound_groups() {
        let v = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        assert_eq!(compound_value(Unit::DaySecond, &v("1:2")), Some(62 * US));
        assert_eq!(
            compound_value(Unit::SecondMicrosecond, &v("1.5")),
            Some(US + 500_000)
        );
        assert_eq!(compound_value(Unit::HourSecond, &v("1:2:3:4")), None);
        assert_eq!(
            compound_value(Unit::DayHour, &v(" -1 2")),
            Some(-(86_400 + 7_200) * US)
        );
        assert_eq!(compound_value(Unit::DayHour, &v("abc")), Some(0));
    }

    #[test]
    fn range_limits() {
        assert!(from_micros(total_micros(&dt("0001-01-01")) - 1).is_none());
        assert!(from_micros(total_micros(&dt("9999-12-31 23:59:59"))).is_some());
    }
}
