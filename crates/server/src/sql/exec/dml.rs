//! INSERT / REPLACE / UPDATE / DELETE: binding and execution.
//!
//! * INSERT builds each row from the column list, the DEFAULT keyword and the column defaults,
//!   converts every value to its column type ([`convert::store_value`], strict mode decides
//!   errors vs warnings), fills AUTO_INCREMENT (NULL or 0 take the next value), then calls
//!   `Table::insert`. A `Duplicate` outcome is error 1062, a warning with IGNORE, a delete and
//!   retry with REPLACE, or an update of the existing (already locked) row with ON DUPLICATE
//!   KEY UPDATE (affected rows 1 per insert, 2 per changed row, 0 per unchanged row). The
//!   duplicate is S-locked by INSERT and X-locked by REPLACE and ON DUPLICATE KEY UPDATE, as
//!   InnoDB does. INSERT … SELECT reads its source with shared locks in REPEATABLE READ and
//!   SERIALIZABLE (a consistent read below), as InnoDB does.
//! * UPDATE / DELETE are *current reads*: they read the access path with exclusive locks and
//!   WHERE as the storage filter, so WHERE is evaluated on the latest version of each row
//!   after any lock wait (UPDATE in READ COMMITTED with InnoDB's semi-consistent read). The
//!   rows that match are collected, sorted for ORDER BY, cut by LIMIT (without ORDER BY the
//!   read stops at LIMIT), then written. UPDATE counts changed rows (a row set to its
//!   current values is matched but not changed). In a READ ONLY transaction they fail with
//!   1792.
//!
//! * `sql_safe_updates = 1`: UPDATE / DELETE reading the whole table without LIMIT is 1175.
//!
//! Statement atomicity (savepoint / rollback to it on error) is done by the caller, `mod.rs`.

use super::returning::Returning;
use crate::error::{Error, Result};
use crate::sql::bind::sqltype::Class;
use crate::sql::bind::{Binder, TableScope};
use crate::sql::env::Env;
use crate::sql::exec::select::{self, eval_count, SelectPlan, SortKey};
use crate::sql::exec::subquery::{dml_lock, DmlSubqueries, Lender};
use crate::sql::exec::view_dml::ViewTarget;
use crate::sql::expr::convert::{self, StoreCtx, Strict};
use crate::sql::expr::subquery::Host;
use crate::sql::expr::{Expr, RowCtx};
use crate::sql::plan::{self, Access, TableRef};
use crate::storage::{
    ColumnDef, ColumnDefault, InsertOutcome, IsolationLevel, LockMode, ReadLock, Row, RowHandle,
    ScanControl, Txn, WaitPolicy,
};
use crate::types::{Collation, DataType, Value};
use cohort_protocol::column::ColumnDefinition;
use cohort_protocol::ErrorCode;
use sqlparser::ast;
use sqlparser::tokenizer::Location;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsertKind {
    Insert,
    Ignore,
    Replace,
}

pub enum InsertSource {
    /// Rows of VALUES; `None` is the DEFAULT keyword.
    Values(Vec<Vec<Option<Expr>>>),
    Select(Box<SelectPlan>),
    /// A set operation, WITH or parenthesized query (`exec/query.rs`).
    Query(Box<super::query::QueryPlan>),
}

pub struct InsertPlan {
    pub table: TableRef,
    pub kind: InsertKind,
    /// Target column positions, in the order values are given.
    pub columns: Vec<usize>,
    pub source: InsertSource,
    /// ON DUPLICATE KEY UPDATE assignments (column, expression over the existing row and
    /// `VALUES(col)` of the proposed one).
    pub on_dup: Vec<(usize, Expr)>,
    /// Subqueries of the VALUES (`exec/subquery.rs`).
    pub subq: Option<Box<DmlSubqueries>>,
    /// RETURNING list (`returning.rs`): the statement answers with the rows it inserted.
    pub returning: Option<Box<Returning>>,
    /// Through a view: the view catalog's change count it was planned with.
    pub view_version: Option<u64>,
    /// Through a view `WITH CHECK OPTION`: its WHERE over the base row, and its name.
    pub view_check: Option<Box<(Expr, String)>>,
}

impl InsertPlan {
    /// INSERT … SELECT SQL_CALC_FOUND_ROWS: its query counts its rows before its LIMIT.
    pub fn count_found_rows(&mut self) {
        match &mut self.source {
            InsertSource::Select(p) => super::found_rows::count_select(p),
            InsertSource::Query(q) => super::found_rows::count_query(q),
            InsertSource::Values(_) => {}
        }
    }
}

/// INSERT … SELECT: FOUND_ROWS() is then the rows its query returned, unless it counted them
/// (SQL_CALC_FOUND_ROWS).
fn note_found_rows(env: &Env<'_>, rows: usize) {
    if env.found_rows.get().is_none() {
        env.found_rows.set(Some(rows as u64));
    }
}

pub struct UpdatePlan {
    pub table: TableRef,
    pub sets: Vec<(usize, Expr)>,
    pub filter: Option<Expr>,
    pub access: Access,
    pub order: Vec<(Expr, SortKey)>,
    pub limit: Option<Expr>,
    /// Subqueries of SET and WHERE; `filter` then holds only the conditions without one.
    pub subq: Option<Box<DmlSubqueries>>,
    /// Through a view: the view catalog's change count it was planned with.
    pub view_version: Option<u64>,
    /// Through a view `WITH CHECK OPTION`: its WHERE over the base row, and "db.view".
    pub view_check: Option<Box<(Expr, String)>>,
    /// `UPDATE IGNORE`: values are clamped with warnings whatever the sql_mode; a row that
    /// would break a unique key or a FOREIGN KEY is skipped silently, one that fails a CHECK
    /// (or a view's CHECK OPTION) with a warning.
    pub ignore: bool,
}

pub struct DeletePlan {
    pub table: TableRef,
    pub filter: Option<Expr>,
    pub access: Access,
    pub order: Vec<(Expr, SortKey)>,
    pub limit: Option<Expr>,
    /// Subqueries of WHERE; `filter` then holds only the conditions without one.
    pub subq: Option<Box<DmlSubqueries>>,
    /// RETURNING list (`returning.rs`): the statement answers with the rows it deleted.
    pub returning: Option<Box<Returning>>,
    /// Through a view: the view catalog's change count it was planned with.
    pub view_version: Option<u64>,
    /// `DELETE IGNORE`: a row a FOREIGN KEY keeps is skipped with warning 1451.
    pub ignore: bool,
}

/// Has a view an UPDATE / DELETE was planned through changed since?
pub fn view_moved(version: Option<u64>) -> bool {
    version.is_some_and(|v| v != super::ddl::view::view_changes())
}

/// What a DML statement reports in its OK packet (or, with RETURNING, the rows it answers).
pub struct DmlResult {
    pub affected: u64,
    pub last_insert_id: u64,
    pub info: Option<String>,
    pub returned: Option<(Vec<ColumnDefinition>, Vec<Vec<Value>>)>,
}

fn unsupported(what: &str) -> Error {
    Error::unsupported(what)
}

fn column_index(t: &TableRef, name: &ast::ObjectName) -> Result<usize> {
    scope_column_index(&t.scope, name)
}

fn scope_column_index(scope: &TableScope, name: &ast::ObjectName) -> Result<usize> {
    let parts: Vec<&str> = name
        .0
        .iter()
        .filter_map(|p| p.as_ident().map(|i| i.value.as_str()))
        .collect();
    let (qual, col) = match parts.as_slice() {
        [c] => (None, *c),
        [t, c] => (Some((None, *t)), *c),
        [d, t, c] => (Some((Some(*d), *t)), *c),
        _ => return Err(unsupported("this column name")),
    };
    if let Some((db, tb)) = qual {
        if !scope.matches(db, tb) {
            return Err(unknown_column(&name.to_string()));
        }
    }
    scope.column(col).ok_or_else(|| unknown_column(col))
}

/// An unknown-column error of `field list` reworded for another clause.
fn in_clause(e: Error, clause: &str) -> Error {
    match e.code() {
        ErrorCode::BadField => Error::new(
            ErrorCode::BadField,
            e.message().replace("'field list'", &format!("'{clause}'")),
        ),
        _ => e,
    }
}

fn unknown_column(name: &str) -> Error {
    Error::new(
        ErrorCode::BadField,
        format!("Unknown column '{name}' in 'field list'"),
    )
}

/// `col = expr` assignments; `col = DEFAULT` gives None.
/// `col = expr` assignments; `col = DEFAULT` gives None. `target` names the clause in the
/// 1054 of an unknown target column, as MariaDB does ('SET', 'INSERT INTO', 'UPDATE'); the
/// values are bound in the binder's own clause.
fn bind_assignments_opt(
    b: &mut Binder<'_>,
    t: &TableRef,
    list: &[ast::Assignment],
    target: &str,
) -> Result<Vec<(usize, Option<Expr>)>> {
    let mut out = Vec::with_capacity(list.len());
    for a in list {
        let ast::AssignmentTarget::ColumnName(name) = &a.target else {
            return Err(unsupported("tuple assignments"));
        };
        let col = column_index(t, name).map_err(|e| in_clause(e, target))?;
        if is_default_keyword(&a.value) {
            out.push((col, None));
        } else {
            out.push((col, Some(b.bind(&a.value)?.0)));
        }
    }
    Ok(out)
}

/// `col = expr` assignments, `col = DEFAULT` as the column's default value; `target` as in
/// [`bind_assignments_opt`].
pub(in crate::sql) fn bind_assignments(
    b: &mut Binder<'_>,
    t: &TableRef,
    list: &[ast::Assignment],
    target: &str,
) -> Result<Vec<(usize, Expr)>> {
    let env = b.env;
    bind_assignments_opt(b, t, list, target)?
        .into_iter()
        .map(|(c, e)| match e {
            Some(e) => Ok((c, e)),
            None => Ok((
                c,
                crate::sql::bind::column_default::default_value(env, &t.scope, &t.def.columns[c])?,
            )),
        })
        .collect()
}

fn bind_order(b: &mut Binder<'_>, order_by: &[ast::OrderByExpr]) -> Result<Vec<(Expr, SortKey)>> {
    bind_order_in(b, order_by, "order clause")
}

/// ORDER BY of UPDATE / DELETE (`clause` names it in errors: MariaDB's multi-table UPDATE says
/// 'ORDER BY'): each key bound, an ENUM / SET by its number.
pub(super) fn bind_order_in(
    b: &mut Binder<'_>,
    order_by: &[ast::OrderByExpr],
    clause: &'static str,
) -> Result<Vec<(Expr, SortKey)>> {
    b.clause = clause;
    let mut out = Vec::new();
    for (i, o) in order_by.iter().enumerate() {
        let (x, t) = crate::sql::bind::enum_as_number(b.bind(&o.expr)?);
        let coll = if t.class == Class::Str {
            t.collation
        } else {
            Collation::Binary
        };
        out.push((
            x,
            SortKey {
                col: i,
                desc: matches!(o.options.sort, Some(ast::OrderBySort::Desc)),
                coll,
            },
        ));
    }
    Ok(out)
}

fn bind_limit(b: &mut Binder<'_>, limit: &Option<ast::Expr>) -> Result<Option<Expr>> {
    let scope = b.scope.take();
    let r = match limit {
        Some(l) => Some(b.bind(l)?.0),
        None => None,
    };
    b.scope = scope;
    Ok(r)
}

fn single_target(from: &[ast::TableWithJoins], env: &Env<'_>, command: &str) -> Result<TableRef> {
    match select::single_table(from)? {
        Some((name, alias)) => {
            let (db, t) = plan::split_name(name, env.sess.db)?;
            plan::resolve_target(env, &db, &t, alias, command)
        }
        None => Err(Error::parse("", 1)),
    }
}

/// The table an UPDATE / DELETE changes, and the view it names if it names one
/// (`exec/view_dml.rs`).
fn target_or_view(
    from: &[ast::TableWithJoins],
    env: &Env<'_>,
    command: &str,
) -> Result<(TableRef, Option<ViewTarget>)> {
    if env.ctx.engine.has_views() {
        if let Some((name, alias)) = select::single_table(from)? {
            let (db, t) = plan::split_name(name, env.sess.db)?;
            if let Some((base, view)) = super::view_dml::resolve(env, &db, &t, alias, command)? {
                return Ok((base, Some(view)));
            }
        }
    }
    Ok((single_target(from, env, command)?, None))
}

/// UPDATE through a view: assignments to the view's columns, as base columns and values
/// over the base row.
fn view_assignments(
    b: &mut Binder<'_>,
    view: &ViewTarget,
    base: &TableRef,
    list: &[ast::Assignment],
) -> Result<Vec<(usize, Expr)>> {
    let mut out = Vec::with_capacity(list.len());
    for a in list {
        let ast::AssignmentTarget::ColumnName(name) = &a.target else {
            return Err(unsupported("tuple assignments"));
        };
        // MariaDB names the clause of a merged view's columns 'SET' (and its WHERE 'FROM').
        let j = scope_column_index(&view.scope, name).map_err(|e| in_clause(e, "SET"))?;
        let col = view.base_column(j, &view.scope.columns[j].name)?;
        let value = if is_default_keyword(&a.value) {
            crate::sql::bind::column_default::default_value(
                b.env,
                &base.scope,
                &base.def.columns[col],
            )?
        } else {
            b.clause = "SET";
            let mut x = b.bind(&a.value)?.0;
            view.rebase(&mut x);
            x
        };
        out.push((col, value));
    }
    Ok(out)
}

/// A statement's WHERE and ORDER BY through a view: over the base row, with the view's WHERE.
fn view_conditions(
    view: &Option<ViewTarget>,
    filter: Option<Expr>,
    order: &mut [(Expr, SortKey)],
) -> Option<Expr> {
    let Some(v) = view else { return filter };
    for (e, _) in order.iter_mut() {
        v.rebase(e);
    }
    let filter = filter.map(|mut f| {
        v.rebase(&mut f);
        f
    });
    match (v.filter.clone(), filter) {
        (Some(a), Some(b)) => Some(Expr::And(vec![a, b])),
        (a, b) => a.or(b),
    }
}

// ---------------------------------------------------------------------------------------------
// Binding

pub fn plan_insert(
    env: &Env<'_>,
    params: &[Location],
    ins: &ast::Insert,
    item_texts: &[String],
) -> Result<InsertPlan> {
    if ins.output.is_some() {
        return Err(unsupported("INSERT … OUTPUT"));
    }
    if ins.insert_alias.is_some() {
        return Err(unsupported("INSERT … AS alias"));
    }
    if ins.partitioned.is_some() {
        return Err(unsupported("partitions"));
    }
    let ast::TableObject::TableName(name) = &ins.table else {
        return Err(unsupported("INSERT into a table function"));
    };
    let (db, tname) = plan::split_name(name, env.sess.db)?;
    // REPLACE needs the INSERT privilege first, so MySQL names INSERT for both.
    let view_version = super::ddl::view::view_changes();
    let viewed = match env.ctx.engine.has_views() {
        true => super::view_dml::resolve(env, &db, &tname, None, "INSERT")?,
        false => None,
    };
    let (table, view) = match viewed {
        Some((base, v)) => (base, Some(v)),
        None => (
            plan::resolve_target(env, &db, &tname, None, "INSERT")?,
            None,
        ),
    };
    let view_version = view.as_ref().map(|_| view_version);
    if view.is_some() && ins.on.is_some() {
        return Err(unsupported(
            "INSERT … ON DUPLICATE KEY UPDATE through a view",
        ));
    }
    // Through a view, a column name is the view's (a base column, else 1471).
    let view_col = |name: &ast::ObjectName| -> Result<usize> {
        let v = view.as_ref().expect("through a view");
        let j = scope_column_index(&v.scope, name).map_err(|e| in_clause(e, "INSERT INTO"))?;
        v.base_column(j, &v.scope.columns[j].name)
            .map_err(|_| super::view_dml::not_insertable(&tname))
    };
    plan::read_privs::check_insert_extras(env, &db, &tname, ins)?;
    let kind = if ins.replace_into {
        InsertKind::Replace
    } else if ins.ignore {
        InsertKind::Ignore
    } else {
        InsertKind::Insert
    };
    let scope: &TableScope = &table.scope;
    let mark = env.subq.bound.borrow().len();
    let mut b = Binder::new(env, params, Some(scope));
    // MariaDB names the clause of a value 'VALUES', of a target column 'INSERT INTO'.
    b.clause = "VALUES";
    let (columns, source) = if !ins.assignments.is_empty() {
        let sets = match &view {
            None => bind_assignments_opt(&mut b, &table, &ins.assignments, "INSERT INTO")?,
            Some(_) => {
                let mut out = Vec::with_capacity(ins.assignments.len());
                for a in &ins.assignments {
                    let ast::AssignmentTarget::ColumnName(name) = &a.target else {
                        return Err(unsupported("tuple assignments"));
                    };
                    let col = view_col(name)?;
                    match is_default_keyword(&a.value) {
                        true => out.push((col, None)),
                        false => out.push((col, Some(b.bind(&a.value)?.0))),
                    }
                }
                out
            }
        };
        let cols = sets.iter().map(|(c, _)| *c).collect();
        let row = sets.into_iter().map(|(_, e)| e).collect();
        (cols, InsertSource::Values(vec![row]))
    } else {
        let all_rows_empty = matches!(
            ins.source.as_deref().map(|q| q.body.as_ref()),
            Some(ast::SetExpr::Values(v)) if v.rows.iter().all(|r| r.content.is_empty())
        );
        let cols: Vec<usize> = if ins.columns.is_empty() && all_rows_empty {
            // `INSERT INTO t () VALUES ()`: every column takes its default.
            Vec::new()
        } else if ins.columns.is_empty() {
            match &view {
                None => (0..table.def.columns.len()).collect(),
                Some(v) => (0..v.cols.len())
                    .map(|j| {
                        v.base_column(j, "")
                            .map_err(|_| super::view_dml::not_insertable(&tname))
                    })
                    .collect::<Result<_>>()?,
            }
        } else if view.is_some() {
            ins.columns.iter().map(&view_col).collect::<Result<_>>()?
        } else {
            ins.columns
                .iter()
                .map(|c| column_index(&table, c).map_err(|e| in_clause(e, "INSERT INTO")))
                .collect::<Result<_>>()?
        };
        let Some(q) = &ins.source else {
            return Err(Error::parse("", 1));
        };
        let source = match q.body.as_ref() {
            ast::SetExpr::Values(v) => {
                InsertSource::Values(bind_values_rows(&mut b, &v.rows, cols.len())?)
            }
            _ if !super::query::is_plain_select(q) => {
                let qp = super::query::plan_query(env, params, q, &[], None)?;
                if qp.columns.len() != cols.len() {
                    return Err(count_mismatch(1));
                }
                InsertSource::Query(Box::new(qp))
            }
            ast::SetExpr::Select(_) => {
                let sp = select::plan_select(env, params, q, &[], None)?;
                if sp.items.len() != cols.len() {
                    return Err(count_mismatch(1));
                }
                InsertSource::Select(Box::new(sp))
            }
            _ => return Err(unsupported("this INSERT source")),
        };
        (cols, source)
    };
    check_duplicate_columns(&table, &columns)?;
    let on_dup = match &ins.on {
        None => Vec::new(),
        Some(ast::OnInsert::DuplicateKeyUpdate(list)) => {
            b.values_fn = true;
            // MariaDB: 'SELECT' after VALUES, 'UPDATE' after a SELECT.
            b.clause = match &source {
                InsertSource::Values(_) => "field list",
                _ => "UPDATE",
            };
            bind_assignments(&mut b, &table, list, "UPDATE")?
        }
        Some(_) => return Err(unsupported("ON CONFLICT")),
    };
    let subq = DmlSubqueries::claim(env, mark, &mut None);
    let returning = match &ins.returning {
        Some(list) => Some(Returning::bind(env, params, &table, list, item_texts)?),
        None => None,
    };
    let view_check = view.and_then(|v| match (v.filter, v.check) {
        (Some(f), Some(name)) => Some(Box::new((f, name))),
        _ => None,
    });
    Ok(InsertPlan {
        table,
        kind,
        columns,
        source,
        on_dup,
        subq,
        returning,
        view_version,
        view_check,
    })
}

fn count_mismatch(row: usize) -> Error {
    Error::new(
        ErrorCode::WrongValueCountOnRow,
        format!("Column count doesn't match value count at row {row}"),
    )
}

fn check_duplicate_columns(t: &TableRef, cols: &[usize]) -> Result<()> {
    for (i, c) in cols.iter().enumerate() {
        if cols[..i].contains(c) {
            return Err(Error::new(
                ErrorCode::FieldSpecifiedTwice,
                format!("Column '{}' specified twice", t.def.columns[*c].name),
            ));
        }
    }
    Ok(())
}

fn is_default_keyword(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Identifier(id) if id.quote_style.is_none() && id.value.eq_ignore_ascii_case("DEFAULT"))
}

fn bind_values_rows(
    b: &mut Binder<'_>,
    rows: &[ast::Parens<Vec<ast::Expr>>],
    ncols: usize,
) -> Result<Vec<Vec<Option<Expr>>>> {
    let mut out = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let row = &row.content;
        if row.len() != ncols && !(row.is_empty() && ncols == 0) {
            return Err(count_mismatch(i + 1));
        }
        let mut vals = Vec::with_capacity(row.len());
        for e in row {
            if is_default_keyword(e) {
                vals.push(None);
            } else {
                vals.push(Some(bind_value_expr(b, e)?));
            }
        }
        out.push(vals);
    }
    Ok(out)
}

/// Literal values are the common case (bulk inserts): skip the general binder for them.
fn bind_value_expr(b: &mut Binder<'_>, e: &ast::Expr) -> Result<Expr> {
    if let ast::Expr::Value(v) = e {
        match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                return Ok(Expr::Lit(Value::str(s)))
            }
            ast::Value::Number(n, _) => {
                if let Ok(i) = n.parse::<i64>() {
                    return Ok(Expr::Lit(Value::Int(i)));
                }
            }
            ast::Value::Null => return Ok(Expr::Lit(Value::Null)),
            _ => {}
        }
    }
    Ok(b.bind(e)?.0)
}

/// Bind with subqueries refused (ORDER BY / LIMIT of UPDATE and DELETE).
/// The rows a single-table UPDATE or DELETE changes: its WHERE (with a view's own
/// condition), ORDER BY and LIMIT, and the subqueries its condition claims.
struct Selection {
    filter: Option<Expr>,
    order: Vec<(Expr, SortKey)>,
    limit: Option<Expr>,
    subq: Option<Box<DmlSubqueries>>,
}

fn bind_selection(
    env: &Env<'_>,
    b: &mut Binder<'_>,
    mark: usize,
    view: &Option<ViewTarget>,
    selection: &Option<ast::Expr>,
    order_by: &[ast::OrderByExpr],
    limit: &Option<ast::Expr>,
) -> Result<Selection> {
    b.clause = if view.is_some() {
        "FROM"
    } else {
        "where clause"
    };
    let filter = match selection {
        Some(w) => Some(b.bind_condition(w)?),
        None => None,
    };
    let (mut order, limit) = without_subqueries(env, || {
        Ok((bind_order(b, order_by)?, bind_limit(b, limit)?))
    })?;
    let mut filter = view_conditions(view, filter, &mut order);
    let subq = claim_subqueries(env, mark, &mut filter, &order, &limit)?;
    Ok(Selection {
        filter,
        order,
        limit,
        subq,
    })
}

fn without_subqueries<T>(env: &Env<'_>, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let allowed = env.subq.allowed.replace(false);
    let r = f();
    env.subq.allowed.set(allowed);
    r
}

/// The subqueries of an UPDATE / DELETE (see [`DmlSubqueries::claim`]); a condition with one
/// is not combined with ORDER BY / LIMIT.
fn claim_subqueries(
    env: &Env<'_>,
    mark: usize,
    filter: &mut Option<Expr>,
    order: &[(Expr, SortKey)],
    limit: &Option<Expr>,
) -> Result<Option<Box<DmlSubqueries>>> {
    let subq = DmlSubqueries::claim(env, mark, filter);
    if subq.as_ref().is_some_and(|s| s.post.is_some()) && (!order.is_empty() || limit.is_some()) {
        return Err(unsupported("ORDER BY or LIMIT with a subquery in WHERE"));
    }
    Ok(subq)
}

pub fn plan_update(env: &Env<'_>, params: &[Location], u: &ast::Update) -> Result<UpdatePlan> {
    if u.from.is_some() {
        return Err(unsupported("multi-table UPDATE"));
    }
    if u.returning.is_some() || u.output.is_some() {
        return Err(unsupported("UPDATE … RETURNING"));
    }
    let view_version = super::ddl::view::view_changes();
    let (table, view) = target_or_view(std::slice::from_ref(&u.table), env, "UPDATE")?;
    let view_version = view.as_ref().map(|_| view_version);
    let mark = env.subq.bound.borrow().len();
    let mut b = Binder::new(env, params, None);
    let scope = match &view {
        Some(v) => v.scope.clone(),
        None => table.scope.clone(),
    };
    b.scope = Some(&scope);
    b.clause = "SET";
    let sets = match &view {
        Some(v) => view_assignments(&mut b, v, &table, &u.assignments)?,
        None => bind_assignments(&mut b, &table, &u.assignments, "SET")?,
    };
    let Selection {
        filter,
        order,
        limit,
        subq,
    } = bind_selection(
        env,
        &mut b,
        mark,
        &view,
        &u.selection,
        &u.order_by,
        &u.limit,
    )?;
    let reads = u.assignments.iter().map(|a| &a.value);
    let reads = reads
        .chain(&u.selection)
        .chain(u.order_by.iter().map(|o| &o.expr));
    plan::read_privs::check_column_reads(env, &table.db, &table.def.name, reads)?;
    if view.is_some() && subq.is_some() {
        return Err(unsupported("subqueries in UPDATE through a view"));
    }
    let access = plan::choose_access(&table.def, filter.as_ref());
    let view_check = view.and_then(|v| match (v.filter, v.check) {
        (Some(f), Some(name)) => Some(Box::new((f, name))),
        _ => None,
    });
    Ok(UpdatePlan {
        table,
        sets,
        filter,
        access,
        order,
        limit,
        subq,
        view_version,
        view_check,
        ignore: false,
    })
}

pub fn plan_delete(
    env: &Env<'_>,
    params: &[Location],
    d: &ast::Delete,
    item_texts: &[String],
) -> Result<DeletePlan> {
    if !d.tables.is_empty() || d.using.is_some() {
        return Err(unsupported("multi-table DELETE"));
    }
    if d.output.is_some() {
        return Err(unsupported("DELETE … OUTPUT"));
    }
    let from = match &d.from {
        ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
    };
    let view_version = super::ddl::view::view_changes();
    let (table, view) = target_or_view(from, env, "DELETE")?;
    let view_version = view.as_ref().map(|_| view_version);
    let scope = match &view {
        Some(v) => v.scope.clone(),
        None => table.scope.clone(),
    };
    let mark = env.subq.bound.borrow().len();
    let mut b = Binder::new(env, params, Some(&scope));
    let Selection {
        filter,
        order,
        limit,
        subq,
    } = bind_selection(
        env,
        &mut b,
        mark,
        &view,
        &d.selection,
        &d.order_by,
        &d.limit,
    )?;
    let reads = d.selection.iter().chain(d.order_by.iter().map(|o| &o.expr));
    plan::read_privs::check_column_reads(env, &table.db, &table.def.name, reads)?;
    if view.is_some() && subq.is_some() {
        return Err(unsupported("subqueries in DELETE through a view"));
    }
    let access = plan::choose_access(&table.def, filter.as_ref());
    let returning = match &d.returning {
        Some(list) => Some(Returning::bind(env, params, &table, list, item_texts)?),
        None => None,
    };
    Ok(DeletePlan {
        table,
        filter,
        access,
        order,
        limit,
        subq,
        returning,
        view_version,
        ignore: false,
    })
}

// ---------------------------------------------------------------------------------------------
// INSERT execution

/// One row's AUTO_INCREMENT value: generated by the statement, or given (not 0 or NULL).
#[derive(Clone, Copy, Debug, Default)]
struct RowAi {
    generated: Option<u64>,
    given: Option<u64>,
}

/// Per-statement INSERT state.
struct InsertRun<'p, 'e> {
    plan: &'p InsertPlan,
    env: &'e Env<'e>,
    /// INSERT IGNORE: conversion problems are warnings whatever the sql_mode.
    ignore: bool,
    /// More than one row: NULL into NOT NULL becomes a warning in non-strict mode.
    multi_row: bool,
    /// The first AUTO_INCREMENT value generated for a row that was then inserted.
    first_generated: Option<u64>,
    /// The last AUTO_INCREMENT value given explicitly for a row that was then inserted.
    last_ai: Option<u64>,
    /// ON DUPLICATE KEY UPDATE: the AUTO_INCREMENT value of the last row it changed.
    updated_ai: Option<u64>,
    /// A value generated for a row that was not inserted (a duplicate): the next row of the
    /// statement takes it, as MariaDB does, rather than a new one.
    spare_ai: Option<u64>,
    /// INSERT … VALUES of several rows: how many. The first generated value reserves one for
    /// each row left, as InnoDB does; `ai_block` is what is left of it (next, end).
    values_rows: u64,
    ai_block: Option<(u64, u64)>,
    /// Each built row's AUTO_INCREMENT value, generated or given, until it is written
    /// (`fill_auto_increment` pushes one per row, `insert_row` takes it).
    row_ai: std::collections::VecDeque<RowAi>,
    /// The row being written.
    current_ai: RowAi,
    affected: u64,
    duplicates: u64,
    records: u64,
    /// FOREIGN KEY work for the target table (`fk.rs`).
    fk: super::fk::FkWork,
    /// Its CHECK constraints (`check.rs`), if any are enforced.
    checks: Option<super::check::Checks>,
    /// Its generated columns (`gencol.rs`), if it has any.
    gen: Option<super::gencol::Generated>,
    /// Its expression defaults (`default_expr.rs`), if it has any.
    defaults: Option<super::default_expr::Defaults>,
    /// The RETURNING rows so far (with a RETURNING list).
    returned: Vec<Vec<Value>>,
}

impl<'p, 'e> InsertRun<'p, 'e> {
    /// The state of a statement writing into `plan`'s table; `replaces`: rows may be replaced
    /// or updated (REPLACE, ON DUPLICATE KEY UPDATE: foreign-key work for deletes too).
    fn new(
        plan: &'p InsertPlan,
        env: &'e Env<'e>,
        replaces: bool,
        ignore: bool,
    ) -> Result<InsertRun<'p, 'e>> {
        let (db, def) = (&plan.table.db, &plan.table.def);
        Ok(InsertRun {
            plan,
            env,
            fk: super::fk::FkWork::of(env, &plan.table.table, def, replaces),
            checks: super::check::Checks::of(env, db, def)?,
            gen: super::gencol::Generated::of(env, db, def)?,
            defaults: super::default_expr::Defaults::of(env, db, def)?,
            ignore,
            multi_row: false,
            first_generated: None,
            last_ai: None,
            updated_ai: None,
            spare_ai: None,
            values_rows: 0,
            ai_block: None,
            row_ai: Default::default(),
            current_ai: RowAi::default(),
            affected: 0,
            duplicates: 0,
            records: 0,
            returned: Vec::new(),
        })
    }
}

pub fn run_insert(plan: &InsertPlan, env: &Env<'_>, txn: &mut Txn) -> Result<DmlResult> {
    if txn.is_read_only() {
        return Err(crate::storage::read_only_error());
    }
    let mut run = InsertRun::new(
        plan,
        env,
        plan.kind == InsertKind::Replace || !plan.on_dup.is_empty(),
        plan.kind == InsertKind::Ignore,
    )?;
    let with_info = match &plan.source {
        InsertSource::Values(rows) => {
            run.multi_row = rows.len() > 1;
            run.values_rows = rows.len() as u64;
            if let Some(sq) = &plan.subq {
                for db in sq.databases() {
                    plan::check_db_access(env, db)?;
                }
            }
            let sub_lock = plan.subq.as_ref().map(|_| dml_lock(txn.isolation(), true));
            env.subq.lock.set(sub_lock);
            match sub_lock {
                None => {
                    for (i, vals) in rows.iter().enumerate() {
                        let vals = vals.iter().map(|v| v.as_ref().map(Source::Expr));
                        let row = run.build_row(vals, i as u64 + 1, None)?;
                        run.insert_row(txn, row)?;
                    }
                }
                // With subqueries every row is computed before the first is inserted: a
                // subquery reading the table sees it as the statement found it (MariaDB).
                Some(lock) => {
                    let lender = Lender::new(Some(&mut *txn), lock);
                    let mut built = Vec::with_capacity(rows.len());
                    for (i, vals) in rows.iter().enumerate() {
                        let vals = vals.iter().map(|v| v.as_ref().map(Source::Expr));
                        built.push(run.build_row(vals, i as u64 + 1, Some(&lender))?);
                    }
                    for row in built {
                        run.insert_row(txn, row)?;
                    }
                }
            }
            rows.len() > 1
        }
        InsertSource::Select(sp) => {
            run.multi_row = true;
            let lock = if sp.lock.mode == LockMode::None
                && txn.isolation() >= IsolationLevel::RepeatableRead
            {
                ReadLock::new(LockMode::Shared, WaitPolicy::Wait)
            } else {
                sp.lock
            };
            let before = env.warnings.borrow().len();
            env.subq.lock.set(Some(dml_lock(txn.isolation(), false)));
            let rows = select::run_select_locking(sp, env, Some(txn), lock)?;
            note_found_rows(env, rows.len());
            if run.strictness().get() {
                super::strict_values::check_since(env, before)?;
            }
            run.insert_values(txn, rows)?;
            true
        }
        InsertSource::Query(qp) => {
            // The source is read whole (with the statement's read view) before any row is
            // written, so the statement never reads its own inserts.
            run.multi_row = true;
            let mut rows = super::query::run_query(qp, env, Some(txn))?;
            note_found_rows(env, rows.len());
            convert::fit_decimal_columns(&qp.columns, &mut rows);
            run.insert_values(txn, rows)?;
            true
        }
    };
    if let Some(id) = run.first_generated {
        env.last_insert_id_set
            .set(Some(env.last_insert_id_set.get().unwrap_or(id)));
    }
    let last_insert_id = match env.last_insert_id_set.get() {
        Some(id) => id,
        // The OK packet's id: the first generated value inserted, else the last given one,
        // else the changed row's (MariaDB; LAST_INSERT_ID() moves with generated values only).
        None => run
            .first_generated
            .or(run.last_ai)
            .or(run.updated_ai)
            .unwrap_or(0),
    };
    let info = with_info.then(|| {
        format!(
            "Records: {}  Duplicates: {}  Warnings: {}",
            run.records,
            run.duplicates,
            env.warnings.borrow().len()
        )
    });
    let returned = plan
        .returning
        .as_ref()
        .map(|r| (r.columns.clone(), std::mem::take(&mut run.returned)));
    Ok(DmlResult {
        affected: run.affected,
        last_insert_id,
        info,
        returned,
    })
}

/// Where one provided value comes from.
enum Source<'a> {
    Expr(&'a Expr),
    Value(Value),
}

impl<'e> InsertRun<'_, 'e> {
    fn strictness(&self) -> Strict<'e> {
        if self.ignore {
            Strict::Ignore(self.env)
        } else {
            Strict::Mode(self.env)
        }
    }

    fn store_ctx(&self, row: u64) -> StoreCtx<'_> {
        StoreCtx {
            strict: self.strictness(),
            row,
            warnings: &self.env.warnings,
            zone: self.env.zone(),
            table: Some((&self.plan.table.db, &self.plan.table.def.name)),
        }
    }

    /// Build a full row from the provided values (None = DEFAULT) and the column defaults.
    /// Insert rows of plain values read from a query (INSERT … SELECT), numbered from 1.
    fn insert_values(&mut self, txn: &mut Txn, rows: Vec<Vec<Value>>) -> Result<()> {
        for (i, vals) in rows.into_iter().enumerate() {
            let row = self.build_row(
                vals.into_iter().map(|v| Some(Source::Value(v))),
                i as u64 + 1,
                None,
            )?;
            self.insert_row(txn, row)?;
        }
        Ok(())
    }

    fn build_row<'s>(
        &mut self,
        vals: impl Iterator<Item = Option<Source<'s>>>,
        row_no: u64,
        host: Option<&dyn Host>,
    ) -> Result<Vec<Value>> {
        let def = &self.plan.table.def;
        let mut row: Vec<Value> = Vec::with_capacity(def.columns.len());
        let mut provided = vec![false; def.columns.len()];
        for col in &def.columns {
            row.push(self.default_value(col)?);
        }
        for (&c, v) in self.plan.columns.iter().zip(vals) {
            let Some(src) = v else {
                continue;
            };
            if let Some(g) = self.gen.as_ref().filter(|g| g.is_generated(c)) {
                let null = match &src {
                    Source::Expr(e) => matches!(e, Expr::Lit(Value::Null)),
                    Source::Value(v) => v.is_null(),
                };
                g.given(self.env, def, c, null, self.strictness().get())?;
                continue;
            }
            let v = match src {
                Source::Expr(e) => super::strict_values::eval(
                    e,
                    &RowCtx::hosted(&row, host),
                    self.env,
                    self.strictness().get(),
                )?,
                Source::Value(v) => v,
            };
            let col = &def.columns[c];
            let v = convert::store_value(v, col, &self.store_ctx(row_no))?;
            row[c] = v;
            provided[c] = true;
        }
        // The given values as stored (a NULL into NOT NULL made the type's implicit value, with
        // IGNORE or in a non-strict multi-row statement) are what expression defaults read,
        // as in MariaDB; then the defaults' own values are checked.
        let pending = |c: usize, provided: &[bool]| {
            !provided[c] && matches!(def.columns[c].default, ColumnDefault::Expr(_))
        };
        self.settle_nulls(&mut row, &provided, row_no, |c| pending(c, &provided))?;
        if let Some(d) = &self.defaults {
            let before = provided.clone();
            d.fill(
                self.env,
                def,
                &mut row,
                &mut provided,
                &self.store_ctx(row_no),
            )?;
            self.settle_nulls(&mut row, &provided, row_no, |c| !pending(c, &before))?;
        }
        self.fill_auto_increment(&mut row, row_no)?;
        if let Some(g) = &self.gen {
            g.fill(self.env, def, &mut row, &self.store_ctx(row_no))?;
        }
        Ok(row)
    }

    /// NULLs in NOT NULL columns (other than AUTO_INCREMENT and those `skip` names) become
    /// errors, or warnings and the type's implicit value (`null_into_not_null`).
    fn settle_nulls(
        &self,
        row: &mut [Value],
        provided: &[bool],
        row_no: u64,
        skip: impl Fn(usize) -> bool,
    ) -> Result<()> {
        let def = &self.plan.table.def;
        for (c, col) in def.columns.iter().enumerate() {
            if col.auto_increment || skip(c) {
                continue;
            }
            if row[c].is_null() && !col.nullable {
                row[c] = self.null_into_not_null(col, provided[c], row_no)?;
            }
        }
        Ok(())
    }

    fn default_value(&self, col: &ColumnDef) -> Result<Value> {
        Ok(match &col.default {
            ColumnDefault::Value(v) => v.clone(),
            ColumnDefault::CurrentTimestamp => current_timestamp(col, self.env),
            // Computed once the given values are in place (`default_expr.rs`).
            ColumnDefault::Expr(_) => Value::Null,
            // A NOT NULL ENUM without DEFAULT takes its first member (MariaDB), even in strict
            // mode.
            ColumnDefault::None if !col.nullable => {
                convert::enum_first_member(&col.data_type).unwrap_or(Value::Null)
            }
            ColumnDefault::None => Value::Null,
        })
    }

    /// A NULL (explicit, or a column without default) for a NOT NULL column.
    fn null_into_not_null(&self, col: &ColumnDef, provided: bool, row_no: u64) -> Result<Value> {
        if !provided {
            if self.strictness().get() {
                return Err(Error::new(
                    ErrorCode::NoDefaultForField,
                    format!("Field '{}' doesn't have a default value", col.name),
                ));
            }
            self.env.warn(
                "Warning",
                ErrorCode::NoDefaultForField,
                format!("Field '{}' doesn't have a default value", col.name),
            );
            return Ok(convert::implicit_default(&col.data_type));
        }
        let msg = format!("Column '{}' cannot be null", col.name);
        // One row without IGNORE fails whatever the sql_mode; IGNORE makes it a warning (the
        // type's implicit value is stored), as MariaDB does.
        if !self.ignore && (self.strictness().get() || !self.multi_row) {
            return Err(Error::new(ErrorCode::BadNull, msg));
        }
        self.env.warn("Warning", ErrorCode::BadNull, msg);
        let _ = row_no;
        Ok(convert::implicit_default(&col.data_type))
    }

    fn fill_auto_increment(&mut self, row: &mut [Value], row_no: u64) -> Result<()> {
        let Some(ai) = self.plan.table.def.auto_increment_column() else {
            return Ok(());
        };
        let table = &self.plan.table.table;
        let v = &row[ai];
        let given = match v {
            Value::Null => None,
            other => {
                let n = convert::to_num(other).to_i128();
                // 0 asks for a generated value unless sql_mode has NO_AUTO_VALUE_ON_ZERO
                // (mariadb-dump sets it, so a row whose id is 0 restores as 0).
                if n == 0 && !self.env.sql_mode().contains("NO_AUTO_VALUE_ON_ZERO") {
                    None
                } else {
                    Some(n)
                }
            }
        };
        match given {
            None => {
                let col = &self.plan.table.def.columns[ai];
                let reserve = |n: u64| {
                    table.reserve_auto_increment_block(n).ok_or_else(|| {
                        Error::new(
                            ErrorCode::AutoincReadFailed,
                            "Failed to read auto-increment value from storage engine",
                        )
                    })
                };
                let id = match (self.spare_ai.take(), self.ai_block) {
                    (Some(id), _) => id,
                    (None, Some((next, end))) if next < end => {
                        self.ai_block = Some((next + 1, end));
                        next
                    }
                    (None, _) if self.values_rows > 1 => {
                        let left = self.values_rows.saturating_sub(row_no - 1).max(1);
                        let first = reserve(left)?;
                        self.ai_block = Some((first + 1, first.saturating_add(left)));
                        first
                    }
                    (None, _) => reserve(1)?,
                };
                if id > auto_increment_max(&col.data_type) {
                    return Err(Error::new(
                        ErrorCode::AutoincErange,
                        format!(
                            "Out of range value for column '{}' at row {row_no}",
                            col.name
                        ),
                    ));
                }
                row[ai] = convert::store_value(Value::UInt(id), col, &self.store_ctx(row_no))?;
                self.row_ai.push_back(RowAi {
                    generated: Some(id),
                    given: None,
                });
            }
            Some(n) => {
                let given = (n > 0).then(|| u64::try_from(n).unwrap_or(u64::MAX));
                if let Some(v) = given {
                    table.observe_auto_increment(v);
                    // Later generated values come after it (MariaDB): the block is left.
                    if self.ai_block.is_some_and(|(next, _)| v >= next) {
                        self.ai_block = None;
                    }
                    if self.spare_ai.is_some_and(|spare| v >= spare) {
                        self.spare_ai = None;
                    }
                }
                self.row_ai.push_back(RowAi {
                    generated: None,
                    given,
                });
            }
        }
        Ok(())
    }

    fn insert_row(&mut self, txn: &mut Txn, row: Vec<Value>) -> Result<()> {
        self.current_ai = self.row_ai.pop_front().unwrap_or_default();
        let r = self.write_row(txn, row);
        // Not inserted (a duplicate skipped or updated): its generated value goes to the next row.
        if let Some(id) = self.current_ai.generated.take() {
            self.spare_ai = Some(id);
        }
        r
    }

    fn write_row(&mut self, txn: &mut Txn, row: Vec<Value>) -> Result<()> {
        self.records += 1;
        crate::sched::admission::spend_ticket();
        if let Some(c) = &self.checks {
            c.check(self.env, &row)?;
        }
        if let Some(check) = &self.plan.view_check {
            super::view_dml::check_row(check, &row, self.env)?;
        }
        let table = &self.plan.table.table;
        if !self.plan.on_dup.is_empty() {
            return self.insert_or_update(txn, row);
        }
        match self.plan.kind {
            InsertKind::Replace => self.replace(txn, row),
            _ => {
                let kept = (!self.fk.none()).then(|| row.clone());
                let ret = self.plan.returning.as_ref().map(|r| r.row(&row, self.env));
                // INSERT IGNORE: a row without its parent is skipped with a warning (1452).
                let sp =
                    (kept.is_some() && self.ignore).then(|| self.env.ctx.engine.savepoint(txn));
                match table.insert_with(txn, row, LockMode::Shared)? {
                    InsertOutcome::Inserted(_) => {
                        self.affected += 1;
                        self.inserted();
                        let before = self.affected;
                        if let Some(row) = kept {
                            match self.fk.after_insert(self.env, txn, table, &row) {
                                Err(e)
                                    if e.code() == ErrorCode::NoReferencedRow2 && sp.is_some() =>
                                {
                                    let sp = sp.expect("IGNORE savepoint");
                                    self.env.ctx.engine.rollback_to_savepoint(txn, sp);
                                    self.env.warn("Warning", e.code(), e.message());
                                    self.affected -= 1;
                                    // MariaDB counts the skipped row as a duplicate.
                                    self.duplicates += 1;
                                }
                                other => other?,
                            }
                        }
                        if let (Some(r), true) = (ret, self.affected == before) {
                            self.returned.push(r?);
                        }
                        Ok(())
                    }
                    InsertOutcome::Duplicate {
                        index, attempted, ..
                    } => {
                        let e = dup_entry_error(table, index, &attempted, self.env);
                        if self.plan.kind == InsertKind::Ignore {
                            self.env.warn("Warning", e.code(), e.message());
                            self.duplicates += 1;
                            return Ok(());
                        }
                        Err(e)
                    }
                }
            }
        }
    }

    /// The current row was inserted: its AUTO_INCREMENT value counts for LAST_INSERT_ID() and
    /// the OK packet.
    fn inserted(&mut self) {
        let ai = std::mem::take(&mut self.current_ai);
        if let Some(id) = ai.generated {
            self.first_generated.get_or_insert(id);
        }
        if ai.given.is_some() {
            self.last_ai = ai.given;
        }
    }

    fn replace(&mut self, txn: &mut Txn, row: Vec<Value>) -> Result<()> {
        let table = &self.plan.table.table;
        let mut replaced = false;
        for _ in 0..1000 {
            match table.insert_with(txn, row.clone(), LockMode::Exclusive)? {
                InsertOutcome::Inserted(_) => {
                    self.affected += 1;
                    self.inserted();
                    if !self.fk.none() {
                        self.fk.after_insert(self.env, txn, table, &row)?;
                    }
                    if let Some(r) = &self.plan.returning {
                        self.returned.push(r.row(&row, self.env)?);
                    }
                    return Ok(());
                }
                InsertOutcome::Duplicate {
                    handle, row: old, ..
                } => {
                    table.delete(txn, &handle)?;
                    if !self.fk.none() {
                        self.fk.after_delete(self.env, txn, table, &old)?;
                    }
                    self.affected += 1;
                    if !replaced {
                        self.duplicates += 1;
                        replaced = true;
                    }
                }
            }
        }
        Err(Error::internal("REPLACE did not converge"))
    }

    fn insert_or_update(&mut self, txn: &mut Txn, row: Vec<Value>) -> Result<()> {
        let table = &self.plan.table.table;
        let proposed = row.clone();
        let (handle, existing) = match table.insert_with(txn, row, LockMode::Exclusive)? {
            InsertOutcome::Inserted(_) => {
                self.affected += 1;
                self.inserted();
                if !self.fk.none() {
                    self.fk.after_insert(self.env, txn, table, &proposed)?;
                }
                // RETURNING answers with the row inserted or, below, the row as updated.
                if let Some(r) = &self.plan.returning {
                    self.returned.push(r.row(&proposed, self.env)?);
                }
                return Ok(());
            }
            InsertOutcome::Duplicate { handle, row, .. } => (handle, row),
        };
        self.duplicates += 1;
        let def = &self.plan.table.def;
        let mut new = existing.to_vec();
        // Subqueries of the assignments run on the transaction, lent for the evaluation.
        let lend = self.plan.subq.is_some()
            && self
                .plan
                .on_dup
                .iter()
                .any(|(_, e)| super::subquery::has_subquery(e));
        let lock = self
            .env
            .subq
            .lock
            .get()
            .unwrap_or_else(|| dml_lock(txn.isolation(), true));
        let lender = lend.then(|| Lender::new(Some(&mut *txn), lock));
        let host: Option<&dyn Host> = lender.as_ref().map(|l| l as &dyn Host);
        for (c, e) in &self.plan.on_dup {
            let rc = RowCtx {
                row: &new,
                new: &proposed,
                aggs: &[],
                host,
            };
            let v = super::strict_values::eval(e, &rc, self.env, self.strictness().get())?;
            if let Some(g) = self.gen.as_ref().filter(|g| g.is_generated(*c)) {
                g.given(
                    self.env,
                    def,
                    *c,
                    matches!(e, Expr::Lit(Value::Null)),
                    self.strictness().get(),
                )?;
                continue;
            }
            let col = &def.columns[*c];
            let mut v = convert::store_value(v, col, &self.store_ctx(self.records))?;
            if v.is_null() && !col.nullable {
                v = self.null_into_not_null(col, true, self.records)?;
            }
            new[*c] = v;
        }
        if new[..] == existing[..] {
            // CLIENT_FOUND_ROWS: the row was found, so it counts once (MariaDB).
            self.affected += u64::from(self.env.sess.found_rows);
            if let Some(r) = &self.plan.returning {
                self.returned.push(r.row(&new, self.env)?);
            }
            return Ok(());
        }
        touch_on_update(def, &self.plan.on_dup, &mut new, self.env);
        if let Some(g) = &self.gen {
            g.fill(self.env, def, &mut new, &self.store_ctx(self.records))?;
        }
        if let Some(c) = &self.checks {
            c.check(self.env, &new)?;
        }
        if let Some(ai) = def.auto_increment_column() {
            let n = convert::to_num(&new[ai]).to_i128();
            if n > 0 {
                table.observe_auto_increment(u64::try_from(n).unwrap_or(u64::MAX));
            }
        }
        match table.update(txn, &handle, new.clone())? {
            InsertOutcome::Inserted(_) => {
                self.affected += 2;
                if let Some(ai) = def.auto_increment_column() {
                    let n = convert::to_num(&new[ai]).to_i128();
                    let id = u64::try_from(n).unwrap_or(0);
                    self.updated_ai = (id > 0).then_some(id).or(self.updated_ai);
                }
                if !self.fk.none() {
                    self.fk
                        .after_update(self.env, txn, table, &existing, &new)?;
                }
                if let Some(r) = &self.plan.returning {
                    self.returned.push(r.row(&new, self.env)?);
                }
                Ok(())
            }
            InsertOutcome::Duplicate {
                index, attempted, ..
            } => Err(dup_entry_error(table, index, &attempted, self.env)),
        }
    }
}

/// The largest value an AUTO_INCREMENT column of this type can be given; a larger generated
/// value is error 167, as in MySQL.
fn auto_increment_max(dt: &DataType) -> u64 {
    match dt {
        DataType::TinyInt {
            unsigned: false, ..
        } => i8::MAX as u64,
        DataType::TinyInt { unsigned: true, .. } => u8::MAX as u64,
        DataType::SmallInt {
            unsigned: false, ..
        } => i16::MAX as u64,
        DataType::SmallInt { unsigned: true, .. } => u16::MAX as u64,
        DataType::MediumInt {
            unsigned: false, ..
        } => (1 << 23) - 1,
        DataType::MediumInt { unsigned: true, .. } => (1 << 24) - 1,
        DataType::Int {
            unsigned: false, ..
        } => i32::MAX as u64,
        DataType::Int { unsigned: true, .. } => u32::MAX as u64,
        DataType::BigInt {
            unsigned: false, ..
        } => i64::MAX as u64,
        // FLOAT holds integers exactly up to 2^24, DOUBLE up to 2^53.
        DataType::Float { .. } => 1 << 24,
        DataType::Double { .. } => 1 << 53,
        _ => u64::MAX,
    }
}

/// Error 1062 for `row` (as stored) against `index` of `table`; a TIMESTAMP part of the key is
/// shown in the session's time zone, as MariaDB shows it.
pub(crate) fn dup_entry_error(
    table: &crate::storage::Table,
    index: Option<usize>,
    row: &[Value],
    env: &Env<'_>,
) -> crate::error::Error {
    let Some(z) = env.zone() else {
        return table.dup_entry_error(index, row);
    };
    let def = table.def();
    let local: Vec<Value> = row
        .iter()
        .zip(&def.columns)
        .map(|(v, c)| match (v, &c.data_type) {
            (Value::DateTime(dt), DataType::Timestamp { .. }) => Value::DateTime(z.to_local(dt)),
            _ => v.clone(),
        })
        .collect();
    table.dup_entry_error(index, &local)
}

/// The value of CURRENT_TIMESTAMP for a column (its type's precision), as stored: UTC for a
/// TIMESTAMP column, the session's local time for DATETIME and DATE.
pub(crate) fn current_timestamp(col: &ColumnDef, env: &Env<'_>) -> Value {
    let now = match col.data_type {
        DataType::Timestamp { .. } => env.now(),
        _ => env.local_now(),
    };
    match col.data_type {
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } => {
            let unit = 10u32.pow(6 - fsp.min(6) as u32);
            Value::DateTime(crate::types::DateTime {
                micros: now.micros / unit * unit,
                ..now
            })
        }
        DataType::Date => Value::Date(now.date),
        _ => Value::DateTime(now),
    }
}

/// `ON UPDATE CURRENT_TIMESTAMP` columns not assigned by the statement take the current time.
pub(super) fn touch_on_update(
    def: &crate::storage::TableDef,
    sets: &[(usize, Expr)],
    row: &mut [Value],
    env: &Env<'_>,
) {
    for (c, col) in def.columns.iter().enumerate() {
        if col.on_update_current_timestamp && !sets.iter().any(|(s, _)| *s == c) {
            row[c] = current_timestamp(col, env);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// UPDATE / DELETE execution

/// The rows an UPDATE / DELETE changes, X-locked, at their latest version, in the order to
/// process them: a locking read with WHERE as its filter (`semi_consistent` for UPDATE), then
/// ORDER BY and LIMIT.
#[allow(clippy::too_many_arguments)]
fn candidates(
    t: &TableRef,
    access: &Access,
    filter: &Option<Expr>,
    order: &[(Expr, SortKey)],
    limit: Option<u64>,
    semi_consistent: bool,
    env: &Env<'_>,
    txn: &mut Txn,
) -> Result<Vec<(RowHandle, Row)>> {
    let lock = ReadLock {
        mode: LockMode::Exclusive,
        wait: WaitPolicy::Wait,
        semi_consistent,
    };
    let mut pred = |row: &Row| match filter {
        Some(f) => f.is_true(&RowCtx::of(row), env),
        None => Ok(true),
    };
    let mut out = Vec::new();
    plan::scan(
        &t.table,
        access,
        txn,
        env,
        lock,
        false,
        &mut pred,
        &mut |h, row| {
            out.push((h.clone(), row.clone()));
            // Without ORDER BY, the read stops (and locks no more rows) at LIMIT.
            if order.is_empty() && limit.is_some_and(|l| out.len() as u64 >= l) {
                return Ok(ScanControl::Stop);
            }
            Ok(ScanControl::Continue)
        },
    )?;
    if !order.is_empty() {
        let mut keyed: Vec<(Vec<Value>, (RowHandle, Row))> = Vec::with_capacity(out.len());
        for c in out {
            let keys = order
                .iter()
                .map(|(e, _)| e.eval(&RowCtx::of(&c.1), env))
                .collect::<Result<Vec<_>>>()?;
            keyed.push((keys, c));
        }
        let sort: Vec<SortKey> = order.iter().map(|(_, k)| k.clone()).collect();
        keyed.sort_by(|a, b| {
            for k in &sort {
                let o = crate::sql::expr::compare::sort_cmp(&a.0[k.col], &b.0[k.col], k.coll);
                let o = if k.desc { o.reverse() } else { o };
                if o != std::cmp::Ordering::Equal {
                    return o;
                }
            }
            std::cmp::Ordering::Equal
        });
        out = keyed.into_iter().map(|(_, c)| c).collect();
    }
    if let Some(l) = limit {
        out.truncate(l.min(usize::MAX as u64) as usize);
    }
    Ok(out)
}

/// `sql_safe_updates = 1`: an UPDATE / DELETE that reads the whole table (no key in WHERE)
/// without LIMIT is refused with 1175, as MariaDB does; so is a DELETE without WHERE, LIMIT or
/// not (`whole`). Only such statements look the variable up.
fn check_safe_updates(
    access: &Access,
    limit: &Option<Expr>,
    whole: bool,
    env: &Env<'_>,
) -> Result<()> {
    if !whole && (limit.is_some() || !matches!(access, Access::FullScan)) {
        return Ok(());
    }
    let on = match env.sess.session_vars.get("sql_safe_updates") {
        Some(v) => *v == Value::str("ON"),
        None => env.ctx.vars.global_bool("sql_safe_updates"),
    };
    if on {
        return Err(Error::new(
            ErrorCode::UpdateWithoutKeyInSafeMode,
            "You are using safe update mode and you tried to update a table without a WHERE that uses a KEY column",
        ));
    }
    Ok(())
}

pub fn run_update(plan: &UpdatePlan, env: &Env<'_>, txn: &mut Txn) -> Result<DmlResult> {
    if txn.is_read_only() {
        return Err(crate::storage::read_only_error());
    }
    check_safe_updates(&plan.access, &plan.limit, false, env)?;
    let limit = eval_count(&plan.limit, env)?;
    let t = &plan.table;
    let txn_isolation = txn.isolation();
    let cands = candidates(
        t,
        &plan.access,
        &plan.filter,
        &plan.order,
        limit,
        true,
        env,
        txn,
    )?;
    let fk = super::fk::FkWork::of(env, &t.table, &t.def, true);
    let checks = super::check::Checks::of(env, &t.db, &t.def)?;
    let gen = super::gencol::Generated::of(env, &t.db, &t.def)?;
    let (mut matched, mut changed) = (0u64, 0u64);
    let apply = |h: RowHandle, latest: &[Value], new: Vec<Value>, txn: &mut Txn| -> Result<()> {
        if let Some(c) = &checks {
            c.check(env, &new)?;
        }
        let after = (!fk.none()).then(|| new.clone());
        match t.table.update(txn, &h, new)? {
            InsertOutcome::Inserted(_) => {
                if let Some(new) = after {
                    fk.after_update(env, txn, &t.table, latest, &new)?;
                }
            }
            InsertOutcome::Duplicate {
                index, attempted, ..
            } => {
                if let Some(new) = after {
                    fk.before_duplicate(env, txn, &t.table, latest, &new)?;
                }
                return Err(dup_entry_error(&t.table, index, &attempted, env));
            }
        }
        Ok(())
    };
    // UPDATE IGNORE: each row's change (with its cascades) is undone as a whole when it fails.
    let mut apply = |h: RowHandle, latest: &[Value], new: Vec<Value>, txn: &mut Txn| {
        if !plan.ignore {
            apply(h, latest, new, txn)?;
            changed += 1;
            return Ok(true);
        }
        let sp = env.ctx.engine.savepoint(txn);
        match apply(h, latest, new, txn) {
            Ok(()) => {
                changed += 1;
                Ok(true)
            }
            Err(e) => match ignored_update_error(&e, env) {
                Some(counted) => {
                    env.ctx.engine.rollback_to_savepoint(txn, sp);
                    Ok(counted)
                }
                None => Err(e),
            },
        }
    };
    match &plan.subq {
        None => {
            for (h, latest) in cands {
                matched += 1;
                match updated_row(plan, &latest, matched, env, None, gen.as_ref()) {
                    Ok(Some(new)) => {
                        if !apply(h, &latest, new, txn)? {
                            matched -= 1;
                        }
                    }
                    Ok(None) => {}
                    Err(e) if plan.ignore && ignored_update_error(&e, env) == Some(false) => {
                        matched -= 1;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Some(sq) => {
            // Every row's outcome first, then the changes (see `exec/subquery.rs`).
            for db in sq.databases() {
                plan::check_db_access(env, db)?;
            }
            let lock = dml_lock(txn_isolation, false);
            env.subq.lock.set(Some(lock));
            let lender = Lender::new(Some(&mut *txn), lock);
            let host: Option<&dyn Host> = Some(&lender);
            let mut todo = Vec::new();
            for (h, latest) in cands {
                if let Some(f) = &sq.post {
                    if !f.is_true(&RowCtx::hosted(&latest, host), env)? {
                        continue;
                    }
                }
                matched += 1;
                match updated_row(plan, &latest, matched, env, host, gen.as_ref()) {
                    Ok(Some(new)) => todo.push((h, latest, new)),
                    Ok(None) => {}
                    Err(e) if plan.ignore && ignored_update_error(&e, env) == Some(false) => {
                        matched -= 1;
                    }
                    Err(e) => return Err(e),
                }
            }
            for (h, latest, new) in todo {
                if !apply(h, &latest, new, txn)? {
                    matched -= 1;
                }
            }
        }
    }
    let info = format!(
        "Rows matched: {matched}  Changed: {changed}  Warnings: {}",
        env.warnings.borrow().len()
    );
    Ok(DmlResult {
        // CLIENT_FOUND_ROWS: the rows matched, changed or not.
        affected: if env.sess.found_rows {
            matched
        } else {
            changed
        },
        last_insert_id: env.last_insert_id_set.get().unwrap_or(0),
        info: Some(info),
        returned: None,
    })
}

/// UPDATE IGNORE: is `e` a row's failure that skips the row, and does the row still count
/// as matched? As MariaDB: a duplicate key or a FOREIGN KEY failure is skipped silently (the
/// row counted as matched); a CHECK or view CHECK OPTION failure becomes a warning and the
/// row is not counted.
fn ignored_update_error(e: &Error, env: &Env<'_>) -> Option<bool> {
    match e.code() {
        ErrorCode::DupEntry | ErrorCode::RowIsReferenced2 | ErrorCode::NoReferencedRow2 => {
            Some(true)
        }
        ErrorCode::ConstraintFailed | ErrorCode::ViewCheckFailed => {
            env.warn("Warning", e.code(), e.message());
            Some(false)
        }
        _ => None,
    }
}

/// The new version of a row an UPDATE matched (the `matched`-th), None if unchanged.
fn updated_row(
    plan: &UpdatePlan,
    latest: &[Value],
    matched: u64,
    env: &Env<'_>,
    host: Option<&dyn Host>,
    gen: Option<&super::gencol::Generated>,
) -> Result<Option<Vec<Value>>> {
    let t = &plan.table;
    let strict = match plan.ignore {
        true => Strict::Ignore(env),
        false => Strict::Mode(env),
    };
    {
        let mut new = latest.to_vec();
        for (c, e) in &plan.sets {
            let v = super::strict_values::eval(e, &RowCtx::hosted(&new, host), env, strict.get())?;
            if let Some(g) = gen.filter(|g| g.is_generated(*c)) {
                g.given(
                    env,
                    &t.def,
                    *c,
                    matches!(e, Expr::Lit(Value::Null)),
                    strict.get(),
                )?;
                continue;
            }
            let col = &t.def.columns[*c];
            let sc = StoreCtx {
                strict,
                row: matched,
                warnings: &env.warnings,
                zone: env.zone(),
                table: Some((&t.db, &t.def.name)),
            };
            let mut v = convert::store_value(v, col, &sc)?;
            if v.is_null() && !col.nullable {
                let msg = format!("Column '{}' cannot be null", col.name);
                if strict.get() {
                    return Err(Error::new(ErrorCode::BadNull, msg));
                }
                env.warn("Warning", ErrorCode::BadNull, msg);
                v = convert::implicit_default(&col.data_type);
            }
            new[*c] = v;
        }
        if new[..] == latest[..] {
            return Ok(None);
        }
        let sc = StoreCtx {
            strict,
            row: matched,
            warnings: &env.warnings,
            zone: None,
            table: Some((&t.db, &t.def.name)),
        };
        if let Some(g) = gen {
            g.fill(env, &t.def, &mut new, &sc)?;
        }
        if let Some(check) = &plan.view_check {
            super::view_dml::check_row(check, &new, env)?;
        }
        touch_on_update(&t.def, &plan.sets, &mut new, env);
        if let Some(g) = gen.filter(|_| t.def.columns.iter().any(|c| c.on_update_current_timestamp))
        {
            // Again, over the ON UPDATE CURRENT_TIMESTAMP values.
            g.fill(env, &t.def, &mut new, &sc)?;
        }
        if let Some(ai) = t.def.auto_increment_column() {
            if plan.sets.iter().any(|(c, _)| *c == ai) {
                let n = convert::to_num(&new[ai]).to_i128();
                if n > 0 {
                    t.table
                        .observe_auto_increment(u64::try_from(n).unwrap_or(u64::MAX));
                }
            }
        }
        Ok(Some(new))
    }
}

pub fn run_delete(plan: &DeletePlan, env: &Env<'_>, txn: &mut Txn) -> Result<DmlResult> {
    if txn.is_read_only() {
        return Err(crate::storage::read_only_error());
    }
    let whole = plan.filter.is_none() && plan.subq.is_none();
    check_safe_updates(&plan.access, &plan.limit, whole, env)?;
    let limit = eval_count(&plan.limit, env)?;
    let t = &plan.table;
    let txn_isolation = txn.isolation();
    let cands = candidates(
        t,
        &plan.access,
        &plan.filter,
        &plan.order,
        limit,
        false,
        env,
        txn,
    )?;
    let cands = match &plan.subq {
        Some(sq) if sq.post.is_some() => {
            for db in sq.databases() {
                plan::check_db_access(env, db)?;
            }
            let lock = dml_lock(txn_isolation, true);
            env.subq.lock.set(Some(lock));
            let lender = Lender::new(Some(&mut *txn), lock);
            let host: Option<&dyn Host> = Some(&lender);
            let mut kept = Vec::with_capacity(cands.len());
            for (h, row) in cands {
                let post = sq.post.as_ref().expect("checked");
                if post.is_true(&RowCtx::hosted(&row, host), env)? {
                    kept.push((h, row));
                }
            }
            kept
        }
        _ => cands,
    };
    let mut deleted = 0u64;
    let fk = super::fk::FkWork::of(env, &t.table, &t.def, true);
    let mut returned = Vec::new();
    for (h, old) in cands {
        let ret = match &plan.returning {
            Some(r) => Some(r.row(&old, env)?),
            None => None,
        };
        // DELETE IGNORE: a row a FOREIGN KEY keeps is put back with its cascades (1451).
        let sp = (plan.ignore && !fk.none()).then(|| env.ctx.engine.savepoint(txn));
        t.table.delete(txn, &h)?;
        if !fk.none() {
            match fk.after_delete(env, txn, &t.table, &old) {
                Err(e) if sp.is_some() && e.code() == ErrorCode::RowIsReferenced2 => {
                    env.ctx
                        .engine
                        .rollback_to_savepoint(txn, sp.expect("IGNORE savepoint"));
                    env.warn("Warning", e.code(), e.message());
                    continue;
                }
                other => other?,
            }
        }
        returned.extend(ret);
        deleted += 1;
    }
    Ok(DmlResult {
        affected: deleted,
        last_insert_id: 0,
        info: None,
        returned: plan
            .returning
            .as_ref()
            .map(|r| (r.columns.clone(), returned)),
    })
}

/// LOAD DATA's writer (`exec/load.rs`): whole table rows built by the caller go through
/// INSERT's auto-increment, CHECK, FOREIGN KEY and duplicate handling one at a time. One
/// sink lives as long as its `Env`; the caller adds up [`LoadCounts`] across sinks.
pub struct RowSink<'p, 'e>(InsertRun<'p, 'e>);

/// What a [`RowSink`] did.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadCounts {
    pub affected: u64,
    pub duplicates: u64,
    pub records: u64,
    pub first_generated: Option<u64>,
}

impl<'p, 'e> RowSink<'p, 'e> {
    /// A sink for `plan` (its source is not used); `ignore`: conversion problems are warnings.
    pub fn new(plan: &'p InsertPlan, env: &'e Env<'e>, ignore: bool) -> Result<RowSink<'p, 'e>> {
        let mut run = InsertRun::new(plan, env, plan.kind == InsertKind::Replace, ignore)?;
        run.multi_row = true;
        Ok(RowSink(run))
    }

    /// Insert one full row (numbered `row_no` for messages); `given` marks the columns the
    /// row has values for (None: all), the others take their expression defaults.
    pub fn insert(
        &mut self,
        txn: &mut Txn,
        mut row: Vec<Value>,
        row_no: u64,
        given: Option<&mut [bool]>,
    ) -> Result<()> {
        if let (Some(d), Some(given)) = (&self.0.defaults, given) {
            let def = &self.0.plan.table.def;
            d.fill(self.0.env, def, &mut row, given, &self.0.store_ctx(row_no))?;
        }
        self.0.fill_auto_increment(&mut row, row_no)?;
        if let Some(g) = &self.0.gen {
            // A value the file gives a generated column is ignored without a warning, as
            // MariaDB's LOAD DATA does.
            let def = &self.0.plan.table.def;
            g.fill(self.0.env, def, &mut row, &self.0.store_ctx(row_no))?;
        }
        self.0.insert_row(txn, row)
    }

    pub fn counts(&self) -> LoadCounts {
        LoadCounts {
            affected: self.0.affected,
            duplicates: self.0.duplicates,
            records: self.0.records,
            first_generated: self.0.first_generated,
        }
    }
}
