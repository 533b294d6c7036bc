//! The SQL layer: parse → bind → plan → execute. Each step is a room:
//!
//! ```text
//!  text ──parse/──► Parsed { Stmt, item texts, ? positions }      parse/dialect.rs keeps trees
//!                         │                                        shallow; parse/surface.rs
//!                         │                                        refuses what is not honoured
//!     SELECT / INSERT / REPLACE / UPDATE / DELETE          everything else
//!                         │                                      │
//!   bind/ (names, types, ?; sqltype.rs, coldef.rs)        run directly:
//!   plan/ (table, access path) ──► Plan                     exec/admin.rs (BEGIN, SET, USE,
//!                         │                                 users, DO, ANALYZE…),
//!   exec/select.rs, exec/dml.rs: rows from storage          exec/ddl.rs (CREATE / DROP / TRUNCATE),
//!   through expr/ (evaluation, convert.rs, compare.rs)      exec/show.rs (SHOW …, DESCRIBE),
//!   and func/ (built-in functions)                          exec/binlog_admin.rs
//! ```
//!
//! * [`execute_text`] parses, binds and runs one statement (COM_QUERY).
//! * [`prepare`] parses and binds once (table resolved, columns resolved, access path chosen);
//!   [`execute_prepared`] only substitutes the parameters and runs. If a table of the plan was
//!   dropped or changed its schema version (CREATE / DROP INDEX, TRUNCATE), the statement is
//!   bound again transparently; if that changes its result columns (`SELECT *` after ADD
//!   COLUMN), the execute answers with the new ones, as MariaDB does. Statements without a plan (BEGIN, COMMIT,
//!   SET, SHOW…) are prepared as their parsed form and run like text.
//! * Data-changing statements are atomic: the executor takes a storage savepoint before the
//!   statement and rolls back to it when the statement fails (one place: [`run_dml`]). The
//!   session commits or rolls back the transaction itself (`end_statement`).
//! * DDL and account statements commit the open transaction first (implicit commit).
//! * Warnings of a statement replace those of the previous one in `sess.warnings` (SHOW
//!   WARNINGS keeps them); an error becomes the only entry.
//!
//! * Transactions (see `storage` for the model): each statement starts with
//!   `Txn::start_statement` (READ COMMITTED takes a fresh read view per statement);
//!   BEGIN / START TRANSACTION [READ ONLY | READ WRITE] [WITH CONSISTENT SNAPSHOT], COMMIT,
//!   ROLLBACK, SAVEPOINT, ROLLBACK TO [SAVEPOINT], RELEASE SAVEPOINT (1305 on an unknown
//!   name), SET [GLOBAL | SESSION] TRANSACTION (without a scope: the next transaction only;
//!   1568 inside one).
//!
//! Query expressions — UNION / INTERSECT / EXCEPT, derived tables, `WITH [RECURSIVE]` — are
//! bound and run by `exec/query.rs` and `exec/cte.rs` (`Plan::Query` when the statement is not
//! a plain SELECT; a plain SELECT reading a derived table stays a `Plan::Select`).
//!
//! `CREATE TABLE t [AS] SELECT …` is `exec/ddl/create_select.rs` (the generated CREATE TABLE, then
//! the rows, in the binlog).
//!
//! Subqueries in expressions are bound by `bind/subquery.rs` and run by `exec/subquery.rs`;
//! window functions by `bind/window.rs` and `exec/window.rs`.
//!
//! Views are `exec/ddl/view.rs` (a view is planned as a derived table where it is named).
//!
//! Generated columns are `exec/gencol.rs` (definition checks, and the values every write
//! computes).
//!
//! `LOAD DATA [LOCAL] INFILE` is `exec/load.rs` (LOCAL streams the client's file through the
//! session's `LoadLocal` phase); TEMPORARY tables are `exec/ddl/temporary.rs`.
//!
//! Not supported, each a 1235 error naming the feature: stored programs, triggers, ENUM / SET /
//! BIT / TIME columns, `CREATE TEMPORARY TABLE … SELECT`, DML through views,
//! grants finer than ALL per database, `FOR UPDATE OF`. Every clause is honoured or refused
//! (`parse/surface.rs`; the table is `docs/architecture/sql-surface.md`).
//!
//! Expressions of any length and nesting are safe: the parser's dialect keeps trees shallow
//! (`parse/dialect.rs`), the binder walks operator chains iteratively and limits nesting (1436), and
//! binding and evaluation grow their stack as needed.
//!
//! Tests: `testscripts/*.test` are golden scripts run by `golden.rs` against a real
//! `ServerContext` (see there for the format; `UPDATE_GOLDEN=1` rewrites the expectations).

mod bind;
mod cache;
mod env;
mod exec;
mod expr;
mod func;
mod parse;
mod plan;
mod replay;
mod set_statement;
pub mod sql_mode;
pub mod time_zone;

#[cfg(test)]
mod golden;

pub use cache::{StmtCache, STMT_CACHE_ENTRIES};
pub use env::SessView;
pub use exec::binlog_stmt::ReplayState as BinlogReplayState;
pub use exec::load::LoadJob;
pub use exec::prepare_sql::NamedStatements;
pub use expr::convert::{format_double, format_double_fixed, is_year_0000};
pub use expr::time_value;
pub use plan::database_exists;
pub use replay::SqlDdlReplay;

/// A value as text (what a system variable holds).
pub fn value_text(v: &Value) -> String {
    expr::convert::to_string(v)
}

use crate::error::{Action, Error, Result};
use crate::sched::admission;
use crate::session::state::{ServerContext, SessionState, Warning};
use crate::status::StatusCounter;
use crate::storage::Txn;
use crate::types::Value;
use cohort_protocol::column::ColumnDefinition;
use cohort_protocol::ErrorCode;
use env::{split_session, Env};
use exec::dml::{DeletePlan, DmlResult, InsertKind, InsertPlan, UpdatePlan};
use exec::select::SelectPlan;
use parking_lot::Mutex;
use parse::{Parsed, Stmt};
use sqlparser::ast::{ObjectType, Statement};
use std::sync::Arc;

/// The result of one statement.
#[derive(Debug, PartialEq)]
pub enum QueryResult {
    /// An OK packet. `info` is the human-readable text (e.g. "Rows matched: 1  Changed: 1
    /// Warnings: 0"); the codec sends it length-encoded.
    Ok {
        affected_rows: u64,
        last_insert_id: u64,
        info: Option<String>,
    },
    /// A result set.
    Rows {
        columns: Vec<ColumnDefinition>,
        rows: Vec<Vec<Value>>,
    },
}

impl QueryResult {
    fn ok() -> QueryResult {
        QueryResult::Ok {
            affected_rows: 0,
            last_insert_id: 0,
            info: None,
        }
    }

    fn affected(n: u64) -> QueryResult {
        QueryResult::Ok {
            affected_rows: n,
            last_insert_id: 0,
            info: None,
        }
    }
}

/// A prepared statement: parsed and bound once.
///
/// What it keeps is what executing it needs, not what preparing it built: a statement with a
/// plan keeps the plan and its text (parsed again only if a table of the plan changes), not
/// the syntax tree, which costs tens of times the text (a select list of 500 000 columns:
/// about 400 bytes of tree per column, against 100 of plan).
pub struct Prepared {
    /// The statement's text, kept once: re-parsed when a table of it changes, shown by
    /// INNODB_TRX while it runs, and written in the binlog's Annotate_rows.
    text: Arc<str>,
    /// The parse-affecting `sql_mode` bits at PREPARE: the text is read so again.
    mode: sql_mode::ParseMode,
    /// Number of `?` parameters.
    pub params: usize,
    state: Mutex<PrepState>,
}

enum PrepState {
    /// SELECT / INSERT / REPLACE / UPDATE / DELETE (the plan holds the result columns);
    /// `accounts`: the accounts' generation it was bound (its privileges checked) at;
    /// `zone`: whether it read TIMESTAMP columns in a time zone other than SYSTEM (None: it
    /// binds none; see `Env::zone_bound`).
    Bound {
        plan: Arc<Plan>,
        accounts: u64,
        zone: Option<bool>,
    },
    /// Everything else runs from its parsed form; the result columns, if known at prepare.
    Parsed(Arc<Parsed>, Vec<ColumnDefinition>),
}

impl Prepared {
    /// The text it was prepared from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The result columns (empty for statements that return an OK packet).
    pub fn columns(&self) -> Vec<ColumnDefinition> {
        match &*self.state.lock() {
            PrepState::Bound { plan, .. } => plan.columns(),
            PrepState::Parsed(_, columns) => columns.clone(),
        }
    }
}

/// What one execution of a prepared statement runs.
enum PrepForm {
    Bound(Arc<Plan>),
    Parsed(Arc<Parsed>),
}

/// A bound statement.
enum Plan {
    Select(Box<SelectPlan>),
    /// A set operation, parenthesized query or WITH (`exec/query.rs`).
    Query(Box<exec::query::QueryPlan>),
    Insert(InsertPlan),
    Update(UpdatePlan),
    Delete(DeletePlan),
    /// Multi-table UPDATE / DELETE (`exec/multi_dml.rs`).
    Multi(Box<exec::multi_dml::MultiPlan>),
    /// `SELECT … INTO @a, …`: the query, and where its row goes (`exec/select_into.rs`).
    Into(Box<Plan>, parse::select_into::SelectInto),
}

impl Plan {
    fn is_stale(&self) -> bool {
        match self {
            Plan::Select(p) => p.is_stale(),
            Plan::Query(p) => p.is_stale(),
            Plan::Insert(p) => {
                p.table.is_stale()
                    || matches!(&p.source, exec::dml::InsertSource::Select(s) if s.is_stale())
                    || matches!(&p.source, exec::dml::InsertSource::Query(s) if s.is_stale())
                    || p.subq.as_ref().is_some_and(|s| s.is_stale())
                    || exec::dml::view_moved(p.view_version)
            }
            Plan::Update(p) => {
                p.table.is_stale()
                    || p.subq.as_ref().is_some_and(|s| s.is_stale())
                    || exec::dml::view_moved(p.view_version)
            }
            Plan::Delete(p) => {
                p.table.is_stale()
                    || p.subq.as_ref().is_some_and(|s| s.is_stale())
                    || exec::dml::view_moved(p.view_version)
            }
            Plan::Multi(p) => p.is_stale(),
            Plan::Into(p, _) => p.is_stale(),
        }
    }

    /// Does running it read or write engine tables (rather than only constants or a virtual
    /// table)?
    fn uses_engine(&self) -> bool {
        match self {
            Plan::Select(p) => p.uses_engine(),
            Plan::Query(_) => true,
            Plan::Insert(_) | Plan::Update(_) | Plan::Delete(_) | Plan::Multi(_) => true,
            Plan::Into(p, _) => p.uses_engine(),
        }
    }

    fn columns(&self) -> Vec<ColumnDefinition> {
        match self {
            Plan::Select(p) => p.columns.clone(),
            Plan::Query(p) => p.columns.clone(),
            Plan::Insert(p) => p
                .returning
                .as_ref()
                .map_or(Vec::new(), |r| r.columns.clone()),
            Plan::Delete(p) => p
                .returning
                .as_ref()
                .map_or(Vec::new(), |r| r.columns.clone()),
            Plan::Update(_) | Plan::Multi(_) | Plan::Into(..) => Vec::new(),
        }
    }
}

/// Run one statement given as text (COM_QUERY): from the session's statement cache when it
/// can be ([`cache`]), else parsed and bound here.
pub fn execute_text(
    ctx: &ServerContext,
    sess: &mut SessionState,
    sql: &str,
) -> Result<QueryResult> {
    execute_text_in(ctx, sess, sql, None)
}

/// [`execute_text`], reading the text under `mode` (None: the session's `sql_mode`; SET
/// STATEMENT's inner statement is read under the mode it was sent in, as MariaDB reads it,
/// and a replayed DDL statement under the mode it was logged with).
pub(crate) fn execute_text_in(
    ctx: &ServerContext,
    sess: &mut SessionState,
    sql: &str,
    mode: Option<sql_mode::ParseMode>,
) -> Result<QueryResult> {
    let mode = match mode {
        Some(m) => m,
        None => sess.stmt_vars(ctx).parse_mode,
    };
    if let Some(r) = cache::execute(ctx, sess, sql, mode) {
        return r;
    }
    execute_uncached(ctx, sess, sql, mode)
}

/// Parse, bind and run one statement (COM_QUERY without the cache).
fn execute_uncached(
    ctx: &ServerContext,
    sess: &mut SessionState,
    sql: &str,
    mode: sql_mode::ParseMode,
) -> Result<QueryResult> {
    if let Some(r) = set_statement::execute(ctx, sess, sql, mode) {
        return r;
    }
    let parsed = match parse::parse_in(sql, mode).and_then(|p| crate::memory::check(0).map(|_| p)) {
        Ok(p) => p,
        Err(e) => {
            record_error(sess, &e);
            return Err(e);
        }
    };
    let prev = start_statement(ctx, sess, parsed.stmt.keeps_warnings(), sql);
    let mut attempts = 0;
    let r = loop {
        let r = (|| {
            if let Some(plan) = bind_plan(ctx, sess, &parsed, prev)? {
                return execute_plan(ctx, sess, &plan, &[], prev);
            }
            run_other(ctx, sess, &parsed, &[], prev)
        })();
        if !rebind_after_ddl(&r, &mut attempts) {
            break r;
        }
    };
    finish(sess, r)
}

/// Run a prepared statement once for each row of parameters, as one statement
/// (COM_STMT_BULK_EXECUTE): the rows' affected counts summed, the first insert id, the
/// warnings of every row, and the `info` of a multi-row INSERT or UPDATE summed over them.
/// A row that fails (or a row that cannot be decoded: `rows` yields the error) undoes the rows
/// before it too, in a transaction or not, as MariaDB does. A statement with a result set is
/// refused (1295), as MariaDB refuses it.
pub fn execute_bulk(
    ctx: &ServerContext,
    sess: &mut SessionState,
    stmt: &Prepared,
    rows: &mut dyn Iterator<Item = Result<Vec<Value>>>,
) -> Result<QueryResult> {
    if !stmt.columns().is_empty() {
        let e = Error::new(
            ErrorCode::UnsupportedPs,
            "This command is not supported in the prepared statement protocol yet",
        );
        record_error(sess, &e);
        return Err(e);
    }
    sess.warnings.clear();
    let sp = ctx.engine.savepoint(sess.txn(ctx));
    let mut sum = BulkSum::default();
    let mut warnings = Vec::new();
    let r: Result<()> = (|| {
        for row in rows {
            let row = row?;
            let r = execute_prepared(ctx, sess, stmt, &row)?;
            warnings.append(&mut sess.warnings);
            sum.add(r);
        }
        Ok(())
    })();
    if let Err(e) = r {
        if e.action() == Action::RollbackStatement {
            if let Some(txn) = sess.txn.as_mut() {
                ctx.engine.rollback_to_savepoint(txn, sp);
            }
        }
        record_error(sess, &e);
        return Err(e);
    }
    sess.warnings = warnings;
    let result = sum.finish(stmt.text(), sess.warnings.len());
    finish(sess, Ok(result))
}

/// The rows of a bulk execute, added up.
#[derive(Default)]
struct BulkSum {
    rows: u64,
    affected: u64,
    last_insert_id: u64,
    /// "Rows matched / Changed" of UPDATE, summed.
    matched: Option<(u64, u64)>,
    duplicates: u64,
}

impl BulkSum {
    fn add(&mut self, r: QueryResult) {
        self.rows += 1;
        let QueryResult::Ok {
            affected_rows,
            last_insert_id,
            info,
        } = r
        else {
            return;
        };
        self.affected += affected_rows;
        if self.last_insert_id == 0 {
            self.last_insert_id = last_insert_id;
        }
        let numbers = |text: &str| -> Vec<u64> {
            text.split(|c: char| !c.is_ascii_digit())
                .filter_map(|n| n.parse().ok())
                .collect()
        };
        match info.as_deref() {
            Some(t) if t.starts_with("Rows matched") => {
                if let [m, c, ..] = numbers(t)[..] {
                    let (pm, pc) = self.matched.unwrap_or((0, 0));
                    self.matched = Some((pm + m, pc + c));
                }
            }
            Some(t) if t.starts_with("Records") => {
                if let [_, d, ..] = numbers(t)[..] {
                    self.duplicates += d;
                }
            }
            _ => {}
        }
    }

    fn finish(self, text: &str, warnings: usize) -> QueryResult {
        let head = text
            .trim_start()
            .get(..7)
            .unwrap_or("")
            .to_ascii_uppercase();
        let info = match self.matched {
            Some((m, c)) => Some(format!(
                "Rows matched: {m}  Changed: {c}  Warnings: {warnings}"
            )),
            None if head.starts_with("INSERT") || head.starts_with("REPLACE") => Some(format!(
                "Records: {}  Duplicates: {}  Warnings: {warnings}",
                self.rows, self.duplicates
            )),
            None => None,
        };
        QueryResult::Ok {
            affected_rows: self.affected,
            last_insert_id: self.last_insert_id,
            info,
        }
    }
}

/// A statement waited for a DDL statement's metadata lock and the table changed under its
/// plan (1412 from `Txn::use_table`, before it read or wrote anything of that table): bind
/// and run it again, as MariaDB re-opens the table after the wait. Bounded: a table that keeps
/// changing gives the 1412 to the client.
fn rebind_after_ddl(r: &Result<QueryResult>, attempts: &mut u32) -> bool {
    let retry = matches!(r, Err(e) if e.code() == ErrorCode::TableDefChanged) && *attempts < 5;
    *attempts += 1;
    retry
}

/// Take one of the server's `max_prepared_stmt_count` statements (shared by the protocol's
/// and the named ones, `Prepared_stmt_count`): 1461 if none is left.
pub fn reserve_statement(ctx: &ServerContext) -> Result<()> {
    let max = ctx.vars.global_u64("max_prepared_stmt_count");
    match ctx.status.incr_below(StatusCounter::PreparedStmtCount, max) {
        true => Ok(()),
        false => Err(Error::new(
            ErrorCode::MaxPreparedStmtCountReached,
            format!(
                "Can't create more than max_prepared_stmt_count statements (current value: {max})"
            ),
        )),
    }
}

/// Parse and bind a statement once (COM_STMT_PREPARE).
pub fn prepare(ctx: &ServerContext, sess: &mut SessionState, sql: &str) -> Result<Prepared> {
    if set_statement::is_set_statement(sql) {
        return Err(Error::unsupported("SET STATEMENT in a prepared statement"));
    }
    let mode = sess.stmt_vars(ctx).parse_mode;
    let parsed = parse::parse_in(sql, mode)?;
    crate::memory::check(0)?;
    if let Stmt::Unsupported(what) = &parsed.stmt {
        return Err(Error::unsupported(what));
    }
    if let Stmt::LoadData(_)
    | Stmt::Binlog(_)
    | Stmt::PrepareSql { .. }
    | Stmt::ExecuteSql { .. }
    | Stmt::DeallocateSql(_) = &parsed.stmt
    {
        return Err(Error::new(
            ErrorCode::UnsupportedPs,
            "This command is not supported in the prepared statement protocol yet",
        ));
    }
    let prev = sess.warnings.len();
    let params = parsed.params.len();
    let accounts = ctx.accounts.generation();
    let state = match bind_plan_zoned(ctx, sess, &parsed, prev)? {
        Some((plan, zone, _)) => PrepState::Bound {
            plan: Arc::new(plan),
            accounts,
            zone,
        },
        None => {
            let columns = generic_columns(ctx, sess, &parsed)?;
            PrepState::Parsed(Arc::new(parsed), columns)
        }
    };
    Ok(Prepared {
        text: sql.into(),
        mode,
        params,
        state: Mutex::new(state),
    })
}

/// Run a prepared statement with its parameter values (COM_STMT_EXECUTE).
pub fn execute_prepared(
    ctx: &ServerContext,
    sess: &mut SessionState,
    stmt: &Prepared,
    params: &[Value],
) -> Result<QueryResult> {
    if params.len() != stmt.params {
        let e = Error::new(
            ErrorCode::WrongArguments,
            "Incorrect arguments to mysqld_stmt_execute",
        );
        record_error(sess, &e);
        return Err(e);
    }
    let mut attempts = 0;
    loop {
        let form = match current_form(ctx, sess, stmt) {
            Ok(x) => x,
            Err(e) => {
                record_error(sess, &e);
                return Err(e);
            }
        };
        let r = match &form {
            PrepForm::Bound(p) => {
                let prev = start_statement(ctx, sess, false, &stmt.text);
                typed_param_columns(p, params, execute_plan(ctx, sess, p, params, prev))
            }
            PrepForm::Parsed(parsed) => {
                let prev = start_statement(ctx, sess, parsed.stmt.keeps_warnings(), &stmt.text);
                run_other(ctx, sess, parsed, params, prev)
            }
        };
        if !rebind_after_ddl(&r, &mut attempts) {
            return finish(sess, r);
        }
    }
}

/// A SELECT's bare `?` columns are NULL-typed at PREPARE; their EXECUTE metadata is the
/// bound value's type (MariaDB: an integer is BIGINT(21), a string VARCHAR of its length…).
fn typed_param_columns(
    plan: &Plan,
    params: &[Value],
    r: Result<QueryResult>,
) -> Result<QueryResult> {
    let Plan::Select(p) = plan else {
        return r;
    };
    let Ok(QueryResult::Rows { mut columns, rows }) = r else {
        return r;
    };
    for (col, item) in columns.iter_mut().zip(&p.items) {
        if let (expr::Expr::Param(i), bind::sqltype::Class::Null) = (&item.expr, item.ty.class) {
            if let Some(v) = params.get(*i) {
                let mut ty = bind::value_type(v);
                if ty.class == bind::sqltype::Class::Double {
                    ty.length = 23;
                    ty.decimals = 31;
                }
                *col = bind::coldef::expr_column(&col.name, &ty);
            }
        }
    }
    Ok(QueryResult::Rows { columns, rows })
}

/// Run `f` with a statement environment's `warn` (code 1292), then apply its effects to
/// `sess` as a statement would (tests of what a statement may leave behind).
#[cfg(test)]
pub fn env_for_tests(ctx: &ServerContext, sess: &mut SessionState, f: impl FnOnce(&dyn Fn(&str))) {
    let env = Env::new(ctx, SessView::of(sess, 0), &[]);
    f(&|m: &str| env.warn("Warning", ErrorCode::TruncatedWrongValue, m));
    env.into_effects().apply(sess);
}

/// Parse only (tests that measure the parser).
#[cfg(test)]
pub fn parse_for_tests(sql: &str) -> bool {
    parse::parse(sql).is_ok()
}

/// COM_FIELD_LIST: the columns of a table of the current database.
pub fn field_list(
    ctx: &ServerContext,
    sess: &mut SessionState,
    table: &str,
) -> Result<Vec<ColumnDefinition>> {
    let env = Env::new(ctx, SessView::of(sess, 0), &[]);
    exec::show::field_list(&env, table)
}

// ---------------------------------------------------------------------------------------------

/// Reset the warning list for a new statement (unless it keeps them: SHOW WARNINGS); tell the
/// open transaction a statement starts (READ COMMITTED: a fresh read view) and what it runs
/// (INNODB_TRX). Returns the previous warning count (@@warning_count).
fn start_statement(
    ctx: &ServerContext,
    sess: &mut SessionState,
    keeps_warnings: bool,
    text: &str,
) -> usize {
    let prev = sess.warnings.len();
    if !keeps_warnings {
        sess.warnings.clear();
    }
    sess.trx_slot(ctx).set_query(Some(text));
    if let Some(t) = sess.txn.as_mut() {
        t.start_statement();
    }
    prev
}

fn record_error(sess: &mut SessionState, e: &Error) {
    sess.warnings.clear();
    sess.warnings.push(Warning {
        level: "Error",
        code: e.code().number(),
        message: e.message().to_string(),
    });
}

fn finish(sess: &mut SessionState, r: Result<QueryResult>) -> Result<QueryResult> {
    if let Some(slot) = &sess.trx_slot {
        slot.set_query(None);
    }
    sess.row_count = match &r {
        Ok(QueryResult::Ok { affected_rows, .. }) => *affected_rows as i64,
        Ok(QueryResult::Rows { .. }) | Err(_) => -1,
    };
    if let Err(e) = &r {
        record_error(sess, e);
    }
    r
}

/// What the prepared statement runs: its plan (parsed and bound again if a table of it
/// changed), or its parsed form.
fn current_form(ctx: &ServerContext, sess: &SessionState, stmt: &Prepared) -> Result<PrepForm> {
    let mut st = stmt.state.lock();
    match &*st {
        PrepState::Parsed(parsed, _) => return Ok(PrepForm::Parsed(parsed.clone())),
        // With TEMPORARY tables a name may now mean another table: bind again each time.
        PrepState::Bound {
            plan,
            accounts,
            zone,
        } if plan.is_stale()
            || *accounts != ctx.accounts.generation()
            || !sess.temp_tables.is_empty()
            || zone.is_some_and(|z| z != time_zone::session_zoned(ctx, &sess.session_vars)) => {}
        PrepState::Bound { plan, .. } => return Ok(PrepForm::Bound(plan.clone())),
    }
    let parsed = parse::parse_in(&stmt.text, stmt.mode)?;
    let accounts = ctx.accounts.generation();
    let (fresh, zone, _) = bind_plan_zoned(ctx, sess, &parsed, sess.warnings.len())?
        .ok_or_else(|| Error::internal("a prepared statement lost its plan"))?;
    // Its result columns may have changed (`SELECT *` after ALTER TABLE … ADD COLUMN): the
    // execute answers with the new ones, as MariaDB does (each execute sends its metadata).
    let fresh = Arc::new(fresh);
    *st = PrepState::Bound {
        plan: fresh.clone(),
        accounts,
        zone,
    };
    Ok(PrepForm::Bound(fresh))
}

/// Bind SELECT / INSERT / UPDATE / DELETE; None for statements that run without a plan.
fn bind_plan(
    ctx: &ServerContext,
    sess: &SessionState,
    parsed: &Parsed,
    prev: usize,
) -> Result<Option<Plan>> {
    Ok(bind_plan_zoned(ctx, sess, parsed, prev)?.map(|(p, _, _)| p))
}

/// [`bind_plan`], and whether the plan reads TIMESTAMP columns in a zone other than SYSTEM
/// (None: it binds no TIMESTAMP column), for a plan kept to run again.
/// A plan, and what it was bound under: the zone flag (`Env::zone_bound`) and the
/// ONLY_FULL_GROUP_BY flag (`Env::full_group_by_bound`).
type BoundPlan = (Plan, Option<bool>, Option<bool>);

fn bind_plan_zoned(
    ctx: &ServerContext,
    sess: &SessionState,
    parsed: &Parsed,
    prev: usize,
) -> Result<Option<BoundPlan>> {
    let Stmt::Sql(st) = &parsed.stmt else {
        return Ok(None);
    };
    parse::surface::check(st)?;
    let env = Env::new(ctx, SessView::of(sess, prev), &[]).with_set_aside(&parsed.set_aside);
    // Subqueries may appear in the clauses of these statements (see `bind/subquery.rs`).
    env.subq.allowed.set(true);
    let params = &parsed.params;
    let plan = match st.as_ref() {
        Statement::Query(q) if !exec::query::is_plain_select(q) => Plan::Query(Box::new(
            exec::query::plan_query(&env, params, q, &parsed.item_texts, parsed.share_lock)?,
        )),
        Statement::Query(q) => Plan::Select(Box::new(
            exec::select::plan_select(&env, params, q, &parsed.item_texts, parsed.share_lock)
                .map_err(|e| match exec::query::from_has_derived(q) {
                    true => exec::query::keyword_clauses(e),
                    false => e,
                })?,
        )),
        Statement::Insert(i) => {
            Plan::Insert(exec::dml::plan_insert(&env, params, i, &parsed.item_texts)?)
        }
        Statement::Update(u) if exec::multi_dml::is_multi_update(u) => {
            let mut p = exec::multi_dml::plan_update(&env, params, u)?;
            p.ignore = parsed.dml_ignore;
            Plan::Multi(Box::new(p))
        }
        Statement::Delete(d) if exec::multi_dml::is_multi_delete(d) => {
            let mut p = exec::multi_dml::plan_delete(&env, params, d)?;
            p.ignore = parsed.dml_ignore;
            Plan::Multi(Box::new(p))
        }
        Statement::Update(u) => {
            let mut p = exec::dml::plan_update(&env, params, u)?;
            p.ignore = parsed.dml_ignore;
            Plan::Update(p)
        }
        Statement::Delete(d) => {
            let mut p = exec::dml::plan_delete(&env, params, d, &parsed.item_texts)?;
            p.ignore = parsed.dml_ignore;
            Plan::Delete(p)
        }
        _ => return Ok(None),
    };
    let mut plan = plan;
    match (&mut plan, st.as_ref()) {
        (Plan::Select(p), Statement::Query(q)) if parse::surface::calc_found_rows(q) => {
            exec::found_rows::count_select(p)
        }
        (Plan::Query(p), Statement::Query(q)) if parse::surface::calc_found_rows(q) => {
            exec::found_rows::count_query(p)
        }
        (Plan::Insert(p), Statement::Insert(i))
            if i.source
                .as_ref()
                .is_some_and(|q| parse::surface::calc_found_rows(q)) =>
        {
            p.count_found_rows()
        }
        _ => {}
    }
    let plan = match &parsed.into {
        Some(into) => exec::select_into::plan(plan, into.clone())?,
        None => plan,
    };
    // A plan is about as large as its syntax tree again: within the statement's budget.
    crate::memory::check(0)?;
    Ok(Some((
        plan,
        env.zone_bound.get(),
        env.full_group_by_bound.get(),
    )))
}

fn execute_plan(
    ctx: &ServerContext,
    sess: &mut SessionState,
    plan: &Plan,
    params: &[Value],
    prev: usize,
) -> Result<QueryResult> {
    // Engine work passes the admission gate; it is left before the autocommit commit.
    let _admitted = plan
        .uses_engine()
        .then(|| admission::enter(&ctx.admission))
        .flatten();
    match plan {
        Plan::Select(p) => {
            ctx.status.incr(StatusCounter::ComSelect);
            run_select(ctx, sess, p, params, prev)
        }
        Plan::Into(p, into) => {
            let r = execute_plan(ctx, sess, p, params, prev)?;
            exec::select_into::assign(ctx, sess, into, r)
        }
        Plan::Query(p) => {
            ctx.status.incr(StatusCounter::ComSelect);
            run_query(ctx, sess, p, params, prev)
        }
        Plan::Insert(p) => {
            let counter = if p.kind == InsertKind::Replace {
                StatusCounter::ComReplace
            } else {
                StatusCounter::ComInsert
            };
            ctx.status.incr(counter);
            run_dml(ctx, sess, params, prev, &p.table.db, |env, txn| {
                exec::dml::run_insert(p, env, txn)
            })
        }
        Plan::Update(p) => {
            ctx.status.incr(StatusCounter::ComUpdate);
            run_dml(ctx, sess, params, prev, &p.table.db, |env, txn| {
                exec::dml::run_update(p, env, txn)
            })
        }
        Plan::Delete(p) => {
            ctx.status.incr(StatusCounter::ComDelete);
            run_dml(ctx, sess, params, prev, &p.table.db, |env, txn| {
                exec::dml::run_delete(p, env, txn)
            })
        }
        Plan::Multi(p) => {
            ctx.status.incr(match p.delete {
                true => StatusCounter::ComDeleteMulti,
                false => StatusCounter::ComUpdateMulti,
            });
            run_dml(ctx, sess, params, prev, p.db(), |env, txn| {
                exec::multi_dml::run(p, env, txn)
            })
        }
    }
}

fn run_select(
    ctx: &ServerContext,
    sess: &mut SessionState,
    p: &SelectPlan,
    params: &[Value],
    prev: usize,
) -> Result<QueryResult> {
    let (rows, effects) = if p.uses_engine() {
        let (txn, view) = split_session(ctx, sess, prev);
        // Privileges were checked when the plan was bound; a cached or prepared plan is bound
        // again when the accounts change (their generation).
        let env = Env::new(ctx, view, params);
        if p.table().is_some() && p.reads_one_table() {
            // Its only storage read is this table's access path (see `plan::scan_at`).
            txn.set_lone_read();
        }
        let rows = exec::select::run_select(p, &env, Some(txn))?;
        (rows, env.into_effects())
    } else {
        let env = Env::new(ctx, SessView::of(sess, prev), params);
        let rows = exec::select::run_select(p, &env, None)?;
        (rows, env.into_effects())
    };
    let counted = effects.found_rows.is_some();
    effects.apply(sess);
    let mut rows = rows;
    if !p.has_limit() {
        apply_select_limit(ctx, sess, &mut rows);
    }
    if !counted {
        sess.last_found_rows = rows.len() as u64;
    }
    expr::convert::fit_decimal_columns(&p.columns, &mut rows);
    Ok(QueryResult::Rows {
        columns: p.columns.clone(),
        rows,
    })
}

/// `sql_select_limit`: a top-level SELECT (or set operation) without a LIMIT of its own
/// returns at most that many rows (subqueries, derived tables and INSERT ... SELECT do not
/// come here). The variable is read from the cached statement variables.
fn apply_select_limit(ctx: &ServerContext, sess: &mut SessionState, rows: &mut Vec<Vec<Value>>) {
    let limit = sess.stmt_vars(ctx).select_limit;
    if (rows.len() as u64) > limit {
        rows.truncate(limit as usize);
    }
}

/// Run a query expression (set operation, WITH, parenthesized query): every part reads with
/// the statement's transaction, so from one read view.
fn run_query(
    ctx: &ServerContext,
    sess: &mut SessionState,
    p: &exec::query::QueryPlan,
    params: &[Value],
    prev: usize,
) -> Result<QueryResult> {
    let (rows, effects) = {
        let (txn, view) = split_session(ctx, sess, prev);
        let env = Env::new(ctx, view, params);
        let rows = exec::query::run_query(p, &env, Some(txn))?;
        (rows, env.into_effects())
    };
    let counted = effects.found_rows.is_some();
    effects.apply(sess);
    let mut rows = rows;
    if !p.has_limit() {
        apply_select_limit(ctx, sess, &mut rows);
    }
    if !counted {
        sess.last_found_rows = rows.len() as u64;
    }
    expr::convert::fit_decimal_columns(&p.columns, &mut rows);
    Ok(QueryResult::Rows {
        columns: p.columns.clone(),
        rows,
    })
}

/// Run a data-changing statement atomically: savepoint first, roll back to it on error.
fn run_dml(
    ctx: &ServerContext,
    sess: &mut SessionState,
    params: &[Value],
    prev: usize,
    db: &str,
    f: impl FnOnce(&Env<'_>, &mut Txn) -> Result<DmlResult>,
) -> Result<QueryResult> {
    let (result, effects) = {
        let (txn, view) = split_session(ctx, sess, prev);
        let mut env = Env::new(ctx, view, params);
        env.writes = true;
        let sp = ctx.engine.savepoint(txn);
        let r = plan::check_db_access(&env, db).and_then(|_| f(&env, txn));
        if let Err(e) = &r {
            if e.action() == Action::RollbackStatement {
                ctx.engine.rollback_to_savepoint(txn, sp);
            }
        }
        (r, env.into_effects())
    };
    let r = result?;
    effects.apply(sess);
    if let Some((columns, rows)) = r.returned {
        return Ok(QueryResult::Rows { columns, rows });
    }
    Ok(QueryResult::Ok {
        affected_rows: r.affected,
        last_insert_id: r.last_insert_id,
        info: r.info,
    })
}

/// Run a statement without a plan (DDL, session and admin statements, SHOW).
fn run_other(
    ctx: &ServerContext,
    sess: &mut SessionState,
    parsed: &Parsed,
    params: &[Value],
    prev: usize,
) -> Result<QueryResult> {
    let count = |c: StatusCounter| ctx.status.incr(c);
    if !sess.temp_tables.is_empty() {
        if let Some(r) = exec::ddl::temporary_ddl::run(ctx, sess, parsed, prev) {
            return r;
        }
        exec::ddl::temporary::refuse_on_temporary(sess, &base_table_targets(ctx, sess, parsed))?;
    }
    match &parsed.stmt {
        Stmt::Sql(st) => run_sql_ddl(ctx, sess, st, prev, parsed),
        Stmt::Binlog(src) => exec::binlog_stmt::run(ctx, sess, src, prev),
        Stmt::LoadData(ld) => {
            if !ld.local {
                return exec::load::run_server_file(ctx, sess, ld, &parsed.set_aside, prev);
            }
            if !sess.local_infile || !ctx.vars.global_bool("local_infile") {
                return Err(Error::new(
                    ErrorCode::LoadInfileCapabilityDisabled,
                    "The used command is not allowed because the MariaDB server or client has disabled the local infile capability",
                ));
            }
            let job = exec::load::LoadJob::start(ctx, sess, ld, &parsed.set_aside, prev)?;
            sess.pending_load = Some(Box::new(job));
            Ok(QueryResult::ok())
        }
        Stmt::Begin {
            read_only,
            consistent_snapshot,
        } => {
            count(StatusCounter::ComBegin);
            sess.begin_explicit(ctx, *read_only, *consistent_snapshot)?;
            // START TRANSACTION releases LOCK TABLES (MariaDB).
            crate::session::table_locks::unlock_tables(ctx, sess);
            Ok(QueryResult::ok())
        }
        Stmt::Savepoint(name) => {
            count(StatusCounter::ComSavepoint);
            sess.savepoint(ctx, name);
            Ok(QueryResult::ok())
        }
        Stmt::RollbackToSavepoint(name) => {
            count(StatusCounter::ComRollbackToSavepoint);
            sess.rollback_to_savepoint(name)?;
            Ok(QueryResult::ok())
        }
        Stmt::ReleaseSavepoint(name) => {
            count(StatusCounter::ComReleaseSavepoint);
            sess.release_savepoint(name)?;
            Ok(QueryResult::ok())
        }
        Stmt::Commit => {
            count(StatusCounter::ComCommit);
            sess.commit_before_reply(ctx)?;
            Ok(QueryResult::ok())
        }
        Stmt::Rollback => {
            count(StatusCounter::ComRollback);
            sess.rollback(ctx);
            Ok(QueryResult::ok())
        }
        Stmt::Set(items) => {
            count(StatusCounter::ComSet);
            exec::admin::set(ctx, sess, items, params, parsed)?;
            Ok(QueryResult::ok())
        }
        Stmt::SetNames { charset, collation } => {
            count(StatusCounter::ComSet);
            exec::admin::set_names(ctx, sess, charset, collation.as_deref())?;
            Ok(QueryResult::ok())
        }
        Stmt::SetTransaction {
            scope,
            isolation,
            read_only,
        } => {
            count(StatusCounter::ComSet);
            exec::admin::set_transaction(ctx, sess, *scope, isolation.as_deref(), *read_only)?;
            Ok(QueryResult::ok())
        }
        Stmt::SetPassword { user, password } => {
            count(StatusCounter::ComSet);
            exec::admin::set_password(ctx, sess, user.as_ref(), password)?;
            Ok(QueryResult::ok())
        }
        Stmt::Show(s) => {
            count(StatusCounter::ComShow);
            let env =
                Env::new(ctx, SessView::of(sess, prev), params).with_set_aside(&parsed.set_aside);
            let r = exec::show::show(&env, &sess.warnings, s);
            // The SHOW forms MariaDB answers from information_schema obey sql_select_limit.
            use parse::Show as S;
            if let Ok(QueryResult::Rows { rows, .. }) = &r {
                if exec::found_rows::counts_show(s) {
                    sess.last_found_rows = rows.len() as u64;
                }
            }
            match r {
                Ok(QueryResult::Rows { columns, mut rows })
                    if matches!(
                        s,
                        S::Databases(_)
                            | S::Tables { .. }
                            | S::Columns { .. }
                            | S::Index { .. }
                            | S::Variables { .. }
                            | S::Status(_)
                            | S::Engines
                            | S::ProcessList { .. }
                            | S::TableStatus { .. }
                            | S::Collation(_)
                            | S::Charset(_)
                    ) =>
                {
                    apply_select_limit(ctx, sess, &mut rows);
                    Ok(QueryResult::Rows { columns, rows })
                }
                r => r,
            }
        }
        Stmt::Explain(inner, format) => {
            count(StatusCounter::ComSelect);
            // EXPLAIN SELECT … INTO explains the query.
            let bound = match bind_plan(ctx, sess, inner, prev)? {
                Some(Plan::Into(p, _)) => Some(*p),
                other => other,
            };
            let analyze = matches!(
                format,
                exec::explain::Format::Analyze | exec::explain::Format::AnalyzeJson
            );
            let explained = match bound {
                Some(Plan::Select(p)) if analyze => {
                    exec::analyze::check(&p)?;
                    let counts = if p.uses_engine() {
                        let (txn, view) = split_session(ctx, sess, prev);
                        let env = Env::new(ctx, view, params);
                        for db in p.databases() {
                            plan::check_db_access(&env, db)?;
                        }
                        exec::analyze::run(&p, &env, Some(txn))?
                    } else {
                        Default::default()
                    };
                    exec::explain::analyzed(&p, counts)
                }
                Some(Plan::Query(q)) if analyze => {
                    exec::analyze::check_query(&q)?;
                    let (txn, view) = split_session(ctx, sess, prev);
                    let env = Env::new(ctx, view, params);
                    for db in q.databases() {
                        plan::check_db_access(&env, db)?;
                    }
                    let counts = exec::analyze::run_query(&q, &env, Some(txn))?;
                    exec::explain::analyzed_query(&q, counts)
                }
                Some(_) if analyze => {
                    return Err(Error::unsupported("ANALYZE of INSERT, UPDATE and DELETE"))
                }
                Some(Plan::Select(p)) => exec::explain::of_select(&p),
                Some(Plan::Query(q)) => exec::explain::of_query(&q),
                Some(Plan::Insert(p)) => exec::explain::of_insert(&p),
                Some(Plan::Update(p)) => exec::explain::of_update(&p),
                Some(Plan::Delete(p)) => exec::explain::of_delete(&p),
                Some(Plan::Into(..)) => return Err(Error::internal("EXPLAIN of INTO")),
                Some(Plan::Multi(_)) => {
                    return Err(Error::unsupported(
                        "EXPLAIN of a multi-table UPDATE or DELETE",
                    ))
                }
                None => return Err(Error::unsupported("EXPLAIN of this statement")),
            };
            let rows = match format {
                exec::explain::Format::Json | exec::explain::Format::AnalyzeJson => {
                    vec![vec![Value::str(&explained.json())]]
                }
                f => explained.rows(*f),
            };
            Ok(QueryResult::Rows {
                columns: exec::explain::columns(*format),
                rows,
            })
        }
        Stmt::Describe { db, table } => {
            count(StatusCounter::ComShow);
            let env = Env::new(ctx, SessView::of(sess, prev), params);
            let r = exec::show::describe(&env, db.as_deref(), table);
            if let Ok(QueryResult::Rows { rows, .. }) = &r {
                sess.last_found_rows = rows.len() as u64;
            }
            r
        }
        Stmt::Use(db) => {
            exec::admin::use_db(ctx, sess, db)?;
            Ok(QueryResult::ok())
        }
        Stmt::CreateView(v) => {
            count(StatusCounter::ComOther);
            ddl(
                ctx,
                sess,
                Vec::new(),
                prev,
                parsed.ddl_text.as_deref(),
                &[],
                |env| exec::ddl::view::create_view(env, v),
            )?;
            Ok(QueryResult::ok())
        }
        Stmt::AlterTable(at) => {
            count(StatusCounter::ComOther);
            let mut outcome = None;
            ddl(
                ctx,
                sess,
                mdl_targets(ctx, sess, parsed),
                prev,
                parsed.ddl_text.as_deref(),
                &parsed.set_aside,
                |env| {
                    outcome = Some(exec::ddl::alter::alter_table(env, at)?);
                    Ok(())
                },
            )?;
            let outcome = outcome.ok_or_else(|| Error::internal("ALTER without outcome"))?;
            Ok(QueryResult::Ok {
                affected_rows: outcome.affected,
                last_insert_id: 0,
                info: (!outcome.info.is_empty()).then_some(outcome.info),
            })
        }
        Stmt::RenameTable(r) => {
            count(StatusCounter::ComOther);
            ddl(
                ctx,
                sess,
                mdl_targets(ctx, sess, parsed),
                prev,
                parsed.ddl_text.as_deref(),
                &[],
                |env| exec::ddl::rename_tables(env, r),
            )?;
            Ok(QueryResult::ok())
        }
        Stmt::CreateDatabase {
            name,
            if_not_exists,
            charset,
        } => {
            count(StatusCounter::ComOther);
            ddl(
                ctx,
                sess,
                mdl_targets(ctx, sess, parsed),
                prev,
                parsed.ddl_text.as_deref(),
                &[],
                |env| exec::ddl::create_database(env, name, *if_not_exists, *charset),
            )?;
            Ok(QueryResult::affected(1))
        }
        Stmt::AlterDatabase { name, charset } => {
            count(StatusCounter::ComOther);
            ddl(
                ctx,
                sess,
                mdl_targets(ctx, sess, parsed),
                prev,
                parsed.ddl_text.as_deref(),
                &[],
                |env| exec::ddl::alter_database(env, name.as_deref(), *charset),
            )?;
            Ok(QueryResult::affected(1))
        }
        Stmt::DropDatabase { name, if_exists } => {
            count(StatusCounter::ComOther);
            // MariaDB counts the views it drops with the tables.
            let tables = ctx.engine.tables(name).map(|t| t.len() as u64).unwrap_or(0)
                + ctx.engine.views_in(name).len() as u64;
            ddl(
                ctx,
                sess,
                mdl_targets(ctx, sess, parsed),
                prev,
                parsed.ddl_text.as_deref(),
                &[],
                |env| exec::ddl::drop_database(env, name, *if_exists),
            )?;
            if sess.db.as_deref() == Some(name.as_str()) {
                sess.db = None;
            }
            Ok(QueryResult::affected(tables))
        }
        Stmt::CreateUser {
            users,
            if_not_exists,
            require,
        } => {
            count(StatusCounter::ComOther);
            sess.commit(ctx)?;
            exec::admin::create_users(ctx, sess, users, *if_not_exists, *require)?;
            Ok(QueryResult::ok())
        }
        Stmt::AlterUser {
            users,
            if_exists,
            require,
        } => {
            count(StatusCounter::ComOther);
            sess.commit(ctx)?;
            exec::admin::alter_users(ctx, sess, users, *if_exists, *require)?;
            Ok(QueryResult::ok())
        }
        Stmt::DropUser { users, if_exists } => {
            count(StatusCounter::ComOther);
            sess.commit(ctx)?;
            exec::admin::drop_users(ctx, sess, users, *if_exists)?;
            Ok(QueryResult::ok())
        }
        Stmt::Grant {
            privs,
            on,
            users,
            require,
            grant_option,
        } => {
            count(StatusCounter::ComOther);
            sess.commit(ctx)?;
            exec::admin::grant(ctx, sess, privs, on, users, *require, *grant_option)?;
            Ok(QueryResult::ok())
        }
        Stmt::Revoke { privs, on, users } => {
            count(StatusCounter::ComOther);
            sess.commit(ctx)?;
            exec::admin::revoke(ctx, sess, privs, on.as_ref(), users)?;
            Ok(QueryResult::ok())
        }
        Stmt::Purge(target) => {
            count(StatusCounter::ComOther);
            exec::binlog_admin::purge(ctx, sess, target)?;
            Ok(QueryResult::ok())
        }
        Stmt::Flush { binary_logs: true } => {
            count(StatusCounter::ComOther);
            exec::binlog_admin::flush_binary_logs(ctx, sess)?;
            Ok(QueryResult::ok())
        }
        Stmt::Flush { .. } => {
            count(StatusCounter::ComOther);
            let reload = crate::accounts::Privs::RELOAD;
            exec::admin::need_global(ctx, sess, reload, "RELOAD")?;
            Ok(QueryResult::ok())
        }
        Stmt::UnlockTables => {
            count(StatusCounter::ComOther);
            // Commits only if the session held table locks (MariaDB).
            if sess.locked_tables.is_some() {
                sess.commit(ctx)?;
            }
            crate::session::table_locks::unlock_tables(ctx, sess);
            Ok(QueryResult::ok())
        }
        Stmt::LockTables(list) => {
            count(StatusCounter::ComOther);
            let mut tables = Vec::with_capacity(list.len());
            let mut implied = Vec::new();
            for (db, table, write) in list {
                let db = match db {
                    Some(d) => d.clone(),
                    None => sess.db.clone().ok_or_else(Error::no_db)?,
                };
                // LOCK TABLES on the database (1044), SELECT on the table (1142).
                let env = Env::new(ctx, SessView::of(sess, 0), &[]);
                plan::check_db_priv(&env, &db, crate::accounts::Privs::LOCK_TABLES)?;
                plan::check_table_priv(&env, &db, table, crate::accounts::Privs::SELECT)?;
                // A view locks its tables too (MariaDB), with the view's mode.
                if ctx.engine.has_views() {
                    for (d, t) in exec::view_tables::view_base_tables(ctx, &db, table) {
                        implied.push(crate::session::table_locks::LockedTable {
                            db: d,
                            table: t,
                            write: *write,
                        });
                    }
                }
                tables.push(crate::session::table_locks::LockedTable {
                    db,
                    table: table.clone(),
                    write: *write,
                });
            }
            for t in implied {
                match tables
                    .iter_mut()
                    .find(|m| m.db == t.db && m.table == t.table)
                {
                    Some(m) => m.write |= t.write,
                    None => tables.push(t),
                }
            }
            crate::session::table_locks::lock_tables(ctx, sess, tables)?;
            Ok(QueryResult::ok())
        }
        Stmt::TableMaint { op, tables } => {
            count(StatusCounter::ComOther);
            sess.commit(ctx)?;
            exec::admin::table_maint(ctx, sess, op, tables)
        }
        Stmt::Checksum { tables, quick } => {
            count(StatusCounter::ComOther);
            exec::checksum::checksum_tables(ctx, sess, tables, *quick)
        }
        Stmt::Kill { query_only, id } => {
            count(StatusCounter::ComOther);
            exec::admin::kill(ctx, sess, *query_only, *id)?;
            Ok(QueryResult::ok())
        }
        Stmt::PrepareSql { name, source } => {
            exec::prepare_sql::prepare(ctx, sess, name, source, parsed)
        }
        Stmt::ExecuteSql { name, using } => {
            exec::prepare_sql::execute(ctx, sess, name, using, parsed)
        }
        Stmt::DeallocateSql(name) => exec::prepare_sql::deallocate(ctx, sess, name),
        Stmt::Do(exprs) => {
            count(StatusCounter::ComOther);
            exec::admin::do_exprs(ctx, sess, exprs, params, parsed)?;
            Ok(QueryResult::ok())
        }
        Stmt::Unsupported(what) => Err(Error::unsupported(what)),
    }
}

/// Run a DDL step: implicit commit, then the step with the session's environment, then its
/// log record. The statement is all or nothing: if the step fails part way, or its log write
/// fails (the log then says it did not happen), its catalog changes are undone
/// ([`crate::storage::DdlUndo`]). One DDL statement runs at a time, and no checkpoint
/// snapshots while one is undecided (`CommitPipeline::lock_ddl`).
fn ddl(
    ctx: &ServerContext,
    sess: &mut SessionState,
    targets: Vec<(String, String)>,
    prev: usize,
    text: Option<&str>,
    set_aside: &[sqlparser::ast::Expr],
    f: impl FnOnce(&Env<'_>) -> Result<()>,
) -> Result<()> {
    sess.commit(ctx)?;
    // Metadata locks first (they may wait for transactions), then the DDL lock (held only
    // while the statement works, so a checkpoint never waits behind a metadata-lock wait).
    let (_mdl, _one_at_a_time) = lock_for_ddl(ctx, sess, &targets)?;
    let undo = crate::storage::DdlUndo::begin(&ctx.engine);
    let db = sess.db.clone();
    let (r, effects, when_us) = {
        let env = Env::new(ctx, SessView::of(sess, prev), &[]).with_set_aside(set_aside);
        let r = f(&env);
        let when_us = env.now_used().map(|t| exec_time_us(&t));
        (r, env.into_effects(), when_us)
    };
    // Logged after it took effect: a crash in between loses an unacknowledged DDL. With the
    // time it read, if any, so that its replay fills the same values.
    let log = |text: &str| crate::session::commit::log_ddl(ctx, sess, db.as_deref(), text, when_us);
    let (keep, result) = match r {
        Ok(()) => match text.map_or(Ok(()), log) {
            Ok(()) => (true, Ok(())),
            Err(e) => (false, Err(e)),
        },
        // A DROP TABLE list with a missing table: as MariaDB, the tables that existed stay
        // dropped (and are logged), and the statement reports the missing ones.
        Err(e) => match undo
            .dropped_tables()
            .filter(|t| !t.is_empty() && text.is_some())
        {
            Some(tables) => match log(&drop_tables_text(&tables)) {
                Ok(()) => (true, Err(e)),
                Err(log_failed) => (false, Err(log_failed)),
            },
            None => (false, Err(e)),
        },
    };
    if keep {
        undo.keep();
    } else {
        undo.revert();
    }
    if result.is_ok() {
        effects.apply(sess);
    }
    result
}

/// `CREATE OR REPLACE TABLE`: a table of the name goes first, as a DDL statement of its own
/// (logged `DROP TABLE IF EXISTS`): MariaDB 10.11 drops it even when the CREATE then fails. A
/// view of the name is 1965.
fn drop_for_replace(
    ctx: &ServerContext,
    sess: &mut SessionState,
    prev: usize,
    name: &sqlparser::ast::ObjectName,
) -> Result<()> {
    let (db, t) = plan::split_name(name, sess.db.as_deref())?;
    if ctx.engine.view(&db, &t).is_some() {
        return Err(Error::new(
            ErrorCode::ItIsAView,
            format!("'{db}.{t}' is a view"),
        ));
    }
    if ctx.engine.table(&db, &t).is_err() {
        return Ok(());
    }
    let text = format!(
        "DROP TABLE IF EXISTS `{}`.`{}`",
        db.replace('`', "``"),
        t.replace('`', "``")
    );
    let targets = vec![(db, t)];
    ddl(ctx, sess, targets, prev, Some(&text), &[], |env| {
        exec::ddl::drop_tables(env, std::slice::from_ref(name), true)
    })
}

/// A statement time as Unix microseconds (times before 1970 count as 0).
fn exec_time_us(t: &crate::types::DateTime) -> u64 {
    let secs = expr::convert::unix_seconds(t).max(0) as u64;
    secs * 1_000_000 + t.micros as u64
}

/// The tables a statement that knows only base tables names (DDL other than CREATE / DROP
/// TABLE, LOCK TABLES, table maintenance other than CHECKSUM TABLE): with a TEMPORARY table of the same
/// name it would reach the base table, so it is refused (`exec/ddl/temporary.rs`).
fn base_table_targets(
    ctx: &ServerContext,
    sess: &SessionState,
    parsed: &Parsed,
) -> Vec<(String, String)> {
    let cur = || sess.db.clone().unwrap_or_default();
    let named = |db: &Option<String>, t: &str| (db.clone().unwrap_or_else(cur), t.to_string());
    match &parsed.stmt {
        Stmt::Sql(st)
            if matches!(
                st.as_ref(),
                Statement::Drop {
                    object_type: ObjectType::Table,
                    ..
                }
            ) =>
        {
            Vec::new()
        }
        Stmt::Sql(st) => match st.as_ref() {
            // CREATE TABLE base LIKE temp copies the temporary table (`ddl::create_table`).
            Statement::CreateTable(_) => Vec::new(),
            _ => mdl_targets(ctx, sess, parsed),
        },
        Stmt::LockTables(list) => list.iter().map(|(d, t, _)| named(d, t)).collect(),
        Stmt::TableMaint { tables, .. } => tables.iter().map(|(d, t)| named(d, t)).collect(),
        // It reads the session's TEMPORARY table of the name (`exec/checksum.rs`).
        Stmt::Checksum { .. } => Vec::new(),
        _ => mdl_targets(ctx, sess, parsed),
    }
}

/// The tables a DDL statement changes or drops: it holds their metadata locks exclusively
/// (`storage/mdl.rs`) from before its first change until its outcome is known.
fn mdl_targets(ctx: &ServerContext, sess: &SessionState, parsed: &Parsed) -> Vec<(String, String)> {
    let cur = || sess.db.clone().unwrap_or_default();
    let split = |n: &sqlparser::ast::ObjectName| plan::split_name(n, sess.db.as_deref()).ok();
    let named = |db: &Option<String>, t: &str| (db.clone().unwrap_or_else(cur), t.to_string());
    match &parsed.stmt {
        Stmt::AlterTable(at) => {
            let me = named(&at.db, &at.table);
            // A rename rewrites the tables whose FOREIGN KEYs reference this one.
            let renames = at
                .ops
                .iter()
                .any(|o| matches!(o, crate::sql::parse::alter::AlterOp::RenameTo { .. }));
            let children = match renames {
                true => referencing_tables(ctx, &me.0, &me.1),
                false => Vec::new(),
            };
            std::iter::once(me).chain(children).collect()
        }
        Stmt::RenameTable(r) => r
            .pairs
            .iter()
            .flat_map(|((d, t), _)| {
                let me = named(d, t);
                let children = referencing_tables(ctx, &me.0, &me.1);
                std::iter::once(me).chain(children)
            })
            .collect(),
        Stmt::DropDatabase { name, .. } => ctx
            .engine
            .tables(name)
            .unwrap_or_default()
            .into_iter()
            .map(|t| (name.clone(), t))
            .collect(),
        Stmt::Sql(st) => match st.as_ref() {
            Statement::Drop {
                object_type: ObjectType::Table,
                names,
                ..
            } => names.iter().filter_map(split).collect(),
            Statement::Drop {
                object_type: ObjectType::Index,
                table: Some(t),
                ..
            } => split(t).into_iter().collect(),
            Statement::Truncate(t) => t
                .table_names
                .iter()
                .filter_map(|x| split(&x.name))
                .collect(),
            Statement::CreateIndex(ci) => split(&ci.table_name).into_iter().collect(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The tables whose FOREIGN KEYs reference `db`.`name` (other than itself).
fn referencing_tables(ctx: &ServerContext, db: &str, name: &str) -> Vec<(String, String)> {
    ctx.engine
        .referencing(db, name)
        .into_iter()
        .filter(|t| !(t.db() == db && t.name() == name))
        .map(|t| (t.db().to_string(), t.name().to_string()))
        .collect()
}

/// Take the metadata locks of `targets` (the tables that exist), then the DDL lock; if a
/// target was replaced while this waited (another DDL renamed or rebuilt it), start over.
fn lock_for_ddl<'a>(
    ctx: &'a ServerContext,
    sess: &SessionState,
    targets: &[(String, String)],
) -> Result<(crate::storage::MdlGuard, parking_lot::MutexGuard<'a, ()>)> {
    let timeout = sess.mdl_timeout(ctx);
    loop {
        let tables: Vec<_> = targets
            .iter()
            .filter_map(|(db, t)| ctx.engine.table(db, t).ok())
            .collect();
        let guard = ctx.engine.lock_tables_exclusive(&tables, timeout)?;
        let one = ctx.pipeline.lock_ddl();
        let current = targets
            .iter()
            .filter_map(|(db, t)| ctx.engine.table(db, t).ok())
            .collect::<Vec<_>>();
        let same = current.len() == tables.len()
            && current.iter().zip(&tables).all(|(a, b)| Arc::ptr_eq(a, b));
        if same {
            return Ok((guard, one));
        }
    }
}

/// `DROP TABLE `db`.`t`, …` for the log.
fn drop_tables_text(tables: &[(String, String)]) -> String {
    let quote = |s: &str| format!("`{}`", s.replace('`', "``"));
    let names: Vec<String> = tables
        .iter()
        .map(|(db, t)| format!("{}.{}", quote(db), quote(t)))
        .collect();
    format!("DROP TABLE {}", names.join(","))
}

fn run_sql_ddl(
    ctx: &ServerContext,
    sess: &mut SessionState,
    st: &Statement,
    prev: usize,
    parsed: &Parsed,
) -> Result<QueryResult> {
    let text = parsed.ddl_text.as_deref();
    let aside = parsed.set_aside.as_slice();
    parse::surface::check(st)?;
    let count = |c: StatusCounter| ctx.status.incr(c);
    match st {
        Statement::CreateTable(ct) if ct.temporary => {
            count(StatusCounter::ComCreateTable);
            return exec::ddl::temporary::create(ctx, sess, ct, parsed, prev);
        }
        Statement::CreateTable(ct) if ct.query.is_some() => {
            count(StatusCounter::ComCreateTable);
            return exec::ddl::create_select::run(ctx, sess, ct, parsed, prev);
        }
        Statement::CreateTable(ct) => {
            count(StatusCounter::ComCreateTable);
            if ct.or_replace {
                drop_for_replace(ctx, sess, prev, &ct.name)?;
            }
            let like_temporary = exec::ddl::like_temporary_text(sess, ct);
            ddl(
                ctx,
                sess,
                mdl_targets(ctx, sess, parsed),
                prev,
                text.map(|t| like_temporary.as_deref().unwrap_or(t)),
                aside,
                |env| exec::ddl::create_table(env, ct),
            )?;
        }
        Statement::CreateIndex(ci) => {
            count(StatusCounter::ComOther);
            ddl(
                ctx,
                sess,
                mdl_targets(ctx, sess, parsed),
                prev,
                text,
                aside,
                |env| exec::ddl::create_index(env, ci),
            )?;
            // CREATE INDEX is an ALTER TABLE … ADD INDEX in MariaDB, and answers like one.
            return Ok(QueryResult::Ok {
                affected_rows: 0,
                last_insert_id: 0,
                info: Some(format!(
                    "Records: 0  Duplicates: 0  Warnings: {}",
                    sess.warnings.len()
                )),
            });
        }
        Statement::Drop {
            object_type,
            if_exists,
            names,
            table,
            temporary,
            ..
        } => match object_type {
            ObjectType::Table => {
                count(StatusCounter::ComDropTable);
                if let Some(r) = exec::ddl::temporary::drop(sess, names, *if_exists, *temporary) {
                    return r;
                }
                ddl(
                    ctx,
                    sess,
                    mdl_targets(ctx, sess, parsed),
                    prev,
                    text,
                    aside,
                    |env| exec::ddl::drop_tables(env, names, *if_exists),
                )?;
            }
            ObjectType::Index => {
                count(StatusCounter::ComOther);
                let Some(t) = table else {
                    return Err(Error::parse("", 1));
                };
                ddl(
                    ctx,
                    sess,
                    mdl_targets(ctx, sess, parsed),
                    prev,
                    text,
                    aside,
                    |env| exec::ddl::drop_index(env, names, t, *if_exists),
                )?;
            }
            ObjectType::View => {
                count(StatusCounter::ComOther);
                ddl(ctx, sess, Vec::new(), prev, text, aside, |env| {
                    exec::ddl::view::drop_views(env, names, *if_exists)
                })?;
            }
            other => return Err(Error::unsupported(&format!("DROP {other}"))),
        },
        Statement::Truncate(t) if exec::ddl::truncates_system_tables(sess, t)? => {
            // performance_schema summaries: reset, not logged (nothing to replay).
            count(StatusCounter::ComOther);
            ddl(
                ctx,
                sess,
                mdl_targets(ctx, sess, parsed),
                prev,
                None,
                aside,
                |env| exec::ddl::truncate_system(env, t),
            )?;
        }
        Statement::Truncate(t) => {
            count(StatusCounter::ComOther);
            ddl(
                ctx,
                sess,
                mdl_targets(ctx, sess, parsed),
                prev,
                text,
                aside,
                |env| exec::ddl::truncate(env, t),
            )?;
        }
        other => {
            let text = other.to_string();
            let head: String = text
                .split_whitespace()
                .take(2)
                .collect::<Vec<_>>()
                .join(" ");
            return Err(Error::unsupported(&head));
        }
    }
    Ok(QueryResult::ok())
}

/// Result columns of a statement without a plan, for COM_STMT_PREPARE (SHOW, DESCRIBE,
/// ANALYZE… produce rows; their columns do not depend on the data).
fn generic_columns(
    ctx: &ServerContext,
    sess: &mut SessionState,
    parsed: &Parsed,
) -> Result<Vec<ColumnDefinition>> {
    if let Stmt::Explain(_, format) = &parsed.stmt {
        return Ok(exec::explain::columns(*format));
    }
    let has_rows = matches!(
        parsed.stmt,
        Stmt::Show(_) | Stmt::Describe { .. } | Stmt::TableMaint { .. } | Stmt::Checksum { .. }
    );
    if !has_rows || !parsed.params.is_empty() {
        return Ok(Vec::new());
    }
    let saved = sess.warnings.clone();
    let prev = sess.warnings.len();
    let r = match &parsed.stmt {
        Stmt::TableMaint { op, tables } => exec::admin::table_maint(ctx, sess, op, tables),
        Stmt::Checksum { .. } => return Ok(exec::checksum::columns()),
        _ => run_other(ctx, sess, parsed, &[], prev),
    };
    sess.warnings = saved;
    match r? {
        QueryResult::Rows { columns, .. } => Ok(columns),
        QueryResult::Ok { .. } => Ok(Vec::new()),
    }
}

/// LOAD DATA LOCAL: the next piece of the file the client sends (`session/dispatch.rs`).
pub fn load_local_feed(ctx: &ServerContext, sess: &mut SessionState, data: &[u8]) {
    if let Some(mut job) = sess.pending_load.take() {
        job.feed(ctx, sess, data, false);
        sess.pending_load = Some(job);
    }
}

/// LOAD DATA LOCAL: the client's empty packet ended the file; the statement's outcome.
pub fn load_local_finish(ctx: &ServerContext, sess: &mut SessionState) -> Result<QueryResult> {
    let r = match sess.pending_load.take() {
        Some(job) => job.finish(ctx, sess),
        None => Err(Error::internal("no LOAD DATA LOCAL in progress")),
    };
    finish(sess, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use plan::{Access, PartCond};

    fn setup() -> (ServerContext, SessionState) {
        let ctx = ServerContext::for_tests();
        let mut sess = SessionState::new(1, "root", "%", None);
        crate::testkit::run_all(
            &ctx,
            &mut sess,
            &[
                "CREATE DATABASE sb",
                "USE sb",
                "CREATE TABLE sbtest1 (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, \
                 c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))",
                "CREATE INDEX k_1 ON sbtest1(k)",
            ],
        );
        (ctx, sess)
    }

    fn plan_of(p: &Prepared) -> Arc<Plan> {
        match &*p.state.lock() {
            PrepState::Bound { plan, .. } => plan.clone(),
            PrepState::Parsed(..) => panic!("not bound"),
        }
    }

    /// A prepared or cached plan that reads a TIMESTAMP column is bound again when the
    /// session's time zone moves to or from SYSTEM.
    #[test]
    fn timestamp_plans_follow_the_time_zone() {
        let (ctx, mut sess) = setup();
        let run = |sess: &mut SessionState, sql: &str| {
            let r = execute_text(&ctx, sess, sql).unwrap();
            sess.end_statement(&ctx, true).unwrap();
            r
        };
        let text = |r: QueryResult| match r {
            QueryResult::Rows { rows, .. } => crate::vars::display(&rows[0][0]),
            _ => panic!("no rows"),
        };
        run(
            &mut sess,
            "CREATE TABLE tz (id INT PRIMARY KEY, ts TIMESTAMP NULL)",
        );
        run(
            &mut sess,
            "INSERT INTO tz VALUES (1, '2024-01-01 12:00:00')",
        );
        let p = prepare(&ctx, &mut sess, "SELECT ts FROM tz WHERE id = ?").unwrap();
        let exec = |sess: &mut SessionState| {
            let r = execute_prepared(&ctx, sess, &p, &[Value::Int(1)]).unwrap();
            sess.end_statement(&ctx, true).unwrap();
            text(r)
        };
        let cached = "SELECT ts FROM tz WHERE id = 1";
        assert_eq!(exec(&mut sess), "2024-01-01 12:00:00");
        assert_eq!(text(run(&mut sess, cached)), "2024-01-01 12:00:00");
        run(&mut sess, "SET time_zone = '+05:30'");
        assert_eq!(exec(&mut sess), "2024-01-01 17:30:00");
        assert_eq!(text(run(&mut sess, cached)), "2024-01-01 17:30:00");
        run(&mut sess, "SET time_zone = 'America/New_York'");
        assert_eq!(exec(&mut sess), "2024-01-01 07:00:00");
        assert_eq!(text(run(&mut sess, cached)), "2024-01-01 07:00:00");
        run(&mut sess, "SET time_zone = SYSTEM");
        assert_eq!(exec(&mut sess), "2024-01-01 12:00:00");
        assert_eq!(text(run(&mut sess, cached)), "2024-01-01 12:00:00");
    }

    #[test]
    fn sysbench_statements_use_point_access() {
        let (ctx, mut sess) = setup();
        let p = prepare(&ctx, &mut sess, "SELECT c FROM sbtest1 WHERE id=?").unwrap();
        let plan = plan_of(&p);
        let Plan::Select(s) = plan.as_ref() else {
            panic!()
        };
        assert!(s.access.is_pk_point(&s.table().unwrap().def));
        let p = prepare(&ctx, &mut sess, "UPDATE sbtest1 SET c=? WHERE id=?").unwrap();
        let plan = plan_of(&p);
        let Plan::Update(u) = plan.as_ref() else {
            panic!()
        };
        assert!(u.access.is_pk_point(&u.table.def));
        let p = prepare(&ctx, &mut sess, "DELETE FROM sbtest1 WHERE id=?").unwrap();
        let plan = plan_of(&p);
        let Plan::Delete(d) = plan.as_ref() else {
            panic!()
        };
        assert!(d.access.is_pk_point(&d.table.def));
        let p = prepare(
            &ctx,
            &mut sess,
            "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY id",
        )
        .unwrap();
        let plan = plan_of(&p);
        let Plan::Select(s) = plan.as_ref() else {
            panic!()
        };
        assert!(
            matches!(&s.access, Access::Index { index: None, eq, range: Some(_) } if eq.is_empty())
        );
        assert!(s.sorted_by_scan, "ORDER BY id follows the primary key");
    }

    #[test]
    fn secondary_index_and_unsafe_conversions() {
        let (ctx, mut sess) = setup();
        let p = prepare(
            &ctx,
            &mut sess,
            "SELECT id FROM sbtest1 WHERE k IN (1, 2) AND c = 'x'",
        )
        .unwrap();
        let plan = plan_of(&p);
        let Plan::Select(s) = plan.as_ref() else {
            panic!()
        };
        assert!(
            matches!(&s.access, Access::Index { index: Some(0), eq, .. } if matches!(eq[0], PartCond::In(_)))
        );
        // A string column compared with a number never uses an index.
        execute_text(&ctx, &mut sess, "CREATE INDEX c_1 ON sbtest1(c)").unwrap();
        let p = prepare(&ctx, &mut sess, "SELECT id FROM sbtest1 WHERE c = 5").unwrap();
        let plan = plan_of(&p);
        let Plan::Select(s) = plan.as_ref() else {
            panic!()
        };
        assert!(matches!(s.access, Access::FullScan));
    }

    /// A key value that does not convert exactly (`d = '1x'` on an INT index) reads the whole
    /// of the access path's index, still in its order: ORDER BY … LIMIT and GROUP BY rely on it.
    #[test]
    fn unconvertible_key_keeps_the_index_order() {
        let (ctx, mut sess) = setup();
        let mut rows = |sql: &str| -> Vec<String> {
            let r = execute_text(&ctx, &mut sess, sql).unwrap();
            sess.end_statement(&ctx, true).unwrap();
            match r {
                QueryResult::Rows { rows, .. } => rows
                    .iter()
                    .map(|r| {
                        r.iter()
                            .map(crate::vars::display)
                            .collect::<Vec<_>>()
                            .join(",")
                    })
                    .collect(),
                _ => Vec::new(),
            }
        };
        rows("CREATE TABLE u (id INT PRIMARY KEY, d INT, e INT, KEY k2 (d, e))");
        rows("INSERT INTO u VALUES (1, 1, 9), (2, 1, 3), (3, 1, 5), (4, 2, 1), (5, 1, 1)");
        let first = rows("SELECT id FROM u WHERE d = '1x' ORDER BY e LIMIT 3");
        assert_eq!(first, ["5", "2", "3"]);
        let last = rows("SELECT id FROM u WHERE d = '1x' ORDER BY e DESC LIMIT 2");
        assert_eq!(last, ["1", "3"]);
    }

    /// A DEFAULT that MariaDB evaluates for each row (a function, a variable) is evaluated for
    /// each row, not folded into the value it has at CREATE time. ALTER TABLE may fill existing
    /// rows with one only if it is a function of the row: the redo log replays the ALTER by
    /// running it again (`exec/default_expr.rs`).
    #[test]
    fn per_row_default_expressions_are_evaluated_per_row() {
        let (ctx, mut sess) = setup();
        for sql in [
            "CREATE TABLE d1 (id INT, u CHAR(36) DEFAULT (UUID()))",
            "INSERT INTO d1 (id) VALUES (1), (2), (3)",
        ] {
            execute_text(&ctx, &mut sess, sql).unwrap();
        }
        match execute_text(&ctx, &mut sess, "SELECT COUNT(DISTINCT u) FROM d1").unwrap() {
            QueryResult::Rows { rows, .. } => assert_eq!(crate::vars::display(&rows[0][0]), "3"),
            _ => panic!("no rows"),
        }
        let e = execute_text(
            &ctx,
            &mut sess,
            "ALTER TABLE d1 ADD COLUMN v CHAR(36) DEFAULT (UUID())",
        )
        .unwrap_err();
        assert_eq!(e.code(), ErrorCode::NotSupportedYet);
        for sql in [
            "ALTER TABLE d1 ADD COLUMN w INT DEFAULT (id * 2)",
            "CREATE TABLE d2 (id INT)",
            "ALTER TABLE d2 ADD COLUMN v CHAR(36) DEFAULT (UUID())",
        ] {
            execute_text(&ctx, &mut sess, sql).unwrap();
        }
    }

    #[test]
    fn multi_statements_and_empty_text_are_refused() {
        let (ctx, mut sess) = setup();
        let e = execute_text(&ctx, &mut sess, "SELECT 1; SELECT 2").unwrap_err();
        assert_eq!(e.code(), ErrorCode::ParseError);
        let e = execute_text(&ctx, &mut sess, "   ").unwrap_err();
        assert_eq!(e.code(), ErrorCode::EmptyQuery);
        assert_eq!(
            sess.warnings.len(),
            1,
            "the error is the statement's diagnostic"
        );
    }
}

/// `SELECT ?`: NULL-typed at PREPARE, typed by the bound value at EXECUTE (values seen from
/// MariaDB 10.11 over the binary protocol).
#[cfg(test)]
mod param_column_tests {
    use super::*;
    use crate::types::Decimal;

    fn meta(r: Result<QueryResult>) -> Vec<(u8, u32, u16, u16, u8)> {
        match r.unwrap() {
            QueryResult::Rows { columns, .. } => columns
                .iter()
                .map(|c| {
                    (
                        c.column_type.0,
                        c.column_length,
                        c.charset,
                        c.flags,
                        c.decimals,
                    )
                })
                .collect(),
            other => panic!("not rows: {other:?}"),
        }
    }

    #[test]
    fn bare_parameter_columns() {
        let ctx = ServerContext::for_tests();
        let mut sess = SessionState::new(1, "root", "%", None);
        let p = prepare(&ctx, &mut sess, "SELECT ? AS a").unwrap();
        let c = &p.columns()[0];
        assert_eq!(
            (c.column_type.0, c.column_length, c.charset, c.flags),
            (6, 0, 63, 0x80)
        );
        let mut exec = |v: Value| {
            let r = execute_prepared(&ctx, &mut sess, &p, &[v]);
            sess.end_statement(&ctx, r.is_ok()).unwrap();
            meta(r)
        };
        assert_eq!(exec(Value::Int(42)), vec![(8, 21, 63, 0x81, 0)]);
        assert_eq!(exec(Value::str("abc")), vec![(253, 12, 45, 0x01, 39)]);
        assert_eq!(exec(Value::Double(2.5)), vec![(5, 23, 63, 0x81, 31)]);
        let d: Decimal = "1.500".parse().unwrap();
        assert_eq!(exec(Value::Decimal(d)), vec![(246, 6, 63, 0x81, 3)]);
    }
}
