//! Row estimates of an index access from the table's statistics (`storage/stats.rs`): the
//! rows the join order (`join.rs`) expects a table to add and EXPLAIN's `rows`.
//!
//! For an access by the first `k` parts of an index:
//!
//! * a lookup by every part of a unique index with `=` (eq_ref / const): 1 row;
//! * keys that are all known before the read (constants): `rows / n_diff(k)` — the average
//!   number of rows per key value (MariaDB counts such a range in the index instead, which
//!   is this on average);
//! * keys taken from tables read before (ref in a join): MariaDB's `rec_per_key`, i.e.
//!   `rows / n_diff(k)` truncated and halved (InnoDB's figure), as its EXPLAIN shows;
//! * an IN list multiplies by its length; a range on the next part keeps a third.
//!
//! `rows` is the table's live row count; `n_diff` comes from the statistics, which the call
//! recomputes first if they are due ([`crate::storage::Table::stats`]).

use crate::sql::expr::Expr;
use crate::sql::plan::{self, PartCond};
use crate::storage::{Table, TableDef, TableStats};

/// The estimate of an access by `eq` (and a range after it when `range`) on `index` (None:
/// primary). `constant`: every key is known before the read.
pub fn index_rows(
    table: &Table,
    stats: &TableStats,
    def: &TableDef,
    index: Option<usize>,
    eq: &[PartCond],
    range: bool,
    constant: bool,
) -> f64 {
    let rows = table.approx_rows().max(1) as f64;
    if plan::index_def(def, index).is_none() {
        return rows;
    }
    if unique_lookup(def, index, eq, range) {
        return 1.0;
    }
    let mut est = rows;
    if !eq.is_empty() {
        let per_key = match stats.n_diff(index, eq.len()) {
            Some(n) if n > 0 => rows / n as f64,
            _ => rows,
        };
        est = if constant {
            per_key.max(1.0)
        } else {
            (per_key.max(1.0).trunc() / 2.0).trunc().max(1.0)
        };
        let lists: f64 = eq
            .iter()
            .map(|c| match c {
                PartCond::In(l) => l.len().max(1) as f64,
                _ => 1.0,
            })
            .product();
        est = (est * lists).min(rows);
    }
    if range {
        est = (est / 3.0).max(1.0);
    }
    est
}

/// A lookup by every part of a unique index with `=`: one row, whatever the statistics.
pub fn unique_lookup(def: &TableDef, index: Option<usize>, eq: &[PartCond], range: bool) -> bool {
    plan::index_def(def, index).is_some_and(|idx| {
        (index.is_none() || idx.unique)
            && !range
            && eq.len() == idx.parts.len()
            && eq.iter().all(|c| matches!(c, PartCond::Eq(_)))
    })
}

/// True if every key of `eq` is known before the read (no column of this query or of an
/// enclosing one): the `constant` of [`index_rows`].
pub fn keys_fixed(eq: &[PartCond]) -> bool {
    let fixed = |e: &Expr| {
        let mut outer = false;
        e.walk(&mut |x| outer |= matches!(x, Expr::Outer { .. }));
        !outer && e.is_constant()
    };
    eq.iter().all(|c| match c {
        PartCond::Eq(e) => fixed(e),
        PartCond::In(l) => l.iter().all(fixed),
        PartCond::IsNull => true,
    })
}
