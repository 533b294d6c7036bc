//! Multi-table UPDATE and DELETE: `UPDATE t1 JOIN t2 ON … SET t1.a = …, t2.b = … WHERE …`,
//! `UPDATE t1, t2 SET …`, `DELETE t1, t2 FROM t1 JOIN t2 …`, `DELETE FROM t1, t2 USING …`.
//!
//! # Binding
//!
//! The FROM list (`UPDATE`'s table list, `DELETE`'s FROM / USING) is a join built by
//! `plan/join.rs`, as for a SELECT; derived tables and CTEs take part as read-only sources
//! (naming one as a target is 1288). An assignment's column names its table (`t.c`, or an
//! unqualified column only one table has, else 1052 "in SET"); a DELETE target names a table
//! of the list by its visible name (alias if it has one, else 1109 "in MULTI DELETE"). Error
//! messages name the clauses as MariaDB does for these statements ('SET', 'SELECT' for the
//! assigned values, 'ON', 'WHERE', 'ORDER BY'). A multi-table DELETE whose subquery reads a
//! target table is 1093.
//!
//! # Execution
//!
//! 1. The join runs with the target tables read with exclusive locks (a current read of the
//!    latest versions, conditions evaluated after any lock wait) and every other table with
//!    shared locks, whatever the isolation level (InnoDB takes `LOCK_S` for the non-target
//!    tables of a multi-table statement: it is none of the commands it reads consistently
//!    for). The joined rows are collected with the handles of their target rows; a target
//!    table is never read by hash join, so that every row read has its handle.
//! 2. Conditions with a subquery, ORDER BY and LIMIT (UPDATE only: MariaDB's multi-table
//!    DELETE has no such clauses), then each target row's outcome: a row of a target table
//!    counts once, from the first joined row it appears in (later ones are ignored, as
//!    MariaDB's temporary table of row ids does); a NULL-complemented table has no row.
//!    UPDATE evaluates every assignment on the joined row as found: unlike a single-table
//!    UPDATE, `SET t.a = 1, t.b = t.a` sets `b` to the old `a` (as MariaDB does).
//! 3. The changes, table by table in FROM order, through the same row-change path as
//!    single-table UPDATE / DELETE (CHECK constraints, foreign keys, binlog row events).
//!    A row already gone (deleted by a cascading foreign key of an earlier change) is
//!    skipped.
//!
//! "Rows matched" counts the distinct target rows found, "Changed" those whose values
//! changed; a DELETE's affected rows are the rows deleted.

use crate::error::{Error, Result};
use crate::sql::bind::join_scope::JoinScope;
use crate::sql::bind::Binder;
use crate::sql::env::Env;
use crate::sql::exec::join as join_exec;
use crate::sql::exec::join::Flow;
use crate::sql::exec::select::{eval_count, SelectPlan, SortKey};
use crate::sql::exec::subquery::{dml_lock, DmlSubqueries, Lender};
use crate::sql::expr::convert::{self, StoreCtx, Strict};
use crate::sql::expr::subquery::Host;
use crate::sql::expr::{Expr, RowCtx};
use crate::sql::plan::join::{Builder as JoinBuilder, JoinPlan, JoinTable, Unit};
use crate::sql::plan::{self, TableRef};
use crate::storage::{InsertOutcome, LockMode, ReadLock, RowHandle, Txn, WaitPolicy};
use crate::types::Value;
use cohort_protocol::ErrorCode;
use sqlparser::ast;
use sqlparser::tokenizer::Location;
use std::collections::HashSet;

use super::dml::DmlResult;

/// One table a multi-table statement changes.
pub struct Target {
    /// Its number in the join.
    pub table: usize,
    /// UPDATE: (column of the table, new value over the joined row), in the written order.
    pub sets: Vec<(usize, Expr)>,
}

pub struct MultiPlan {
    pub delete: bool,
    pub join: Box<JoinPlan>,
    /// The targets, in FROM order.
    pub targets: Vec<Target>,
    /// ORDER BY / LIMIT of an UPDATE (over the joined rows).
    pub order: Vec<(Expr, SortKey)>,
    pub limit: Option<Expr>,
    /// Subqueries of SET and WHERE; `post` holds the WHERE conditions with one.
    pub subq: Option<Box<DmlSubqueries>>,
    /// UPDATE IGNORE / DELETE IGNORE: values clamped with warnings, a row whose change fails
    /// (duplicate key, foreign key, CHECK) undone as a whole and skipped.
    pub ignore: bool,
}

impl MultiPlan {
    pub fn is_stale(&self) -> bool {
        self.join.is_stale() || self.subq.as_ref().is_some_and(|s| s.is_stale())
    }

    /// The database of the first target (the statement's access check).
    pub fn db(&self) -> &str {
        match self.targets.first().map(|t| &self.join.tables[t.table]) {
            Some(JoinTable::Table(t)) => &t.db,
            _ => "",
        }
    }

    fn tref(&self, t: usize) -> &TableRef {
        match &self.join.tables[t] {
            JoinTable::Table(t) => t,
            JoinTable::Derived(_) => unreachable!("targets are catalog tables"),
        }
    }
}

/// Is this UPDATE a multi-table one (a table list, a join, or a derived table)?
pub fn is_multi_update(u: &ast::Update) -> bool {
    matches!(u.from, Some(ast::UpdateTableFromKind::BeforeSet(_)))
        || !u.table.joins.is_empty()
        || !matches!(u.table.relation, ast::TableFactor::Table { .. })
}

/// Is this DELETE a multi-table one (targets before FROM, or USING)?
pub fn is_multi_delete(d: &ast::Delete) -> bool {
    !d.tables.is_empty() || d.using.is_some()
}

fn unsupported(what: &str) -> Error {
    Error::unsupported(what)
}

fn not_updatable(name: &str, command: &str) -> Error {
    Error::new(
        ErrorCode::NonUpdatableTable,
        format!("The target table {name} of the {command} is not updatable"),
    )
}

/// Build the join of the FROM list; `f` binds the rest of the statement against its scope
/// and returns the WHERE conjuncts for the join (and anything else it made).
fn with_join<'a, T>(
    env: &'a Env<'a>,
    params: &'a [Location],
    from: &[ast::TableWithJoins],
    f: impl FnOnce(&JoinScope, &[JoinTable], Vec<Expr>) -> Result<(Vec<Expr>, T)>,
) -> Result<(JoinPlan, T)> {
    let mut bind_on = |sc: &JoinScope, e: &ast::Expr| -> Result<Expr> {
        let mut b = Binder::new(env, params, None);
        b.join = Some(sc);
        b.clause = "ON";
        Ok(b.bind(e)?.0)
    };
    let mut builder = JoinBuilder::new(env, &mut bind_on, false);
    builder.params = params;
    builder.from(from)?;
    // Inner joins' ON conditions with a subquery join the WHERE conditions with one.
    let on_post = builder.take_subquery_conds();
    let scope = builder.scope.clone();
    let (conds, out) = f(&scope, builder.tables(), on_post)?;
    Ok((builder.finish(conds)?, out))
}

/// Check a target (table `t` of the join) can be written by `command`: a catalog table, not
/// a derived table (1288) nor a view (not supported yet).
fn check_target(
    env: &Env<'_>,
    scope: &JoinScope,
    tables: &[JoinTable],
    t: usize,
    command: &str,
) -> Result<()> {
    let name = scope.tables[t].scope.visible_name().to_string();
    match &tables[t] {
        JoinTable::Derived(d) if d.view_version.is_some() => {
            Err(unsupported(&format!("{command} through a view")))
        }
        JoinTable::Derived(_) => Err(not_updatable(&name, command)),
        JoinTable::Table(tr) => {
            if plan::is_system_schema(&tr.db) {
                crate::sql::exec::virtual_tables::refuse_write(env, &tr.db, &tr.def.name, command)?;
            }
            crate::session::table_locks::check_statement(
                env.ctx,
                &env.sess,
                &tr.db,
                &tr.def.name,
                true,
            )
        }
    }
}

/// WHERE with the inner joins' ON conditions that hold a subquery.
fn with_on_conds(filter: Option<Expr>, on: Vec<Expr>) -> Option<Expr> {
    if on.is_empty() {
        return filter;
    }
    let mut all: Vec<Expr> = filter.into_iter().collect();
    all.extend(on);
    match all.len() {
        1 => all.pop(),
        _ => Some(Expr::And(all)),
    }
}

/// WHERE split for the join: conjuncts without a subquery (the join's), the rest after it.
fn where_conds(filter: Option<Expr>) -> Vec<Expr> {
    filter
        .as_ref()
        .map(|f| plan::conjuncts(f).into_iter().cloned().collect())
        .unwrap_or_default()
}

/// Bind a multi-table UPDATE.
pub fn plan_update(env: &Env<'_>, params: &[Location], u: &ast::Update) -> Result<MultiPlan> {
    if u.returning.is_some() || u.output.is_some() {
        return Err(unsupported("UPDATE … RETURNING"));
    }
    let mut from = vec![u.table.clone()];
    match &u.from {
        Some(ast::UpdateTableFromKind::BeforeSet(more)) => from.extend(more.iter().cloned()),
        Some(ast::UpdateTableFromKind::AfterSet(_)) => {
            return Err(unsupported("UPDATE … FROM"));
        }
        None => {}
    }
    let mark = env.subq.bound.borrow().len();
    let (mut join, (targets, order, limit, subq)) =
        with_join(env, params, &from, |scope, tables, on_post| {
            let mut b = Binder::new(env, params, None);
            b.join = Some(scope);
            let mut targets: Vec<Target> = Vec::new();
            for a in &u.assignments {
                let ast::AssignmentTarget::ColumnName(name) = &a.target else {
                    return Err(unsupported("tuple assignments"));
                };
                b.clause = "SET";
                let bound = b.bind(&column_expr(name))?.0;
                let col = match bound.zoned_col().unwrap_or(&bound) {
                    Expr::Col(i) => *i,
                    _ => return Err(unsupported("this assignment target")),
                };
                let t = scope.table_of(col);
                check_target(env, scope, tables, t, "UPDATE")?;
                let c = col - scope.tables[t].offset;
                b.clause = "SELECT";
                let value = if is_default_keyword(&a.value) {
                    let JoinTable::Table(tr) = &tables[t] else {
                        return Err(Error::internal("a derived target"));
                    };
                    let mut e = crate::sql::bind::column_default::default_value(
                        env,
                        &tr.scope,
                        &tr.def.columns[c],
                    )?;
                    let offset = scope.tables[t].offset;
                    e.walk_mut(&mut |x| {
                        if let Expr::Col(j) = x {
                            *j += offset;
                        }
                    });
                    e
                } else {
                    b.bind(&a.value)?.0
                };
                match targets.iter_mut().find(|x| x.table == t) {
                    Some(x) => x.sets.push((c, value)),
                    None => targets.push(Target {
                        table: t,
                        sets: vec![(c, value)],
                    }),
                }
            }
            targets.sort_by_key(|t| t.table);
            refuse_shared_targets(&targets, tables)?;
            b.clause = "WHERE";
            let filter = match &u.selection {
                Some(w) => Some(b.bind(w)?.0),
                None => None,
            };
            let mut filter = with_on_conds(filter, on_post);
            let allowed = env.subq.allowed.replace(false);
            let ordered =
                super::dml::bind_order_in(&mut b, &u.order_by, "ORDER BY").and_then(|o| {
                    let scope = b.join.take();
                    let l = match &u.limit {
                        Some(l) => b.bind(l).map(|x| Some(x.0)),
                        None => Ok(None),
                    };
                    b.join = scope;
                    Ok((o, l?))
                });
            env.subq.allowed.set(allowed);
            let (order, limit) = ordered?;
            let subq = DmlSubqueries::claim(env, mark, &mut filter);
            if subq.as_ref().is_some_and(|s| s.post.is_some())
                && (!order.is_empty() || limit.is_some())
            {
                return Err(unsupported("ORDER BY or LIMIT with a subquery in WHERE"));
            }
            Ok((where_conds(filter), (targets, order, limit, subq)))
        })?;
    no_hash_for_targets(&mut join.units, &targets);
    Ok(MultiPlan {
        delete: false,
        join: Box::new(join),
        targets,
        order,
        limit,
        subq,
        ignore: false,
    })
}

/// Bind a multi-table DELETE.
pub fn plan_delete(env: &Env<'_>, params: &[Location], d: &ast::Delete) -> Result<MultiPlan> {
    if d.returning.is_some() || d.output.is_some() {
        return Err(unsupported("DELETE … RETURNING"));
    }
    if !d.order_by.is_empty() || d.limit.is_some() {
        // Not MariaDB syntax for a multi-table DELETE.
        return Err(Error::parse("", 1));
    }
    let from_list = match &d.from {
        ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
    };
    // `DELETE t1, t2 FROM <list>` or `DELETE FROM t1, t2 USING <list>`.
    let (names, source): (Vec<ast::ObjectName>, &[ast::TableWithJoins]) = match &d.using {
        Some(using) => {
            let mut names = Vec::new();
            for twj in from_list {
                match (&twj.relation, twj.joins.is_empty()) {
                    (
                        ast::TableFactor::Table {
                            name, alias: None, ..
                        },
                        true,
                    ) => names.push(name.clone()),
                    _ => return Err(Error::parse("", 1)),
                }
            }
            (names, using.as_slice())
        }
        None => (d.tables.clone(), from_list.as_slice()),
    };
    // Every target must name a table of the list, checked before the list is resolved.
    let listed = visible_names(source);
    for name in &names {
        let last = name
            .0
            .last()
            .and_then(|p| p.as_ident())
            .map(|i| i.value.as_str());
        if !last.is_some_and(|n| listed.iter().any(|l| l == n)) {
            return Err(unknown_delete_target(last.unwrap_or_default()));
        }
    }
    let mark = env.subq.bound.borrow().len();
    let (mut join, (targets, subq)) = with_join(env, params, source, |scope, tables, on_post| {
        let mut targets: Vec<Target> = Vec::new();
        for name in &names {
            let t = delete_target(scope, name)?;
            check_target(env, scope, tables, t, "DELETE")?;
            if !targets.iter().any(|x| x.table == t) {
                targets.push(Target {
                    table: t,
                    sets: Vec::new(),
                });
            }
        }
        targets.sort_by_key(|t| t.table);
        refuse_shared_targets(&targets, tables)?;
        let mut b = Binder::new(env, params, None);
        b.join = Some(scope);
        b.clause = "WHERE";
        let filter = match &d.selection {
            Some(w) => Some(b.bind(w)?.0),
            None => None,
        };
        let mut filter = with_on_conds(filter, on_post);
        let subq = DmlSubqueries::claim(env, mark, &mut filter);
        if let Some(sq) = &subq {
            refuse_target_in_subquery(&targets, tables, sq)?;
        }
        Ok((where_conds(filter), (targets, subq)))
    })?;
    no_hash_for_targets(&mut join.units, &targets);
    Ok(MultiPlan {
        delete: true,
        join: Box::new(join),
        targets,
        order: Vec::new(),
        limit: None,
        subq,
        ignore: false,
    })
}

/// The table of the join a DELETE target names (its visible name, optionally with its
/// database); 1109 if none.
fn delete_target(scope: &JoinScope, name: &ast::ObjectName) -> Result<usize> {
    let parts: Vec<&str> = name
        .0
        .iter()
        .filter_map(|p| p.as_ident().map(|i| i.value.as_str()))
        .collect();
    let (db, table) = match parts.as_slice() {
        [t] => (None, *t),
        [d, t] => (Some(*d), *t),
        _ => return Err(Error::parse("", 1)),
    };
    // A target names a table of the list by its alias if it has one (ignoring the mask of
    // ON clauses: every table is visible here).
    (0..scope.tables.len())
        .find(|&t| {
            let s = &scope.tables[t].scope;
            match db {
                Some(d) => s.alias.is_none() && s.db == d && s.table == table,
                None => s.visible_name() == table,
            }
        })
        .ok_or_else(|| unknown_delete_target(table))
}

fn unknown_delete_target(table: &str) -> Error {
    Error::new(
        ErrorCode::UnknownTable,
        format!("Unknown table '{table}' in MULTI DELETE"),
    )
}

/// The names the tables of a FROM list are visible by (alias, else table name).
fn visible_names(from: &[ast::TableWithJoins]) -> Vec<String> {
    fn factor(f: &ast::TableFactor, out: &mut Vec<String>) {
        match f {
            ast::TableFactor::Table { name, alias, .. } => match alias {
                Some(a) => out.push(a.name.value.clone()),
                None => {
                    if let Some(i) = name.0.last().and_then(|p| p.as_ident()) {
                        out.push(i.value.clone());
                    }
                }
            },
            ast::TableFactor::Derived { alias: Some(a), .. } => out.push(a.name.value.clone()),
            ast::TableFactor::NestedJoin {
                table_with_joins, ..
            } => twj(table_with_joins, out),
            _ => {}
        }
    }
    fn twj(t: &ast::TableWithJoins, out: &mut Vec<String>) {
        factor(&t.relation, out);
        for j in &t.joins {
            factor(&j.relation, out);
        }
    }
    let mut out = Vec::new();
    for t in from {
        twj(t, &mut out);
    }
    out
}

/// A multi-table DELETE's subquery may not read a target table (1093; MariaDB's multi-table
/// UPDATE allows it, as single-table statements do). A derived table in the subquery is
/// materialized first: reading a target there is allowed.
fn refuse_target_in_subquery(
    targets: &[Target],
    tables: &[JoinTable],
    sq: &DmlSubqueries,
) -> Result<()> {
    fn reads(p: &SelectPlan, id: crate::storage::TableId) -> bool {
        let in_source = matches!(&p.source, Some(plan::Source::Table(t)) if t.table.id() == id);
        let in_join = p.join.as_ref().is_some_and(|j| {
            j.tables
                .iter()
                .any(|t| matches!(t, JoinTable::Table(t) if t.table.id() == id))
        });
        in_source || in_join || p.subqueries.iter().any(|s| reads(&s.plan, id))
    }
    for t in targets {
        let JoinTable::Table(tr) = &tables[t.table] else {
            continue;
        };
        if sq.list.iter().any(|s| reads(&s.plan, tr.table.id())) {
            return Err(Error::new(
                ErrorCode::UpdateTableUsed,
                format!(
                    "Table '{}' is specified twice, both as a target for 'DELETE' and as a separate source for data",
                    tr.scope.visible_name()
                ),
            ));
        }
    }
    Ok(())
}

/// One base table changed through two names of the join (a self-join with both sides
/// targets) is not supported: the second change would start from the row as joined.
fn refuse_shared_targets(targets: &[Target], tables: &[JoinTable]) -> Result<()> {
    let mut seen = HashSet::new();
    for t in targets {
        if let JoinTable::Table(tr) = &tables[t.table] {
            if !seen.insert(tr.table.id()) {
                return Err(unsupported("changing one table through two of its names"));
            }
        }
    }
    Ok(())
}

/// Target tables are read by nested loop (a hash join's rows carry no handles).
fn no_hash_for_targets(units: &mut [Unit], targets: &[Target]) {
    for u in units {
        match u {
            Unit::Leaf(l) => {
                if targets.iter().any(|t| t.table == l.table) {
                    l.hash = None;
                }
            }
            Unit::Outer { inner, .. } => no_hash_for_targets(inner, targets),
        }
    }
}

fn column_expr(name: &ast::ObjectName) -> ast::Expr {
    let idents: Vec<ast::Ident> = name
        .0
        .iter()
        .filter_map(|p| p.as_ident().cloned())
        .collect();
    match idents.len() {
        1 => ast::Expr::Identifier(idents.into_iter().next().expect("one")),
        _ => ast::Expr::CompoundIdentifier(idents),
    }
}

fn is_default_keyword(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DEFAULT"))
}

// ---------------------------------------------------------------------------------------------
// Execution

/// A joined row and the handles of its target rows (by position in `targets`).
type Joined = (Vec<Value>, Vec<Option<RowHandle>>);

/// Run a multi-table UPDATE or DELETE.
pub fn run(plan: &MultiPlan, env: &Env<'_>, txn: &mut Txn) -> Result<DmlResult> {
    if txn.is_read_only() {
        return Err(crate::storage::read_only_error());
    }
    for t in &plan.join.tables {
        for db in t.databases() {
            plan::check_db_access(env, db)?;
        }
    }
    let limit = eval_count(&plan.limit, env)?;
    let isolation = txn.isolation();
    let other = dml_lock(isolation, true);
    let mut locks = vec![other; plan.join.tables.len()];
    let mut tracked = 0u64;
    for t in &plan.targets {
        locks[t.table] = ReadLock {
            mode: LockMode::Exclusive,
            wait: WaitPolicy::Wait,
            semi_consistent: false,
        };
        tracked |= 1u64 << t.table;
    }
    let stop_at = match (plan.order.is_empty(), &plan.subq) {
        (true, None) => limit,
        _ => None,
    };
    let mut rows: Vec<Joined> = Vec::new();
    if limit != Some(0) {
        join_exec::run_tracked(
            &plan.join,
            env,
            txn,
            (locks, None),
            tracked,
            &mut |flat, hs| {
                crate::memory::check(0)?;
                let handles = plan.targets.iter().map(|t| hs[t.table].clone()).collect();
                rows.push((flat.to_vec(), handles));
                Ok(match stop_at {
                    Some(l) if rows.len() as u64 >= l => Flow::Stop,
                    _ => Flow::More,
                })
            },
        )?;
    }
    if !plan.order.is_empty() {
        sort_rows(&mut rows, &plan.order, env)?;
    }
    if let Some(l) = limit {
        rows.truncate(l.min(usize::MAX as u64) as usize);
    }
    match &plan.subq {
        None => apply(plan, env, txn, rows, None),
        Some(sq) => {
            for db in sq.databases() {
                plan::check_db_access(env, db)?;
            }
            let lock = dml_lock(isolation, plan.delete);
            env.subq.lock.set(Some(lock));
            // Every row's outcome first (subqueries run on the lent transaction), then the
            // changes.
            let work = {
                let lender = Lender::new(Some(&mut *txn), lock);
                let host: Option<&dyn Host> = Some(&lender);
                let mut kept = Vec::with_capacity(rows.len());
                for r in rows {
                    if let Some(f) = &sq.post {
                        if !f.is_true(&RowCtx::hosted(&r.0, host), env)? {
                            continue;
                        }
                    }
                    kept.push(r);
                }
                outcomes(plan, env, kept, host)?
            };
            write(plan, env, txn, work)
        }
    }
}

fn sort_rows(rows: &mut Vec<Joined>, order: &[(Expr, SortKey)], env: &Env<'_>) -> Result<()> {
    let mut keyed: Vec<(Vec<Value>, Joined)> = Vec::with_capacity(rows.len());
    for r in rows.drain(..) {
        let keys = order
            .iter()
            .map(|(e, _)| e.eval(&RowCtx::of(&r.0), env))
            .collect::<Result<Vec<_>>>()?;
        keyed.push((keys, r));
    }
    keyed.sort_by(|a, b| {
        for (_, k) in order {
            let o = crate::sql::expr::compare::sort_cmp(&a.0[k.col], &b.0[k.col], k.coll);
            let o = if k.desc { o.reverse() } else { o };
            if o != std::cmp::Ordering::Equal {
                return o;
            }
        }
        std::cmp::Ordering::Equal
    });
    rows.extend(keyed.into_iter().map(|(_, r)| r));
    Ok(())
}

/// A target row: its handle, the row as found, its new version (UPDATE; None if unchanged).
type Outcome = (RowHandle, Vec<Value>, Option<Vec<Value>>);

/// What happens to one target row: its handle, the row as found, and its new version
/// (UPDATE; None when unchanged) — per target, in the order found.
struct Work {
    per_target: Vec<Vec<Outcome>>,
    matched: u64,
}

fn apply(
    plan: &MultiPlan,
    env: &Env<'_>,
    txn: &mut Txn,
    rows: Vec<Joined>,
    host: Option<&dyn Host>,
) -> Result<DmlResult> {
    let work = outcomes(plan, env, rows, host)?;
    write(plan, env, txn, work)
}

/// Each target row's outcome, from the first joined row it appears in.
fn outcomes(
    plan: &MultiPlan,
    env: &Env<'_>,
    rows: Vec<Joined>,
    host: Option<&dyn Host>,
) -> Result<Work> {
    let mut seen: Vec<HashSet<RowHandle>> = vec![HashSet::new(); plan.targets.len()];
    let mut work = Work {
        per_target: (0..plan.targets.len()).map(|_| Vec::new()).collect(),
        matched: 0,
    };
    for (n, (flat, handles)) in rows.into_iter().enumerate() {
        // MariaDB's multi-table UPDATE reports every warning "at row 1", under IGNORE at
        // the joined row's number.
        let row = match plan.ignore {
            true => n as u64 + 1,
            false => 1,
        };
        for (k, target) in plan.targets.iter().enumerate() {
            let Some(h) = &handles[k] else { continue };
            if !seen[k].insert(h.clone()) {
                continue;
            }
            work.matched += 1;
            let jt = &plan.join.scope.tables[target.table];
            let old = flat[jt.offset..jt.offset + jt.scope.columns.len()].to_vec();
            let new = match plan.delete {
                true => None,
                false => new_row(plan, target, &flat, &old, env, host, row)?,
            };
            work.per_target[k].push((h.clone(), old, new));
        }
    }
    Ok(work)
}

/// The new version of a target row (None if unchanged): every assignment is evaluated on the
/// joined row as found (a later assignment does not see an earlier one, as in MariaDB). Only
/// its assigned columns count: they are applied to the row's latest version when written.
fn new_row(
    plan: &MultiPlan,
    target: &Target,
    flat: &[Value],
    old: &[Value],
    env: &Env<'_>,
    host: Option<&dyn Host>,
    row: u64,
) -> Result<Option<Vec<Value>>> {
    let tref = plan.tref(target.table);
    let strict = match plan.ignore {
        true => Strict::Ignore(env),
        false => Strict::Mode(env),
    };
    let mut new = old.to_vec();
    for (c, e) in &target.sets {
        let v = super::strict_values::eval(e, &RowCtx::hosted(flat, host), env, strict.get())?;
        let col = &tref.def.columns[*c];
        let sc = StoreCtx {
            strict,
            row,
            warnings: &env.warnings,
            zone: env.zone(),
            table: Some((&tref.db, &tref.def.name)),
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
    if new[..] == old[..] {
        return Ok(None);
    }
    if let Some(ai) = tref.def.auto_increment_column() {
        if target.sets.iter().any(|(c, _)| *c == ai) {
            let n = convert::to_num(&new[ai]).to_i128();
            if n > 0 {
                tref.table
                    .observe_auto_increment(u64::try_from(n).unwrap_or(u64::MAX));
            }
        }
    }
    Ok(Some(new))
}

/// Multi-table IGNORE: Ok when a target row's failure `e` skips the row as MariaDB does.
/// MariaDB skips a duplicate-key or FOREIGN KEY failure of a row updated on the fly silently
/// (matched, not changed), as the single-table UPDATE IGNORE; its counts differ when a row's
/// primary key is assigned (the change goes through a temporary table, the failed row is
/// counted as changed), a failed multi-table DELETE IGNORE leaves the affected count at 0 without
/// a warning, and a CHECK failure's warning is left out of the "Warnings:" count: those cases
/// are refused with 1235 (the statement is undone).
fn ignored_row_error(
    plan: &MultiPlan,
    k: usize,
    def: &crate::storage::TableDef,
    e: Error,
) -> Result<()> {
    let skipped = matches!(
        e.code(),
        ErrorCode::DupEntry | ErrorCode::RowIsReferenced2 | ErrorCode::NoReferencedRow2
    );
    if matches!(
        e.code(),
        ErrorCode::ConstraintFailed | ErrorCode::ViewCheckFailed
    ) {
        return Err(unsupported(
            "multi-table UPDATE IGNORE skipping a row a CHECK refuses",
        ));
    }
    if !skipped {
        return Err(e);
    }
    let pk_assigned = def.primary_key.as_ref().is_some_and(|pk| {
        plan.targets[k]
            .sets
            .iter()
            .any(|(c, _)| pk.parts.iter().any(|p| p.column == *c))
    });
    if plan.delete || pk_assigned {
        let what = match plan.delete {
            true => "multi-table DELETE IGNORE skipping a row",
            false => "multi-table UPDATE IGNORE skipping a row whose primary key it assigns",
        };
        return Err(unsupported(what));
    }
    Ok(())
}

/// Apply the outcomes, target by target.
fn write(plan: &MultiPlan, env: &Env<'_>, txn: &mut Txn, work: Work) -> Result<DmlResult> {
    let mut changed = 0u64;
    for (k, list) in work.per_target.into_iter().enumerate() {
        let t = plan.tref(plan.targets[k].table);
        let fk = super::fk::FkWork::of(env, &t.table, &t.def, true);
        let checks = match plan.delete {
            true => None,
            false => super::check::Checks::of(env, &t.db, &t.def)?,
        };
        let gen = match plan.delete {
            true => None,
            false => super::gencol::Generated::of(env, &t.db, &t.def)?,
        };
        let strict = match plan.ignore {
            true => crate::sql::expr::convert::Strict::Ignore(env),
            false => crate::sql::expr::convert::Strict::Mode(env),
        };
        // One row's change (with its cascades): Ok(true) when the row changed.
        let one = |h: &RowHandle, new: Option<Vec<Value>>, changed: u64, txn: &mut Txn| {
            if plan.delete {
                // Gone already (a cascading foreign key of an earlier change): skipped.
                let Some(latest) = t.table.lock_row(txn, h, LockMode::Exclusive)? else {
                    return Ok(false);
                };
                t.table.delete(txn, h)?;
                if !fk.none() {
                    fk.after_delete(env, txn, &t.table, &latest)?;
                }
                return Ok(true);
            }
            let Some(assigned) = new else {
                return Ok(false);
            };
            // The latest version: an earlier change's cascade may have changed it since.
            let Some(latest) = t.table.lock_row(txn, h, LockMode::Exclusive)? else {
                return Ok(false);
            };
            let sets = &plan.targets[k].sets;
            let mut new = latest.to_vec();
            for (c, e) in sets {
                if let Some(g) = gen.as_ref().filter(|g| g.is_generated(*c)) {
                    let null = matches!(e, crate::sql::expr::Expr::Lit(Value::Null));
                    g.given(env, &t.def, *c, null, strict.get())?;
                    continue;
                }
                new[*c] = assigned[*c].clone();
            }
            if new[..] == latest[..] {
                return Ok(false);
            }
            super::dml::touch_on_update(&t.def, sets, &mut new, env);
            if let Some(g) = &gen {
                let sc = crate::sql::expr::convert::StoreCtx {
                    strict,
                    row: changed + 1,
                    warnings: &env.warnings,
                    zone: None,
                    table: Some((&t.db, &t.def.name)),
                };
                g.fill(env, &t.def, &mut new, &sc)?;
            }
            let old = latest.to_vec();
            if let Some(c) = &checks {
                c.check(env, &new)?;
            }
            let after = (!fk.none()).then(|| new.clone());
            match t.table.update(txn, h, new)? {
                InsertOutcome::Inserted(_) => {
                    if let Some(new) = after {
                        fk.after_update(env, txn, &t.table, &old, &new)?;
                    }
                    Ok(true)
                }
                InsertOutcome::Duplicate {
                    index, attempted, ..
                } => {
                    if let Some(new) = after {
                        fk.before_duplicate(env, txn, &t.table, &old, &new)?;
                    }
                    Err(super::dml::dup_entry_error(
                        &t.table, index, &attempted, env,
                    ))
                }
            }
        };
        for (h, _, new) in list {
            if !plan.ignore {
                changed += u64::from(one(&h, new, changed, txn)?);
                continue;
            }
            // IGNORE: a failing row is undone as a whole (its index entries and cascades).
            let sp = env.ctx.engine.savepoint(txn);
            match one(&h, new, changed, txn) {
                Ok(c) => changed += u64::from(c),
                Err(e) => {
                    ignored_row_error(plan, k, &t.def, e)?;
                    env.ctx.engine.rollback_to_savepoint(txn, sp);
                }
            }
        }
    }
    if plan.delete {
        return Ok(DmlResult {
            affected: changed,
            last_insert_id: 0,
            info: None,
            returned: None,
        });
    }
    let matched = work.matched;
    let info = format!(
        "Rows matched: {matched}  Changed: {changed}  Warnings: {}",
        env.warnings.borrow().len()
    );
    Ok(DmlResult {
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
