//! Index statistics: the table's row count and, for every index, the number of distinct
//! values of each key prefix (InnoDB's `n_diff_pfx`), for the planner's row estimates
//! (`sql/plan/join.rs`, EXPLAIN's `rows`) and SHOW INDEX's `Cardinality`.
//!
//! # How they are computed
//!
//! An index is an ordered map of memcomparable keys (`keycode.rs`), so the distinct values of
//! a prefix of `k` columns are counted by walking entries in key order and counting the
//! places where the first `k` columns change (a key is split into its columns with
//! [`keycode::column_end`]).
//!
//! * An index of at most [`EXACT_LIMIT`] entries is walked whole: the counts are exact.
//! * In a larger one, a prefix with at most [`SKIP_BUDGET`] values is counted exactly by
//!   seeking from each value to the first key after it (one map lookup per value), so a
//!   column with few values (a warehouse id, a status) is exact however many rows share
//!   each value.
//! * A prefix with more values is **sampled**, like InnoDB's persistent statistics: [`SAMPLES`] runs of
//!   [`RUN`] consecutive entries, starting at keys spread evenly between the first and last
//!   key of the index. From the runs, the share of adjacent pairs whose prefix changes,
//!   scaled to the index's size, estimates `n_diff`; the distinct prefixes seen in the runs
//!   are a lower bound (so a prefix with few values, like a warehouse id, is not estimated
//!   below what was seen). The cost is bounded by `SKIP_BUDGET × columns + SAMPLES × RUN`
//!   map lookups and steps whatever the table's size.
//!
//! A secondary index holds an entry per image of a row kept for read views, so its counts
//! may include versions not yet purged: statistics are estimates, as InnoDB's are.
//!
//! # When they are computed
//!
//! Never on the commit path: a commit only adds the number of row versions it installs to
//! the table's change counter ([`StatsCell::changed`], one relaxed atomic add per row).
//! Statistics are (re)computed *lazily*, by whoever asks for them ([`Table::stats`]: the
//! planner ordering a join, EXPLAIN, SHOW INDEX, information_schema.STATISTICS) when
//!
//! * none were computed yet, or the table's definition changed since (CREATE / DROP INDEX,
//!   TRUNCATE, a rebuild: its schema version moved), or
//! * more than 10% of the rows counted at the last calculation changed since (InnoDB's
//!   `innodb_stats_auto_recalc` rule), and more than [`MIN_CHANGES`];
//!
//! and immediately by ANALYZE TABLE ([`Table::analyze`]). A cached plan that ordered a join
//! by statistics re-plans when the statistics of one of its tables became due or were
//! recomputed ([`Table::stats_moved`]), i.e. after about 10% of that table's rows changed; a
//! plan whose tables are all read by unique lookups does not depend on statistics at all.
//!
//! # Locks
//!
//! `StatsCell::current` (a Mutex) protects the published statistics; it is held only to
//! clone or replace an `Arc`, never during a calculation. `StatsCell::compute` (a Mutex)
//! serializes calculations of one table, so that concurrent planners wait for one
//! calculation instead of repeating it. A calculation takes the table state (shared), then
//! each index map (shared) for one run at a time. Lock order: `compute` → `Table::state` →
//! index map; `current` is taken alone.

use super::keycode::{self, KeySpec};
use super::table::{IndexMap, Table};
use parking_lot::Mutex;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Indexes with at most this many entries are counted exactly.
pub const EXACT_LIMIT: usize = 10_000;
/// Runs sampled from a larger index.
pub const SAMPLES: usize = 20;
/// Consecutive entries read per run.
pub const RUN: usize = 500;
/// Statistics are due after more than 10% of the rows changed, and at least this many
/// changes: a tiny table updated all the time (TPC-C's warehouse) is not recounted, nor the
/// joins ordered by its statistics planned again, at every change.
pub const MIN_CHANGES: u64 = 16;
/// A prefix with at most this many values in a large index is counted exactly, by seeking
/// from each value to the next.
pub const SKIP_BUDGET: u64 = 1000;

/// The statistics of one table at one calculation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableStats {
    /// Committed rows when they were computed.
    pub rows: u64,
    /// Distinct values of each prefix of the primary key (`primary[k]`: the first `k + 1`
    /// columns); empty for a table keyed by a hidden row id.
    pub primary: Vec<u64>,
    /// The same for each secondary index, parallel to the definition's indexes.
    pub secondary: Vec<Vec<u64>>,
    /// Increases with every calculation of this table.
    pub epoch: u64,
    /// False when every index was counted exactly.
    pub sampled: bool,
}

impl TableStats {
    /// Distinct values of the first `parts` columns of an index (None: primary).
    pub fn n_diff(&self, index: Option<usize>, parts: usize) -> Option<u64> {
        let v = match index {
            None => &self.primary,
            Some(i) => self.secondary.get(i)?,
        };
        parts.checked_sub(1).and_then(|k| v.get(k)).copied()
    }

    /// Rows per value of the first `parts` columns: `rows / n_diff`, at least 1.
    pub fn rows_per_key(&self, index: Option<usize>, parts: usize) -> f64 {
        match self.n_diff(index, parts) {
            Some(n) if n > 0 => (self.rows as f64 / n as f64).max(1.0),
            _ => (self.rows as f64).max(1.0),
        }
    }

    /// MariaDB's `rec_per_key` of an InnoDB index: `rows / n_diff` truncated, then halved
    /// (InnoDB reports selectivity twice as good as measured), at least 1. EXPLAIN shows it
    /// as the rows of a `ref` access whose key comes from another table.
    pub fn rec_per_key(&self, index: Option<usize>, parts: usize) -> u64 {
        (self.rows_per_key(index, parts) as u64 / 2).max(1)
    }

    /// SHOW INDEX's `Cardinality` of the prefix of `parts` columns: `rows / rec_per_key`.
    pub fn cardinality(&self, index: Option<usize>, parts: usize) -> u64 {
        self.rows / self.rec_per_key(index, parts)
    }
}

/// What a table keeps about its statistics (a field of [`Table`]).
#[derive(Default)]
pub(crate) struct StatsCell {
    /// Row versions installed by commits since the table was created (relaxed; see
    /// [`StatsCell::changed`]).
    changes: AtomicU64,
    /// The value of `changes` at which the published statistics are due for recalculation.
    due_at: AtomicU64,
    /// The epoch of the published statistics (0: none yet).
    epoch: AtomicU64,
    /// The published statistics and the schema version they were computed for.
    current: Mutex<Option<(Arc<TableStats>, u64)>>,
    /// Held while computing.
    compute: Mutex<()>,
}

impl StatsCell {
    /// A commit installed `n` row versions (the only work on the commit path).
    #[inline]
    pub fn changed(&self, n: u64) {
        self.changes.fetch_add(n, Ordering::Relaxed);
    }

    /// True once more than 10% of the rows changed since the last calculation.
    fn due(&self) -> bool {
        self.changes.load(Ordering::Relaxed) >= self.due_at.load(Ordering::Relaxed)
    }

    /// The published statistics if they are still valid for `version` and not due.
    fn fresh(&self, version: u64) -> Option<Arc<TableStats>> {
        let cur = self.current.lock();
        match &*cur {
            Some((s, v)) if *v == version && !self.due() => Some(s.clone()),
            _ => None,
        }
    }
}

impl Table {
    /// The table's statistics, recomputed first if none are valid or they are due (see the
    /// module doc). Bounded in time by sampling.
    pub fn stats(&self) -> Arc<TableStats> {
        let version = self.schema_version();
        if let Some(s) = self.stats.fresh(version) {
            return s;
        }
        let _g = self.stats.compute.lock();
        if let Some(s) = self.stats.fresh(self.schema_version()) {
            return s; // computed by another thread meanwhile
        }
        self.recompute()
    }

    /// ANALYZE TABLE: recompute the statistics now.
    pub fn analyze(&self) -> Arc<TableStats> {
        let _g = self.stats.compute.lock();
        self.recompute()
    }

    /// The epoch of the published statistics (0: none computed yet); cheap.
    pub fn stats_epoch(&self) -> u64 {
        self.stats.epoch.load(Ordering::Acquire)
    }

    /// True if statistics computed at `epoch` were replaced or are due for recalculation: a
    /// plan ordered by them should be made again. Two atomic loads.
    pub fn stats_moved(&self, epoch: u64) -> bool {
        self.stats_epoch() != epoch || self.stats.due()
    }

    /// Compute and publish; the caller holds `stats.compute`.
    fn recompute(&self) -> Arc<TableStats> {
        let changes = self.stats.changes.load(Ordering::Relaxed);
        let (version, mut stats) = {
            let st = self.state.read();
            let version = self.schema_version();
            let mut sampled = false;
            let mut one = |map: &IndexMap, spec: &KeySpec, unique: bool| {
                let (n, s) = index_n_diff(map, spec, unique);
                sampled |= s;
                n
            };
            let primary = st
                .pk
                .as_ref()
                .map_or_else(Vec::new, |pk| one(&st.primary, pk, true));
            let secondary = st
                .secondary
                .iter()
                .map(|s| one(&s.map, &s.spec, s.unique))
                .collect();
            let stats = TableStats {
                rows: 0,
                primary,
                secondary,
                epoch: 0,
                sampled,
            };
            (version, stats)
        };
        stats.rows = self.approx_rows();
        stats.epoch = self.stats.epoch.load(Ordering::Relaxed) + 1;
        let stats = Arc::new(stats);
        self.stats.due_at.store(
            changes + (stats.rows / 10).max(MIN_CHANGES) + 1,
            Ordering::Relaxed,
        );
        *self.stats.current.lock() = Some((stats.clone(), version));
        self.stats.epoch.store(stats.epoch, Ordering::Release);
        stats
    }
}

/// The column boundaries of `key` under `spec`: `ends[k]` is the end of column `k`. Stops
/// early if the key is cut short (never for keys the engine wrote).
fn column_ends(spec: &KeySpec, key: &[u8], ends: &mut Vec<usize>) {
    ends.clear();
    let mut at = 0;
    for c in &spec.cols {
        match keycode::column_end(c, key, at) {
            Some(e) => {
                ends.push(e);
                at = e;
            }
            None => break,
        }
    }
}

/// The first column at which the keys `a` and `b` (with their column ends) differ; `n` if
/// the first `n` columns are equal.
fn first_difference(a: &[u8], ae: &[usize], b: &[u8], be: &[usize], n: usize) -> usize {
    (0..n)
        .find(|&k| match (ae.get(k), be.get(k)) {
            (Some(&x), Some(&y)) => a[..x] != b[..y],
            _ => true,
        })
        .unwrap_or(n)
}

/// `n_diff` of each prefix of one index, and whether it was sampled.
fn index_n_diff(map: &IndexMap, spec: &KeySpec, unique: bool) -> (Vec<u64>, bool) {
    let n = spec.cols.len();
    let (total, first, last) = {
        let m = map.read();
        let first = m.keys().next().cloned();
        let last = m.keys().next_back().cloned();
        (m.len(), first, last)
    };
    let (Some(first), Some(last)) = (first, last) else {
        return (vec![0; n], false);
    };
    if total <= EXACT_LIMIT {
        let mut diff = vec![1u64; n];
        let m = map.read();
        let (mut pe, mut ce) = (Vec::new(), Vec::new());
        let mut prev: Option<&Vec<u8>> = None;
        for k in m.keys() {
            column_ends(spec, k, &mut ce);
            if let Some(p) = prev {
                let d = first_difference(p, &pe, k, &ce, n);
                for x in &mut diff[d..] {
                    *x += 1;
                }
            }
            prev = Some(k);
            std::mem::swap(&mut pe, &mut ce);
        }
        return (diff, false);
    }
    // Prefixes with few values: counted exactly by skipping from one value to the next.
    let exact: Vec<u64> = (0..n)
        .map_while(|k| skip_count(map, spec, k, SKIP_BUDGET))
        .collect();
    if exact.len() == n {
        return (exact, false);
    }
    // Sample runs starting at keys spread between the first and the last key.
    let runs: Vec<Vec<Vec<u8>>> = seek_points(&first, &last, SAMPLES)
        .into_iter()
        .map(|seek| {
            let m = map.read();
            m.range(seek..).take(RUN).map(|(k, _)| k.clone()).collect()
        })
        .collect();
    let mut pairs = 0u64;
    let mut changes = vec![0u64; n];
    let mut seen: Vec<HashSet<&[u8]>> = (0..n).map(|_| HashSet::new()).collect();
    let (mut pe, mut ce) = (Vec::new(), Vec::new());
    for run in &runs {
        let mut prev: Option<&Vec<u8>> = None;
        for k in run {
            column_ends(spec, k, &mut ce);
            for (set, &e) in seen.iter_mut().zip(&ce) {
                set.insert(&k[..e]);
            }
            if let Some(p) = prev {
                pairs += 1;
                let d = first_difference(p, &pe, k, &ce, n);
                for x in &mut changes[d..] {
                    *x += 1;
                }
            }
            prev = Some(k);
            std::mem::swap(&mut pe, &mut ce);
        }
    }
    let total = total as u64;
    let mut diff = Vec::with_capacity(n);
    let mut floor = 1u64;
    for k in 0..n {
        let scaled = if pairs == 0 {
            1
        } else {
            1 + (changes[k] as f64 / pairs as f64 * (total - 1) as f64).round() as u64
        };
        if let Some(&x) = exact.get(k) {
            floor = x;
            diff.push(x);
            continue;
        }
        // More than SKIP_BUDGET values, else the skip count would have finished.
        let mut v = scaled
            .max(seen[k].len() as u64)
            .max(floor)
            .max(SKIP_BUDGET + 1)
            .min(total);
        if unique && k + 1 == n {
            v = total;
        }
        floor = v;
        diff.push(v);
    }
    (diff, true)
}

/// The number of distinct values of the first `k + 1` columns, found by seeking from each
/// value to the first key after it: at most `budget` seeks; None if there are more values.
fn skip_count(map: &IndexMap, spec: &KeySpec, k: usize, budget: u64) -> Option<u64> {
    let m = map.read();
    let mut count = 0u64;
    let mut ends = Vec::new();
    let mut from: Option<Vec<u8>> = None;
    loop {
        let key = match &from {
            None => m.keys().next(),
            Some(f) => m.range(f.clone()..).next().map(|(k, _)| k),
        };
        let Some(key) = key else {
            return Some(count);
        };
        count += 1;
        if count > budget {
            return None;
        }
        column_ends(spec, key, &mut ends);
        let &end = ends.get(k)?;
        match keycode::prefix_end(&key[..end]) {
            Some(next) => from = Some(next),
            None => return Some(count),
        }
    }
}

/// `count` keys spread evenly between `first` and `last` (byte strings compared in order):
/// the bytes after their common prefix are read as a 128-bit number and interpolated.
fn seek_points(first: &[u8], last: &[u8], count: usize) -> Vec<Vec<u8>> {
    let common = first.iter().zip(last).take_while(|(a, b)| a == b).count();
    let num = |k: &[u8]| {
        let mut b = [0u8; 16];
        for (d, s) in b.iter_mut().zip(k.iter().skip(common)) {
            *d = *s;
        }
        u128::from_be_bytes(b)
    };
    let (a, z) = (num(first), num(last));
    let step = z.saturating_sub(a) / count as u128;
    (0..count)
        .map(|i| {
            let mut k = first[..common].to_vec();
            k.extend_from_slice(&(a + step * i as u128).to_be_bytes());
            k
        })
        .collect()
}
