//! PERIOD_ADD and PERIOD_DIFF (MariaDB 10.11): periods are YYMM or YYYYMM numbers.
//!
//! A period becomes a month count: a two-digit year below 70 is 20YY, one below 100 is 19YY;
//! a period of 0 or above 999999 counts as month 0. PERIOD_ADD of period 0 is 0; otherwise the
//! month count plus N (32-bit unsigned arithmetic, as MariaDB) is written back as YYYYMM.
//! PERIOD_DIFF is the difference of the two month counts. Both are INT(6).

use crate::sql::bind::sqltype::SqlType;
use crate::types::Value;

/// A function of this file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeriodFn {
    Add,
    Diff,
}

/// Bind by name: two arguments, an INT(6) nullable when an argument is.
pub fn bind(name: &str, args: &[SqlType]) -> Option<Result<(PeriodFn, SqlType), ()>> {
    let f = match name {
        "PERIOD_ADD" => PeriodFn::Add,
        "PERIOD_DIFF" => PeriodFn::Diff,
        _ => return None,
    };
    if args.len() != 2 {
        return Some(Err(()));
    }
    let nullable = args.iter().any(|t| t.nullable);
    Some(Ok((f, SqlType::int(6).with_nullable(nullable))))
}

fn period_to_month(period: u64) -> u64 {
    if period == 0 || period > 999_999 {
        return 0;
    }
    let mut year = period / 100;
    if year < 70 {
        year += 2000;
    } else if year < 100 {
        year += 1900;
    }
    year * 12 + period % 100 - 1
}

fn month_to_period(month: u64) -> u64 {
    if month == 0 {
        return 0;
    }
    let mut year = month / 12;
    if year < 100 {
        year += if year < 70 { 2000 } else { 1900 };
    }
    year * 100 + month % 12 + 1
}

/// Evaluate with non-NULL arguments.
pub fn eval(f: PeriodFn, v: &[Value]) -> Value {
    let a = super::int_arg(&v[0]) as u64;
    let b = super::int_arg(&v[1]);
    match f {
        PeriodFn::Add => {
            if a == 0 {
                return Value::Int(0);
            }
            let m = (period_to_month(a) as u32).wrapping_add(b as i32 as u32);
            Value::Int(month_to_period(u64::from(m)) as i64)
        }
        PeriodFn::Diff => Value::Int(period_to_month(a) as i64 - period_to_month(b as u64) as i64),
    }
}
