//! Window functions: computed over the rows (or groups) of a SELECT after WHERE, grouping and
//! HAVING, before DISTINCT, ORDER BY and LIMIT (as MariaDB).
//!
//! The input is one context per result row: the source row (ungrouped), or a group's first row
//! followed by its aggregate values. For each distinct window ordering (PARTITION BY and
//! ORDER BY, `WinSpec::sort_key`) the contexts are sorted once (a stable sort of row indexes:
//! the partition keys, then the order keys, NULLs first ascending as everywhere), split into
//! partitions, and every window function with that ordering is computed partition by
//! partition:
//!
//! * ranking (ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE) from positions and
//!   peer groups (rows with equal order keys);
//! * LAG / LEAD from positions;
//! * FIRST_VALUE / LAST_VALUE / NTH_VALUE and the aggregates over each row's frame. Frame ends
//!   only move forward as the current row does (ROWS and RANGE alike), so the aggregates slide:
//!   rows enter at the end and leave at the start (`window_agg.rs`), O(n) per partition, and a
//!   frame starting at UNBOUNDED PRECEDING is a running total.
//!
//! The output rows are then computed with the window values after the aggregate values (see
//! `bind/window.rs`), in the order of the last sort. Memory: the contexts and one value per
//! row and window function, all bounded by the result set (checked against the session's
//! budget).

use super::select::{output_row, OutItem, SelectPlan};
use super::window_agg::FrameAgg;
use crate::error::{Error, Result};
use crate::sql::bind::sqltype::{Class, SqlType, FLOATING_POINT_DECIMALS};
use crate::sql::bind::window::{self, Bound, Units, WinFunc, WinSpec, WindowCtx};
use crate::sql::bind::{decimal_precision, AggFunc};
use crate::sql::env::Env;
use crate::sql::expr::compare;
use crate::sql::expr::convert::{self, Num};
use crate::sql::expr::subquery::Host;
use crate::sql::expr::{Expr, RowCtx};
use crate::types::{Decimal, Value};
use cohort_protocol::ErrorCode;
use std::cmp::Ordering;

/// The window functions of a SELECT.
#[derive(Clone, Debug)]
pub struct WindowPlan {
    pub specs: Vec<WinSpec>,
    /// The number of aggregates of the query: window values follow them.
    pub aggs: usize,
}

/// One input context, split into its row and its aggregate values.
fn split(ctx: &[Value], width: Option<usize>) -> (&[Value], &[Value]) {
    match width {
        Some(w) if w <= ctx.len() => ctx.split_at(w),
        _ => (ctx, &[]),
    }
}

/// Compute the window functions over `ctxs` and return the output rows (visible items, then
/// hidden sort keys). `width` is the row width of grouped contexts (None: ungrouped).
pub fn run(
    plan: &SelectPlan,
    wp: &WindowPlan,
    ctxs: Vec<Vec<Value>>,
    width: Option<usize>,
    env: &Env<'_>,
    host: Option<&dyn Host>,
) -> Result<Vec<Vec<Value>>> {
    let n = ctxs.len();
    let k = wp.specs.len();
    let mut results: Vec<Vec<Value>> = Vec::with_capacity(n);
    for _ in 0..n {
        crate::memory::check(0)?;
        results.push(vec![Value::Null; k]);
    }
    // Window functions grouped by ordering, in order of first appearance.
    let mut orderings: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, s) in wp.specs.iter().enumerate() {
        match orderings.iter_mut().find(|(key, _)| *key == s.sort_key) {
            Some((_, v)) => v.push(i),
            None => orderings.push((&s.sort_key, vec![i])),
        }
    }
    let mut last_perm: Vec<usize> = (0..n).collect();
    for (_, members) in &orderings {
        let s0 = &wp.specs[members[0]];
        let np = s0.partition.len();
        // The partition and order keys of every row.
        let mut keys: Vec<Vec<Value>> = Vec::with_capacity(n);
        for ctx in &ctxs {
            crate::memory::check(0)?;
            let (row, aggs) = split(ctx, width);
            let rc = RowCtx {
                row,
                new: &[],
                aggs,
                host,
            };
            let mut kv = Vec::with_capacity(np + s0.order.len());
            for (e, _) in &s0.partition {
                kv.push(e.eval(&rc, env)?);
            }
            for o in &s0.order {
                kv.push(o.expr.eval(&rc, env)?);
            }
            keys.push(kv);
        }
        let mut perm: Vec<usize> = (0..n).collect();
        perm.sort_by(|&a, &b| {
            let (ka, kb) = (&keys[a], &keys[b]);
            for (i, (_, coll)) in s0.partition.iter().enumerate() {
                let o = compare::sort_cmp(&ka[i], &kb[i], *coll);
                if o != Ordering::Equal {
                    return o;
                }
            }
            for (j, o) in s0.order.iter().enumerate() {
                let c = compare::sort_cmp(&ka[np + j], &kb[np + j], o.coll);
                let c = if o.desc { c.reverse() } else { c };
                if c != Ordering::Equal {
                    return c;
                }
            }
            Ordering::Equal
        });
        let same_partition = |a: usize, b: usize| {
            s0.partition.iter().enumerate().all(|(i, (_, coll))| {
                compare::sort_cmp(&keys[a][i], &keys[b][i], *coll) == Ordering::Equal
            })
        };
        let mut start = 0;
        while start < n {
            let mut end = start + 1;
            while end < n && same_partition(perm[start], perm[end]) {
                end += 1;
            }
            let part = Partition::new(&perm[start..end], &keys, np, s0);
            for &si in members {
                let input = Input {
                    ctxs: &ctxs,
                    width,
                    host,
                };
                compute(&wp.specs[si], si, &part, &input, env, &mut results)?;
            }
            start = end;
        }
        last_perm = perm;
    }
    let mut out = Vec::with_capacity(n);
    let mut ext = Vec::new();
    for &i in &last_perm {
        let (row, aggs) = split(&ctxs[i], width);
        ext.clear();
        ext.extend_from_slice(aggs);
        ext.resize(wp.aggs, Value::Null);
        ext.append(&mut results[i]);
        let rc = RowCtx {
            row,
            new: &[],
            aggs: &ext,
            host,
        };
        let mut row = output_row(plan, &rc, env)?;
        // MariaDB shows a fixed-decimal DOUBLE read back from its temporary table with its
        // decimals. (It also saturates decimals and cuts strings to their item's type there;
        // that needs types that match MariaDB's to the digit, which many expressions' inferred
        // types do not yet: not done.)
        for (v, it) in row.iter_mut().zip(&plan.items) {
            if let Value::Double(f) = v {
                if it.ty.class == Class::Double && it.ty.decimals < FLOATING_POINT_DECIMALS {
                    if let Some(Ok(d)) = Decimal::from_f64(*f) {
                        if let Ok(r) = d.rescale(it.ty.decimals) {
                            *v = Value::Decimal(r);
                        }
                    }
                }
            }
        }
        out.push(row);
    }
    Ok(out)
}

/// One partition in sorted order, with its peer groups.
struct Partition<'a> {
    rows: &'a [usize],
    /// The order keys of each row (by row index), after `np` partition keys.
    keys: &'a [Vec<Value>],
    np: usize,
    /// For each position: the first position of its peer group, and the end of it.
    peer_start: Vec<usize>,
    peer_end: Vec<usize>,
}

impl<'a> Partition<'a> {
    fn new(rows: &'a [usize], keys: &'a [Vec<Value>], np: usize, s: &WinSpec) -> Partition<'a> {
        let m = rows.len();
        let mut peer_start = vec![0; m];
        let mut peer_end = vec![m; m];
        let peers = |a: usize, b: usize| {
            s.order.iter().enumerate().all(|(j, o)| {
                compare::sort_cmp(&keys[a][np + j], &keys[b][np + j], o.coll) == Ordering::Equal
            })
        };
        let mut g = 0;
        for p in 1..m {
            if !peers(rows[g], rows[p]) {
                peer_end[g..p].fill(p);
                g = p;
            }
            peer_start[p] = g;
        }
        peer_end[g..m].fill(m);
        Partition {
            rows,
            keys,
            np,
            peer_start,
            peer_end,
        }
    }

    fn len(&self) -> usize {
        self.rows.len()
    }

    /// The (only) order key of the row at position `p` (RANGE frames with offsets).
    fn key(&self, p: usize) -> &Value {
        &self.keys[self.rows[p]][self.np]
    }
}

/// The rows a window function reads: contexts, their row width when grouped, and the host
/// that runs subqueries in the arguments.
struct Input<'a> {
    ctxs: &'a [Vec<Value>],
    width: Option<usize>,
    host: Option<&'a dyn Host>,
}

fn eval_arg(s: &WinSpec, i: usize, r: usize, input: &Input<'_>, env: &Env<'_>) -> Result<Value> {
    let Some(e) = s.args.get(i) else {
        return Ok(Value::Null);
    };
    let host = input.host;
    let (row, aggs) = split(&input.ctxs[r], input.width);
    let rc = RowCtx {
        row,
        new: &[],
        aggs,
        host,
    };
    if matches!(s.func, WinFunc::Agg(AggFunc::Min | AggFunc::Max)) {
        return Ok(e.eval_compared(&rc, env)?.into_owned());
    }
    e.eval(&rc, env)
}

fn compute(
    s: &WinSpec,
    si: usize,
    part: &Partition<'_>,
    input: &Input<'_>,
    env: &Env<'_>,
    results: &mut [Vec<Value>],
) -> Result<()> {
    let m = part.len();
    let rows = part.rows;
    // The arguments of every row, evaluated up front as MariaDB does (it stores them with the
    // row): an error in any row's argument is the statement's error.
    let mut cols: Vec<Vec<Value>> = Vec::with_capacity(s.args.len());
    for i in 0..s.args.len() {
        let mut col = Vec::with_capacity(m);
        for &r in rows {
            crate::memory::check(0)?;
            let v = eval_arg(s, i, r, input, env)?;
            col.push(v);
        }
        cols.push(col);
    }
    let arg = |i: usize, p: usize| -> &Value { cols.get(i).map_or(&Value::Null, |c| &c[p]) };
    let mut set = |p: usize, v: Value| results[rows[p]][si] = v;
    match s.func {
        WinFunc::RowNumber => (0..m).for_each(|p| set(p, Value::Int(p as i64 + 1))),
        WinFunc::Rank => (0..m).for_each(|p| set(p, Value::Int(part.peer_start[p] as i64 + 1))),
        WinFunc::DenseRank => {
            let mut rank = 0;
            for p in 0..m {
                if part.peer_start[p] == p {
                    rank += 1;
                }
                set(p, Value::Int(rank));
            }
        }
        WinFunc::PercentRank => {
            for p in 0..m {
                let r = if m > 1 {
                    part.peer_start[p] as f64 / (m - 1) as f64
                } else {
                    0.0
                };
                set(p, fixed10(r));
            }
        }
        WinFunc::CumeDist => {
            for p in 0..m {
                set(p, fixed10(part.peer_end[p] as f64 / m as f64));
            }
        }
        WinFunc::Ntile => {
            for p in 0..m {
                let v = arg(0, p);
                let n = if v.is_null() {
                    0
                } else {
                    convert::to_num(v).to_i128()
                };
                if n <= 0 {
                    return Err(Error::new(
                        ErrorCode::InvalidNtileArgument,
                        "Argument of NTILE must be greater than 0",
                    ));
                }
                set(
                    p,
                    Value::Int(ntile(p, m, n.min(i64::MAX as i128) as u64) as i64),
                );
            }
        }
        WinFunc::Lag | WinFunc::Lead => {
            for p in 0..m {
                let off = match s.args.get(1) {
                    None => 1,
                    Some(_) => {
                        let v = arg(1, p);
                        if v.is_null() {
                            0
                        } else {
                            convert::to_num(v).to_i128()
                        }
                    }
                };
                let off = if s.func == WinFunc::Lag { -off } else { off };
                let target = p as i128 + off;
                let v = if (0..m as i128).contains(&target) {
                    arg(0, target as usize).clone()
                } else {
                    Value::Null
                };
                set(p, v);
            }
        }
        WinFunc::FirstValue | WinFunc::LastValue | WinFunc::NthValue => {
            let frames = Frames { s, part };
            for p in 0..m {
                let (lo, hi) = frames.at(p);
                let at = match s.func {
                    WinFunc::FirstValue => (lo < hi).then_some(lo),
                    WinFunc::LastValue => (lo < hi).then(|| hi - 1),
                    _ => {
                        let v = arg(1, p);
                        let n = if v.is_null() {
                            1
                        } else {
                            convert::to_num(v).to_i128()
                        };
                        (n >= 1 && (lo as i128 + n - 1) < hi as i128).then(|| lo + (n - 1) as usize)
                    }
                };
                set(p, at.map_or(Value::Null, |q| arg(0, q).clone()));
            }
        }
        WinFunc::Agg(func) => {
            let ones;
            let vals: &[Value] = match cols.first() {
                Some(c) => c,
                None => {
                    ones = vec![Value::Int(1); m];
                    &ones
                }
            };
            let mut acc = FrameAgg::new(func, s);
            let frames = Frames { s, part };
            for p in 0..m {
                let (lo, hi) = frames.at(p);
                acc.slide(vals, lo, hi);
                let v = match func {
                    AggFunc::Min | AggFunc::Max => acc.extreme(vals).unwrap_or(Value::Null),
                    _ => acc.value(),
                };
                set(p, v);
            }
        }
    }
    Ok(())
}

/// A window aggregate's value as MariaDB reads it back from the temporary table that holds a
/// window query's rows: a decimal saturated to its type's precision (`DECIMAL(p, s)` holds at
/// most `p - s` integer digits).
pub fn stored(v: Value, ty: &SqlType) -> Value {
    match (&v, ty.class) {
        (Value::Decimal(d), Class::Decimal) => {
            let scale = ty.decimals.min(cohort_decimal::MAX_SCALE);
            let precision = decimal_precision(ty).min(65);
            if d.fits_integer_digits(precision.saturating_sub(u32::from(scale))) {
                return v;
            }
            let max = Decimal::max_of(precision as u8, scale);
            Value::Decimal(if d.is_negative() { max.neg() } else { max })
        }
        _ => v,
    }
}

/// A DOUBLE that MariaDB shows with ten decimals (PERCENT_RANK, CUME_DIST): carried as a
/// decimal of scale ten (see `bind/window.rs`).
fn fixed10(x: f64) -> Value {
    match Decimal::from_f64(x) {
        Some(Ok(d)) => Value::Decimal(d.rescale(10).unwrap_or(d)),
        _ => Value::Double(x),
    }
}

/// NTILE: the bucket (1-based) of position `p` of `m` rows split into `n` buckets, the first
/// `m % n` buckets one row larger.
fn ntile(p: usize, m: usize, n: u64) -> u64 {
    let (p, m) = (p as u64, m as u64);
    let q = m / n;
    let r = m % n;
    let big = r * (q + 1);
    if p < big {
        p / (q + 1) + 1
    } else {
        r + (p - big) / q.max(1) + 1
    }
}

/// The frame of each position of a partition: `[lo, hi)`, both non-decreasing.
struct Frames<'p, 'a> {
    s: &'p WinSpec,
    part: &'p Partition<'a>,
}

impl Frames<'_, '_> {
    fn at(&self, p: usize) -> (usize, usize) {
        let m = self.part.len();
        let lo = self.start(p, &self.s.frame.start);
        let hi = self.end(p, &self.s.frame.end);
        let hi = hi.min(m);
        (lo.min(hi), hi)
    }

    fn rows_offset(v: &Value) -> usize {
        convert::to_num(v)
            .to_i128()
            .clamp(0, usize::MAX as i128 / 4) as usize
    }

    fn start(&self, p: usize, b: &Bound) -> usize {
        let m = self.part.len();
        match (self.s.frame.units, b) {
            (_, Bound::UnboundedPreceding) => 0,
            (_, Bound::UnboundedFollowing) => m,
            (Units::Rows, Bound::CurrentRow) => p,
            (Units::Rows, Bound::Preceding(n)) => p.saturating_sub(Self::rows_offset(n)),
            (Units::Rows, Bound::Following(n)) => p.saturating_add(Self::rows_offset(n)).min(m),
            (Units::Range, Bound::CurrentRow) => self.part.peer_start[p],
            (Units::Range, Bound::Preceding(n)) => self.range_first(p, n, true, false),
            (Units::Range, Bound::Following(n)) => self.range_first(p, n, false, false),
        }
    }

    fn end(&self, p: usize, b: &Bound) -> usize {
        let m = self.part.len();
        match (self.s.frame.units, b) {
            (_, Bound::UnboundedPreceding) => 0,
            (_, Bound::UnboundedFollowing) => m,
            (Units::Rows, Bound::CurrentRow) => p + 1,
            (Units::Rows, Bound::Preceding(n)) => (p + 1).saturating_sub(Self::rows_offset(n)),
            (Units::Rows, Bound::Following(n)) => p
                .saturating_add(Self::rows_offset(n))
                .saturating_add(1)
                .min(m),
            (Units::Range, Bound::CurrentRow) => self.part.peer_end[p],
            (Units::Range, Bound::Preceding(n)) => self.range_first(p, n, true, true),
            (Units::Range, Bound::Following(n)) => self.range_first(p, n, false, true),
        }
    }

    /// RANGE with an offset: the first position whose key is at or past (`past`: beyond) the
    /// key of `p` moved by `n` (back for PRECEDING, forward for FOLLOWING, in sort direction).
    /// A NULL key's frame bound is its peer group (the NULLs).
    fn range_first(&self, p: usize, n: &Value, preceding: bool, past: bool) -> usize {
        let part = self.part;
        let v = part.key(p);
        if v.is_null() {
            return if past {
                part.peer_end[p]
            } else {
                part.peer_start[p]
            };
        }
        let desc = self.s.order.first().is_some_and(|o| o.desc);
        // Ascending: PRECEDING subtracts. Descending: PRECEDING adds.
        let subtract = preceding != desc;
        let target = shift(&convert::to_num(v), &convert::to_num(n), subtract);
        // In sort order, is the key at q before the target (or at it, when `past`)?
        let before = |q: usize| -> bool {
            let k = part.key(q);
            let c = if k.is_null() {
                Ordering::Less
            } else {
                compare::compare_nums(&convert::to_num(k), &target)
            };
            let c = if desc {
                if k.is_null() {
                    Ordering::Greater
                } else {
                    c.reverse()
                }
            } else {
                c
            };
            match past {
                false => c == Ordering::Less,
                true => c != Ordering::Greater,
            }
        };
        // Binary search: `before` is true then false along the partition.
        let (mut a, mut b) = (0, part.len());
        while a < b {
            let mid = (a + b) / 2;
            if before(mid) {
                a = mid + 1;
            } else {
                b = mid;
            }
        }
        a
    }
}

/// `v ± n`, exact when both are.
fn shift(v: &Num, n: &Num, subtract: bool) -> Num {
    if let (Some(a), Some(b)) = (
        v.is_exact().then(|| v.to_decimal()).flatten(),
        n.to_decimal(),
    ) {
        if n.is_exact() {
            let r = if subtract {
                a.checked_sub(&b)
            } else {
                a.checked_add(&b)
            };
            if let Ok(r) = r {
                return Num::D(r);
            }
        }
    }
    let (a, b) = (v.to_f64(), n.to_f64());
    Num::F(if subtract { a - b } else { a + b })
}

/// The window plan of a bound SELECT: the window functions its select list and ORDER BY
/// collected, their placeholders renumbered after the `aggs` aggregates (None without any).
pub fn plan(
    ctx: Option<WindowCtx>,
    aggs: usize,
    items: &mut [OutItem],
    hidden: &mut [Expr],
    rollup: bool,
) -> Result<Option<Box<WindowPlan>>> {
    let Some(ctx) = ctx else { return Ok(None) };
    if ctx.specs.is_empty() {
        return Ok(None);
    }
    if rollup {
        return Err(Error::unsupported(
            "window functions with GROUP BY … WITH ROLLUP",
        ));
    }
    for it in items.iter_mut() {
        window::renumber(&mut it.expr, aggs);
    }
    for h in hidden.iter_mut() {
        window::renumber(h, aggs);
    }
    Ok(Some(Box::new(WindowPlan {
        specs: ctx.specs,
        aggs,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ntile_spreads_the_remainder_over_the_first_buckets() {
        let buckets = |m: usize, n: u64| (0..m).map(|p| ntile(p, m, n)).collect::<Vec<_>>();
        assert_eq!(buckets(7, 3), [1, 1, 1, 2, 2, 3, 3]);
        assert_eq!(buckets(8, 5), [1, 1, 2, 2, 3, 3, 4, 5]);
        assert_eq!(buckets(3, 20), [1, 2, 3]);
        assert_eq!(buckets(4, 1), [1, 1, 1, 1]);
    }

    #[test]
    fn range_offsets_shift_exactly() {
        let d = |s: &str| Num::D(s.parse::<Decimal>().unwrap());
        assert_eq!(shift(&Num::I(10), &d("1.5"), true), d("8.5"));
        assert_eq!(shift(&d("0.1"), &d("0.2"), false), d("0.3"));
        assert_eq!(shift(&Num::F(1.0), &Num::I(2), false), Num::F(3.0));
    }

    #[test]
    fn stored_values_saturate_to_their_type() {
        let ty = SqlType::decimal(4, 2);
        let v = Value::Decimal("123.456".parse().unwrap());
        assert_eq!(stored(v, &ty), Value::Decimal("99.99".parse().unwrap()));
        let v = Value::Decimal("-12.5".parse().unwrap());
        assert_eq!(stored(v.clone(), &ty), v);
    }
}
