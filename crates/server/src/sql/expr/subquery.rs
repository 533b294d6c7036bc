//! Subqueries in expressions: what the binder makes of them ([`Subquery`]) and how they
//! evaluate, with MariaDB's semantics.
//!
//! * A scalar subquery is the value of its one column in its one row: NULL without a row,
//!   error 1242 with more than one.
//! * `x [NOT] IN (SELECT …)` (also `(x, y) IN (SELECT a, b …)`) is three-valued: FALSE for an
//!   empty result whatever `x`; otherwise TRUE if a row equals `x`, else NULL if `x` holds a
//!   NULL or some row could equal it but for a NULL, else FALSE. `NOT IN` is its negation.
//! * `EXISTS` is TRUE when the subquery returns a row (never NULL).
//! * `x op ANY (…)` is TRUE if `x op v` is TRUE for some row, else NULL if it is NULL for some,
//!   else FALSE (FALSE for no row); `x op ALL (…)` is FALSE if `x op v` is FALSE for some row,
//!   else NULL if it is NULL for some, else TRUE (TRUE for no row).
//!
//! Running a subquery needs the statement's transaction, which the executor that evaluates
//! the expression lends through the row context ([`RowCtx::host`], a [`Host`]; see
//! `exec/subquery.rs`). A subquery that reads no column of an enclosing query
//! (*uncorrelated*) runs once per statement execution: its result — the value, or for IN a
//! hash set of its rows' comparison keys — is kept in the statement's environment
//! ([`State::cache`]), never in the plan, so a prepared or cached statement sees fresh data at
//! each execution. A correlated one runs again for every outer row whose referenced values
//! differ from the previous run's (the last result is kept by those values).
//!
//! Outer column references bind to [`Expr::Outer`]: `depth` levels up the stack of outer
//! rows ([`State::outer`]) that evaluating a subquery pushes (the row of the query it appears
//! in) and pops.

use super::{bool_value, cmp_values, compare, convert, CmpOp, Expr, RowCtx};
use crate::error::{Error, Result};
use crate::sql::bind::join_scope::JoinScope;
use crate::sql::bind::TableScope;
use crate::sql::env::Env;
use crate::sql::exec::select::SelectPlan;
use crate::types::{Collation, Value};
use cohort_protocol::ErrorCode;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

/// Marks an aggregate (its index in the enclosing query's aggregates) where a column
/// position is expected: in outer references and the keys of kept results.
pub const AGG_TAG: usize = 1 << 40;

/// Deepest nesting of SELECTs (MariaDB's limit: 1473 past it).
pub const MAX_SELECT_NESTING: usize = 63;

/// What a subquery expression asks of its result.
#[derive(Debug)]
pub enum Kind {
    Scalar,
    Exists {
        negated: bool,
    },
    /// `left [NOT] IN (…)`; `left` has as many expressions as the subquery has columns, each
    /// compared with its column's collation.
    In {
        left: Vec<Expr>,
        colls: Vec<Collation>,
        /// The comparisons may use a hash set of the rows' keys (same value class both sides).
        hashable: bool,
        negated: bool,
    },
    /// `left op ANY (…)` (`all` false) / `left op ALL (…)`.
    Quantified {
        left: Box<Expr>,
        op: CmpOp,
        all: bool,
        coll: Collation,
    },
}

/// A bound subquery.
pub struct Subquery {
    pub kind: Kind,
    pub plan: SelectPlan,
    /// Reads a column of an enclosing query (runs again per outer row).
    pub correlated: bool,
    /// The outer column references it (or a subquery in it) makes past itself, as (depth
    /// relative to the query the subquery appears in, column): the key of a correlated
    /// subquery's last result.
    pub outer_refs: Vec<(usize, usize)>,
}

impl std::fmt::Debug for Subquery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subquery")
            .field("kind", &self.kind)
            .field("correlated", &self.correlated)
            .finish()
    }
}

/// Runs a subquery's plan with the statement's transaction, `outer` being the row of the
/// query the subquery expression is evaluated in.
pub trait Host {
    fn run(&self, plan: &SelectPlan, env: &Env<'_>, outer: &RowCtx<'_>) -> Result<Vec<Vec<Value>>>;

    /// Does the plan return a row? (Its select list is not evaluated, as in MariaDB.)
    fn exists(&self, plan: &SelectPlan, env: &Env<'_>, outer: &RowCtx<'_>) -> Result<bool>;
}

/// The row of an enclosing query, as its subqueries read it.
pub struct OuterRow {
    pub row: Vec<Value>,
    /// Its group's aggregates (a grouped query).
    pub aggs: Vec<Value>,
}

impl OuterRow {
    fn get(&self, col: usize) -> Option<&Value> {
        match col >= AGG_TAG {
            true => self.aggs.get(col - AGG_TAG),
            false => self.row.get(col),
        }
    }
}

/// One scope of an enclosing query, while a subquery inside it is bound.
pub struct Frame {
    pub scope: Option<TableScope>,
    pub join: Option<JoinScope>,
    /// The outer references bound while this frame's subquery is bound that reach this
    /// frame or one further out: (frame position, column).
    pub used: RefCell<Vec<(usize, usize)>>,
    /// The aggregates of the enclosing query, while they are allowed in the clause the
    /// subquery is in (an aggregate of only its columns belongs to it).
    pub aggs: RefCell<Option<Vec<crate::sql::bind::AggSpec>>>,
}

/// The subquery state of one statement execution (a field of [`Env`]).
#[derive(Default)]
pub struct State {
    /// Binding: subqueries may appear in the clause being bound.
    pub allowed: Cell<bool>,
    /// Binding: the ON clause being bound is an inner join's, whose conditions run as WHERE
    /// conditions do (after the read when they hold a subquery): subqueries may appear in it.
    pub inner_on: Cell<bool>,
    /// Binding: the scopes of the enclosing queries, outermost first.
    pub frames: RefCell<Vec<Frame>>,
    /// Binding: subqueries bound and not yet claimed by the plan of their query.
    pub bound: RefCell<Vec<Arc<Subquery>>>,
    /// Execution: the lock the reads of subqueries take in a data-changing statement (see
    /// `exec/subquery.rs`); None in a SELECT, where each subquery takes its own.
    pub lock: Cell<Option<crate::storage::ReadLock>>,
    /// Execution: the one row of an implicitly grouped query whose WHERE is constantly false
    /// is being computed: a correlated scalar subquery is NULL there (MariaDB).
    pub impossible_group: Cell<bool>,
    /// Execution: the rows of the enclosing queries, outermost first.
    pub outer: RefCell<Vec<OuterRow>>,
    /// Execution: results by subquery (its address), with the outer values they were computed
    /// for (empty for an uncorrelated subquery).
    pub cache: RefCell<Cache>,
}

/// Kept results by subquery (its address), with the outer values each was computed for.
pub type Cache = HashMap<usize, (Vec<Value>, Rc<Materialized>)>;

/// A subquery's result, as its kind uses it.
pub enum Materialized {
    Value(Value),
    Bool(bool),
    Rows(RowSet),
    Values(Vec<Value>),
}

/// The rows of an IN subquery.
pub struct RowSet {
    rows: Vec<Vec<Value>>,
    /// Keys of the rows without a NULL (when the comparison allows hashing).
    keys: Option<HashSet<Vec<u8>>>,
    /// Some row has a NULL.
    has_null: bool,
}

fn row_key(row: &[Value], colls: &[Collation]) -> Vec<u8> {
    let mut k = Vec::new();
    for (v, c) in row.iter().zip(colls) {
        compare::group_key(v, *c, &mut k);
    }
    k
}

fn too_many_rows() -> Error {
    Error::new(
        ErrorCode::SubqueryNo1Row,
        "Subquery returns more than 1 row",
    )
}

/// The value of a subquery expression for the row `r`.
pub fn eval(s: &Arc<Subquery>, r: &RowCtx<'_>, env: &Env<'_>) -> Result<Value> {
    if s.correlated && matches!(s.kind, Kind::Scalar) && env.subq.impossible_group.get() {
        return Ok(Value::Null);
    }
    let m = materialize(s, r, env)?;
    Ok(match (&s.kind, &*m) {
        (Kind::Scalar, Materialized::Value(v)) => v.clone(),
        (Kind::Exists { negated }, Materialized::Bool(b)) => Value::Int((*b != *negated) as i64),
        (
            Kind::In {
                left,
                colls,
                negated,
                ..
            },
            Materialized::Rows(set),
        ) => {
            let mut x = Vec::with_capacity(left.len());
            for e in left {
                // An invalid date conversion is the zero date here, as in `=` (zero_date.rs).
                x.push(e.eval_compared(r, env)?.into_owned());
            }
            bool_value(in_rows(&x, set, colls).map(|b| b != *negated))
        }
        (
            Kind::Quantified {
                left,
                op,
                all,
                coll,
                ..
            },
            Materialized::Values(vals),
        ) => {
            let x = left.eval_compared(r, env)?;
            let mut unknown = false;
            for v in vals {
                match convert::to_bool(&cmp_values(*op, &x, v, *coll)) {
                    Some(b) if b != *all => return Ok(Value::Int(b as i64)),
                    None => unknown = true,
                    _ => {}
                }
            }
            bool_value((!unknown).then_some(*all))
        }
        _ => return Err(Error::internal("subquery result of another kind")),
    })
}

/// `x IN rows`, three-valued (None = NULL).
fn in_rows(x: &[Value], set: &RowSet, colls: &[Collation]) -> Option<bool> {
    if set.rows.is_empty() {
        return Some(false);
    }
    let x_null = x.iter().any(Value::is_null);
    if !x_null {
        if let Some(keys) = &set.keys {
            if keys.contains(&row_key(x, colls)) {
                return Some(true);
            }
            if !set.has_null {
                return Some(false);
            }
        }
    }
    let mut unknown = false;
    for row in &set.rows {
        let mut all_true = true;
        let mut row_false = false;
        for ((a, b), c) in x.iter().zip(row).zip(colls) {
            match convert::to_bool(&cmp_values(CmpOp::Eq, a, b, *c)) {
                Some(true) => {}
                Some(false) => {
                    row_false = true;
                    break;
                }
                None => all_true = false,
            }
        }
        if row_false {
            continue;
        }
        if all_true {
            return Some(true);
        }
        unknown = true;
    }
    if unknown {
        None
    } else {
        Some(false)
    }
}

/// The subquery's result for this row: cached for an uncorrelated one (per execution), kept
/// for the last outer values for a correlated one.
fn materialize(s: &Arc<Subquery>, r: &RowCtx<'_>, env: &Env<'_>) -> Result<Rc<Materialized>> {
    let id = Arc::as_ptr(s) as usize;
    let key: Vec<Value> = if s.correlated {
        let outer = env.subq.outer.borrow();
        s.outer_refs
            .iter()
            .map(|&(depth, col)| match depth {
                0 if col >= AGG_TAG => r.aggs.get(col - AGG_TAG).cloned().unwrap_or(Value::Null),
                0 => r.row.get(col).cloned().unwrap_or(Value::Null),
                d => outer
                    .iter()
                    .rev()
                    .nth(d - 1)
                    .and_then(|row| row.get(col))
                    .cloned()
                    .unwrap_or(Value::Null),
            })
            .collect()
    } else {
        Vec::new()
    };
    if let Some((k, m)) = env.subq.cache.borrow().get(&id) {
        if same_values(k, &key) {
            return Ok(m.clone());
        }
    }
    let host = r
        .host
        .ok_or_else(|| Error::unsupported("subqueries in this clause"))?;
    if let Kind::Exists { .. } = s.kind {
        let m = Rc::new(Materialized::Bool(host.exists(&s.plan, env, r)?));
        env.subq.cache.borrow_mut().insert(id, (key, m.clone()));
        return Ok(m);
    }
    let rows = host.run(&s.plan, env, r)?;
    let m = Rc::new(match &s.kind {
        Kind::Scalar => match rows.len() {
            0 => Materialized::Value(Value::Null),
            1 => Materialized::Value(
                rows.into_iter()
                    .next()
                    .and_then(|r| r.into_iter().next())
                    .unwrap_or(Value::Null),
            ),
            _ => return Err(too_many_rows()),
        },
        Kind::Exists { .. } => Materialized::Bool(!rows.is_empty()),
        Kind::In {
            colls, hashable, ..
        } => {
            let has_null = rows.iter().any(|r| r.iter().any(Value::is_null));
            let keys = hashable.then(|| {
                rows.iter()
                    .filter(|r| !r.iter().any(Value::is_null))
                    .map(|r| row_key(r, colls))
                    .collect()
            });
            let rows = if *hashable && !has_null && !rows.is_empty() {
                // Only emptiness matters past the hash set.
                rows.into_iter().take(1).collect()
            } else {
                rows
            };
            Materialized::Rows(RowSet {
                rows,
                keys,
                has_null,
            })
        }
        Kind::Quantified { .. } => Materialized::Values(
            rows.into_iter()
                .filter_map(|r| r.into_iter().next())
                .collect(),
        ),
    });
    env.subq.cache.borrow_mut().insert(id, (key, m.clone()));
    Ok(m)
}

/// Are two lists of outer values the same (NULLs equal, values of the same type and bytes)?
fn same_values(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The value of an outer column reference (or of an outer aggregate: `col` tagged with
/// [`AGG_TAG`]).
pub fn outer_value(env: &Env<'_>, depth: usize, col: usize) -> Value {
    env.subq
        .outer
        .borrow()
        .iter()
        .rev()
        .nth(depth.saturating_sub(1))
        .and_then(|row| row.get(col))
        .cloned()
        .unwrap_or(Value::Null)
}
