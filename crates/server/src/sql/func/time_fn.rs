//! The functions of TIME values: TIME(x), TIMEDIFF, MAKETIME, ADDTIME / SUBTIME and
//! TIME_FORMAT, typed as MariaDB types them (a TIME with the arguments' fractional digits;
//! ADDTIME of a DATETIME is a DATETIME, of a string a string).
//!
//! Out-of-range results clip to ±838:59:59.999999 with warning 1292, as MariaDB does.

use crate::sql::bind::sqltype::{Class, SqlType};
use crate::sql::env::Env;
use crate::sql::expr::convert;
use crate::sql::expr::time_value::{self, Parsed, MAX_MICROS};
use crate::types::{DateTime, Value};
use cohort_protocol::ErrorCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeFn {
    Time,
    TimeDiff,
    MakeTime,
    /// ADDTIME (false) / SUBTIME (true), with what the result is.
    AddTime(bool, AddOut),
    TimeFormat,
}

/// What ADDTIME / SUBTIME return, from the first argument's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddOut {
    Time,
    DateTime,
    Text,
}

/// The binding of a TIME function by name: `fsps` are the fractional digits each argument
/// brings (a literal's own, a column's precision).
pub fn bind(
    name: &str,
    args: &[SqlType],
    fsps: &[u8],
) -> Option<std::result::Result<(TimeFn, SqlType), ()>> {
    let n = args.len();
    let max_fsp = fsps.iter().copied().max().unwrap_or(0).min(6);
    let (f, ok, ty) = match name {
        "TIME" => (TimeFn::Time, n == 1, SqlType::time(max_fsp)),
        "TIMEDIFF" => (TimeFn::TimeDiff, n == 2, SqlType::time(max_fsp)),
        "MAKETIME" => {
            let fsp = match args.get(2).map(|t| t.class) {
                Some(Class::Int) => 0,
                Some(Class::Decimal) => args[2].decimals.min(6),
                _ => 6,
            };
            (TimeFn::MakeTime, n == 3, SqlType::time(fsp))
        }
        "ADDTIME" | "SUBTIME" => {
            let sub = name == "SUBTIME";
            let (out, ty) = match args.first().map(|t| t.class) {
                Some(Class::Time) => (AddOut::Time, SqlType::time(max_fsp)),
                Some(Class::DateTime | Class::Date) => {
                    (AddOut::DateTime, SqlType::datetime(max_fsp))
                }
                _ => {
                    let mut t = SqlType::varchar(26);
                    t.wire = cohort_protocol::ColumnType::STRING;
                    (AddOut::Text, t)
                }
            };
            (TimeFn::AddTime(sub, out), n == 2, ty)
        }
        "TIME_FORMAT" => {
            let mut t = SqlType::varchar(100);
            t.decimals = 0;
            (TimeFn::TimeFormat, n == 2, t)
        }
        _ => return None,
    };
    if !ok {
        return Some(Err(()));
    }
    Some(Ok((f, ty.with_nullable(true))))
}

/// Evaluate with all arguments non-NULL; `fsp` is the result's fractional digits.
pub fn eval(f: TimeFn, v: &[Value], fsp: u8, env: &Env<'_>) -> Value {
    match f {
        TimeFn::Time => match read_time(&v[0], env) {
            Some(t) => Value::Time(time_value::truncate_fsp(t, fsp)),
            None => Value::Null,
        },
        TimeFn::TimeDiff => {
            let (Some(a), Some(b)) = (temporal(&v[0]), temporal(&v[1])) else {
                return Value::Null;
            };
            let d = match (a, b) {
                (Temporal::Time(x), Temporal::Time(y)) => i128::from(x) - i128::from(y),
                (Temporal::DateTime(x), Temporal::DateTime(y)) => micros_of(&x) - micros_of(&y),
                _ => return Value::Null,
            };
            clipped(d, fsp, env)
        }
        TimeFn::MakeTime => make_time(v, fsp, env),
        TimeFn::AddTime(sub, out) => add_time(&v[0], &v[1], sub, out, fsp, env),
        TimeFn::TimeFormat => time_format(&v[0], &v[1], env),
    }
}

/// A TIME or a datetime, as TIMEDIFF and ADDTIME read their arguments.
#[derive(Clone, Copy)]
enum Temporal {
    Time(i64),
    DateTime(DateTime),
}

fn temporal(v: &Value) -> Option<Temporal> {
    match v {
        Value::Time(t) => Some(Temporal::Time(*t)),
        Value::DateTime(dt) => Some(Temporal::DateTime(*dt)),
        Value::Date(d) => Some(Temporal::DateTime(DateTime {
            date: *d,
            ..DateTime::default()
        })),
        Value::Bytes(b) => {
            if let Some((_, Parsed::DateDropped)) = time_value::parse(b) {
                return convert::to_datetime_lenient(v).map(|(dt, _)| Temporal::DateTime(dt));
            }
            time_value::parse(b).map(|(t, _)| Temporal::Time(t))
        }
        other => time_value::from_value(other).map(|(t, _)| Temporal::Time(t)),
    }
}

fn micros_of(dt: &DateTime) -> i128 {
    crate::sql::func::interval::total_micros(dt)
}

/// A difference or sum as a TIME: clipped with 1292 past the range.
fn clipped(d: i128, fsp: u8, env: &Env<'_>) -> Value {
    let max = i128::from(MAX_MICROS);
    let t = if d.abs() > max {
        let c = if d < 0 { -max } else { max };
        env.warn(
            "Warning",
            ErrorCode::TruncatedWrongValue,
            format!("Truncated incorrect time value: '{}'", big_time_text(d)),
        );
        c as i64
    } else {
        d as i64
    };
    Value::Time(time_value::truncate_fsp(t, fsp))
}

/// `[-]h:mm:ss` of a duration past the TIME range (for messages).
fn big_time_text(d: i128) -> String {
    let a = d.unsigned_abs() / 1_000_000;
    format!(
        "{}{:02}:{:02}:{:02}",
        if d < 0 { "-" } else { "" },
        a / 3600,
        (a / 60) % 60,
        a % 60
    )
}

/// TIME(x)'s reading of a value: NULL with 1292 when it is no time; clipped with 1292.
fn read_time(v: &Value, env: &Env<'_>) -> Option<i64> {
    match time_value::from_value(v) {
        Some((t, Parsed::Clipped | Parsed::Trailing)) => {
            env.warn(
                "Warning",
                ErrorCode::TruncatedWrongValue,
                format!(
                    "Truncated incorrect time value: '{}'",
                    convert::to_string(v)
                ),
            );
            Some(t)
        }
        Some((t, _)) => Some(t),
        None => {
            env.warn(
                "Warning",
                ErrorCode::TruncatedWrongValue,
                format!("Incorrect time value: '{}'", convert::to_string(v)),
            );
            None
        }
    }
}

/// MAKETIME(h, m, s): NULL for minutes outside 0..=59 or seconds outside [0, 60).
fn make_time(v: &[Value], fsp: u8, env: &Env<'_>) -> Value {
    let h = super::int_arg(&v[0]);
    let m = super::int_arg(&v[1]);
    let s = convert::to_num(&v[2]);
    let s_micros: i128 = match &v[2] {
        Value::Int(i) => i128::from(*i) * 1_000_000,
        Value::UInt(u) => i128::from(*u) * 1_000_000,
        _ => (s.to_f64() * 1e6).trunc().clamp(-1e30, 1e30) as i128,
    };
    if !(0..=59).contains(&m) || !(0..60_000_000).contains(&s_micros) {
        return Value::Null;
    }
    let neg = h < 0;
    let ha = h.abs();
    let total = (ha * 3600 + m * 60) * 1_000_000 + s_micros;
    let max = i128::from(MAX_MICROS);
    if total > max {
        env.warn(
            "Warning",
            ErrorCode::TruncatedWrongValue,
            format!(
                "Truncated incorrect time value: '{}{}:{:02}:{:02}'",
                if neg { "-" } else { "" },
                ha,
                m,
                s_micros / 1_000_000
            ),
        );
    }
    let t = total.min(max) as i64;
    Value::Time(time_value::truncate_fsp(if neg { -t } else { t }, fsp))
}

/// ADDTIME / SUBTIME: a TIME or datetime moved by a TIME (a datetime second argument is NULL).
fn add_time(a: &Value, b: &Value, sub: bool, out: AddOut, fsp: u8, env: &Env<'_>) -> Value {
    let Some(Temporal::Time(d)) = temporal(b) else {
        return Value::Null;
    };
    let d = if sub { -i128::from(d) } else { i128::from(d) };
    match temporal(a) {
        Some(Temporal::Time(t)) if out != AddOut::DateTime => {
            let r = clipped(i128::from(t) + d, 6, env);
            match (out, r) {
                (AddOut::Text, Value::Time(t)) => {
                    Value::Bytes(time_value::format(t, None).into_bytes())
                }
                (_, Value::Time(t)) => Value::Time(time_value::truncate_fsp(t, fsp)),
                (_, other) => other,
            }
        }
        Some(Temporal::DateTime(dt)) if out != AddOut::Time => {
            let total = micros_of(&dt) + d;
            let Some(r) = crate::sql::func::interval::from_micros(total) else {
                return Value::Null;
            };
            match out {
                AddOut::Text => Value::Bytes(r.to_string().into_bytes()),
                _ => Value::DateTime(r),
            }
        }
        _ => Value::Null,
    }
}

/// TIME_FORMAT(t, fmt): the time specifiers of DATE_FORMAT on a TIME (hours may pass 23).
fn time_format(t: &Value, fmt: &Value, env: &Env<'_>) -> Value {
    let Some(t) = read_time(t, env) else {
        return Value::Null;
    };
    let neg = t < 0;
    let a = t.unsigned_abs();
    let micros = a % 1_000_000;
    let secs = a / 1_000_000;
    let (h, m, s) = (secs / 3600, (secs / 60) % 60, secs % 60);
    let h12 = match h % 12 {
        0 => 12,
        x => x,
    };
    let ampm = if h % 24 < 12 { "AM" } else { "PM" };
    let f = convert::to_text(fmt);
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    let mut i = 0;
    while i < f.len() {
        let c = f[i];
        if c != b'%' || i + 1 >= f.len() {
            out.push(c as char);
            i += 1;
            continue;
        }
        let spec = f[i + 1];
        i += 2;
        match spec {
            b'H' => out.push_str(&format!("{h:02}")),
            b'k' => out.push_str(&h.to_string()),
            b'h' | b'I' => out.push_str(&format!("{h12:02}")),
            b'l' => out.push_str(&h12.to_string()),
            b'i' => out.push_str(&format!("{m:02}")),
            b'S' | b's' => out.push_str(&format!("{s:02}")),
            b'f' => out.push_str(&format!("{micros:06}")),
            b'p' => out.push_str(ampm),
            b'r' => out.push_str(&format!("{h12:02}:{m:02}:{s:02} {ampm}")),
            b'T' => out.push_str(&format!("{h:02}:{m:02}:{s:02}")),
            b'%' => out.push('%'),
            b'a' | b'b' | b'c' | b'D' | b'd' | b'e' | b'j' | b'M' | b'm' | b'U' | b'u' | b'V'
            | b'v' | b'W' | b'w' | b'X' | b'x' | b'Y' | b'y' => return Value::Null,
            other => out.push(other as char),
        }
    }
    Value::Bytes(out.into_bytes())
}
