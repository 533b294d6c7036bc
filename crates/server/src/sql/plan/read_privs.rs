//! MariaDB's rule that an UPDATE or DELETE which reads the target table's columns (in SET
//! values, WHERE or ORDER BY) needs SELECT on them: without SELECT on the table, the first
//! column read is named in 1143. (Cohort has no column-level grants, so SELECT on the table
//! is what is checked.)
//!
//! Checked when the statement is bound, so a cached plan pays nothing; the walk over the
//! expressions happens only when SELECT is missing.

use super::{check_table_priv, Env};
use crate::accounts::Privs;
use crate::error::{Error, Result};
use cohort_protocol::ErrorCode;
use sqlparser::ast;

/// 1143 if the session lacks SELECT on `db`.`table` and one of `exprs` reads a column.
pub fn check_column_reads<'e>(
    env: &Env<'_>,
    db: &str,
    table: &str,
    exprs: impl IntoIterator<Item = &'e ast::Expr>,
) -> Result<()> {
    if check_table_priv(env, db, table, Privs::SELECT).is_ok() {
        return Ok(());
    }
    for e in exprs {
        if let Some(col) = first_column(e, env.set_aside, 0) {
            return Err(column_denied(env, &col, table));
        }
    }
    Ok(())
}

/// REPLACE also needs DELETE, and ON DUPLICATE KEY UPDATE needs UPDATE, and SELECT on the
/// columns it assigns and reads (1143 naming the first).
pub fn check_insert_extras(env: &Env<'_>, db: &str, table: &str, ins: &ast::Insert) -> Result<()> {
    if ins.replace_into {
        check_table_priv(env, db, table, Privs::DELETE)?;
    }
    if let Some(ast::OnInsert::DuplicateKeyUpdate(list)) = &ins.on {
        check_table_priv(env, db, table, Privs::UPDATE)?;
        if check_table_priv(env, db, table, Privs::SELECT).is_err() {
            let target = list.iter().find_map(|a| match &a.target {
                ast::AssignmentTarget::ColumnName(n) => n.0.last().map(|p| p.to_string()),
                _ => None,
            });
            if let Some(col) = target {
                return Err(column_denied(env, &col, table));
            }
            check_column_reads(env, db, table, list.iter().map(|a| &a.value))?;
        }
    }
    Ok(())
}

fn column_denied(env: &Env<'_>, col: &str, table: &str) -> Error {
    Error::new(
        ErrorCode::ColumnaccessDenied,
        format!(
            "SELECT command denied to user '{}'@'{}' for column '{col}' in table '{table}'",
            env.sess.user, env.sess.client_host
        ),
    )
}

/// The first column an expression reads, if any (subqueries are checked when they are bound;
/// the walk stops at a depth the binder would refuse anyway).
fn first_column(e: &ast::Expr, set_aside: &[ast::Expr], depth: usize) -> Option<String> {
    use ast::Expr as E;
    if depth > 200 {
        return None;
    }
    let d = depth + 1;
    // A node the parser set aside (deep expressions): follow its placeholder.
    if let Some(i) = crate::sql::parse::dialect::placeholder_index(e) {
        return set_aside.get(i).and_then(|x| first_column(x, set_aside, d));
    }
    let all = |xs: &mut dyn Iterator<Item = &ast::Expr>| {
        for x in xs {
            if let Some(c) = first_column(x, set_aside, d) {
                return Some(c);
            }
        }
        None
    };
    match e {
        E::Identifier(id) => Some(id.value.clone()),
        E::CompoundIdentifier(ids) => ids.last().map(|i| i.value.clone()),
        E::BinaryOp { left, right, .. } => all(&mut [&**left, &**right].into_iter()),
        E::UnaryOp { expr, .. }
        | E::Nested(expr)
        | E::IsNull(expr)
        | E::IsNotNull(expr)
        | E::IsTrue(expr)
        | E::IsNotTrue(expr)
        | E::IsFalse(expr)
        | E::IsNotFalse(expr)
        | E::IsUnknown(expr)
        | E::IsNotUnknown(expr)
        | E::Cast { expr, .. }
        | E::Collate { expr, .. }
        | E::InSubquery { expr, .. } => first_column(expr, set_aside, d),
        E::InList { expr, list, .. } => all(&mut std::iter::once(&**expr).chain(list.iter())),
        E::Between {
            expr, low, high, ..
        } => all(&mut [&**expr, &**low, &**high].into_iter()),
        E::Like { expr, pattern, .. } | E::ILike { expr, pattern, .. } => {
            all(&mut [&**expr, &**pattern].into_iter())
        }
        E::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            let mut xs: Vec<&ast::Expr> = operand.iter().map(|b| &**b).collect();
            for c in conditions {
                xs.push(&c.condition);
                xs.push(&c.result);
            }
            xs.extend(else_result.iter().map(|b| &**b));
            all(&mut xs.into_iter())
        }
        E::Function(f) => match &f.args {
            ast::FunctionArguments::List(list) => list.args.iter().find_map(|a| match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x))
                | ast::FunctionArg::Named {
                    arg: ast::FunctionArgExpr::Expr(x),
                    ..
                } => first_column(x, set_aside, d),
                _ => None,
            }),
            _ => None,
        },
        E::Tuple(xs) => all(&mut xs.iter()),
        _ => None,
    }
}
