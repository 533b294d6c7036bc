//! The zero date that an invalid temporal conversion leaves behind where MariaDB compares.
//!
//! `CAST('' AS DATE)`, `CAST(1 AS DATETIME)` and `DATE('a')` are NULL when shown, tested with
//! IS NULL, or passed to IFNULL / COALESCE / a function. But a comparison (`=`, `<`, …,
//! BETWEEN, IN, a CASE operand), MIN / MAX and GREATEST / LEAST read the date the conversion
//! left behind, which is the zero date: in MariaDB 10.11 `CAST('' AS DATE) = '0000-00-00'` is
//! 1, `MIN(CAST('a' AS DATE))` is `0000-00-00`, and `GREATEST(DATE(35), DATE'2019-12-31')` is
//! 2019-12-31. A conversion of NULL stays NULL everywhere. IF passes its chosen branch through
//! (`IF(1, CAST('' AS DATE), NULL) = 0` is 1), and NULLIF its first argument, as does a CAST to
//! another temporal type.

use crate::error::Result;
use crate::sql::env::Env;
use crate::sql::expr::{CastTo, Expr, RowCtx};
use crate::sql::func::Func;
use crate::types::{Date, DateTime, Value};
use std::borrow::Cow;

impl Expr {
    /// The value of the expression as a comparison, MIN / MAX or GREATEST / LEAST read it: the
    /// zero date instead of NULL where an invalid (not NULL) value was converted to a date.
    pub fn eval_compared<'v>(&'v self, r: &RowCtx<'v>, env: &'v Env<'v>) -> Result<Cow<'v, Value>> {
        let v = self.operand(r, env)?;
        if !v.is_null() {
            return Ok(v);
        }
        Ok(match self.zero_date_left(r, env)? {
            Some(z) => Cow::Owned(z),
            None => v,
        })
    }

    /// For a temporal conversion that gave NULL: the zero date if its argument was not NULL.
    fn zero_date_left(&self, r: &RowCtx<'_>, env: &Env<'_>) -> Result<Option<Value>> {
        let (arg, date) = match self {
            Expr::Cast(x, CastTo::Date) => (&**x, true),
            Expr::Cast(x, CastTo::DateTime(_)) => (&**x, false),
            Expr::Func(Func::DateOf, a) if a.len() == 1 => (&a[0], true),
            // NULLIF(x, y) is x when it is not NULL (MariaDB passes x's date through).
            Expr::Func(Func::NullIf(_), a) if a.len() == 2 => return a[0].zero_date_left(r, env),
            Expr::Func(Func::If(_), a) if a.len() == 3 => {
                let branch = if a[0].is_true(r, env)? { &a[1] } else { &a[2] };
                return branch.zero_date_left(r, env);
            }
            _ => return Ok(None),
        };
        if arg.eval_compared(r, env)?.is_null() {
            return Ok(None);
        }
        Ok(Some(if date {
            Value::Date(Date::default())
        } else {
            Value::DateTime(DateTime::default())
        }))
    }
}
