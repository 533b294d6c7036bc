//! The DOUBLE math functions beyond the arithmetic ones: EXP, LN, LOG (one or two arguments),
//! LOG2, LOG10, SIN, COS, TAN, COT, ASIN, ACOS, ATAN (one or two arguments), ATAN2, DEGREES,
//! RADIANS, and BIT_COUNT, as MariaDB 10.11 answers them.
//!
//! * A string argument is read as a DOUBLE (warning 1292 when it is not all a number), for
//!   BIT_COUNT as a DECIMAL;
//! * a logarithm of a number <= 0 (or to base 1) is NULL with warning 1365 "Division by 0"
//!   (error 1365 in a strict write, as [`Env::division_by_zero`] decides);
//! * ASIN / ACOS outside [-1, 1] are NULL without a warning;
//! * a result that is not finite (`EXP(710)`, `COT(0)`, `DEGREES(1e308)`) is error 1690
//!   "DOUBLE value is out of range in 'exp(710)'".

use crate::error::Result;
use crate::sql::bind::sqltype::SqlType;
use crate::sql::env::Env;
use crate::sql::expr::{convert, num_warn};
use crate::types::Value;

/// Which function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathFn {
    Exp,
    Ln,
    /// LOG(x), or LOG(base, x) with two arguments.
    Log,
    Log2,
    Log10,
    Sin,
    Cos,
    Tan,
    Cot,
    Asin,
    Acos,
    /// ATAN(x), or ATAN(y, x) = ATAN2(y, x); ATAN2 binds to it too.
    Atan,
    Degrees,
    Radians,
    BitCount,
}

impl MathFn {
    fn name(self) -> &'static str {
        match self {
            MathFn::Exp => "exp",
            MathFn::Ln => "ln",
            MathFn::Log => "log",
            MathFn::Log2 => "log2",
            MathFn::Log10 => "log10",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Tan => "tan",
            MathFn::Cot => "cot",
            MathFn::Asin => "asin",
            MathFn::Acos => "acos",
            MathFn::Atan => "atan",
            MathFn::Degrees => "degrees",
            MathFn::Radians => "radians",
            MathFn::BitCount => "bit_count",
        }
    }
}

/// The binding of a function by name: None when `name` is none of these, Err(()) on a wrong
/// argument count.
pub fn bind(name: &str, args: &[SqlType]) -> Option<std::result::Result<(MathFn, SqlType), ()>> {
    let n = args.len();
    let nullable = args.iter().any(|t| t.nullable);
    let (f, ok) = match name {
        "EXP" => (MathFn::Exp, n == 1),
        "LN" => (MathFn::Ln, n == 1),
        "LOG" => (MathFn::Log, n == 1 || n == 2),
        "LOG2" => (MathFn::Log2, n == 1),
        "LOG10" => (MathFn::Log10, n == 1),
        "SIN" => (MathFn::Sin, n == 1),
        "COS" => (MathFn::Cos, n == 1),
        "TAN" => (MathFn::Tan, n == 1),
        "COT" => (MathFn::Cot, n == 1),
        "ASIN" => (MathFn::Asin, n == 1),
        "ACOS" => (MathFn::Acos, n == 1),
        "ATAN" | "ATAN2" => (MathFn::Atan, n == 1 || n == 2),
        "DEGREES" => (MathFn::Degrees, n == 1),
        "RADIANS" => (MathFn::Radians, n == 1),
        "BIT_COUNT" => (MathFn::BitCount, n == 1),
        _ => return None,
    };
    if !ok {
        return Some(Err(()));
    }
    let ty = match f {
        MathFn::BitCount => SqlType::int(2).with_nullable(nullable),
        // May be NULL whatever the argument (a logarithm of 0, ASIN(2)); MariaDB types the
        // others after their argument.
        MathFn::Exp
        | MathFn::Ln
        | MathFn::Log
        | MathFn::Log2
        | MathFn::Log10
        | MathFn::Asin
        | MathFn::Acos
        | MathFn::Sin
        | MathFn::Cos
        | MathFn::Tan
        | MathFn::Cot
        | MathFn::Atan => SqlType::double().with_nullable(true),
        MathFn::Degrees | MathFn::Radians => SqlType::double().with_nullable(nullable),
    };
    // MariaDB describes these DOUBLEs as 23 wide with no fixed decimals (31).
    let ty = match f {
        MathFn::BitCount => ty,
        _ => {
            let mut t = ty;
            t.length = 23;
            t.decimals = crate::sql::bind::sqltype::FLOATING_POINT_DECIMALS;
            t
        }
    };
    Some(Ok((f, ty)))
}

/// Evaluate over non-NULL arguments.
pub fn eval(f: MathFn, v: &[Value], env: &Env<'_>) -> Result<Value> {
    if f == MathFn::BitCount {
        let x = num_warn::arith_num(&v[0], num_warn::DECIMAL, env);
        return Ok(Value::Int((x.to_i128() as u64).count_ones() as i64));
    }
    num_warn::check_args(v, env);
    let x: Vec<f64> = v.iter().map(|a| convert::to_num(a).to_f64()).collect();
    let log = |x: f64, f: fn(f64) -> f64| -> Result<Value> {
        if x <= 0.0 {
            env.division_by_zero()
        } else {
            Ok(Value::Double(f(x)))
        }
    };
    let y = match (f, x.as_slice()) {
        (MathFn::Exp, [a]) => a.exp(),
        (MathFn::Ln | MathFn::Log, [a]) => return log(*a, f64::ln),
        (MathFn::Log, [b, a]) => {
            if *b <= 0.0 || *a <= 0.0 || *b == 1.0 {
                return env.division_by_zero();
            }
            a.ln() / b.ln()
        }
        // MariaDB divides by ln 2 (its last digit differs from log2).
        (MathFn::Log2, [a]) => return log(*a, |x| x.ln() / std::f64::consts::LN_2),
        (MathFn::Log10, [a]) => return log(*a, f64::log10),
        (MathFn::Sin, [a]) => a.sin(),
        (MathFn::Cos, [a]) => a.cos(),
        (MathFn::Tan, [a]) => a.tan(),
        (MathFn::Cot, [a]) => 1.0 / a.tan(),
        (MathFn::Asin | MathFn::Acos, [a]) if !(-1.0..=1.0).contains(a) => return Ok(Value::Null),
        (MathFn::Asin, [a]) => a.asin(),
        (MathFn::Acos, [a]) => a.acos(),
        (MathFn::Atan, [a]) => a.atan(),
        (MathFn::Atan, [y, x]) => y.atan2(*x),
        (MathFn::Degrees, [a]) => a.to_degrees(),
        (MathFn::Radians, [a]) => a.to_radians(),
        _ => return Ok(Value::Null),
    };
    if !y.is_finite() {
        let shown: Vec<String> = v
            .iter()
            .map(|a| String::from_utf8_lossy(&convert::to_text(a)).into_owned())
            .collect();
        return Err(crate::sql::expr::out_of_range(
            "DOUBLE",
            format!("{}({})", f.name(), shown.join(",")),
        ));
    }
    Ok(Value::Double(y))
}
