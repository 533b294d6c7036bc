//! A single table read in the order of its primary key (`exec/scan_order.rs`), as MariaDB
//! shows it: type `index`, key `PRIMARY` for a whole-table read that an ORDER BY or GROUP BY
//! takes in key order, and "Using index" when the statement needs no column beyond the
//! primary key's. Cohort reads the clustered row either way, as InnoDB does for its primary
//! key, so the words describe the same read.

use super::{part_len, Tab};
use crate::sql::bind::AggFunc;
use crate::sql::exec::select::SelectPlan;
use crate::sql::expr::Expr;
use crate::sql::plan::{Access, TableRef};

/// Rename a full scan that an ORDER BY or GROUP BY reads in key order; add "Using index" to a
/// primary-key read that needs only key columns.
pub(super) fn apply(p: &SelectPlan, t: &TableRef, tab: &mut Tab) {
    let Some(pk) = &t.def.primary_key else { return };
    let in_order = p.sorted_by_scan || p.group.as_ref().is_some_and(|g| g.in_scan_order);
    let by_pk = match &p.access {
        Access::FullScan if in_order => {
            tab.kind = Some("index");
            tab.key = Some("PRIMARY".into());
            let len = pk.parts.iter();
            tab.key_len = Some(len.map(|q| part_len(&t.def, q.column, q.prefix_len)).sum());
            let names = pk
                .parts
                .iter()
                .map(|q| t.def.columns[q.column].name.clone());
            tab.used_parts = names.collect();
            if p.filter.is_none() && p.group.is_none() {
                if let Some(Expr::Lit(v)) = &p.limit {
                    let n = crate::sql::expr::convert::to_num(v).to_i128().max(1) as u64;
                    tab.rows = tab.rows.map(|r| r.min(n));
                }
            }
            true
        }
        Access::Index { index: None, .. } => true,
        _ => false,
    };
    let key_cols: Vec<usize> = pk.parts.iter().map(|q| q.column).collect();
    if by_pk && pk.parts.iter().all(|q| q.prefix_len.is_none()) && only_columns(p, &key_cols) {
        tab.extra.push("Using index");
    }
}

/// True if every column the SELECT reads is in `cols` (and nothing hides a read: no subquery,
/// no GROUP_CONCAT with its own clauses).
fn only_columns(p: &SelectPlan, cols: &[usize]) -> bool {
    if !p.subqueries.is_empty() || p.window.is_some() {
        return false;
    }
    let mut ok = true;
    let mut check = |e: &Expr| {
        e.walk(&mut |x| {
            if let Expr::Col(c) = x {
                ok &= cols.contains(c);
            }
        })
    };
    p.items.iter().for_each(|i| check(&i.expr));
    p.hidden.iter().for_each(&mut check);
    p.filter.iter().for_each(&mut check);
    if let Some(g) = &p.group {
        g.keys.iter().for_each(|(e, _)| check(e));
        g.having.iter().for_each(&mut check);
        for a in &g.aggs {
            if a.func == AggFunc::GroupConcat {
                return false;
            }
            a.arg.iter().for_each(&mut check);
        }
    }
    ok
}
