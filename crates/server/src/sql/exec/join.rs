//! Executing a join: nested loops over the units of a [`JoinPlan`].
//!
//! The joined row (`flat`, every table's columns in FROM order) is filled as the loops go
//! down. A leaf reads the rows of its table that match for the current outer row — an index
//! lookup whose keys are evaluated on `flat`, a full scan, or a probe of a hash table built
//! once per statement — with its conditions as the storage read's filter (so a locking read
//! evaluates them on the latest version after any lock wait). The rows a read returns are
//! collected before the next level runs: a read holds the transaction mutably, and the next
//! level reads with it too. An outer unit runs its inner sequence and NULL-complements the
//! inner tables when that produced nothing.
//!
//! A derived table (or CTE reference) is materialized once, on first use, and read whole
//! (filtered by the leaf's conditions) or through a hash table like a table without an index.
//!
//! ANALYZE ([`run_counted`]) counts each leaf's loops, rows read and rows kept; a plain join
//! passes no counters and wraps no filter.
//!
//! Every table read uses the statement's transaction (its read view, or its locks for
//! `FOR UPDATE` / `FOR SHARE`, taken on every row read from every table).
//!
//! Multi-table UPDATE / DELETE ([`run_tracked`]) read each table with its own lock (the
//! targets exclusively) and are told, with each joined row, the handle of the row of each
//! target table in it (None when NULL-complemented).

use crate::error::Result;
use crate::sql::env::Env;
use crate::sql::expr::compare;
use crate::sql::expr::{Expr, RowCtx};
use crate::sql::plan::join::{HashKey, JoinPlan, JoinTable, Leaf, Unit};
use crate::sql::plan::{self, Access};
use crate::storage::{ReadLock, Row, RowHandle, ScanControl, Txn};
use crate::types::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// What the consumer of joined rows wants next.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    More,
    Stop,
}

/// A hash join's table: rows of the leaf's table by key.
type HashTable = HashMap<Vec<u8>, Vec<Row>>;

struct Run<'a, 'e> {
    plan: &'a JoinPlan,
    env: &'a Env<'e>,
    /// The lock of each table's reads.
    locks: Vec<ReadLock>,
    /// Tables whose row handles are tracked (bit set), and the current ones by table.
    tracked: u64,
    handles: Vec<Option<RowHandle>>,
    /// Hash tables, built on first use, by table number.
    hashes: HashMap<usize, HashTable>,
    /// Derived tables' rows, materialized on first use, by table number.
    derived: HashMap<usize, Arc<Vec<Row>>>,
    /// ANALYZE: the rows each leaf reads and keeps (None otherwise: no counting).
    stats: Option<&'a RefCell<Counts>>,
    /// Rows looked at in memory (derived tables, hash probes) since the last interruption
    /// check: a join over materialized rows reads no storage, whose scans are where a KILL or
    /// max_statement_time is otherwise noticed (`interrupt.rs`).
    unchecked: u32,
}

/// How many in-memory rows a join looks at between two interruption checks.
const CHECK_EVERY: u32 = 4096;

/// ANALYZE's counts of each table read, by the address of its [`Leaf`] (or, for a
/// single-table SELECT, of its plan): (loops, rows read, rows that passed the conditions).
pub type Counts = HashMap<usize, (u64, u64, u64)>;

/// Run a join, passing every joined row (after all conditions) to `emit`.
pub fn run(
    plan: &JoinPlan,
    env: &Env<'_>,
    txn: &mut Txn,
    lock: ReadLock,
    emit: &mut dyn FnMut(&[Value]) -> Result<Flow>,
) -> Result<()> {
    run_counted(plan, env, txn, lock, None, emit)
}

/// [`run`], counting each leaf's reads into `stats` when given (ANALYZE).
pub fn run_counted(
    plan: &JoinPlan,
    env: &Env<'_>,
    txn: &mut Txn,
    lock: ReadLock,
    stats: Option<&RefCell<Counts>>,
    emit: &mut dyn FnMut(&[Value]) -> Result<Flow>,
) -> Result<()> {
    let locks = vec![lock; plan.tables.len()];
    run_tracked(plan, env, txn, (locks, stats), 0, &mut |flat, _| emit(flat))
}

/// Run a join reading table `t` with `locks[t]` (and counting reads into `stats` when given),
/// passing every joined row and the handles of the rows of the `tracked` tables in it (indexed
/// by table number) to `emit`. A tracked table must not be read by hash join (see
/// `exec/multi_dml.rs`).
pub fn run_tracked(
    plan: &JoinPlan,
    env: &Env<'_>,
    txn: &mut Txn,
    (locks, stats): (Vec<ReadLock>, Option<&RefCell<Counts>>),
    tracked: u64,
    emit: &mut EmitTracked<'_>,
) -> Result<()> {
    let mut flat = vec![Value::Null; plan.width()];
    let mut run = Run {
        plan,
        env,
        locks,
        tracked,
        handles: vec![None; plan.tables.len()],
        hashes: HashMap::new(),
        derived: HashMap::new(),
        stats,
        unchecked: 0,
    };
    run.units(&plan.units, 0, txn, &mut flat, &mut |_, flat, handles| {
        emit(flat, handles)
    })?;
    Ok(())
}

/// The consumer of [`run_tracked`]: a joined row and the tracked tables' row handles.
pub type EmitTracked<'e> = dyn FnMut(&[Value], &[Option<RowHandle>]) -> Result<Flow> + 'e;

type Next<'n> = dyn FnMut(&mut Txn, &mut Vec<Value>, &[Option<RowHandle>]) -> Result<Flow> + 'n;

/// Copy a table's row into its place in the joined row (never past the end: a row read under
/// a newer definition than the plan's cannot overrun it).
fn put(flat: &mut [Value], off: usize, row: &[Value]) {
    let end = (off + row.len()).min(flat.len());
    if off < end {
        flat[off..end].clone_from_slice(&row[..end - off]);
    }
}

fn passes(e: &Option<Expr>, flat: &[Value], env: &Env<'_>) -> Result<bool> {
    match e {
        Some(e) => e.is_true(&RowCtx::of(flat), env),
        None => Ok(true),
    }
}

impl Run<'_, '_> {
    /// Run `units[i..]` for the current `flat`, then `next` for every row they produce.
    fn units(
        &mut self,
        units: &[Unit],
        i: usize,
        txn: &mut Txn,
        flat: &mut Vec<Value>,
        next: &mut Next<'_>,
    ) -> Result<Flow> {
        let Some(unit) = units.get(i) else {
            return next(txn, flat, &self.handles);
        };
        match unit {
            Unit::Leaf(leaf) => {
                let mut hs = Vec::new();
                let rows = self.read(leaf, txn, flat, &mut hs)?;
                let off = self.plan.scope.tables[leaf.table].offset;
                for (k, r) in rows.into_iter().enumerate() {
                    put(flat, off, &r);
                    if let Some(h) = hs.get(k) {
                        self.handles[leaf.table] = Some(h.clone());
                    }
                    if self.units(units, i + 1, txn, flat, next)? == Flow::Stop {
                        return Ok(Flow::Stop);
                    }
                }
                Ok(Flow::More)
            }
            Unit::Outer {
                inner,
                tables,
                post,
            } => {
                let env = self.env;
                // Collect the inner rows (the inner tables' segments of `flat`), then run
                // the rest of the sequence for each.
                let segs = self.inner_rows(inner, txn, flat, tables)?;
                if segs.is_empty() {
                    for &t in tables {
                        self.null_table(t, flat);
                        self.handles[t] = None;
                    }
                    if passes(post, flat, env)? {
                        return self.units(units, i + 1, txn, flat, next);
                    }
                    return Ok(Flow::More);
                }
                for (seg, hs) in segs {
                    self.restore(tables, &seg, flat);
                    for (&t, h) in tables.iter().zip(hs) {
                        self.handles[t] = h;
                    }
                    if passes(post, flat, env)?
                        && self.units(units, i + 1, txn, flat, next)? == Flow::Stop
                    {
                        return Ok(Flow::Stop);
                    }
                }
                Ok(Flow::More)
            }
        }
    }

    /// Every combination of rows the inner sequence produces for the current outer row, as
    /// the values of the inner tables' columns (and their row handles when tracked).
    #[allow(clippy::type_complexity)]
    fn inner_rows(
        &mut self,
        inner: &[Unit],
        txn: &mut Txn,
        flat: &mut Vec<Value>,
        tables: &[usize],
    ) -> Result<Vec<(Vec<Value>, Vec<Option<RowHandle>>)>> {
        let scope = &self.plan.scope;
        let tracked = self.tracked;
        let mut out = Vec::new();
        self.units(
            inner,
            0,
            txn,
            flat,
            &mut |_, flat: &mut Vec<Value>, handles| {
                crate::memory::check(0)?;
                let mut seg = Vec::new();
                for &t in tables {
                    let jt = &scope.tables[t];
                    seg.extend_from_slice(&flat[jt.offset..jt.offset + jt.scope.columns.len()]);
                }
                let hs = match tracked {
                    0 => Vec::new(),
                    _ => tables.iter().map(|&t| handles[t].clone()).collect(),
                };
                out.push((seg, hs));
                Ok(Flow::More)
            },
        )?;
        Ok(out)
    }

    fn restore(&self, tables: &[usize], seg: &[Value], flat: &mut [Value]) {
        let mut pos = 0;
        for &t in tables {
            let jt = &self.plan.scope.tables[t];
            let w = jt.scope.columns.len();
            flat[jt.offset..jt.offset + w].clone_from_slice(&seg[pos..pos + w]);
            pos += w;
        }
    }

    fn null_table(&self, t: usize, flat: &mut [Value]) {
        let jt = &self.plan.scope.tables[t];
        for v in &mut flat[jt.offset..jt.offset + jt.scope.columns.len()] {
            *v = Value::Null;
        }
    }

    /// The rows of a leaf's table that match for the current outer row.
    /// With the table tracked, its rows' handles go to `hs`.
    fn read(
        &mut self,
        leaf: &Leaf,
        txn: &mut Txn,
        flat: &mut [Value],
        hs: &mut Vec<RowHandle>,
    ) -> Result<Vec<Row>> {
        self.interruption_point(1)?;
        if let Some(h) = &leaf.hash {
            return self.probe(leaf, h, txn, flat);
        }
        let off = self.plan.scope.tables[leaf.table].offset;
        let env = self.env;
        let tref = match &self.plan.tables[leaf.table] {
            JoinTable::Table(t) => t,
            JoinTable::Derived(_) => {
                let rows = self.derived_rows(leaf.table, txn)?;
                self.interruption_point(rows.len())?;
                let mut out = Vec::new();
                for r in rows.iter() {
                    put(flat, off, r);
                    if passes(&leaf.filter, flat, env)? {
                        crate::memory::check(0)?;
                        out.push(r.clone());
                    }
                }
                self.count(leaf, rows.len() as u64, out.len());
                return Ok(out);
            }
        };
        let outer: Vec<Value> = flat.to_vec();
        let track = self.tracked & (1u64 << leaf.table) != 0;
        let mut out = Vec::new();
        let mut filter = |row: &Row| -> Result<bool> {
            if leaf.filter.is_none() {
                return Ok(true);
            }
            put(flat, off, row);
            passes(&leaf.filter, flat, env)
        };
        // ANALYZE counts the rows read; a plain statement's filter is not wrapped.
        let mut read = 0u64;
        let mut counted;
        let filter: &mut dyn FnMut(&Row) -> Result<bool> = match self.stats {
            Some(_) => {
                counted = |row: &Row| {
                    read += 1;
                    filter(row)
                };
                &mut counted
            }
            None => &mut filter,
        };
        plan::scan_at(
            &tref.table,
            &leaf.access,
            txn,
            env,
            self.locks[leaf.table],
            false,
            &outer,
            filter,
            &mut |h, row| {
                crate::memory::check(0)?;
                if track {
                    hs.push(h.clone());
                }
                out.push(row.clone());
                Ok(ScanControl::Continue)
            },
        )?;
        self.count(leaf, read, out.len());
        Ok(out)
    }

    /// Count `n` rows looked at; every [`CHECK_EVERY`] of them, 1317 (or 1969) if the
    /// statement was killed or ran past its time.
    fn interruption_point(&mut self, n: usize) -> Result<()> {
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        self.unchecked = self.unchecked.saturating_add(n);
        if self.unchecked >= CHECK_EVERY {
            self.unchecked = 0;
            crate::interrupt::check()?;
        }
        Ok(())
    }

    fn count(&self, leaf: &Leaf, read: u64, passed: usize) {
        if let Some(s) = self.stats {
            let mut m = s.borrow_mut();
            let e = m.entry(leaf as *const Leaf as usize).or_default();
            e.0 += 1;
            e.1 += read;
            e.2 += passed as u64;
        }
    }

    /// A derived table's rows: run once per statement, with the statement's transaction.
    fn derived_rows(&mut self, t: usize, txn: &mut Txn) -> Result<Arc<Vec<Row>>> {
        if let Some(rows) = self.derived.get(&t) {
            return Ok(rows.clone());
        }
        let JoinTable::Derived(d) = &self.plan.tables[t] else {
            return Err(crate::error::Error::internal("not a derived table"));
        };
        let rows = d.materialize(self.env, Some(txn))?;
        self.derived.insert(t, rows.clone());
        Ok(rows)
    }

    /// A hash join probe: the rows whose key equals the probe value, then the leaf's filter.
    fn probe(
        &mut self,
        leaf: &Leaf,
        h: &HashKey,
        txn: &mut Txn,
        flat: &mut [Value],
    ) -> Result<Vec<Row>> {
        if !self.hashes.contains_key(&leaf.table) {
            let built = self.build(leaf, h, txn)?;
            self.hashes.insert(leaf.table, built);
        }
        let v = h.probe.eval(&RowCtx::of(flat), self.env)?;
        if v.is_null() {
            self.count(leaf, 0, 0);
            return Ok(Vec::new());
        }
        let mut key = Vec::new();
        compare::group_key(&v, h.coll, &mut key);
        let n = (self.hashes.get(&leaf.table))
            .and_then(|m| m.get(&key))
            .map_or(0, Vec::len);
        self.interruption_point(n)?;
        let Some(cands) = self.hashes.get(&leaf.table).and_then(|m| m.get(&key)) else {
            self.count(leaf, 0, 0);
            return Ok(Vec::new());
        };
        let off = self.plan.scope.tables[leaf.table].offset;
        let mut out = Vec::new();
        for r in cands {
            put(flat, off, r);
            if passes(&leaf.filter, flat, self.env)? {
                out.push(r.clone());
            }
        }
        self.count(leaf, cands.len() as u64, out.len());
        Ok(out)
    }

    /// Read a hash join's table once (with the conditions on it alone) into a hash table.
    fn build(&mut self, leaf: &Leaf, h: &HashKey, txn: &mut Txn) -> Result<HashTable> {
        let jt = &self.plan.scope.tables[leaf.table];
        let (off, width) = (jt.offset, jt.scope.columns.len());
        let env = self.env;
        let mut scratch = vec![Value::Null; self.plan.width()];
        let tref = match &self.plan.tables[leaf.table] {
            JoinTable::Table(t) => t,
            JoinTable::Derived(_) => {
                let rows = self.derived_rows(leaf.table, txn)?;
                let mut map = HashTable::new();
                for row in rows.iter() {
                    put(&mut scratch[..off + width], off, row);
                    if !passes(&leaf.local, &scratch, env)? {
                        continue;
                    }
                    crate::memory::check(0)?;
                    let v = row.get(h.build).unwrap_or(&Value::Null);
                    if !v.is_null() {
                        let mut key = Vec::new();
                        compare::group_key(v, h.coll, &mut key);
                        map.entry(key).or_default().push(row.clone());
                    }
                }
                return Ok(map);
            }
        };
        let mut filter = |row: &Row| -> Result<bool> {
            if leaf.local.is_none() {
                return Ok(true);
            }
            put(&mut scratch[..off + width], off, row);
            passes(&leaf.local, &scratch, env)
        };
        let mut map = HashTable::new();
        plan::scan_at(
            &tref.table,
            &Access::FullScan,
            txn,
            env,
            self.locks[leaf.table],
            false,
            &[],
            &mut filter,
            &mut |_, row| {
                crate::memory::check(0)?;
                let v = row.get(h.build).unwrap_or(&Value::Null);
                if !v.is_null() {
                    let mut key = Vec::new();
                    compare::group_key(v, h.coll, &mut key);
                    map.entry(key).or_default().push(row.clone());
                }
                Ok(ScanControl::Continue)
            },
        )?;
        Ok(map)
    }
}
