//! Strict mode and the warnings of value expressions: in an INSERT or UPDATE under
//! STRICT_TRANS_TABLES / STRICT_ALL_TABLES (and without IGNORE), a function's complaint about
//! a bad value — 1292 (incorrect or truncated datetime / number), 1411 (STR_TO_DATE), 1441
//! (datetime overflow), 1958 (bad base64) — ends the statement with that error instead of a
//! NULL and a warning, as MariaDB does (`INSERT … VALUES (DATE_ADD('2020-13-01', INTERVAL 1
//! DAY))` is error 1292). Values that are literals, parameters or columns raise nothing and
//! skip the check, so plain statements pay nothing for it.

use crate::error::{Error, Result};
use crate::sql::env::Env;
use crate::sql::expr::{Expr, RowCtx};
use crate::types::Value;
use cohort_protocol::ErrorCode;

/// The codes a strict INSERT / UPDATE turns into errors.
fn escalated(code: u16) -> Option<ErrorCode> {
    Some(match code {
        1292 => ErrorCode::TruncatedWrongValue,
        1411 => ErrorCode::WrongValueForType,
        1441 => ErrorCode::DatetimeFunctionOverflow,
        1958 => ErrorCode::BadBase64Data,
        _ => return None,
    })
}

/// The first escalated warning added since `before`, as an error (and taken off the list).
pub fn check_since(env: &Env<'_>, before: usize) -> Result<()> {
    let mut w = env.warnings.borrow_mut();
    let found = w
        .iter()
        .enumerate()
        .skip(before)
        .find_map(|(i, x)| escalated(x.code).map(|c| (i, c)));
    if let Some((i, code)) = found {
        let warning = w.remove(i);
        return Err(Error::new(code, warning.message));
    }
    Ok(())
}

/// Evaluate a value to be stored; `strict`: escalate its warnings (see the module doc).
pub fn eval(e: &Expr, r: &RowCtx<'_>, env: &Env<'_>, strict: bool) -> Result<Value> {
    if !strict || matches!(e, Expr::Lit(_) | Expr::Param(_) | Expr::Col(_)) {
        return e.eval(r, env);
    }
    let before = env.warnings.borrow().len();
    let v = e.eval(r, env)?;
    check_since(env, before)?;
    Ok(v)
}
