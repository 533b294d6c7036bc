//! Expression defaults (`c INT DEFAULT (a + 1)`, `c CHAR(36) DEFAULT uuid()`), as MariaDB
//! 10.2+ has them: the expression is evaluated for every row that takes the default.
//!
//! * **Definition** ([`default_of`], [`validate`]): a literal, possibly signed or in
//!   parentheses, is a plain value (`ColumnDefault::Value`, printed as MariaDB prints a literal:
//!   `DEFAULT (-1)` is `DEFAULT -1`); `NOW()` / `CURRENT_TIMESTAMP(n)` stays
//!   `ColumnDefault::CurrentTimestamp`; anything else is kept as MariaDB prints it
//!   (`ColumnDefault::Expr`): a function call, column or variable bare (`uuid()`), any other
//!   expression in parentheses (`(`a` + 1)`). It is bound against the table's columns (1054
//!   "Unknown column 'x' in 'DEFAULT'"); it may read any earlier column and a later one whose
//!   default is not an expression reading columns; itself, or a later generated or
//!   column-reading one, is 4029. Subqueries, aggregates, statement-state functions
//!   (`LAST_INSERT_ID()`, `SLEEP()`…) and AUTO_INCREMENT columns are 1901. One that reads no
//!   column and is a function of nothing but its literals is evaluated at once, so a value its
//!   column cannot hold is 1067, as MariaDB checks it.
//! * **Values** ([`Defaults`]): INSERT / REPLACE / INSERT … SELECT / LOAD DATA compute the
//!   expression of every column the statement gives no value (or `DEFAULT`) after the given
//!   values are in place, those reading no column first, then in column order, so a default
//!   reads the row's values (a later plain-default column included). The value is stored as a
//!   given one would be: a NULL into a NOT NULL column is 1048. `SET c = DEFAULT` in UPDATE and
//!   ON DUPLICATE KEY UPDATE, and `DEFAULT(c)` anywhere, evaluate it over the row at hand
//!   (`bind/column_default.rs`).
//! * **ALTER TABLE** fills an added column in the existing rows the same way. The log
//!   replays an ALTER by running it again, with the statement's clock, time zone and default
//!   database as they were (`log/ddl_session.rs`), so a default of the row and of those
//!   ([`REPLAYED`]: `now()`, `curdate()`, `utc_timestamp()`, `database()`…) fills the same
//!   values again. One whose value is anything else (`uuid()`, `rand()`, `sysdate()`, the user,
//!   a variable) would give other values after a crash than the ones the client was shown:
//!   adding such a column to a table with rows is refused (1235).
//! * **Cost**: a table without expression defaults does nothing here ([`Defaults::of`]
//!   answers None after one look at the definition).

use crate::error::{Error, Result};
use crate::sql::bind::TableScope;
use crate::sql::env::Env;
use crate::sql::expr::convert::{self, StoreCtx};
use crate::sql::expr::{Expr, RowCtx};
use crate::storage::{ColumnDef, ColumnDefault, TableDef};
use crate::types::Value;
use cohort_protocol::ErrorCode;
use sqlparser::ast;
use sqlparser::tokenizer::{Token, Tokenizer};

fn not_allowed(what: &str, col: &str) -> Error {
    Error::new(
        ErrorCode::FunctionNotAllowedInClause,
        format!("Function or expression '{what}' cannot be used in the DEFAULT clause of `{col}`"),
    )
}

/// Is `e` a literal MariaDB keeps as a plain value (a number, string, NULL, a signed number,
/// in any parentheses)?
pub fn is_literal(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Nested(inner) => is_literal(inner),
        ast::Expr::Value(_) | ast::Expr::TypedString(_) => true,
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Minus | ast::UnaryOperator::Plus,
            expr,
        } => {
            matches!(unnest(expr), ast::Expr::Value(v) if matches!(v.value, ast::Value::Number(..)))
        }
        _ => false,
    }
}

fn unnest(e: &ast::Expr) -> &ast::Expr {
    match e {
        ast::Expr::Nested(inner) => unnest(inner),
        other => other,
    }
}

/// The text MariaDB keeps for the DEFAULT expression `e` of column `col` (module doc).
pub fn expr_text(env: &Env<'_>, e: &ast::Expr, col: &str) -> Result<String> {
    let text = super::expr_print::print(e, env.set_aside).map_err(|err| {
        if err.code() == ErrorCode::SubqueryNotSupportedInCheck {
            not_allowed("select ...", col)
        } else {
            err
        }
    })?;
    let bare = match unnest(e) {
        ast::Expr::Function(_)
        | ast::Expr::Identifier(_)
        | ast::Expr::CompoundIdentifier(_)
        | ast::Expr::Value(_) => true,
        _ => text.starts_with('@'),
    };
    Ok(if bare { text } else { format!("({text})") })
}

/// Bind a kept default expression against `scope` (the table's columns).
fn bind(env: &Env<'_>, scope: &TableScope, text: &str) -> Result<Expr> {
    crate::sql::bind::column_default::bind_kept(env, scope, text)
}

/// What the kept text calls: function names (lower case) and whether it reads a variable.
struct Calls {
    functions: Vec<String>,
    variables: bool,
}

fn calls(text: &str) -> Result<Calls> {
    let dialect = sqlparser::dialect::MySqlDialect {};
    let tokens = Tokenizer::new(&dialect, text)
        .tokenize()
        .map_err(|e| Error::internal(format!("default expression {text}: {e}")))?;
    let words: Vec<&Token> = tokens
        .iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    let mut out = Calls {
        functions: Vec::new(),
        variables: false,
    };
    for (i, t) in words.iter().enumerate() {
        match t {
            Token::AtSign => out.variables = true,
            Token::Word(w) if w.value.starts_with('@') => out.variables = true,
            Token::Word(w) if w.quote_style.is_none() => {
                let name = w.value.to_ascii_lowercase();
                let called = matches!(words.get(i + 1), Some(Token::LParen));
                if called || super::gencol::BARE_FUNCTIONS.contains(&name.as_str()) {
                    out.functions.push(name);
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Is the kept expression a function of the row alone (no clock, random value, session
/// state or variable)?
pub fn of_the_row(text: &str) -> Result<bool> {
    let c = calls(text)?;
    Ok(!c.variables
        && !c
            .functions
            .iter()
            .any(|f| super::gencol::NOT_OF_THE_ROW.iter().any(|(n, _)| n == f)))
}

/// Does a bound default read a column?
fn reads_columns(e: &Expr) -> bool {
    let mut reads = false;
    e.walk(&mut |x| reads |= matches!(x, Expr::Col(_)));
    reads
}

/// Check the expression defaults of a new table definition (module doc).
pub fn validate(env: &Env<'_>, db: &str, def: &TableDef) -> Result<()> {
    if !def.has_default_exprs() {
        return Ok(());
    }
    let scope = TableScope::of_def(db, def, None);
    let mut bound: Vec<Option<Expr>> = vec![None; def.columns.len()];
    for (i, col) in def.columns.iter().enumerate() {
        let ColumnDefault::Expr(text) = &col.default else {
            continue;
        };
        let c = calls(text)?;
        if let Some(f) = c
            .functions
            .iter()
            .find(|f| f.as_str() == "values" || super::gencol::NEVER.contains(&f.as_str()))
        {
            return Err(match f.as_str() {
                "values" => not_allowed("select ...", &col.name),
                "count" | "sum" | "avg" | "min" | "max" => not_allowed("sum()", &col.name),
                _ => not_allowed(&format!("{f}()"), &col.name),
            });
        }
        bound[i] = Some(bind(env, &scope, text)?);
    }
    for (i, col) in def.columns.iter().enumerate() {
        let Some(e) = &bound[i] else {
            continue;
        };
        let mut problem: Option<Error> = None;
        e.walk(&mut |x| {
            if problem.is_some() {
                return;
            }
            match x {
                Expr::Col(j) => {
                    let other = &def.columns[*j];
                    let later_expr = *j > i
                        && (other.generated.is_some()
                            || bound[*j].as_ref().is_some_and(reads_columns));
                    if *j == i || later_expr {
                        problem = Some(Error::new(
                            ErrorCode::ExpressionRefersToUninitField,
                            format!(
                                "Expression for field `{}` is referring to uninitialized field `{}`",
                                col.name, other.name
                            ),
                        ));
                    } else if other.auto_increment {
                        problem = Some(not_allowed("AUTO_INCREMENT", &other.name));
                    }
                }
                Expr::Subquery(_) => problem = Some(not_allowed("select ...", &col.name)),
                Expr::Agg(_) | Expr::OuterAgg { .. } => {
                    problem = Some(not_allowed("sum()", &col.name))
                }
                _ => {}
            }
        });
        if let Some(p) = problem {
            return Err(p);
        }
        if let ColumnDefault::Expr(text) = &col.default {
            if !reads_columns(e) && of_the_row(text)? && e.is_constant() {
                check_constant(env, col, e)?;
            }
        }
    }
    Ok(())
}

/// A default of literals alone: its value must fit its column (1067, as MariaDB).
fn check_constant(env: &Env<'_>, col: &ColumnDef, e: &Expr) -> Result<()> {
    let invalid = || {
        Error::new(
            ErrorCode::InvalidDefault,
            format!("Invalid default value for '{}'", col.name),
        )
    };
    let v = e.eval(&RowCtx::EMPTY, env).map_err(|_| invalid())?;
    if v.is_null() {
        return match col.nullable {
            true => Ok(()),
            false => Err(invalid()),
        };
    }
    store_strictly(v, col).map_err(|_| invalid())?;
    Ok(())
}

/// A default's value as `col` keeps it, converted as strict mode stores a value (a problem is
/// the caller's 1067).
pub fn store_strictly(v: Value, col: &ColumnDef) -> Result<Value> {
    let warnings = std::cell::RefCell::new(Vec::new());
    let sc = StoreCtx {
        strict: convert::Strict::Yes,
        row: 1,
        warnings: &warnings,
        zone: None,
        table: None,
    };
    convert::store_value(v, col, &sc)
}

/// The bound expression defaults of one statement's target table.
pub struct Defaults {
    /// (column, expression), those reading no column first, then in column order.
    list: Vec<(usize, Expr)>,
}

impl Defaults {
    /// None for a table without expression defaults.
    pub fn of(env: &Env<'_>, db: &str, def: &TableDef) -> Result<Option<Defaults>> {
        if !def.has_default_exprs() {
            return Ok(None);
        }
        let scope = TableScope::of_def(db, def, None);
        let mut list = Vec::new();
        for (i, c) in def.columns.iter().enumerate() {
            if let ColumnDefault::Expr(text) = &c.default {
                list.push((i, bind(env, &scope, text)?));
            }
        }
        list.sort_by_key(|(i, e)| (reads_columns(e), *i));
        Ok(Some(Defaults { list }))
    }

    /// Compute the default of every expression-default column not `given`, over `row`; those
    /// columns count as given afterwards (a NULL result into NOT NULL is 1048, not 1364).
    pub fn fill(
        &self,
        env: &Env<'_>,
        def: &TableDef,
        row: &mut [Value],
        given: &mut [bool],
        sc: &StoreCtx<'_>,
    ) -> Result<()> {
        for (c, e) in &self.list {
            if given[*c] {
                continue;
            }
            let v = super::strict_values::eval(e, &RowCtx::of(row), env, sc.strict.get())?;
            row[*c] = if v.is_null() {
                Value::Null
            } else {
                convert::store_value(v, &def.columns[*c], sc)?
            };
            given[*c] = true;
        }
        Ok(())
    }
}

/// Functions that are not of the row but that a replay computes again the same way: the
/// statement's clock, the session's time zone and default database are logged with it.
pub const REPLAYED: &[&str] = &[
    "now",
    "current_timestamp",
    "localtime",
    "localtimestamp",
    "curdate",
    "current_date",
    "curtime",
    "current_time",
    "utc_date",
    "utc_time",
    "utc_timestamp",
    "unix_timestamp",
    "from_unixtime",
    "date_format",
    "dayname",
    "monthname",
    "database",
    "schema",
];

/// Does a replay of the statement compute the kept expression again the same way: a
/// function of the row and of [`REPLAYED`] functions only?
fn replayable(text: &str) -> Result<bool> {
    let c = calls(text)?;
    Ok(!c.variables
        && !c.functions.iter().any(|f| {
            !REPLAYED.contains(&f.as_str())
                && super::gencol::NOT_OF_THE_ROW.iter().any(|(n, _)| n == f)
        }))
}

/// ALTER TABLE: may the added column `col` be filled in existing rows (module doc)?
pub fn check_fill(col: &ColumnDef) -> Result<()> {
    if let ColumnDefault::Expr(text) = &col.default {
        if !replayable(text)? {
            return Err(Error::unsupported(
                "ALTER TABLE filling existing rows with a DEFAULT expression whose value is not a function of the row",
            ));
        }
    }
    Ok(())
}
