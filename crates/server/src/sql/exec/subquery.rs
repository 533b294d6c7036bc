//! Executing statements whose expressions hold subqueries.
//!
//! A subquery reads tables with the statement's transaction, and a storage read holds the
//! transaction for as long as it runs: a subquery cannot run from inside the read of the
//! query it appears in. Such a statement therefore runs in two phases:
//!
//! 1. the read: the rows of its table (or join, or virtual table) that pass the conditions
//!    without a subquery — evaluated by the storage on the version it reads, as for any
//!    statement — are collected;
//! 2. the evaluation: the transaction is lent to a [`Lender`], which the row context carries
//!    ([`RowCtx::host`]); the conditions with a subquery, then the select list, grouping,
//!    HAVING and ORDER BY (or an UPDATE's new values) are evaluated on each collected row,
//!    and a subquery runs its own plan through the same SELECT executor (nested subqueries
//!    in turn) with the transaction the lender hands it.
//!
//! UPDATE and DELETE compute every row's outcome (the WHERE conditions with a subquery and
//! the new values) before changing any row, so a subquery reading the table being changed
//! sees it as the statement found it (MariaDB reads such a statement's rows into a temporary
//! table first; it allows these statements, no error 1093). ORDER BY / LIMIT with a subquery
//! condition in UPDATE / DELETE are refused (1235).
//!
//! All of a statement reads the transaction's read view (the same snapshot), except what
//! locking reads read (their latest committed versions).
//!
//! # Locks
//!
//! The reads of a subquery take the locks InnoDB takes for them (`ha_innobase::store_lock`):
//! * in a SELECT, a subquery reads consistently whatever the outer query's locking clause
//!   (`FOR UPDATE` / `FOR SHARE` lock the outer query's rows only, as in MariaDB), unless it
//!   has a locking clause of its own;
//! * in INSERT … SELECT, REPLACE … SELECT and UPDATE: shared next-key locks in REPEATABLE READ
//!   and SERIALIZABLE, a consistent read in READ COMMITTED and READ UNCOMMITTED;
//! * in DELETE and INSERT … VALUES: shared locks at every isolation level.
//!
//! One difference remains: a condition with a subquery is evaluated after the read, so in
//! READ COMMITTED a locking read keeps the locks of rows that such a condition then rejects
//! (InnoDB releases them); with REPEATABLE READ the locks are the same.

use crate::error::{Error, Result};
use crate::sql::env::Env;
use crate::sql::exec::join::{self as join_exec, Flow};
use crate::sql::exec::select::{self, Groups, SelectPlan};
use crate::sql::expr::subquery::{Host, OuterRow, Subquery};
use crate::sql::expr::{Expr, RowCtx};
use crate::sql::plan::{self, Access, PartCond, Source};
use crate::storage::{IsolationLevel, LockMode, ReadLock, ScanControl, Txn, WaitPolicy};
use crate::types::Value;
use std::cell::RefCell;
use std::sync::Arc;

/// Does the expression hold a subquery?
pub fn has_subquery(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::Subquery(_)));
    found
}

/// Split AND-ed conditions into those without a subquery (for the read) and those with one
/// (evaluated after it).
pub fn split_condition(filter: Option<Expr>) -> (Option<Expr>, Option<Expr>) {
    let Some(f) = filter else {
        return (None, None);
    };
    let (post, pre): (Vec<Expr>, Vec<Expr>) = plan::conjuncts(&f)
        .into_iter()
        .cloned()
        .partition(has_subquery);
    let and = |mut v: Vec<Expr>| match v.len() {
        0 => None,
        1 => v.pop(),
        _ => Some(Expr::And(v)),
    };
    (and(pre), and(post))
}

/// Lends the statement's transaction to the subqueries evaluated on a row.
pub struct Lender<'t> {
    txn: RefCell<Option<&'t mut Txn>>,
    /// No transaction at all (a statement that reads no engine table).
    none: bool,
    /// The lock the subqueries' reads take (see the module doc).
    lock: ReadLock,
}

impl<'t> Lender<'t> {
    pub fn new(txn: Option<&'t mut Txn>, lock: ReadLock) -> Lender<'t> {
        Lender {
            none: txn.is_none(),
            txn: RefCell::new(txn),
            lock: ReadLock {
                semi_consistent: false,
                ..lock
            },
        }
    }
}

/// The stronger of the statement's lock and the subquery's own.
fn combined(outer: ReadLock, own: ReadLock) -> ReadLock {
    match (outer.mode, own.mode) {
        (LockMode::None, _) => own,
        (_, LockMode::None) => outer,
        (LockMode::Exclusive, _) => outer,
        _ => own,
    }
}

impl Host for Lender<'_> {
    fn run(&self, plan: &SelectPlan, env: &Env<'_>, outer: &RowCtx<'_>) -> Result<Vec<Vec<Value>>> {
        self.run_as(plan, env, outer, false)
    }

    fn exists(&self, plan: &SelectPlan, env: &Env<'_>, outer: &RowCtx<'_>) -> Result<bool> {
        Ok(!self.run_as(plan, env, outer, true)?.is_empty())
    }
}

impl Lender<'_> {
    fn run_as(
        &self,
        plan: &SelectPlan,
        env: &Env<'_>,
        outer: &RowCtx<'_>,
        exists_only: bool,
    ) -> Result<Vec<Vec<Value>>> {
        crate::memory::check(0)?;
        let lock = combined(self.lock, plan.lock);
        let txn = match self.none {
            true => None,
            false => Some(
                self.txn
                    .borrow_mut()
                    .take()
                    .ok_or_else(|| Error::internal("a subquery ran inside a table read"))?,
            ),
        };
        let impossible_group = env.subq.impossible_group.replace(false);
        env.subq.outer.borrow_mut().push(OuterRow {
            row: outer.row.to_vec(),
            aggs: outer.aggs.to_vec(),
        });
        let mut txn = txn;
        let r = stacker::maybe_grow(
            crate::sql::bind::STACK_RED_ZONE,
            crate::sql::bind::STACK_SEGMENT,
            || match exists_only {
                // Only this executor skips the select list (any simple query).
                true => run_select_as(plan, env, txn.as_deref_mut(), lock, true),
                false => select::run_select_locking(plan, env, txn.as_deref_mut(), lock),
            },
        );
        env.subq.outer.borrow_mut().pop();
        env.subq.impossible_group.set(impossible_group);
        if let Some(t) = txn {
            *self.txn.borrow_mut() = Some(t);
        }
        r
    }
}

/// Run a SELECT plan with subqueries in its expressions (see the module doc).
pub fn run_select(
    plan: &SelectPlan,
    env: &Env<'_>,
    txn: Option<&mut Txn>,
    lock: ReadLock,
) -> Result<Vec<Vec<Value>>> {
    run_select_as(plan, env, txn, lock, false)
}

/// [`run_select`]; `exists_only`: for EXISTS, rows without their select list, at most one
/// past OFFSET (a grouped query is run whole).
fn run_select_as(
    plan: &SelectPlan,
    env: &Env<'_>,
    txn: Option<&mut Txn>,
    lock: ReadLock,
    exists_only: bool,
) -> Result<Vec<Vec<Value>>> {
    // Window functions need every row (and their outputs): EXISTS over them runs whole.
    let exists_only = exists_only && plan.group.is_none() && plan.window.is_none();
    let limit = select::eval_count(&plan.limit, env)?;
    let offset = select::eval_count(&plan.offset, env)?.unwrap_or(0);
    // (Ungrouped, the WHERE conditions that read no row are checked below, in their order.)
    if limit == Some(0) || (plan.group.is_some() && select::impossible_condition(plan, env)?) {
        return Ok(Vec::new());
    }
    let mut txn = txn;
    // A WHERE condition whose subqueries are uncorrelated and which reads no column is a
    // constant: evaluated before the read, as MariaDB does (its error comes first; when not
    // true, nothing is read: "Impossible WHERE").
    let impossible = constant_false(plan, env, txn.as_deref_mut())?;
    if impossible && plan.group.is_none() {
        return Ok(Vec::new());
    }
    // Phase 1: the rows read, through the conditions without a subquery.
    let mut read: Vec<Vec<Value>> = Vec::new();
    let post = match &plan.source {
        _ if impossible => None,
        None if plan.join.is_some() => {
            let j = plan.join.as_ref().expect("checked");
            let t = txn
                .as_deref_mut()
                .ok_or_else(|| Error::internal("SELECT without a transaction"))?;
            join_exec::run(j, env, t, lock, &mut |row| {
                crate::memory::check(0)?;
                read.push(row.to_vec());
                Ok(Flow::More)
            })?;
            plan.filter.clone()
        }
        None => {
            read.push(Vec::new());
            plan.filter.clone()
        }
        Some(Source::Virtual(v)) => {
            read = (v.rows)(env)?;
            plan.filter.clone()
        }
        Some(Source::Derived(d)) => {
            for r in d.materialize(env, txn.as_deref_mut())?.iter() {
                crate::memory::check(0)?;
                read.push(r.to_vec());
            }
            plan.filter.clone()
        }
        Some(Source::Table(t)) => {
            key_subqueries(&plan.access, env, txn.as_deref_mut())?;
            let (pre, post) = split_condition(plan.filter.clone());
            let tx = txn
                .as_deref_mut()
                .ok_or_else(|| Error::internal("SELECT without a transaction"))?;
            let mut filter = |row: &crate::storage::Row| match &pre {
                Some(f) => f.is_true(&RowCtx::of(row), env),
                None => Ok(true),
            };
            plan::scan(
                &t.table,
                &plan.access,
                tx,
                env,
                lock,
                plan.backward,
                &mut filter,
                &mut |_, row| {
                    crate::memory::check(0)?;
                    read.push(row.to_vec());
                    Ok(ScanControl::Continue)
                },
            )?;
            post
        }
    };
    // Phase 2: everything else, with the transaction lent to the subqueries.
    let lender = Lender::new(txn, env.subq.lock.get().unwrap_or(ReadLock::NONE));
    let host: Option<&dyn Host> = Some(&lender);
    let streaming = plan.group.is_none()
        && !plan.distinct
        && plan.window.is_none()
        && (plan.order.is_empty() || plan.sorted_by_scan);
    let enough = match exists_only {
        true => Some(limit.unwrap_or(1).min(1).saturating_add(offset)),
        false => limit.map(|l| l.saturating_add(offset)),
    };
    // With ORDER BY … LIMIT, MariaDB computes the select list of the rows it sends only: a
    // subquery item not sorted on waits until the rows are sorted and cut.
    let deferred: Vec<bool> = match plan.group.is_none()
        && plan.window.is_none()
        && !plan.distinct
        && !exists_only
        && !plan.order.is_empty()
        && !plan.sorted_by_scan
        && limit.is_some()
    {
        true => (0..plan.items.len())
            .map(|i| !plan.order.iter().any(|k| k.col == i) && has_subquery(&plan.items[i].expr))
            .collect(),
        false => Vec::new(),
    };
    if deferred.iter().any(|d| *d) {
        return sorted_then_items(
            plan,
            &read,
            post.as_ref(),
            &deferred,
            (limit, offset),
            env,
            host,
        );
    }
    let mut rows: Vec<Vec<Value>> = Vec::new();
    let mut groups = Groups::default();
    for row in &read {
        let rc = RowCtx::hosted(row, host);
        if let Some(f) = &post {
            if !f.is_true(&rc, env)? {
                continue;
            }
        }
        match &plan.group {
            Some(g) => groups.add(g, &rc, env)?,
            None if exists_only => {
                rows.push(vec![Value::Null; plan.items.len() + plan.hidden.len()])
            }
            // Window functions compute the outputs once every row is in (`exec/window.rs`).
            None if plan.window.is_some() => rows.push(row.clone()),
            None => rows.push(select::output_row(plan, &rc, env)?),
        }
        if (streaming || exists_only) && enough.is_some_and(|n| rows.len() as u64 >= n) {
            break;
        }
    }
    drop(read);
    let saved = env.subq.impossible_group.replace(impossible);
    let r = select::finish_rows(plan, rows, groups, (limit, offset), env, host);
    env.subq.impossible_group.set(saved);
    r
}

/// The rows of an ungrouped query with ORDER BY … LIMIT whose `deferred` items are computed
/// after the sort and the cut, for the rows kept only.
#[allow(clippy::too_many_arguments)]
fn sorted_then_items(
    plan: &SelectPlan,
    read: &[Vec<Value>],
    post: Option<&Expr>,
    deferred: &[bool],
    (limit, offset): (Option<u64>, u64),
    env: &Env<'_>,
    host: Option<&dyn Host>,
) -> Result<Vec<Vec<Value>>> {
    let item = |i: usize, rc: &RowCtx<'_>| -> Result<Value> {
        let it = &plan.items[i];
        let v = it.expr.eval(rc, env)?;
        Ok(match it.coerce {
            Some(c) => crate::sql::expr::coerce(v, c),
            None => v,
        })
    };
    let mut rows: Vec<Vec<Value>> = Vec::new();
    for (n, row) in read.iter().enumerate() {
        let rc = RowCtx::hosted(row, host);
        if let Some(f) = post {
            if !f.is_true(&rc, env)? {
                continue;
            }
        }
        crate::memory::check(0)?;
        let mut out = Vec::with_capacity(plan.items.len() + plan.hidden.len() + 1);
        for (i, d) in deferred.iter().enumerate() {
            out.push(if *d { Value::Null } else { item(i, &rc)? });
        }
        for h in &plan.hidden {
            out.push(h.eval(&rc, env)?);
        }
        out.push(Value::UInt(n as u64));
        rows.push(out);
    }
    select::sort_rows(&plan.order, &mut rows);
    let start = (offset as usize).min(rows.len());
    let end = match limit {
        Some(l) => start
            .saturating_add(l.min(usize::MAX as u64) as usize)
            .min(rows.len()),
        None => rows.len(),
    };
    let mut out: Vec<Vec<Value>> = rows.drain(start..end).collect();
    for r in &mut out {
        let n = match r.last() {
            Some(Value::UInt(n)) => *n as usize,
            _ => return Err(Error::internal("sorted row without its position")),
        };
        let rc = RowCtx::hosted(&read[n], host);
        for (i, d) in deferred.iter().enumerate() {
            if *d {
                r[i] = item(i, &rc)?;
            }
        }
        r.truncate(plan.items.len());
    }
    Ok(out)
}

/// Run the (uncorrelated) subqueries of the access path's keys before the read, which then
/// finds their kept values (`WHERE id = (SELECT MAX(id) FROM t)` is a primary key lookup).
fn key_subqueries(access: &Access, env: &Env<'_>, txn: Option<&mut Txn>) -> Result<()> {
    let Access::Index { eq, range, .. } = access else {
        return Ok(());
    };
    let mut keys: Vec<&Expr> = Vec::new();
    for p in eq {
        match p {
            PartCond::Eq(e) => keys.push(e),
            PartCond::In(v) => keys.extend(v.iter()),
            PartCond::IsNull => {}
        }
    }
    if let Some(r) = range {
        keys.extend(r.lo.iter().chain(r.hi.iter()).map(|(e, _)| e));
    }
    let mut subqueries: Vec<Expr> = Vec::new();
    for k in keys {
        k.walk(&mut |x| {
            if let Expr::Subquery(s) = x {
                subqueries.push(Expr::Subquery(s.clone()));
            }
        });
    }
    if subqueries.is_empty() {
        return Ok(());
    }
    let lender = Lender::new(txn, env.subq.lock.get().unwrap_or(ReadLock::NONE));
    for s in subqueries {
        s.eval(&RowCtx::hosted(&[], Some(&lender)), env)?;
    }
    Ok(())
}

/// Is a WHERE conjunct that reads no row (a constant, or with uncorrelated subqueries only)
/// not true? Checked in their written order, as MariaDB: the first that is not true ends the
/// check ("Impossible WHERE"; an error of a later one is not raised).
fn constant_false(plan: &SelectPlan, env: &Env<'_>, txn: Option<&mut Txn>) -> Result<bool> {
    let Some(f) = &plan.filter else {
        return Ok(false);
    };
    let constant: Vec<&Expr> = plan::conjuncts(f)
        .into_iter()
        .filter(|c| {
            let mut subquery = false;
            let mut constant = true;
            c.walk(&mut |x| match x {
                Expr::Subquery(s) => {
                    subquery = true;
                    constant &= !s.correlated;
                }
                Expr::Col(_)
                | Expr::NewCol(_)
                | Expr::Agg(_)
                | Expr::SetUserVar(..)
                | Expr::Outer { .. }
                | Expr::OuterAgg { .. } => constant = false,
                Expr::Func(f, _) => constant &= f.is_deterministic(),
                _ => {}
            });
            constant && (subquery || c.is_constant())
        })
        .collect();
    if constant.is_empty() {
        return Ok(false);
    }
    let lender = Lender::new(txn, env.subq.lock.get().unwrap_or(ReadLock::NONE));
    for c in constant {
        if !c.is_true(&RowCtx::hosted(&[], Some(&lender)), env)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The subqueries of an UPDATE / DELETE / INSERT: those bound, and the WHERE conditions that
/// hold one (evaluated after the read).
pub struct DmlSubqueries {
    pub list: Vec<Arc<Subquery>>,
    pub post: Option<Expr>,
}

impl DmlSubqueries {
    /// The subqueries bound since `mark` (None if none), with the part of `filter` that holds
    /// them split off (`filter` keeps the rest).
    pub fn claim(env: &Env<'_>, mark: usize, filter: &mut Option<Expr>) -> Option<Box<Self>> {
        let list = {
            let mut bound = env.subq.bound.borrow_mut();
            if bound.len() <= mark {
                return None;
            }
            bound.split_off(mark)
        };
        let (pre, post) = split_condition(filter.take());
        *filter = pre;
        Some(Box::new(DmlSubqueries { list, post }))
    }

    pub fn is_stale(&self) -> bool {
        self.list.iter().any(|s| s.plan.is_stale())
    }

    /// The databases the subqueries read (the statement's access check covers them).
    pub fn databases(&self) -> Vec<&str> {
        self.list.iter().flat_map(|s| s.plan.databases()).collect()
    }
}

/// The lock of the reads of a data-changing statement's subqueries (see the module doc):
/// `always` for DELETE and INSERT … VALUES, else only above READ COMMITTED.
pub fn dml_lock(isolation: IsolationLevel, always: bool) -> ReadLock {
    if always || isolation >= IsolationLevel::RepeatableRead {
        ReadLock::new(LockMode::Shared, WaitPolicy::Wait)
    } else {
        ReadLock::NONE
    }
}

#[cfg(test)]
mod tests {
    use crate::session::state::{ServerContext, SessionState};
    use crate::sql::{execute_prepared, prepare};
    use crate::testkit::{rows_of as rows, run};
    use crate::types::Value;

    fn setup() -> (ServerContext, SessionState) {
        let ctx = ServerContext::for_tests();
        let mut sess = SessionState::new(1, "root", "%", None);
        for sql in [
            "CREATE DATABASE d",
            "USE d",
            "CREATE TABLE t (a INT PRIMARY KEY, b INT)",
            "CREATE TABLE u (x INT PRIMARY KEY, y INT)",
            "INSERT INTO t VALUES (1, 0), (2, 0), (3, 0)",
            "INSERT INTO u VALUES (1, 1), (2, 2)",
        ] {
            run(&ctx, &mut sess, sql).unwrap();
        }
        (ctx, sess)
    }

    fn session(ctx: &ServerContext, id: u32) -> SessionState {
        let mut s = SessionState::new(id, "root", "%", None);
        run(ctx, &mut s, "USE d").unwrap();
        s
    }

    #[test]
    fn a_prepared_statement_sees_fresh_data_at_each_execution() {
        let (ctx, mut sess) = setup();
        let sql = "SELECT a, (SELECT COUNT(*) FROM u) FROM t WHERE a IN (SELECT x FROM u WHERE y >= ?) ORDER BY a";
        let p = prepare(&ctx, &mut sess, sql).unwrap();
        let count = |rows: &[Vec<Value>]| rows.iter().map(|r| r[0].clone()).collect::<Vec<_>>();
        let r = rows(execute_prepared(&ctx, &mut sess, &p, &[Value::Int(1)]));
        assert_eq!(count(&r), vec![Value::Int(1), Value::Int(2)]);
        assert_eq!(r[0][1], Value::Int(2));
        sess.end_statement(&ctx, true).unwrap();
        run(&ctx, &mut sess, "INSERT INTO u VALUES (3, 3)").unwrap();
        let r = rows(execute_prepared(&ctx, &mut sess, &p, &[Value::Int(2)]));
        assert_eq!(count(&r), vec![Value::Int(2), Value::Int(3)]);
        assert_eq!(r[0][1], Value::Int(3), "the scalar subquery ran again");
        sess.end_statement(&ctx, true).unwrap();
        // A table of a subquery dropped: the plan is stale and binding it again fails.
        run(&ctx, &mut sess, "DROP TABLE u").unwrap();
        let e = execute_prepared(&ctx, &mut sess, &p, &[Value::Int(1)]).unwrap_err();
        assert_eq!(e.code().number(), 1146);
    }

    #[test]
    fn every_subquery_reads_the_transactions_snapshot() {
        let (ctx, mut s1) = setup();
        let mut s2 = session(&ctx, 2);
        run(&ctx, &mut s1, "BEGIN").unwrap();
        let before = rows(run(
            &ctx,
            &mut s1,
            "SELECT a, (SELECT COUNT(*) FROM u) FROM t WHERE a IN (SELECT x FROM u) ORDER BY a",
        ));
        run(&ctx, &mut s2, "INSERT INTO u VALUES (3, 3)").unwrap();
        let after = rows(run(
            &ctx,
            &mut s1,
            "SELECT a, (SELECT COUNT(*) FROM u) FROM t WHERE a IN (SELECT x FROM u) ORDER BY a",
        ));
        assert_eq!(before, after);
        assert_eq!(after.len(), 2);
        run(&ctx, &mut s1, "COMMIT").unwrap();
        let now = rows(run(
            &ctx,
            &mut s1,
            "SELECT a FROM t WHERE a IN (SELECT x FROM u)",
        ));
        assert_eq!(now.len(), 3);
    }

    /// InnoDB S-locks the rows an UPDATE's subquery reads in REPEATABLE READ, not in READ
    /// COMMITTED; a plain SELECT's subquery never locks.
    #[test]
    fn subquery_locks_follow_innodb() {
        let (ctx, mut s1) = setup();
        let mut s2 = session(&ctx, 2);
        run(&ctx, &mut s2, "SET innodb_lock_wait_timeout = 1").unwrap();
        run(&ctx, &mut s1, "BEGIN").unwrap();
        run(
            &ctx,
            &mut s1,
            "UPDATE t SET b = (SELECT MAX(y) FROM u) WHERE a = 1",
        )
        .unwrap();
        let e = run(&ctx, &mut s2, "UPDATE u SET y = 5 WHERE x = 2").unwrap_err();
        assert_eq!(e.code().number(), 1205);
        run(&ctx, &mut s1, "ROLLBACK").unwrap();
        run(
            &ctx,
            &mut s1,
            "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
        )
        .unwrap();
        run(&ctx, &mut s1, "BEGIN").unwrap();
        run(
            &ctx,
            &mut s1,
            "UPDATE t SET b = (SELECT MAX(y) FROM u) WHERE a = 1",
        )
        .unwrap();
        run(&ctx, &mut s2, "UPDATE u SET y = 5 WHERE x = 2").unwrap();
        run(&ctx, &mut s1, "ROLLBACK").unwrap();
        run(&ctx, &mut s1, "BEGIN").unwrap();
        rows(run(
            &ctx,
            &mut s1,
            "SELECT * FROM t WHERE b <= (SELECT MAX(y) FROM u) FOR UPDATE",
        ));
        run(&ctx, &mut s2, "UPDATE u SET y = 6 WHERE x = 2").unwrap();
        run(&ctx, &mut s1, "ROLLBACK").unwrap();
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let (ctx, mut sess) = setup();
        let nest = |n: usize| {
            let mut q = "SELECT 1".to_string();
            for _ in 0..n {
                q = format!("SELECT ({q})");
            }
            q
        };
        assert_eq!(
            rows(run(&ctx, &mut sess, &nest(63))),
            vec![vec![Value::Int(1)]]
        );
        for n in [64, 300] {
            let e = run(&ctx, &mut sess, &nest(n)).unwrap_err();
            assert_eq!(e.code().number(), 1473, "{n}: {e:?}");
        }
        // Deeper still, the parser's own nesting limit answers first.
        assert!(run(&ctx, &mut sess, &nest(5000)).is_err());
    }
}
