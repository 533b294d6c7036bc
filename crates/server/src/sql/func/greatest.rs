//! GREATEST and LEAST.
//!
//! The arguments are compared in the result's class ([`bind_type`]): with a DATE, DATETIME or
//! TIMESTAMP among them, as datetimes (`GREATEST(1, DATE'2019-12-31')` is the date; an
//! argument that is no date, like `1` or `'abc'`, is the zero date), else strings with numbers
//! as numbers, else in the arguments' common class. NULL anywhere is NULL; a temporal
//! conversion of a non-NULL invalid value counts as the zero date ([`Expr::eval_compared`]).

use crate::error::Result;
use crate::sql::bind::sqltype::{Class, SqlType};
use crate::sql::env::Env;
use crate::sql::expr::{coerce, compare, convert, Expr, RowCtx};
use crate::types::{Collation, Value};
use std::cmp::Ordering;

/// The result type of GREATEST / LEAST over arguments of these types.
pub fn bind_type(types: &[&SqlType]) -> SqlType {
    let nullable = types.iter().any(|t| t.nullable);
    let temporal = types
        .iter()
        .filter(|t| matches!(t.class, Class::Date | Class::DateTime));
    if temporal.clone().next().is_some() {
        let fsp = temporal.clone().map(|t| t.decimals).max().unwrap_or(0);
        let t = if temporal.clone().any(|t| t.class == Class::DateTime) {
            SqlType::datetime(fsp)
        } else {
            SqlType::date()
        };
        return t.with_nullable(nullable);
    }
    // With a TIME (and no date): compared and returned as TIME (MariaDB).
    if types.iter().any(|t| t.class == Class::Time) {
        let fsp = types
            .iter()
            .map(|t| match t.class {
                Class::Time | Class::Decimal => t.decimals.min(6),
                Class::Double => 6,
                _ => 0,
            })
            .max()
            .unwrap_or(0);
        return SqlType::time(fsp).with_nullable(nullable);
    }
    let mut t = super::unify(types);
    // (A binary string too: `GREATEST(X'00', -1)` is 0, X'41' reads as the number of 'A'.)
    if matches!(t.class, Class::Str | Class::Bin)
        && types
            .iter()
            .any(|a| matches!(a.class, Class::Int | Class::Decimal | Class::Double))
    {
        // Strings with numbers compare as numbers: LEAST(1, 'A') is 0.
        t = SqlType::double().with_nullable(nullable);
    }
    t
}

/// The fractional digits of a DATETIME result, as MariaDB derives them from every argument: a
/// temporal's own, a string literal's as written (`'…59.5'` gives 1), any other string or a
/// DOUBLE 6, a DECIMAL its scale (at most 6), an integer none.
pub fn datetime_fsp(args: &[(Expr, SqlType)]) -> u8 {
    args.iter()
        .map(|(e, t)| match (e, t.class) {
            (_, Class::Date | Class::DateTime) => t.decimals,
            (Expr::Lit(Value::Bytes(b)), Class::Str | Class::Bin) => literal_fsp(b),
            (_, Class::Str | Class::Bin | Class::Double) => 6,
            (_, Class::Decimal) => t.decimals,
            _ => 0,
        })
        .max()
        .unwrap_or(0)
        .min(6)
}

/// The fractional digits a datetime string is written with: the digits after the point that
/// follows its seconds.
fn literal_fsp(b: &[u8]) -> u8 {
    let s = b.trim_ascii();
    match s.iter().rposition(|&c| c == b'.') {
        Some(dot) if s[..dot].contains(&b':') || s[..dot].len() >= 12 => s[dot + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
            .min(6) as u8,
        _ => 0,
    }
}

/// GREATEST (`want` Greater) or LEAST (Less) of the arguments, in `class`; strings compare in
/// `coll` (the arguments' aggregate: utf8mb4_bin with a utf8mb4_bin column among them).
pub fn eval(
    want: Ordering,
    class: Class,
    coll: Collation,
    args: &[Expr],
    r: &RowCtx<'_>,
    env: &Env<'_>,
) -> Result<Value> {
    let mut best: Option<Value> = None;
    for a in args {
        let v = a.eval_compared(r, env)?;
        if v.is_null() {
            return Ok(Value::Null);
        }
        if let (Value::Bytes(b), Class::Int | Class::Decimal | Class::Double) = (&*v, class) {
            // Compared as numbers: a string is read as a DOUBLE (warning 1292 when it is not
            // all a number, as MariaDB does for each row).
            crate::sql::expr::num_warn::check(env, crate::sql::expr::num_warn::DOUBLE, b);
        }
        let x = in_class(v.into_owned(), class);
        let better = match &best {
            None => true,
            Some(b) => compare::compare(&x, b, coll) == Some(want),
        };
        if better {
            best = Some(x);
        }
    }
    Ok(best.unwrap_or(Value::Null))
}

/// A non-NULL argument in the result's class; in a temporal class, what is no date is the zero
/// date.
fn in_class(v: Value, class: Class) -> Value {
    match class {
        Class::Date | Class::DateTime => {
            let mut dt = convert::to_datetime_lenient(&v)
                .map(|(d, _)| d)
                .unwrap_or_default();
            // A number's fraction is the microseconds, even of the zero date (MariaDB:
            // LEAST(TIMESTAMP'…', 0.5e0) is '0000-00-00 00:00:00.500000').
            if let Some(us) = fraction_micros(&v) {
                dt.micros = us;
            }
            if class == Class::Date {
                Value::Date(dt.date)
            } else {
                Value::DateTime(dt)
            }
        }
        _ => coerce(v, class),
    }
}

/// The fraction of a DECIMAL or DOUBLE as microseconds (rounded to 6 digits, below one second).
fn fraction_micros(v: &Value) -> Option<u32> {
    let f = match v {
        // Exact: the decimal's own fraction digits.
        Value::Decimal(d) => {
            let t = d.to_string();
            let digits = t.split_once('.')?.1;
            let us: String = digits
                .chars()
                .chain(std::iter::repeat('0'))
                .take(7)
                .collect();
            let n: u32 = us.parse().ok()?;
            let n = (n + 5) / 10;
            return (n > 0 && n < 1_000_000).then_some(n);
        }
        Value::Double(f) => *f,
        _ => return None,
    };
    let frac = (f.abs().fract() * 1e6).round();
    (f.is_finite() && frac > 0.0 && frac < 1e6).then_some(frac as u32)
}
