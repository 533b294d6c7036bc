//! Reading in index order instead of sorting: two rules over a single-table [`SelectPlan`].
//!
//! Every access path returns rows in the order of one index: a full scan in primary-key
//! order, an index path in the order of its index (after the parts its equalities fix, whose
//! values are the same on every row read). When that order is the one a clause needs, the
//! clause costs nothing:
//!
//! * **ORDER BY** whose keys are the next index parts, all in one direction, read forward or
//!   backward, skips the sort, and with LIMIT the scan stops at the limit
//!   (`sorted_by_scan`, `backward`).
//! * **GROUP BY** whose keys are the next index parts (keys equal to a fixed part may come
//!   anywhere) sees the rows of each group one after another: a group ends when its key
//!   changes, so no hash table of groups is kept and the groups need no sort afterwards
//!   (`GroupPlan::in_scan_order`). An ORDER BY on a prefix of those keys, in one direction,
//!   then costs nothing either: a descending one reads the index backward. This is the plan
//!   MariaDB shows as type `index` (or `ref` / `range`) without "Using temporary; Using
//!   filesort".
//!
//! Both need the order to be the key's own: a column key (not an expression over one), no
//! prefix index part, and for a string the index's collation. An IN list of several values
//! reads several runs of the index, and is never in order. When a key value of the access
//! path cannot be converted exactly, the scan still reads the whole of the same index
//! (`plan::scan_at`), so the order holds there too.

use super::select::{GroupPlan, SelectPlan, SortKey};
use crate::sql::expr::Expr;
use crate::sql::plan::{self, Access, PartCond};
use crate::storage::schema::{IndexPart, TableDef};

/// Apply both rules to a freshly bound plan.
pub(super) fn apply(plan: &mut SelectPlan) {
    if plan.window.is_some() || plan.distinct {
        return;
    }
    match plan.group.is_some() {
        true => group_order(plan),
        false => order_by(plan),
    }
}

/// The scan's order after its fixed parts: the remaining index parts, and the columns the
/// equalities fix. None if the scan is not in the order of one index.
fn scan_order(plan: &SelectPlan) -> Option<(&TableDef, &[IndexPart], Vec<usize>)> {
    let t = plan.table()?;
    let (index, eq) = match &plan.access {
        Access::FullScan => (None, &[][..]),
        Access::Index { index, eq, .. } => (*index, &eq[..]),
    };
    if eq
        .iter()
        .any(|c| matches!(c, PartCond::In(l) if l.len() > 1))
    {
        return None;
    }
    let idx = plan::index_def(&t.def, index)?;
    let fixed = idx.parts.iter().take(eq.len()).map(|p| p.column).collect();
    Some((&t.def, &idx.parts[eq.len().min(idx.parts.len())..], fixed))
}

/// True if `e` (sorted or grouped under `coll`) is exactly the index part `part`.
fn is_part(def: &TableDef, e: &Expr, coll: crate::types::Collation, part: &IndexPart) -> bool {
    if part.prefix_len.is_some() || !matches!(e, Expr::Col(c) if *c == part.column) {
        return false;
    }
    let dt = &def.columns[part.column].data_type;
    !dt.is_text() || dt.collation() == coll
}

/// ORDER BY without grouping.
fn order_by(plan: &mut SelectPlan) {
    let Some(desc) = plan.order.first().map(|k| k.desc) else {
        return;
    };
    let Some((def, parts, _)) = scan_order(plan) else {
        return;
    };
    let ext = |k: &SortKey| ext_expr(plan, k);
    let in_order = plan.order.len() <= parts.len()
        && plan.order.iter().zip(parts).all(|(k, part)| {
            k.desc == desc && ext(k).is_some_and(|e| is_part(def, e, k.coll, part))
        });
    if in_order {
        plan.sorted_by_scan = true;
        plan.backward = desc;
    }
}

/// GROUP BY (without ROLLUP), and an ORDER BY on its keys.
fn group_order(plan: &mut SelectPlan) {
    let Some(g) = &plan.group else { return };
    if g.rollup || g.keys.is_empty() {
        return;
    }
    let Some((def, parts, fixed)) = scan_order(plan) else {
        return;
    };
    let Some(sequence) = group_parts(def, g, parts, &fixed) else {
        return;
    };
    // An ORDER BY on a prefix of the keys in index order, all one way, is the scan's order.
    let desc = plan.order.first().is_some_and(|k| k.desc);
    let ext = |k: &SortKey| ext_expr(plan, k);
    let ordered = plan.order.len() <= sequence.len()
        && plan.order.iter().zip(&sequence).all(|(k, part)| {
            k.desc == desc && ext(k).is_some_and(|e| is_part(def, e, k.coll, part))
        });
    if !plan.order.is_empty() && !ordered {
        // The groups still arrive one by one; the sort on other keys follows.
        set_in_order(plan);
        return;
    }
    set_in_order(plan);
    plan.sorted_by_scan = !plan.order.is_empty();
    plan.backward = desc;
}

/// The expression a sort key sorts on: a visible item or a hidden sort expression.
fn ext_expr<'a>(plan: &'a SelectPlan, k: &SortKey) -> Option<&'a Expr> {
    match plan.items.get(k.col) {
        Some(i) => Some(&i.expr),
        None => plan.hidden.get(k.col - plan.items.len()),
    }
}

fn set_in_order(plan: &mut SelectPlan) {
    if let Some(g) = &mut plan.group {
        g.in_scan_order = true;
    }
}

/// The index parts the group keys take, in index order: every key is a column the scan fixes,
/// or the next index part (so the groups' own order, which MariaDB gives GROUP BY without
/// ORDER BY, is the scan's), or a repeat of an earlier key.
fn group_parts<'a>(
    def: &TableDef,
    g: &GroupPlan,
    parts: &'a [IndexPart],
    fixed: &[usize],
) -> Option<Vec<&'a IndexPart>> {
    let mut next = 0;
    for (e, coll) in &g.keys {
        let fixed_col = matches!(e, Expr::Col(c) if fixed.contains(c));
        let repeat = parts[..next].iter().any(|p| is_part(def, e, *coll, p));
        if fixed_col || repeat {
            continue;
        }
        if !parts.get(next).is_some_and(|p| is_part(def, e, *coll, p)) {
            return None;
        }
        next += 1;
    }
    Some(parts[..next].iter().collect())
}
