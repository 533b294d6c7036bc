//! `INTERVAL(N, N1, N2, …)`: how many of N1, N2, … come before N, read left to right as an
//! ascending list (MariaDB 10.11).
//!
//! The answer is the index of the first Ni greater than N, minus one: 0 when N < N1, the
//! count of the list when N is at least every element; -1 when N is NULL. NULL elements are
//! skipped. The list is never checked for order: the walk stops at the first element above N
//! (`INTERVAL(5, 1, 10, 2)` is 1). An integer or DECIMAL N meets an integer or DECIMAL element
//! exactly; anything else compares as DOUBLE (a string warns 1292 as arithmetic does; an
//! ENUM / SET column gives its number). The
//! result is INT(2), never NULL. The parser makes the call of `INTERVAL (…)` with two
//! arguments or more (`parse/interval.rs`).

use crate::error::Result;
use crate::sql::bind::sqltype::SqlType;
use crate::sql::env::Env;
use crate::sql::expr::compare::compare_nums;
use crate::sql::expr::num_warn;
use crate::sql::expr::{Expr, RowCtx};
use crate::types::Value;
use std::cmp::Ordering;

/// INTERVAL()'s type: INT(2) NOT NULL; None with fewer than two arguments.
pub fn bind(args: usize) -> Option<SqlType> {
    (args >= 2).then(|| SqlType::int(2).not_null())
}

/// Evaluate INTERVAL(args[0], args[1], …).
pub fn eval(args: &[Expr], r: &RowCtx<'_>, env: &Env<'_>) -> Result<Value> {
    let n = args[0].eval(r, env)?;
    if n.is_null() {
        return Ok(Value::Int(-1));
    }
    let exact = is_exact(&n);
    let n = num_warn::arith_num(&n, num_warn::DOUBLE, env);
    let mut index = 0i64;
    for a in &args[1..] {
        let el = a.eval(r, env)?;
        if !el.is_null() {
            let below = match exact && is_exact(&el) {
                true => compare_nums(&n, &num_warn::arith_num(&el, num_warn::DOUBLE, env)),
                false => {
                    let e = num_warn::arith_num(&el, num_warn::DOUBLE, env).to_f64();
                    n.to_f64().partial_cmp(&e).unwrap_or(Ordering::Equal)
                }
            } == Ordering::Less;
            if below {
                break;
            }
        }
        index += 1;
    }
    Ok(Value::Int(index))
}

/// An integer or DECIMAL value (compared exactly with another).
fn is_exact(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::UInt(_) | Value::Decimal(_))
}

#[cfg(test)]
mod tests {
    use crate::session::state::ServerContext;
    use crate::testkit::{root_session, rows};
    use crate::types::Value;

    fn one(sql: &str) -> Value {
        let ctx = ServerContext::for_tests();
        let mut sess = root_session(1);
        rows(&ctx, &mut sess, sql).remove(0).remove(0)
    }

    #[test]
    fn walks_the_list_until_an_element_above_n() {
        assert_eq!(
            one("SELECT INTERVAL(23, 1, 15, 17, 30, 44, 200)"),
            Value::Int(3)
        );
        assert_eq!(one("SELECT INTERVAL(10, 1, 10, 100, 1000)"), Value::Int(2));
        assert_eq!(one("SELECT INTERVAL(22, 23, 30, 44, 200)"), Value::Int(0));
        assert_eq!(one("SELECT INTERVAL(5, 1, 10, 2, 3)"), Value::Int(1));
        assert_eq!(one("SELECT INTERVAL(300, 1, 2)"), Value::Int(2));
    }

    #[test]
    fn nulls() {
        assert_eq!(one("SELECT INTERVAL(NULL, 1, 2)"), Value::Int(-1));
        assert_eq!(one("SELECT INTERVAL(-1, NULL, 0)"), Value::Int(1));
        assert_eq!(one("SELECT INTERVAL(2, 1, NULL, 3)"), Value::Int(2));
    }

    #[test]
    fn integers_compare_exactly_and_strings_as_doubles() {
        let big = "SELECT INTERVAL(9007199254740992, 9007199254740993)";
        assert_eq!(one(big), Value::Int(0));
        let text = "SELECT INTERVAL('9007199254740992', 9007199254740993)";
        assert_eq!(one(text), Value::Int(1));
    }

    #[test]
    fn one_parenthesized_value_is_an_interval_again() {
        assert_eq!(
            one("SELECT DATE'2020-01-01' + INTERVAL (1) + 1 DAY"),
            Value::Date(crate::types::Date {
                year: 2020,
                month: 1,
                day: 3
            })
        );
    }
}
