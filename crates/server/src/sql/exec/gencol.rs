//! Generated columns (`c TYPE [GENERATED ALWAYS] AS (expr) [VIRTUAL | PERSISTENT | STORED]`),
//! as MariaDB 10.11 has them.
//!
//! * **Definition** (CREATE / ALTER TABLE, [`validate`]): the expression is kept as MariaDB
//!   prints it (`expr_print.rs`), bound against the table's columns (1054 "Unknown column 'x'
//!   in 'GENERATED ALWAYS AS'"). It may read earlier generated columns and any ordinary
//!   column, not itself or a later generated one (4029). Subqueries and aggregates are 1901
//!   always; functions whose value depends on more than the row (time, RAND, UUID, session
//!   functions, user variables) and AUTO_INCREMENT columns are 1901 for a STORED or indexed
//!   column, as in MariaDB. MariaDB computes a VIRTUAL column on every read, so it lets those
//!   into an unindexed VIRTUAL one; Cohort keeps the value of both kinds in the row (computed
//!   when the row is written), which would freeze such a value, so there they are 1235. A
//!   generated column in the PRIMARY KEY is 1903; NULL / NOT NULL / DEFAULT / AUTO_INCREMENT /
//!   ON UPDATE on one are syntax errors (`ddl/mod.rs`). A FOREIGN KEY over one is 1235; one
//!   reading a column a FOREIGN KEY's CASCADE / SET NULL writes is 1901 (STORED, as MariaDB) or
//!   1235 (VIRTUAL: the cascade would leave its kept value stale).
//! * **Values** ([`Generated`]): every write (INSERT, REPLACE, INSERT … SELECT, LOAD DATA,
//!   UPDATE, ON DUPLICATE KEY UPDATE, ALTER TABLE's copy) computes the generated columns, in
//!   column order, after the other columns (AUTO_INCREMENT included) are set, converting as a
//!   stored value is (1406, 1365… in strict mode). A value other than DEFAULT or the NULL
//!   literal given for one is 1906: an error in strict mode, otherwise (and with IGNORE) a warning, and the value
//!   is ignored; LOAD DATA ignores a field loaded into one without a word, as MariaDB does.
//! * **Cost**: a statement on a table without generated columns does nothing here
//!   ([`Generated::of`] answers None after one look at the definition).

use crate::error::{Error, Result};
use crate::sql::bind::{Binder, TableScope};
use crate::sql::env::Env;
use crate::sql::expr::convert::{self, StoreCtx};
use crate::sql::expr::{Expr, RowCtx};
use crate::storage::TableDef;
use crate::types::Value;
use cohort_protocol::ErrorCode;
use sqlparser::ast;
use sqlparser::tokenizer::{Token, Tokenizer};

/// Functions whose value is not a function of the row (MariaDB refuses them in a STORED or
/// indexed generated column), with the name MariaDB's message gives them.
pub(super) const NOT_OF_THE_ROW: &[(&str, &str)] = &[
    ("now", "current_timestamp"),
    ("current_timestamp", "current_timestamp"),
    ("localtime", "current_timestamp"),
    ("localtimestamp", "current_timestamp"),
    ("sysdate", "sysdate"),
    ("curdate", "curdate"),
    ("current_date", "curdate"),
    ("curtime", "curtime"),
    ("current_time", "curtime"),
    ("utc_date", "utc_date"),
    ("utc_time", "utc_time"),
    ("utc_timestamp", "utc_timestamp"),
    ("rand", "rand"),
    ("uuid", "uuid"),
    ("uuid_short", "uuid_short"),
    ("sys_guid", "sys_guid"),
    ("connection_id", "connection_id"),
    ("user", "user"),
    ("current_user", "current_user"),
    ("session_user", "user"),
    ("system_user", "user"),
    ("current_role", "current_role"),
    ("database", "database"),
    ("schema", "database"),
    ("version", "version"),
    // The session's time zone, lc_time_names.
    ("from_unixtime", "from_unixtime"),
    ("date_format", "date_format"),
    ("dayname", "dayname"),
    ("monthname", "monthname"),
];

/// Functions never allowed in a generated column (side effects, statement state), and
/// aggregate and window functions.
pub(super) const NEVER: &[&str] = &[
    "sleep",
    "benchmark",
    "get_lock",
    "release_lock",
    "release_all_locks",
    "is_free_lock",
    "is_used_lock",
    "master_pos_wait",
    "master_gtid_wait",
    "last_insert_id",
    "row_count",
    "found_rows",
    "load_file",
    "nextval",
    "lastval",
    "setval",
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "group_concat",
    "std",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "variance",
    "var_pop",
    "var_samp",
    "bit_and",
    "bit_or",
    "bit_xor",
    "json_arrayagg",
    "json_objectagg",
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
];

/// Functions called without parentheses (`CURRENT_DATE`).
pub(super) const BARE_FUNCTIONS: &[&str] = &[
    "current_date",
    "current_time",
    "current_timestamp",
    "localtime",
    "localtimestamp",
    "current_user",
    "current_role",
];

fn not_allowed(what: &str, col: &str) -> Error {
    Error::new(
        ErrorCode::FunctionNotAllowedInClause,
        format!("Function or expression '{what}' cannot be used in the GENERATED ALWAYS AS clause of `{col}`"),
    )
}

fn parse(text: &str) -> Result<ast::Expr> {
    crate::sql::parse::dialect::parse_kept_expr(text)
        .map_err(|e| Error::internal(format!("generated column expression {text}: {e}")))
}

/// Bind the expression of generated column `i` of `def`.
fn bind(env: &Env<'_>, scope: &TableScope, text: &str) -> Result<Expr> {
    let e = parse(text)?;
    let mut b = Binder::new(env, &[], Some(scope));
    let bound = b.bind(&e).map_err(|err| {
        if err.code() == ErrorCode::BadField {
            let msg = err
                .message()
                .replace("'SELECT'", "'GENERATED ALWAYS AS'")
                .replace("'WHERE'", "'GENERATED ALWAYS AS'");
            Error::new(ErrorCode::BadField, msg)
        } else {
            err
        }
    })?;
    Ok(bound.0)
}

/// The expression text MariaDB keeps for generated column `col` (as SHOW CREATE TABLE prints
/// it); a subquery is 1901.
pub fn expr_text(env: &Env<'_>, e: &ast::Expr, col: &str) -> Result<String> {
    super::expr_print::print(e, env.set_aside).map_err(|err| {
        if err.code() == ErrorCode::SubqueryNotSupportedInCheck {
            not_allowed("select ...", col)
        } else {
            err
        }
    })
}

/// Is column `c` of `def` in one of its indexes?
fn indexed(def: &TableDef, c: usize) -> bool {
    def.indexes
        .iter()
        .chain(def.primary_key.iter())
        .any(|i| i.parts.iter().any(|p| p.column == c))
}

/// Check the generated columns of a new table definition (module doc).
pub fn validate(env: &Env<'_>, db: &str, def: &TableDef) -> Result<()> {
    if !def.has_generated() {
        return Ok(());
    }
    let scope = TableScope::of_def(db, def, None);
    for (i, col) in def.columns.iter().enumerate() {
        let Some(g) = &col.generated else {
            continue;
        };
        let fixed = g.stored || indexed(def, i);
        // Functions, by name, from the tokens of the kept text.
        let dialect = sqlparser::dialect::MySqlDialect {};
        let tokens = Tokenizer::new(&dialect, &g.expr)
            .tokenize()
            .map_err(|e| Error::internal(format!("generated column {}: {e}", col.name)))?;
        let mut words = tokens
            .iter()
            .filter(|t| !matches!(t, Token::Whitespace(_)))
            .peekable();
        let session = |what: String| {
            if fixed {
                not_allowed(&what, &col.name)
            } else {
                Error::unsupported(
                    "a VIRTUAL generated column whose value is not a function of the row",
                )
            }
        };
        while let Some(t) = words.next() {
            let w = match t {
                Token::AtSign => {
                    let name = match words.peek() {
                        Some(Token::Word(v)) => v.value.clone(),
                        _ => String::new(),
                    };
                    return Err(session(format!("@{name}")));
                }
                Token::Word(w) if w.value.starts_with('@') => {
                    let mut name = w.value.clone();
                    if name.trim_start_matches('@').is_empty() {
                        if let Some(Token::Word(v)) = words.peek() {
                            name.push_str(&v.value);
                        }
                    }
                    return Err(session(name));
                }
                Token::Word(w) if w.quote_style.is_none() => w,
                _ => continue,
            };
            let name = w.value.to_ascii_lowercase();
            if name == "select" {
                return Err(not_allowed("select ...", &col.name));
            }
            // CURRENT_DATE and friends need no parentheses.
            let bare = BARE_FUNCTIONS.contains(&name.as_str());
            if !bare && !matches!(words.peek(), Some(Token::LParen)) {
                continue;
            }
            if name == "values" {
                return Err(not_allowed("select ...", &col.name));
            }
            if NEVER.contains(&name.as_str()) {
                return Err(not_allowed(&format!("{name}()"), &col.name));
            }
            // UNIX_TIMESTAMP() is the time's (of a column, the row's); WEEK(d) reads
            // default_week_format (WEEK(d, mode) does not).
            let args = || {
                let mut ahead = words.clone();
                ahead.next();
                let (mut depth, mut n, mut any) = (0usize, 1usize, false);
                for t in ahead {
                    match t {
                        Token::LParen => depth += 1,
                        Token::RParen if depth == 0 => break,
                        Token::RParen => depth -= 1,
                        Token::Comma if depth == 0 => n += 1,
                        _ => {}
                    }
                    any = true;
                }
                if any {
                    n
                } else {
                    0
                }
            };
            match name.as_str() {
                "unix_timestamp" if args() == 0 => return Err(session("unix_timestamp()".into())),
                "week" if args() == 1 => return Err(session("week()".into())),
                "unix_timestamp" | "week" => continue,
                _ => {}
            }
            if let Some((_, shown)) = NOT_OF_THE_ROW.iter().find(|(n, _)| *n == name) {
                return Err(session(format!("{shown}()")));
            }
        }
        let e = bind(env, &scope, &g.expr)?;
        let mut problem: Option<Error> = None;
        e.walk(&mut |x| {
            if problem.is_some() {
                return;
            }
            match x {
                Expr::Col(j) => {
                    let other = &def.columns[*j];
                    if other.generated.is_some() && *j >= i {
                        problem = Some(Error::new(
                            ErrorCode::ExpressionRefersToUninitField,
                            format!(
                                "Expression for field `{}` is referring to uninitialized field `{}`",
                                col.name, other.name
                            ),
                        ));
                    } else if other.auto_increment && fixed {
                        problem = Some(not_allowed("AUTO_INCREMENT", &other.name));
                    }
                }
                Expr::Subquery(_) => problem = Some(not_allowed("select ...", &col.name)),
                Expr::Agg(_) | Expr::OuterAgg { .. } => {
                    problem = Some(not_allowed("sum()", &col.name))
                }
                Expr::UserVar(n) | Expr::SetUserVar(n, _) => {
                    problem = Some(if fixed {
                        not_allowed(&format!("@{n}"), &col.name)
                    } else {
                        Error::unsupported("user variables in a VIRTUAL generated column")
                    })
                }
                Expr::SysVar { .. } | Expr::Param(_) => {
                    problem = Some(Error::unsupported(
                        "system variables in a generated column",
                    ))
                }
                Expr::Func(f, _) if !f.is_deterministic() => {
                    problem = Some(Error::unsupported(
                        "a generated column whose value is not a function of the row",
                    ))
                }
                _ => {}
            }
        });
        if let Some(p) = problem {
            return Err(p);
        }
    }
    refuse_foreign_keys(def)?;
    if let Some(pk) = &def.primary_key {
        if pk
            .parts
            .iter()
            .any(|p| def.columns[p.column].generated.is_some())
        {
            return Err(Error::new(
                ErrorCode::PrimaryKeyOnGeneratedColumn,
                "Primary key cannot be defined upon a generated column",
            ));
        }
    }
    Ok(())
}

/// A FOREIGN KEY over a generated column (its CASCADE / SET NULL would write the column): 1235.
pub fn refuse_foreign_keys(def: &TableDef) -> Result<()> {
    let generated = |name: &String| {
        def.columns
            .iter()
            .any(|c| c.generated.is_some() && c.name.eq_ignore_ascii_case(name))
    };
    if def
        .foreign_keys
        .iter()
        .any(|fk| fk.columns.iter().any(generated))
    {
        return Err(Error::unsupported("FOREIGN KEYs over generated columns"));
    }
    // A column a CASCADE / SET NULL writes may not be read by a STORED one (1901, as MariaDB);
    // nor by a VIRTUAL one here, whose kept value the cascade would leave stale (1235).
    for (col, quoted) in super::check::cascade_written_columns(def) {
        for c in &def.columns {
            let Some(g) = &c.generated else {
                continue;
            };
            if g.expr.to_ascii_lowercase().contains(&quoted) {
                return Err(if g.stored {
                    not_allowed(col, &c.name)
                } else {
                    Error::unsupported(
                        "a VIRTUAL generated column reading a column a FOREIGN KEY cascade changes",
                    )
                });
            }
        }
    }
    Ok(())
}

/// The bound generated columns of one statement's target table.
pub struct Generated {
    /// (column, expression), in column order.
    list: Vec<(usize, Expr)>,
    table: String,
}

impl Generated {
    /// None for a table without generated columns.
    pub fn of(env: &Env<'_>, db: &str, def: &TableDef) -> Result<Option<Generated>> {
        if !def.has_generated() {
            return Ok(None);
        }
        let scope = TableScope::of_def(db, def, None);
        let mut list = Vec::new();
        for (i, c) in def.columns.iter().enumerate() {
            if let Some(g) = &c.generated {
                list.push((i, bind(env, &scope, &g.expr)?));
            }
        }
        Ok(Some(Generated {
            list,
            table: def.name.clone(),
        }))
    }

    pub fn is_generated(&self, c: usize) -> bool {
        self.list.iter().any(|(i, _)| *i == c)
    }

    /// A value the statement gives generated column `c`: the NULL literal (or a NULL read by
    /// INSERT … SELECT) is taken as DEFAULT; anything else, even an expression whose value is
    /// NULL, is 1906, an error when `strict`, else a warning (the value is ignored). As MariaDB.
    pub fn given(
        &self,
        env: &Env<'_>,
        def: &TableDef,
        c: usize,
        null_literal: bool,
        strict: bool,
    ) -> Result<()> {
        if null_literal {
            return Ok(());
        }
        let msg = format!(
            "The value specified for generated column '{}' in table '{}' has been ignored",
            def.columns[c].name, self.table
        );
        if strict {
            return Err(Error::new(
                ErrorCode::WarningNonDefaultValueForGeneratedColumn,
                msg,
            ));
        }
        env.warn(
            "Warning",
            ErrorCode::WarningNonDefaultValueForGeneratedColumn,
            msg,
        );
        Ok(())
    }

    /// Compute every generated column of `row` (module doc).
    pub fn fill(
        &self,
        env: &Env<'_>,
        def: &TableDef,
        row: &mut [Value],
        sc: &StoreCtx<'_>,
    ) -> Result<()> {
        for (c, e) in &self.list {
            let v = super::strict_values::eval(e, &RowCtx::of(row), env, sc.strict.get())?;
            row[*c] = convert::store_value(v, &def.columns[*c], sc)?;
        }
        Ok(())
    }
}

/// ALTER TABLE: the generated columns of every copied row, computed for the new definition.
pub fn recompute(
    env: &Env<'_>,
    db: &str,
    def: &TableDef,
    rows: Vec<crate::storage::Row>,
) -> Result<Vec<crate::storage::Row>> {
    let Some(g) = Generated::of(env, db, def)? else {
        return Ok(rows);
    };
    let mut out = Vec::with_capacity(rows.len());
    for (n, r) in rows.into_iter().enumerate() {
        let mut v = r.to_vec();
        let sc = StoreCtx {
            strict: convert::Strict::Mode(env),
            row: n as u64 + 1,
            warnings: &env.warnings,
            zone: None,
            table: None,
        };
        g.fill(env, def, &mut v, &sc)?;
        out.push(std::sync::Arc::from(v));
    }
    Ok(out)
}

/// A generated column's expression after column `old` is renamed `new` (ALTER TABLE CHANGE /
/// RENAME COLUMN; MariaDB follows the rename). The kept text names every column backquoted,
/// so exactly its backquoted identifiers equal to `old` are replaced.
pub fn rename_column(expr: &str, old: &str, new: &str) -> String {
    let dialect = sqlparser::dialect::MySqlDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, expr).tokenize_with_location() else {
        return expr.to_string();
    };
    // Character offsets of each line's start (spans count lines and characters from 1).
    let chars: Vec<char> = expr.chars().collect();
    let mut line_starts = vec![0usize];
    for (i, c) in chars.iter().enumerate() {
        if *c == '\n' {
            line_starts.push(i + 1);
        }
    }
    let offset = |l: u64, c: u64| -> Option<usize> {
        let start = *line_starts.get(usize::try_from(l).ok()?.checked_sub(1)?)?;
        Some(start + usize::try_from(c).ok()?.checked_sub(1)?)
    };
    let quoted = format!("`{}`", new.replace('`', "``"));
    let mut out = String::with_capacity(expr.len());
    let mut at = 0usize;
    for t in &tokens {
        let Token::Word(w) = &t.token else {
            continue;
        };
        if w.quote_style != Some('`') || !w.value.eq_ignore_ascii_case(old) {
            continue;
        }
        let (Some(s), Some(e)) = (
            offset(t.span.start.line, t.span.start.column),
            offset(t.span.end.line, t.span.end.column),
        ) else {
            return expr.to_string();
        };
        if s < at || e > chars.len() || chars.get(s) != Some(&'`') {
            return expr.to_string();
        }
        out.extend(&chars[at..s]);
        out.push_str(&quoted);
        at = e;
    }
    out.extend(&chars[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::rename_column;

    #[test]
    fn renames_only_the_column() {
        assert_eq!(
            rename_column("concat(`a`,'`a`',`ab`) + `A`", "a", "b`c"),
            "concat(`b``c`,'`a`',`ab`) + `b``c`"
        );
        assert_eq!(rename_column("`x`\n+ `a`", "a", "z"), "`x`\n+ `z`");
    }
}
