//! ANALYZE SELECT: run the statement's reads and count, for each table read, how often it was
//! read (loops), the rows it read and the rows that passed its conditions, for EXPLAIN's
//! `r_rows` / `r_filtered` (`exec/explain.rs`).
//!
//! The reads are those of the SELECT itself (same access paths, locks, filters; a LIMIT
//! that stops a streaming read stops here too); the rows are counted and dropped, as MariaDB
//! drops ANALYZE's result. The join counts through [`join::run_counted`]; a single-table read
//! wraps its own filter here, so the plain SELECT path (`exec/select.rs`) is not touched and
//! a plain join wraps nothing.
//!
//! A set operation ([`run_query`]): each operand SELECT's reads are counted as above, then the
//! whole query runs once more for the rows of its result (`UNION RESULT`'s `r_rows`): ANALYZE
//! reads the tables twice, a plain query is not touched.
//!
//! A derived table or CTE reference: its body is counted by a run of its own, then the outer
//! SELECT's read materializes it again and counts the rows it reads from it.
//!
//! Refused (1235) for now: statements with subqueries, recursive CTEs, and UPDATE / DELETE /
//! INSERT (whose ANALYZE changes rows in MariaDB).

use super::cte::DerivedBody;
use super::join::{self, Counts, Flow};
use super::query::{Derived, Node, QueryPlan};
use super::select::{self, SelectPlan};
use crate::error::{Error, Result};
use crate::sql::env::Env;
use crate::sql::expr::RowCtx;
use crate::sql::plan::join::JoinTable;
use crate::sql::plan::{self, Source};
use crate::storage::{ScanControl, Txn};
use std::cell::RefCell;

/// The derived tables (and CTE references) `p` reads.
fn derived_of(p: &SelectPlan) -> Vec<&Derived> {
    match (&p.join, &p.source) {
        (Some(j), _) => j
            .tables
            .iter()
            .filter_map(|t| match t {
                JoinTable::Derived(d) => Some(d.as_ref()),
                JoinTable::Table(_) => None,
            })
            .collect(),
        (None, Some(Source::Derived(d))) => vec![d.as_ref()],
        _ => Vec::new(),
    }
}

/// Can ANALYZE run `p`?
pub fn check(p: &SelectPlan) -> Result<()> {
    if !p.subqueries.is_empty() {
        return Err(Error::unsupported("ANALYZE of statements with subqueries"));
    }
    for d in derived_of(p) {
        match &d.body {
            DerivedBody::Query(q) => check_query(q)?,
            DerivedBody::Working(_) => return Err(Error::unsupported("ANALYZE of recursive CTEs")),
        }
    }
    Ok(())
}

/// Run the reads of `p`, counting (see the module doc). A derived table's body is counted by
/// a run of its own first; the read of `p` then materializes it again.
pub fn run(p: &SelectPlan, env: &Env<'_>, mut txn: Option<&mut Txn>) -> Result<Counts> {
    let mut inner = Counts::new();
    for d in derived_of(p) {
        match &d.body {
            DerivedBody::Query(q) if matches!(q.node, Node::Select(_)) => {
                count_parts(q, env, &mut txn, &mut inner)?
            }
            DerivedBody::Query(q) => inner.extend(run_query(q, env, txn.as_deref_mut())?),
            DerivedBody::Working(_) => {}
        }
    }
    let stats = RefCell::new(inner);
    let limit = select::eval_count(&p.limit, env)?;
    let offset = select::eval_count(&p.offset, env)?.unwrap_or(0);
    if limit == Some(0) || select::impossible_condition(p, env)? {
        return Ok(stats.into_inner());
    }
    let streaming = p.group.is_none()
        && !p.distinct
        && p.window.is_none()
        && (p.order.is_empty() || p.sorted_by_scan);
    let enough = limit
        .map(|l| l.saturating_add(offset))
        .filter(|_| streaming);
    let mut produced = 0u64;
    let mut stop = move || {
        produced += 1;
        enough.is_some_and(|n| produced >= n)
    };
    let no_txn = || Error::internal("ANALYZE without a transaction");
    match (&p.join, &p.source) {
        (Some(j), _) => {
            let txn = txn.ok_or_else(no_txn)?;
            join::run_counted(j, env, txn, p.lock, Some(&stats), &mut |_| {
                Ok(if stop() { Flow::Stop } else { Flow::More })
            })?;
        }
        (None, Some(Source::Derived(d))) => {
            let (mut read, mut passed) = (0u64, 0u64);
            for r in d.materialize(env, txn)?.iter() {
                read += 1;
                let keep = match &p.filter {
                    Some(f) => f.is_true(&RowCtx::of(r), env)?,
                    None => true,
                };
                if keep {
                    passed += 1;
                    if stop() {
                        break;
                    }
                }
            }
            stats
                .borrow_mut()
                .insert(p as *const SelectPlan as usize, (1, read, passed));
        }
        (None, Some(Source::Table(t))) => {
            let txn = txn.ok_or_else(no_txn)?;
            let (mut read, mut passed) = (0u64, 0u64);
            plan::scan(
                &t.table,
                &p.access,
                txn,
                env,
                p.lock,
                p.backward,
                &mut |row| {
                    read += 1;
                    match &p.filter {
                        Some(f) => f.is_true(&RowCtx::of(row), env),
                        None => Ok(true),
                    }
                },
                &mut |_, _| {
                    passed += 1;
                    Ok(if stop() {
                        ScanControl::Stop
                    } else {
                        ScanControl::Continue
                    })
                },
            )?;
            stats
                .borrow_mut()
                .insert(p as *const SelectPlan as usize, (1, read, passed));
        }
        _ => {}
    }
    Ok(stats.into_inner())
}

/// Can ANALYZE run `q` (operand SELECTs it can run, combined by set operations)?
pub fn check_query(q: &QueryPlan) -> Result<()> {
    match &q.node {
        Node::Select(p) => check(p),
        Node::SetOp(s) => s.parts.iter().try_for_each(check_query),
        Node::Sorted(s) => check_query(&s.input),
        Node::Recursive(_) => Err(Error::unsupported("ANALYZE of recursive CTEs")),
    }
}

/// Run a set operation's operand reads, counting, then the query itself for the number of
/// its result rows (counted under the query plan's address).
pub fn run_query(q: &QueryPlan, env: &Env<'_>, mut txn: Option<&mut Txn>) -> Result<Counts> {
    let mut counts = Counts::new();
    count_parts(q, env, &mut txn, &mut counts)?;
    let n = super::query::run_query(q, env, txn)?.len() as u64;
    counts.insert(q as *const QueryPlan as usize, (1, n, n));
    Ok(counts)
}

fn count_parts(
    q: &QueryPlan,
    env: &Env<'_>,
    txn: &mut Option<&mut Txn>,
    counts: &mut Counts,
) -> Result<()> {
    match &q.node {
        Node::Select(p) => counts.extend(run(p, env, txn.as_deref_mut())?),
        Node::SetOp(s) => {
            for part in &s.parts {
                count_parts(part, env, txn, counts)?;
            }
        }
        Node::Sorted(s) => count_parts(&s.input, env, txn, counts)?,
        Node::Recursive(_) => return Err(Error::unsupported("ANALYZE of recursive CTEs")),
    }
    Ok(())
}
