//! Warning 1292 "Truncated incorrect DOUBLE / DECIMAL value: '…'" when a string is read as a
//! number and is not all a number, as MariaDB 10.11 reports it.
//!
//! * Which strings: leading spaces are skipped silently; a number followed only by spaces
//!   (`'12 '`) is a Note; no number at all (`''`, `'-'`, `'abc'`) or anything else after it
//!   (`'1x'`, `'1e'`, `'0x10'`) is a Warning.
//! * Where: arithmetic (`+ - * /`, `MOD`, unary minus: DOUBLE; `DIV` and the bit operators:
//!   DECIMAL; `~`: DECIMAL), CAST AS DOUBLE, math functions' arguments (DOUBLE), truth values of AND / OR /
//!   NOT / XOR (DOUBLE), and a comparison of a string with a number (`=`, `<=>`, `<` …,
//!   BETWEEN, IN): DECIMAL against an integer, DOUBLE against a DOUBLE or a DECIMAL (but
//!   DECIMAL when a constant string meets a DECIMAL column). A constant string in a
//!   comparison is converted once per statement (one warning, as MariaDB caches it); a
//!   column's value warns on each row.
//!
//! Not covered yet: aggregates' arguments (SUM('1x')), GREATEST / LEAST, IF's condition, an IN
//! list the planner turned into a lookup.
//!
//! Only a string operand is looked at: numbers pay one match on the value's tag.

use super::convert::{parse_num, Num};
use super::Expr;
use crate::sql::env::Env;
use crate::types::Value;
use cohort_protocol::ErrorCode;

pub const DOUBLE: &str = "DOUBLE";
pub const DECIMAL: &str = "DECIMAL";

/// The level of the warning for reading `s` as a number whose first `used` bytes (leading
/// spaces included) are the number.
fn level(s: &[u8], used: usize) -> Option<&'static str> {
    if used == 0 {
        return Some("Warning");
    }
    let rest = &s[used..];
    if rest.is_empty() {
        None
    } else if rest.iter().all(|c| c.is_ascii_whitespace()) {
        Some("Note")
    } else {
        Some("Warning")
    }
}

/// Warn (if it is not all a number) for the string `s` read as a `kind` number.
pub fn check(env: &Env<'_>, kind: &str, s: &[u8]) {
    let used = parse_num(s).used;
    warn_parsed(env, kind, s, used);
}

fn warn_parsed(env: &Env<'_>, kind: &str, s: &[u8], used: usize) {
    if let Some(level) = level(s, used) {
        env.warn(
            level,
            ErrorCode::TruncatedWrongValue,
            format!(
                "Truncated incorrect {kind} value: '{}'",
                String::from_utf8_lossy(s)
            ),
        );
    }
}

/// `v` in arithmetic: a string is a DOUBLE (its numeric prefix), warned as a `kind`.
pub fn arith_num(v: &Value, kind: &str, env: &Env<'_>) -> Num {
    match v {
        Value::Bytes(b) => {
            let p = parse_num(b);
            warn_parsed(env, kind, b, p.used);
            Num::F(p.num.to_f64())
        }
        other => super::convert::to_num(other),
    }
}

/// A truth value (AND / OR / NOT / XOR operand): a string is read as a DOUBLE.
pub fn truth(v: &Value, env: &Env<'_>) -> Option<bool> {
    if let Value::Bytes(b) = v {
        check(env, DOUBLE, b);
    }
    super::convert::to_bool(v)
}

/// The math functions' arguments: each string one is read as a DOUBLE.
pub fn check_args(args: &[Value], env: &Env<'_>) {
    for a in args {
        if let Value::Bytes(b) = a {
            check(env, DOUBLE, b);
        }
    }
}

/// The kind a string compared with the number `other` is read as.
fn compared_kind(other: &Value, string_const: bool, other_expr: &Expr) -> Option<&'static str> {
    match other {
        Value::Int(_) | Value::UInt(_) => Some(DECIMAL),
        Value::Double(_) => Some(DOUBLE),
        Value::Decimal(_) if string_const && matches!(other_expr, Expr::Col(_)) => Some(DECIMAL),
        Value::Decimal(_) => Some(DOUBLE),
        _ => None,
    }
}

/// The operands `x` (of `a`) and `y` (of `b`) of a comparison: a string against a number is
/// read as one (module doc).
pub fn check_compared(x: &Value, y: &Value, a: &Expr, b: &Expr, env: &Env<'_>) {
    let (s, other, s_expr, other_expr) = match (x, y) {
        (Value::Bytes(s), o) => (s, o, a, b),
        (o, Value::Bytes(s)) => (s, o, b, a),
        _ => return,
    };
    let is_const = matches!(s_expr, Expr::Lit(_) | Expr::Param(_));
    let Some(kind) = compared_kind(other, is_const, other_expr) else {
        return;
    };
    check_operand(env, kind, s, s_expr, true);
}

/// Warn for the string `s` of the operand `e` read as a `kind` number; a constant once per
/// statement when `cached` (a plan may hold copies of a node, so it is recognized by its
/// warning's text: two equal constants of one statement warn once, where MariaDB warns for
/// each).
fn check_operand(env: &Env<'_>, kind: &str, s: &[u8], e: &Expr, cached: bool) {
    let used = parse_num(s).used;
    let Some(level) = level(s, used) else {
        return;
    };
    let message = format!(
        "Truncated incorrect {kind} value: '{}'",
        String::from_utf8_lossy(s)
    );
    if cached
        && e.is_constant()
        && env
            .warnings
            .borrow()
            .iter()
            .any(|w| w.level == level && w.message == message)
    {
        return;
    }
    env.warn(level, ErrorCode::TruncatedWrongValue, message);
}

/// `x IN (…)`: a string `x` against a list with (constant) numbers is read once per kind of
/// number there, in the list's order: as a DECIMAL for the integers, a DOUBLE for the others.
pub fn check_in(x: &Value, e: &Expr, list: &[Expr], env: &Env<'_>) {
    let Value::Bytes(s) = x else { return };
    let (mut decimal, mut double) = (false, false);
    for item in list {
        let v = match item {
            Expr::Lit(v) => v,
            Expr::Param(i) => match env.params.get(*i) {
                Some(v) => v,
                None => continue,
            },
            _ => continue,
        };
        let kind = match v {
            Value::Int(_) | Value::UInt(_) if !decimal => {
                decimal = true;
                DECIMAL
            }
            Value::Double(_) | Value::Decimal(_) if !double => {
                double = true;
                DOUBLE
            }
            _ => continue,
        };
        check_operand(env, kind, s, e, true);
    }
}
