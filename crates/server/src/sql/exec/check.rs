//! CHECK constraints, as MariaDB 10.11 has them.
//!
//! * **Definition** (CREATE / ALTER TABLE): a column-level `CHECK (e)` is named by its column
//!   and printed after the column's definition; a table-level one is `CONSTRAINT name CHECK
//!   (e)`, or unnamed: `CONSTRAINT_<n>` (n counts the table's unnamed ones). A name used twice
//!   is 1826; a subquery is 1970. The expression is kept as MariaDB prints it ([`print`]:
//!   backquoted columns, lower-case keywords and function names, MariaDB's function aliases),
//!   and parsed and bound again to be enforced. Forms MariaDB rewrites when it prints them
//!   (`NOT a > 0` as `a <= 0`, …) are enforced the same, only printed as written.
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

fn no_subqueries() -> Error {
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
        let text = print(e, env.set_aside)?;
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
    let dialect = sqlparser::dialect::MySqlDialect {};
    sqlparser::parser::Parser::new(&dialect)
        .with_recursion_limit(400)
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
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

// ---------------------------------------------------------------------------------------------
// Printing

/// Binding strength, as MariaDB prints: parentheses go around a weaker operand.
fn prec(e: &ast::Expr) -> u8 {
    use ast::BinaryOperator as B;
    match e {
        ast::Expr::BinaryOp { op, .. } => match op {
            B::Or => 1,
            B::Xor => 2,
            B::And => 3,
            B::Eq | B::NotEq | B::Lt | B::LtEq | B::Gt | B::GtEq | B::Spaceship => 5,
            B::BitwiseOr => 6,
            B::BitwiseAnd => 7,
            B::PGBitwiseShiftLeft | B::PGBitwiseShiftRight => 8,
            B::Plus | B::Minus => 9,
            B::Multiply | B::Divide | B::Modulo | B::MyIntegerDivide => 10,
            B::BitwiseXor => 11,
            _ => 5,
        },
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Not,
            ..
        } => 4,
        ast::Expr::IsNull(_)
        | ast::Expr::IsNotNull(_)
        | ast::Expr::IsTrue(_)
        | ast::Expr::IsFalse(_)
        | ast::Expr::IsNotTrue(_)
        | ast::Expr::IsNotFalse(_)
        | ast::Expr::InList { .. }
        | ast::Expr::Between { .. }
        | ast::Expr::Like { .. }
        | ast::Expr::RLike { .. } => 5,
        ast::Expr::Nested(inner) => prec(inner),
        _ => 20,
    }
}

fn unnest(e: &ast::Expr) -> &ast::Expr {
    match e {
        ast::Expr::Nested(inner) => unnest(inner),
        other => other,
    }
}

/// An operand, in parentheses when it binds weaker than `min`.
fn operand(e: &ast::Expr, min: u8, sa: &[ast::Expr], d: usize) -> Result<String> {
    let e = unnest(e);
    let s = pr(e, sa, d + 1)?;
    Ok(if prec(e) < min { format!("({s})") } else { s })
}

fn quote_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for ch in s.chars() {
        match ch {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// MariaDB's name for a function in printed expressions.
fn function_name(name: &str) -> String {
    let n = name.to_ascii_lowercase();
    match n.as_str() {
        "length" => "octet_length".into(),
        "upper" => "ucase".into(),
        "lower" => "lcase".into(),
        "substring" | "mid" => "substr".into(),
        "character_length" => "char_length".into(),
        _ => n,
    }
}

/// An expression as MariaDB prints a CHECK constraint's (module doc); 1970 for a subquery.
/// `set_aside`: the statement's deep expressions its placeholders stand for.
pub fn print(e: &ast::Expr, set_aside: &[ast::Expr]) -> Result<String> {
    pr(e, set_aside, 0)
}

fn pr(e: &ast::Expr, sa: &[ast::Expr], d: usize) -> Result<String> {
    use ast::BinaryOperator as B;
    use ast::Expr as E;
    if d > 200 {
        return Err(Error::unsupported("CHECK expressions nested this deep"));
    }
    if let Some(i) = crate::sql::parse::dialect::placeholder_index(e) {
        let inner = sa.get(i).ok_or_else(|| Error::internal("placeholder"))?;
        return pr(inner, sa, d + 1);
    }
    Ok(match e {
        E::Identifier(id) => format!("`{}`", id.value.replace('`', "``")),
        E::CompoundIdentifier(ids) => format!(
            "`{}`",
            ids.last()
                .map_or(String::new(), |i| i.value.replace('`', "``"))
        ),
        E::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                quote_string(s)
            }
            ast::Value::Boolean(b) => (if *b { "1" } else { "0" }).to_string(),
            ast::Value::Null => "NULL".to_string(),
            other => other.to_string(),
        },
        E::Nested(inner) => pr(inner, sa, d + 1)?,
        E::BinaryOp { left, op, right } => {
            let p = prec(e);
            let op_text = match op {
                B::And => "and".to_string(),
                B::Or => "or".to_string(),
                B::Xor => "xor".to_string(),
                B::NotEq => "<>".to_string(),
                B::Modulo => "MOD".to_string(),
                B::MyIntegerDivide => "DIV".to_string(),
                other => other.to_string(),
            };
            // Left-associative: an equally strong right operand keeps its parentheses,
            // except in AND / OR / XOR chains.
            let chain = matches!(op, B::And | B::Or | B::Xor);
            let right_min = if chain { p } else { p + 1 };
            format!(
                "{} {op_text} {}",
                operand(left, p, sa, d)?,
                operand(right, right_min, sa, d)?
            )
        }
        E::UnaryOp { op, expr } => match op {
            ast::UnaryOperator::Minus => format!("-{}", operand(expr, 12, sa, d)?),
            ast::UnaryOperator::Plus => operand(expr, 12, sa, d)?,
            ast::UnaryOperator::Not => format!("!({})", pr(unnest(expr), sa, d + 1)?),
            other => format!("{other}{}", operand(expr, 12, sa, d)?),
        },
        E::IsNull(x) => format!("{} is null", operand(x, 6, sa, d)?),
        E::IsNotNull(x) => format!("{} is not null", operand(x, 6, sa, d)?),
        E::IsTrue(x) => format!("{} is true", operand(x, 6, sa, d)?),
        E::IsNotTrue(x) => format!("{} is not true", operand(x, 6, sa, d)?),
        E::IsFalse(x) => format!("{} is false", operand(x, 6, sa, d)?),
        E::IsNotFalse(x) => format!("{} is not false", operand(x, 6, sa, d)?),
        E::InList {
            expr,
            list,
            negated,
        } => {
            let items = list
                .iter()
                .map(|x| pr(x, sa, d + 1))
                .collect::<Result<Vec<_>>>()?;
            format!(
                "{} {}in ({})",
                operand(expr, 6, sa, d)?,
                if *negated { "not " } else { "" },
                items.join(",")
            )
        }
        E::Between {
            expr,
            negated,
            low,
            high,
        } => format!(
            "{} {}between {} and {}",
            operand(expr, 6, sa, d)?,
            if *negated { "not " } else { "" },
            operand(low, 6, sa, d)?,
            operand(high, 6, sa, d)?
        ),
        E::Like {
            negated,
            any: false,
            expr,
            pattern,
            escape_char,
        } => {
            let mut s = format!(
                "{}{} like {}",
                operand(expr, 6, sa, d)?,
                if *negated { "  not" } else { "" },
                operand(pattern, 6, sa, d)?
            );
            if let Some(esc) = escape_char {
                s.push_str(&format!(" escape {}", pr(esc, sa, d + 1)?));
            }
            s
        }
        E::RLike {
            negated,
            expr,
            pattern,
            ..
        } => format!(
            "{}{} regexp {}",
            operand(expr, 6, sa, d)?,
            if *negated { "  not" } else { "" },
            operand(pattern, 6, sa, d)?
        ),
        E::Function(f) => {
            let name = function_name(&f.name.to_string());
            let args = match &f.args {
                ast::FunctionArguments::None => return Ok(name),
                ast::FunctionArguments::Subquery(_) => return Err(no_subqueries()),
                ast::FunctionArguments::List(l) => {
                    let mut out = Vec::with_capacity(l.args.len());
                    for a in &l.args {
                        match a {
                            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => {
                                out.push(pr(x, sa, d + 1)?)
                            }
                            other => out.push(other.to_string()),
                        }
                    }
                    out.join(",")
                }
            };
            format!("{name}({args})")
        }
        E::Case {
            operand: op,
            conditions,
            else_result,
            ..
        } => {
            let mut s = "case ".to_string();
            if let Some(o) = op {
                s.push_str(&pr(o, sa, d + 1)?);
                s.push(' ');
            }
            for w in conditions {
                s.push_str(&format!(
                    "when {} then {} ",
                    pr(&w.condition, sa, d + 1)?,
                    pr(&w.result, sa, d + 1)?
                ));
            }
            if let Some(x) = else_result {
                s.push_str(&format!("else {} ", pr(x, sa, d + 1)?));
            }
            s.push_str("end");
            s
        }
        E::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            let mut args = vec![pr(expr, sa, d + 1)?];
            if let Some(f) = substring_from {
                args.push(pr(f, sa, d + 1)?);
            }
            if let Some(f) = substring_for {
                args.push(pr(f, sa, d + 1)?);
            }
            format!("substr({})", args.join(","))
        }
        E::Trim {
            trim_where: None,
            trim_what: None,
            expr,
            trim_characters: None,
        } => format!("trim({})", pr(expr, sa, d + 1)?),
        E::Subquery(_) | E::Exists { .. } | E::InSubquery { .. } => return Err(no_subqueries()),
        other => {
            let s = other.to_string();
            if s.to_ascii_uppercase().contains("SELECT") {
                return Err(no_subqueries());
            }
            s
        }
    })
}
