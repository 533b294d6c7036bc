//! A column's default as an expression: `SET c = DEFAULT` (UPDATE, ON DUPLICATE KEY UPDATE,
//! LOAD DATA's SET), `DEFAULT(c)`, and the expression defaults INSERT computes for the columns
//! it is not given (`exec/default_expr.rs`).
//!
//! A literal default is its value; `CURRENT_TIMESTAMP` is NOW(fsp); an expression default
//! (`ColumnDefault::Expr`, kept as MariaDB prints it) is parsed and bound again against the
//! table's own columns, so it reads the row it is computed for; no default is NULL, or for a
//! NOT NULL column its type's implicit value (an ENUM's first member).

use super::{Binder, TableScope};
use crate::error::Result;
use crate::sql::env::Env;
use crate::sql::expr::{convert, Expr};
use crate::storage::{ColumnDef, ColumnDefault};
use crate::types::{DataType, Value};

/// Bind the kept text of an expression default against `scope` (the table's columns); an
/// unknown column is 1054 "… in 'DEFAULT'", as MariaDB names the clause.
pub fn bind_kept(env: &Env<'_>, scope: &TableScope, text: &str) -> Result<Expr> {
    let e = crate::sql::parse::dialect::parse_kept_expr(text)
        .map_err(|e| crate::error::Error::internal(format!("default expression {text}: {e}")))?;
    let mut b = Binder::new(env, &[], Some(scope));
    b.clause = "DEFAULT";
    Ok(b.bind(&e)?.0)
}

/// An expression producing `col`'s default value over a row of the table `scope` describes.
pub fn default_value(env: &Env<'_>, scope: &TableScope, col: &ColumnDef) -> Result<Expr> {
    Ok(match &col.default {
        ColumnDefault::Expr(text) => bind_kept(env, scope, text)?,
        ColumnDefault::Value(v) => Expr::Lit(v.clone()),
        ColumnDefault::CurrentTimestamp => {
            let fsp = match col.data_type {
                DataType::DateTime { fsp } | DataType::Timestamp { fsp } => fsp,
                _ => 0,
            };
            Expr::Func(crate::sql::func::Func::Now(fsp), Vec::new())
        }
        ColumnDefault::None if col.nullable => Expr::Lit(Value::Null),
        ColumnDefault::None => Expr::Lit(
            convert::enum_first_member(&col.data_type)
                .unwrap_or_else(|| convert::implicit_default(&col.data_type)),
        ),
    })
}
