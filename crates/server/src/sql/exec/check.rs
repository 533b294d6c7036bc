//! CHECK constraints, as MariaDB 10.11 has them.
//!
//! * **Definition** (CREATE / ALTER TABLE): a column-level `CHECK (e)` is named by its column
//!   and printed after the column's definition; a table-level one is `CONSTRAINT name CHECK
//!   (e)`, or unnamed: `CONSTRAINT_<n>` (n counts the table's unnamed ones). A name used twice
//!   is 1826; a subquery is 1970. The expression is kept as MariaDB prints it
//!   (`expr_print.rs`: backquoted columns, lower-case keywords and function names, MariaDB's
//!   function aliases, NOT rewritten as MariaDB's parser does), and parsed and bound again to
//!   be enforced.
//! * **Enforcement**: before a row is written by INSERT / REPLACE / UPDATE / ON DUPLICATE KEY
//!   UPDATE (and by ALTER TABLE … ADD CONSTRAINT … CHECK, over the existing rows), every
//!   constraint, column-level ones first, is evaluated on the new row: FALSE is error 4025
//!   "CONSTRAINT `x` failed for `db`.`t`" (a column-level one named `t.col`), NULL passes.
//!   INSERT IGNORE does not turn it into a warning (MariaDB neither). `check_constraint_checks
//!   = 0` turns enforcement off.

use crate::error::{Error, Result};
use crate::sql::bind::{Binder, TableScope};
use crate::sql::env::Env;
use crate::sql::expr::{Expr, RowCtx};
use crate::storage::{CheckDef, TableDef};
use crate::types::Value;
use cohort_protocol::ErrorCode;
use sqlparser::ast;

/// What a statement declares: (name, column for a column-level one, expression).
pub type Declared = (Option<String>, Option<String>, ast::Expr);

pub(super) fn no_subqueries() -> Error {
    Error::new(
        ErrorCode::SubqueryNotSupportedInCheck,
        "CHECK does not support subqueries or stored functions",
    )
}

fn dup_name(name: &str) -> Error {
    Error::new(
        ErrorCode::DupConstraintName,
        format!("Duplicate CHECK constraint name '{name}'"),
    )
}

/// Append the declared constraints to `def.checks` (module doc), each checked by binding it
/// against the table's columns.
pub fn add_checks(
    env: &Env<'_>,
    db: &str,
    def: &mut TableDef,
    declared: &[Declared],
) -> Result<()> {
    let mut n = def
        .checks
        .iter()
        .filter_map(|c| c.name.strip_prefix("CONSTRAINT_")?.parse::<u32>().ok())
        .max()
        .unwrap_or(0);
    let mut column_level = Vec::new();
    let mut table_level = Vec::new();
    for (name, column, e) in declared {
        let text = super::expr_print::print(e, env.set_aside)?;
        let name = match (column, name) {
            (Some(c), _) => c.clone(),
            (None, Some(n)) => n.clone(),
            (None, None) => {
                n += 1;
                format!("CONSTRAINT_{n}")
            }
        };
        let c = CheckDef {
            name,
            column: column.clone(),
            expr: text,
        };
        if c.column.is_some() {
            column_level.push(c);
        } else {
            table_level.push(c);
        }
    }
    for c in column_level.into_iter().chain(table_level) {
        if def
            .checks
            .iter()
            .any(|x| x.name.eq_ignore_ascii_case(&c.name))
        {
            return Err(dup_name(&c.name));
        }
        def.checks.push(c);
    }
    // Column-level constraints first, in column order (the order they are evaluated in).
    let mut checks = std::mem::take(&mut def.checks);
    checks.sort_by_key(|c| {
        c.column
            .as_deref()
            .and_then(|n| def.column_index(n))
            .unwrap_or(usize::MAX)
    });
    def.checks = checks;
    bind_all(env, db, def)?;
    Ok(())
}

/// The columns a FOREIGN KEY's CASCADE or SET NULL writes, each with its quoted, lower-case
/// form (`` `col` ``) as it appears in a stored expression's text.
pub fn cascade_written_columns(def: &TableDef) -> impl Iterator<Item = (&str, String)> {
    use crate::storage::FkAction;
    def.foreign_keys
        .iter()
        .filter(|fk| {
            [fk.on_delete, fk.on_update]
                .iter()
                .any(|a| matches!(a, FkAction::Cascade | FkAction::SetNull))
        })
        .flat_map(|fk| fk.columns.iter())
        .map(|col| {
            let quoted = format!("`{}`", col.replace('`', "``")).to_ascii_lowercase();
            (col.as_str(), quoted)
        })
}

/// A CHECK may not read a column a FOREIGN KEY's CASCADE or SET NULL changes (the cascade
/// would not check it): 1901, as MariaDB.
pub fn check_against_foreign_keys(def: &TableDef) -> Result<()> {
    for (col, quoted) in cascade_written_columns(def) {
        for c in &def.checks {
            let uses = match &c.column {
                Some(n) => n.eq_ignore_ascii_case(col),
                None => c.expr.to_ascii_lowercase().contains(&quoted),
            };
            if uses {
                return Err(Error::new(
                    ErrorCode::FunctionNotAllowedInClause,
                    format!(
                        "Function or expression '{col}' cannot be used in the CHECK clause of `{}`",
                        c.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The constraints of `def`, bound (1054 for a column that is not there).
fn bind_all(env: &Env<'_>, db: &str, def: &TableDef) -> Result<Vec<(String, Expr)>> {
    let scope = TableScope::of_def(db, def, None);
    let mut out = Vec::with_capacity(def.checks.len());
    for c in &def.checks {
        let e = parse(&c.expr)?;
        let mut b = Binder::new(env, &[], Some(&scope));
        let bound = b.bind(&e).map_err(|err| {
            if err.code() == ErrorCode::BadField {
                let msg = err.message().replace("'SELECT'", "'CHECK'");
                Error::new(ErrorCode::BadField, msg)
            } else {
                err
            }
        })?;
        let shown = match &c.column {
            Some(_) => format!("{}.{}", def.name, c.name),
            None => c.name.clone(),
        };
        out.push((shown, bound.0));
    }
    Ok(out)
}

fn parse(text: &str) -> Result<ast::Expr> {
    crate::sql::parse::dialect::parse_kept_expr(text)
        .map_err(|e| Error::internal(format!("CHECK expression {text}: {e}")))
}

/// The bound constraints one statement enforces on the rows it writes to a table.
pub struct Checks {
    list: Vec<(String, Expr)>,
    db: String,
    table: String,
}

impl Checks {
    /// None when the table has no constraint or `check_constraint_checks` is off.
    pub fn of(env: &Env<'_>, db: &str, def: &TableDef) -> Result<Option<Checks>> {
        if def.checks.is_empty() || !enabled(env) {
            return Ok(None);
        }
        Ok(Some(Checks {
            list: bind_all(env, db, def)?,
            db: db.to_string(),
            table: def.name.clone(),
        }))
    }

    /// 4025 for the first constraint `row` fails.
    pub fn check(&self, env: &Env<'_>, row: &[Value]) -> Result<()> {
        for (name, e) in &self.list {
            let v = e.eval(&RowCtx::of(row), env)?;
            if crate::sql::expr::convert::to_bool(&v) == Some(false) {
                return Err(Error::new(
                    ErrorCode::ConstraintFailed,
                    format!(
                        "CONSTRAINT `{name}` failed for `{}`.`{}`",
                        self.db, self.table
                    ),
                ));
            }
        }
        Ok(())
    }
}

fn enabled(env: &Env<'_>) -> bool {
    match env.sys_var("check_constraint_checks", false) {
        Ok(v) => crate::sql::expr::convert::to_num(&v).to_i128() != 0,
        Err(_) => true,
    }
}

/// ALTER TABLE: every row of the new shape against every constraint.
pub fn check_rows(
    env: &Env<'_>,
    db: &str,
    def: &TableDef,
    rows: &[crate::storage::Row],
) -> Result<()> {
    if let Some(c) = Checks::of(env, db, def)? {
        for r in rows {
            c.check(env, r)?;
        }
    }
    Ok(())
}

/// Lines of SHOW CREATE TABLE: the text after a column's definition, if it has a constraint.
pub fn column_sql(def: &TableDef, column: &str) -> Option<String> {
    def.checks
        .iter()
        .find(|c| {
            c.column
                .as_deref()
                .is_some_and(|n| n.eq_ignore_ascii_case(column))
        })
        .map(|c| format!(" CHECK ({})", c.expr))
}

/// Table-level constraint lines of SHOW CREATE TABLE.
pub fn table_sql(def: &TableDef) -> Vec<String> {
    def.checks
        .iter()
        .filter(|c| c.column.is_none())
        .map(|c| format!("  CONSTRAINT `{}` CHECK ({})", c.name, c.expr))
        .collect()
}
