//! BENCHMARK(count, expr) (MariaDB 10.11): evaluate `expr` `count` times, answer 0.
//!
//! A NULL count is NULL; a negative one NULL with warning 1411. A fractional count rounds, a
//! string one is read as an integer. The loop stops early, still answering 0 and without an
//! error, when the statement is killed (KILL QUERY) or runs past `max_statement_time`, as
//! MariaDB's does; an error of `expr` ends the statement. INT(1) NOT NULL (MariaDB's metadata,
//! even though a NULL count gives NULL).

use crate::error::Result;
use crate::sql::bind::sqltype::SqlType;
use crate::sql::env::Env;
use crate::sql::expr::{Expr, RowCtx};
use crate::types::Value;
use cohort_protocol::ErrorCode;

/// How many evaluations between two looks at the statement's kill flag and deadline.
const CHECK_EVERY: u64 = 256;

/// BENCHMARK's type; None unless exactly two arguments.
pub fn bind(args: usize) -> Option<SqlType> {
    (args == 2).then(|| SqlType::int(1).not_null())
}

/// Evaluate BENCHMARK(args[0], args[1]).
pub fn eval(args: &[Expr], r: &RowCtx<'_>, env: &Env<'_>) -> Result<Value> {
    let count = args[0].eval(r, env)?;
    if count.is_null() {
        return Ok(Value::Null);
    }
    let n = super::int_arg(&count);
    if n < 0 {
        env.warn(
            "Warning",
            ErrorCode::WrongValueForType,
            format!("Incorrect count value: '{n}' for function benchmark"),
        );
        return Ok(Value::Null);
    }
    for i in 0..n as u64 {
        if i.is_multiple_of(CHECK_EVERY) && crate::interrupt::requested() {
            break;
        }
        args[1].eval(r, env)?;
    }
    Ok(Value::Int(0))
}
