//! Calendar functions: DAYOFWEEK, WEEKDAY, DAYOFYEAR, DAYNAME, MONTHNAME, WEEK, WEEKOFYEAR,
//! YEARWEEK, MICROSECOND,
//! QUARTER, LAST_DAY, MAKEDATE, TO_DAYS, FROM_DAYS, TIME_TO_SEC, SEC_TO_TIME, CONVERT_TZ and
//! EXTRACT, as MariaDB 10.11 answers them.
//!
//! Day numbers are MariaDB's (`TO_DAYS('0000-01-01')` is 1, 1970-01-01 is 719528). Weeks
//! follow the eight WEEK() modes: bit 0 Monday first, bit 1 weeks counted in their own year
//! (1–53, never 0), bit 2 the first week is the one with the first Monday / Sunday rather than
//! the first with four days. A value that is no date is NULL with warning 1292.
//!
//! There is no TIME type: SEC_TO_TIME gives the time as text (`838:59:59` at most).
//! CONVERT_TZ converts between `±hh:mm` offsets (and SYSTEM, which is UTC here); a named zone
//! is NULL, as on a stock MariaDB whose time zone tables are empty; a datetime outside the
//! TIMESTAMP range is returned unchanged, as MariaDB does.

use super::interval::{self, bad_datetime, Unit};
use crate::sql::bind::sqltype::{Class, SqlType};
use crate::sql::env::Env;
use crate::sql::expr::convert;
use crate::types::{Date, DateTime, Value};
use cohort_protocol::ErrorCode;

/// A calendar function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CalFn {
    DayOfWeek,
    Weekday,
    DayOfYear,
    DayName,
    MonthName,
    Week,
    /// WEEKOFYEAR(d): WEEK(d, 3).
    WeekOfYear,
    YearWeek,
    Quarter,
    LastDay,
    MakeDate,
    ToDays,
    /// TO_SECONDS(d): seconds since year 0 (TO_DAYS × 86400 + the time of day).
    ToSeconds,
    FromDays,
    TimeToSec,
    SecToTime,
    ConvertTz,
    Extract(Unit),
}

/// MariaDB's day number of 1970-01-01.
const EPOCH_DAYNR: i64 = 719_528;

pub const DAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
pub const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The binding of a calendar function by name.
/// `first_fsp`: the fractional digits the first argument shows when it is text
/// ([`interval::text_fsp`]).
pub fn bind(
    name: &str,
    args: &[SqlType],
    first_fsp: u8,
) -> Option<std::result::Result<(CalFn, SqlType), ()>> {
    let n = args.len();
    let nullable = true;
    let (f, ok, ty) = match name {
        "DAYOFWEEK" => (CalFn::DayOfWeek, n == 1, SqlType::int(1)),
        "WEEKDAY" => (CalFn::Weekday, n == 1, SqlType::int(1)),
        "DAYOFYEAR" => (CalFn::DayOfYear, n == 1, SqlType::int(3)),
        "DAYNAME" => (CalFn::DayName, n == 1, fixed(SqlType::varchar(9))),
        "MONTHNAME" => (CalFn::MonthName, n == 1, fixed(SqlType::varchar(9))),
        "WEEK" => (CalFn::Week, n == 1 || n == 2, SqlType::int(2)),
        "WEEKOFYEAR" => (CalFn::WeekOfYear, n == 1, SqlType::int(2)),
        "MICROSECOND" => (CalFn::Extract(Unit::Microsecond), n == 1, SqlType::int(6)),
        "YEARWEEK" => (CalFn::YearWeek, n == 1 || n == 2, SqlType::int(6)),
        "QUARTER" => (CalFn::Quarter, n == 1, SqlType::int(1)),
        "LAST_DAY" => (CalFn::LastDay, n == 1, SqlType::date()),
        "MAKEDATE" => (CalFn::MakeDate, n == 2, SqlType::date()),
        "TO_DAYS" => {
            let len = if args.first().map(|t| t.class) == Some(Class::Date) {
                6
            } else {
                7
            };
            (CalFn::ToDays, n == 1, SqlType::int(len))
        }
        "TO_SECONDS" => (
            CalFn::ToSeconds,
            n == 1,
            SqlType::int(12).with_nullable(true),
        ),
        "FROM_DAYS" => (CalFn::FromDays, n == 1, SqlType::date()),
        "TIME_TO_SEC" => {
            let t = match args.first().map(|t| (t.class, t.decimals)) {
                Some((Class::Int, _)) | Some((Class::Date, _)) => SqlType::int(17),
                Some((Class::DateTime, 0)) => SqlType::int(17),
                Some((Class::DateTime, d)) => SqlType::decimal(17 + u32::from(d), d),
                Some((Class::Time, 0)) => SqlType::int(10),
                Some((Class::Time, d)) => SqlType::decimal(10 + u32::from(d), d),
                _ => SqlType::double(),
            };
            (CalFn::TimeToSec, n == 1, t)
        }
        "SEC_TO_TIME" => {
            let d = match args.first().map(|t| (t.class, t.decimals)) {
                Some((Class::Int, _)) => 0,
                Some((Class::Decimal, d)) => d.min(6),
                _ => 6,
            };
            (CalFn::SecToTime, n == 1, SqlType::time(d))
        }
        "CONVERT_TZ" => {
            let d = match args.first().map(|t| (t.class, t.decimals)) {
                Some((Class::DateTime, d)) => d,
                Some((Class::Date | Class::Int, _)) => 0,
                _ => first_fsp,
            };
            (CalFn::ConvertTz, n == 3, SqlType::datetime(d))
        }
        _ => return None,
    };
    if !ok {
        return Some(Err(()));
    }
    let nullable = nullable || f == CalFn::ToSeconds;
    Some(Ok((f, ty.with_nullable(nullable))))
}

/// A string type whose decimals are 0 (names, formatted dates), as MariaDB sends them.
pub fn fixed(mut t: SqlType) -> SqlType {
    t.decimals = 0;
    t
}

/// The type of EXTRACT(unit FROM …).
pub fn extract_type(unit: Unit) -> SqlType {
    use Unit::*;
    let len = match unit {
        Year => return SqlType::int(4),
        Quarter => 1,
        Month | Week | Day | Hour | Minute | Second => 2,
        Microsecond => 6,
        YearMonth => 6,
        DayHour => 4,
        DayMinute => 6,
        DaySecond => 8,
        DayMicrosecond => 14,
        HourMinute => 4,
        HourSecond => 6,
        HourMicrosecond => 12,
        MinuteSecond => 4,
        MinuteMicrosecond => 10,
        SecondMicrosecond => 8,
    };
    SqlType::int(len + 1)
}

/// MariaDB's day number of a date: days since a year 0 that has no leap day (so 0000-01-01
/// is 1 and 0001-01-01 366, where the proleptic Gregorian calendar agrees from year 1 on).
pub fn daynr(d: Date) -> i64 {
    let days = convert::days_from_civil(i64::from(d.year), u32::from(d.month), u32::from(d.day))
        + EPOCH_DAYNR;
    // Year 0 is a leap year to the proleptic calendar: its January and February are a day
    // later in MariaDB's count.
    if d.year == 0 && d.month <= 2 {
        days + 1
    } else {
        days
    }
}

/// 0 = Monday … 6 = Sunday.
fn weekday(d: Date) -> i64 {
    (daynr(d) + 5).rem_euclid(7)
}

fn days_in_year(y: i64) -> i64 {
    if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 {
        366
    } else {
        365
    }
}

const MONDAY_FIRST: u32 = 1;
const WEEK_YEAR: u32 = 2;
const FIRST_WEEKDAY: u32 = 4;

/// WEEK()'s mode argument as the behaviour bits.
pub fn week_mode(mode: i64) -> u32 {
    let mut m = (mode & 7) as u32;
    if m & MONDAY_FIRST == 0 {
        m ^= FIRST_WEEKDAY;
    }
    m
}

/// The week of `d` under `behaviour`, and the year it belongs to.
pub fn calc_week(d: Date, behaviour: u32) -> (i64, i64) {
    let day = daynr(d);
    let mut first = daynr(Date {
        year: d.year,
        month: 1,
        day: 1,
    });
    let monday_first = behaviour & MONDAY_FIRST != 0;
    let mut week_year = behaviour & WEEK_YEAR != 0;
    let first_weekday = behaviour & FIRST_WEEKDAY != 0;
    // 0 = the first day of the week.
    let mut wd = (first + 5 + i64::from(!monday_first)).rem_euclid(7);
    let mut year = i64::from(d.year);
    let starts_late = |wd: i64| (first_weekday && wd != 0) || (!first_weekday && wd >= 4);
    if d.month == 1 && i64::from(d.day) <= 7 - wd {
        if !week_year && starts_late(wd) {
            return (0, year);
        }
        week_year = true;
        year -= 1;
        let days = days_in_year(year);
        first -= days;
        wd = (wd + 53 * 7 - days).rem_euclid(7);
    }
    let days = if starts_late(wd) {
        day - (first + (7 - wd))
    } else {
        day - (first - wd)
    };
    if week_year && days >= 52 * 7 {
        let wd2 = (wd + days_in_year(year)) % 7;
        if (!first_weekday && wd2 < 4) || (first_weekday && wd2 == 0) {
            return (1, year + 1);
        }
    }
    (days / 7 + 1, year)
}

fn date_of_daynr(n: i64) -> Option<Date> {
    if n < 366 {
        return None;
    }
    let d = convert::civil_from_days(n - EPOCH_DAYNR);
    (n <= 3_652_424).then_some(d)
}

/// A date argument that must be a real date (no zero month or day): warning 1292 otherwise.
fn real_date(v: &Value, env: &Env<'_>) -> Option<DateTime> {
    interval::date_arg(v, env).map(|(d, _)| d)
}

/// A time of day (or a datetime's) as signed microseconds; None if it is none.
fn time_micros(v: &Value) -> Option<i128> {
    match v {
        Value::DateTime(dt) => Some(time_of(dt)),
        Value::Time(t) => Some(i128::from(*t)),
        Value::Date(_) => Some(0),
        Value::Bytes(b) => {
            let t = std::str::from_utf8(b).ok()?.trim();
            // A datetime string ('2020-01-01 10:00:01'): its time.
            if t.contains(' ') || t.matches('-').count() >= 2 {
                return convert::to_datetime_lenient(v).map(|(dt, _)| time_of(&dt));
            }
            let (neg, body) = match t.strip_prefix('-') {
                Some(r) => (true, r),
                None => (false, t),
            };
            let (whole, frac) = body.split_once('.').unwrap_or((body, ""));
            let parts: Vec<&str> = whole.split(':').collect();
            let num = |s: &str| s.trim().parse::<i128>().ok();
            let secs = match parts.as_slice() {
                [x] => {
                    let n = num(x)?;
                    let (h, m, s) = (n / 10_000, n / 100 % 100, n % 100);
                    if m > 59 || s > 59 {
                        return None;
                    }
                    h * 3600 + m * 60 + s
                }
                [h, m] => num(h)? * 3600 + num(m)? * 60,
                [h, m, s] => num(h)? * 3600 + num(m)? * 60 + num(s)?,
                _ => return None,
            };
            let mut f: String = frac
                .chars()
                .take_while(char::is_ascii_digit)
                .take(6)
                .collect();
            while f.len() < 6 {
                f.push('0');
            }
            let us = secs * 1_000_000 + f.parse::<i128>().unwrap_or(0);
            Some(if neg { -us } else { us })
        }
        other => {
            let n = convert::to_num(other).to_f64();
            let neg = n < 0.0;
            let a = n.abs();
            let whole = a.trunc() as i128;
            let (h, m, s) = (whole / 10_000, whole / 100 % 100, whole % 100);
            if m > 59 || s > 59 {
                return None;
            }
            let us = (h * 3600 + m * 60 + s) * 1_000_000 + ((a.fract() * 1e6).round() as i128);
            Some(if neg { -us } else { us })
        }
    }
}

fn time_of(dt: &DateTime) -> i128 {
    (i128::from(dt.hour) * 3600 + i128::from(dt.minute) * 60 + i128::from(dt.second)) * 1_000_000
        + i128::from(dt.micros)
}

/// Seconds with a fraction of `digits` digits, as a value.
fn seconds_value(us: i128, ty_decimals: u8, class_int: bool) -> Value {
    if class_int {
        return Value::Int((us / 1_000_000) as i64);
    }
    let neg = us < 0;
    let a = us.abs();
    let mut text = format!("{}.{:06}", a / 1_000_000, a % 1_000_000);
    text.truncate(text.len() - (6 - usize::from(ty_decimals.min(6))));
    if text.ends_with('.') {
        text.pop();
    }
    if neg {
        text.insert(0, '-');
    }
    match convert::parse_decimal(text.as_bytes()).1 {
        Some(Ok(d)) => Value::Decimal(d),
        _ => Value::Null,
    }
}

/// SEC_TO_TIME's text: `[-]h:mm:ss[.f]`, at most 838:59:59 (warning 1292 past it).
fn sec_to_time(v: &Value, digits: u8, env: &Env<'_>) -> Value {
    let us: i128 = match v {
        Value::Bytes(b) => {
            let (parsed, d) = convert::parse_decimal(b);
            if !parsed.complete {
                env.warn(
                    "Warning",
                    ErrorCode::TruncatedWrongValue,
                    format!(
                        "Truncated incorrect DECIMAL value: '{}'",
                        convert::to_string(v)
                    ),
                );
            }
            match d {
                Some(Ok(d)) => decimal_micros(&d.to_string()),
                _ => 0,
            }
        }
        Value::Decimal(d) => decimal_micros(&d.to_string()),
        Value::Double(f) => (f * 1e6).round().clamp(-1e30, 1e30) as i128,
        other => convert::to_num(other).to_i128().saturating_mul(1_000_000),
    };
    const MAX: i128 = (838 * 3600 + 59 * 60 + 59) * 1_000_000;
    let neg = us < 0;
    let mut a = us.abs();
    if a > MAX {
        env.warn(
            "Warning",
            ErrorCode::TruncatedWrongValue,
            format!(
                "Truncated incorrect seconds value: '{}'",
                convert::to_string(v)
            ),
        );
        a = MAX;
    }
    let secs = a / 1_000_000;
    let mut out = format!(
        "{}{:02}:{:02}:{:02}",
        if neg { "-" } else { "" },
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    if digits > 0 {
        let f = format!("{:06}", a % 1_000_000);
        out.push('.');
        out.push_str(&f[..usize::from(digits.min(6))]);
    }
    Value::Bytes(out.into_bytes())
}

fn decimal_micros(text: &str) -> i128 {
    let (neg, t) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let (w, f) = t.split_once('.').unwrap_or((t, ""));
    let mut f: String = f.chars().take(6).collect();
    while f.len() < 6 {
        f.push('0');
    }
    let us = w
        .parse::<i128>()
        .unwrap_or(i128::MAX / 2_000_000)
        .saturating_mul(1_000_000)
        + f.parse::<i128>().unwrap_or(0);
    if neg {
        -us
    } else {
        us
    }
}

/// A time zone offset in seconds: `±h:mm` or SYSTEM (UTC); None for anything else.
fn tz_arg(v: &Value) -> Option<Option<std::sync::Arc<crate::sql::time_zone::Zone>>> {
    let t = convert::to_string(v);
    match crate::sql::time_zone::lookup(&t)? {
        crate::sql::time_zone::Named::System => Some(None),
        crate::sql::time_zone::Named::Zone(z) => Some(Some(z)),
    }
}

/// Evaluate with all arguments non-NULL (TIME_TO_SEC, SEC_TO_TIME need the bound type).
pub fn eval(f: CalFn, v: &[Value], ty: (Class, u8), env: &Env<'_>) -> Value {
    match f {
        CalFn::MakeDate => {
            let year = super::int_arg(&v[0]);
            let doy = super::int_arg(&v[1]);
            if !(0..=9999).contains(&year) || doy <= 0 {
                return Value::Null;
            }
            let year = match year {
                0..=69 => year + 2000,
                70..=99 => year + 1900,
                y => y,
            };
            let start = daynr(Date {
                year: year as u16,
                month: 1,
                day: 1,
            });
            let n = start + (doy.min(10_000_000) as i64) - 1;
            match date_of_daynr(n) {
                Some(d) if n <= 3_652_424 => Value::Date(d),
                _ => Value::Null,
            }
        }
        CalFn::FromDays => {
            let n = super::int_arg(&v[0]).clamp(-1, 10_000_000) as i64;
            Value::Date(date_of_daynr(n).unwrap_or_default())
        }
        CalFn::TimeToSec => match time_micros(&v[0]) {
            Some(us) if ty.0 == Class::Int => Value::Int((us / 1_000_000) as i64),
            Some(us) if ty.0 == Class::Double => Value::Double(us as f64 / 1e6),
            Some(us) => seconds_value(us, ty.1, false),
            None => {
                env.warn(
                    "Warning",
                    ErrorCode::TruncatedWrongValue,
                    format!("Incorrect time value: '{}'", convert::to_string(&v[0])),
                );
                Value::Null
            }
        },
        CalFn::SecToTime => match sec_to_time(&v[0], ty.1, env) {
            Value::Bytes(b) => {
                crate::sql::expr::time_value::parse(&b).map_or(Value::Null, |(t, _)| Value::Time(t))
            }
            other => other,
        },
        CalFn::ConvertTz => {
            let Some((dt, _)) = interval::date_arg(&v[0], env) else {
                return Value::Null;
            };
            let (Some(from), Some(to)) = (tz_arg(&v[1]), tz_arg(&v[2])) else {
                return Value::Null;
            };
            let us = interval::total_micros(&dt);
            let local = us.div_euclid(1_000_000) as i64;
            let micros = us.rem_euclid(1_000_000);
            let utc = from.as_ref().map_or(local, |z| z.utc_secs(local));
            // Outside TIMESTAMP's range the value is left as it is.
            if !(0..=2_147_483_647).contains(&utc) {
                return Value::DateTime(dt);
            }
            let out = to.as_ref().map_or(utc, |z| z.local_secs(utc));
            match interval::from_micros(i128::from(out) * 1_000_000 + micros) {
                Some(r) => Value::DateTime(r),
                None => Value::DateTime(dt),
            }
        }
        CalFn::Extract(unit) => extract(unit, &v[0], env),
        // A zero month is no error here: QUARTER is 0, MONTHNAME NULL (MariaDB, no warning).
        CalFn::Quarter | CalFn::MonthName => match convert::to_datetime_lenient(&v[0]) {
            Some((dt, _)) if f == CalFn::Quarter => Value::Int((i64::from(dt.date.month) + 2) / 3),
            Some((dt, _)) if dt.date.month == 0 => Value::Null,
            Some((dt, _)) => Value::str(MONTH_NAMES[usize::from(dt.date.month - 1)]),
            None => bad_datetime(env, &v[0]),
        },
        _ => {
            let d = match convert::to_datetime_lenient(&v[0]) {
                // LAST_DAY of a zero month: NULL without a warning (MariaDB).
                Some((dt, _)) if f == CalFn::LastDay && dt.date.month == 0 => return Value::Null,
                _ => real_date(&v[0], env),
            };
            let Some(dt) = d else {
                return Value::Null;
            };
            let d = dt.date;
            match f {
                CalFn::DayOfWeek => Value::Int((weekday(d) + 1) % 7 + 1),
                CalFn::Weekday => Value::Int(weekday(d)),
                CalFn::DayOfYear => Value::Int(
                    daynr(d)
                        - daynr(Date {
                            year: d.year,
                            month: 1,
                            day: 1,
                        })
                        + 1,
                ),
                CalFn::DayName => Value::str(DAY_NAMES[weekday(d) as usize]),
                CalFn::MonthName => Value::str(MONTH_NAMES[usize::from(d.month - 1)]),
                CalFn::Quarter => Value::Int(i64::from(d.month).saturating_add(2) / 3),
                CalFn::LastDay => Value::Date(Date {
                    day: convert::days_in_month(d.year, d.month),
                    ..d
                }),
                CalFn::ToDays => Value::Int(daynr(d)),
                CalFn::ToSeconds => Value::Int(
                    daynr(d) * 86_400
                        + i64::from(dt.hour) * 3600
                        + i64::from(dt.minute) * 60
                        + i64::from(dt.second),
                ),
                CalFn::Week => {
                    let mode = v.get(1).map_or(0, |m| super::int_arg(m) as i64);
                    Value::Int(calc_week(d, week_mode(mode)).0)
                }
                CalFn::WeekOfYear => Value::Int(calc_week(d, week_mode(3)).0),
                CalFn::YearWeek => {
                    let mode = v.get(1).map_or(0, |m| super::int_arg(m) as i64);
                    let (w, y) = calc_week(d, week_mode(mode) | WEEK_YEAR);
                    Value::Int(y * 100 + w)
                }
                _ => Value::Null,
            }
        }
    }
}

/// EXTRACT(unit FROM v).
fn extract(unit: Unit, v: &Value, env: &Env<'_>) -> Value {
    use Unit::*;
    let time_only = matches!(
        unit,
        Hour | Minute
            | Second
            | Microsecond
            | HourMinute
            | HourSecond
            | HourMicrosecond
            | MinuteSecond
            | MinuteMicrosecond
            | SecondMicrosecond
    );
    // A time unit reads a string as a time (a datetime string's time, `'10:00:00.5'` itself).
    let as_time = time_only && matches!(v, Value::Bytes(_));
    let dt = match convert::to_datetime_lenient(v) {
        Some((dt, _)) if !as_time => dt,
        _ if time_only => match time_micros(v) {
            Some(us) => {
                let a = us.abs();
                let secs = a / 1_000_000;
                let sign = if us < 0 { -1 } else { 1 };
                let (h, m, s, f) = (secs / 3600, secs / 60 % 60, secs % 60, a % 1_000_000);
                let r = match unit {
                    Hour => h,
                    Minute => m,
                    Second => s,
                    Microsecond => f,
                    HourMinute => h * 100 + m,
                    HourSecond => (h * 100 + m) * 100 + s,
                    HourMicrosecond => ((h * 100 + m) * 100 + s) * 1_000_000 + f,
                    MinuteSecond => m * 100 + s,
                    MinuteMicrosecond => (m * 100 + s) * 1_000_000 + f,
                    _ => s * 1_000_000 + f,
                };
                return Value::Int((sign * r) as i64);
            }
            None => return bad_datetime(env, v),
        },
        _ => return bad_datetime(env, v),
    };
    let d = dt.date;
    let (y, mo, da) = (i64::from(d.year), i64::from(d.month), i64::from(d.day));
    let (h, mi, s, f) = (
        i64::from(dt.hour),
        i64::from(dt.minute),
        i64::from(dt.second),
        i64::from(dt.micros),
    );
    Value::Int(match unit {
        Year => y,
        Quarter => (mo + 2) / 3,
        Month => mo,
        Week => {
            if d.month == 0 || d.day == 0 {
                return bad_datetime(env, v);
            }
            calc_week(d, week_mode(0)).0
        }
        Day => da,
        Hour => h,
        Minute => mi,
        Second => s,
        Microsecond => f,
        YearMonth => y * 100 + mo,
        DayHour => da * 100 + h,
        DayMinute => (da * 100 + h) * 100 + mi,
        DaySecond => ((da * 100 + h) * 100 + mi) * 100 + s,
        DayMicrosecond => (((da * 100 + h) * 100 + mi) * 100 + s) * 1_000_000 + f,
        HourMinute => h * 100 + mi,
        HourSecond => (h * 100 + mi) * 100 + s,
        HourMicrosecond => ((h * 100 + mi) * 100 + s) * 1_000_000 + f,
        MinuteSecond => mi * 100 + s,
        MinuteMicrosecond => (mi * 100 + s) * 1_000_000 + f,
        SecondMicrosecond => s * 1_000_000 + f,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: u16, m: u8, day: u8) -> Date {
        Date {
            year: y,
            month: m,
            day,
        }
    }

    #[test]
    fn day_numbers() {
        assert_eq!(daynr(d(1970, 1, 1)), 719_528);
        assert_eq!(daynr(d(0, 1, 1)), 1);
        assert_eq!(weekday(d(2020, 1, 1)), 2); // a Wednesday
    }

    #[test]
    fn weeks() {
        // 2020-01-01 (Wednesday): mode 0 week 0, mode 3 (ISO) week 1.
        assert_eq!(calc_week(d(2020, 1, 1), week_mode(0)).0, 0);
        assert_eq!(calc_week(d(2020, 1, 1), week_mode(3)).0, 1);
        assert_eq!(calc_week(d(2021, 1, 1), week_mode(3)), (53, 2020));
        assert_eq!(calc_week(d(2020, 12, 31), week_mode(0)).0, 52);
    }
}
