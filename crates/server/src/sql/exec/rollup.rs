//! `GROUP BY k1, …, kn WITH ROLLUP`: super-aggregate rows, as MariaDB 10.11.
//!
//! Each row is added to its group at every level: the groups of (k1 … kn), of (k1 … kn-1), …,
//! and the one group of everything (level 0), kept apart in one hash table by a level prefix
//! on the key. The groups are then sorted by their keys, a super-aggregate row right after the
//! groups it sums up (and the grand total last), which is MariaDB's order. In a
//! super-aggregate row the rolled-up keys are NULL: a key that is a column makes the column
//! NULL in the row the outputs (and HAVING) read; a select item that is a rolled-up key
//! expression is NULL. The other columns are those of the group just before it (MariaDB keeps
//! the last group's row).
//!
//! MariaDB 10.11 refuses ORDER BY with ROLLUP (1221), has no GROUPING(), and WITH CUBE is
//! 1235; window functions over ROLLUP rows are refused here (1235).

use super::select::{agg_input, Acc, Group, GroupPlan, Groups, SelectPlan};
use crate::error::{Error, Result};
use crate::sql::env::Env;
use crate::sql::expr::{compare, Expr, RowCtx};
use crate::types::Value;
use sqlparser::ast;

/// The GROUP BY modifiers: true for `WITH ROLLUP`.
pub fn modifiers(mods: &[ast::GroupByWithModifier]) -> Result<bool> {
    match mods {
        [] => Ok(false),
        [ast::GroupByWithModifier::Rollup] => Ok(true),
        [ast::GroupByWithModifier::Cube] => Err(Error::unsupported("CUBE")),
        [m, ..] => Err(Error::parse(&m.to_string(), 1)),
    }
}

/// Add one row to its group at every ROLLUP level.
pub(super) fn add(groups: &mut Groups, g: &GroupPlan, row: &[Value], env: &Env<'_>) -> Result<()> {
    let rc = RowCtx::of(row);
    let n = g.keys.len();
    let mut keys = Vec::with_capacity(n);
    let mut ends = Vec::with_capacity(n);
    let mut kb = Vec::new();
    for (k, coll) in &g.keys {
        let v = k.eval(&rc, env)?;
        compare::group_key(&v, *coll, &mut kb);
        ends.push(kb.len());
        keys.push(v);
    }
    let mut inputs = Vec::with_capacity(g.aggs.len());
    for spec in &g.aggs {
        inputs.push(agg_input(spec, &rc, env)?);
    }
    for level in 0..=n {
        let mut key = (level as u32).to_le_bytes().to_vec();
        key.extend_from_slice(&kb[..if level == 0 { 0 } else { ends[level - 1] }]);
        let idx = match groups.index.get(&key) {
            Some(&i) => i,
            None => {
                crate::memory::check(0)?;
                groups.list.push(Group {
                    keys: keys[..level].to_vec(),
                    first: row.to_vec(),
                    accs: g.aggs.iter().map(Acc::new).collect(),
                });
                groups.index.insert(key, groups.list.len() - 1);
                groups.list.len() - 1
            }
        };
        let group = &mut groups.list[idx];
        for ((acc, spec), (v, ks)) in group.accs.iter_mut().zip(&g.aggs).zip(&inputs) {
            acc.add(spec, v.clone(), ks.clone());
        }
    }
    Ok(())
}

/// The rows of super-aggregate groups, made while the sorted groups are output.
#[derive(Default)]
pub(super) struct Rolled {
    /// The row of the last full group.
    last: Vec<Value>,
}

impl Rolled {
    /// Before a group is output: remember a full group's row; give a super-aggregate group
    /// the last full group's row with its rolled-up key columns NULL.
    pub(super) fn prepare(&mut self, g: &GroupPlan, group: &mut Group) {
        let level = group.keys.len();
        if level == g.keys.len() {
            self.last.clone_from(&group.first);
            return;
        }
        let mut row = if self.last.is_empty() {
            std::mem::take(&mut group.first)
        } else {
            self.last.clone()
        };
        for (k, _) in &g.keys[level..] {
            if let Expr::Col(c) = k {
                if let Some(v) = row.get_mut(*c) {
                    *v = Value::Null;
                }
            }
        }
        group.first = row;
    }

    /// In a super-aggregate row, the select items that are rolled-up key expressions are
    /// NULL.
    pub(super) fn null_items(
        &self,
        plan: &SelectPlan,
        g: &GroupPlan,
        level: usize,
        out: &mut [Value],
    ) {
        if level == g.keys.len() {
            return;
        }
        let rolled: Vec<String> = g.keys[level..]
            .iter()
            .filter(|(k, _)| !matches!(k, Expr::Col(_)))
            .map(|(k, _)| format!("{k:?}"))
            .collect();
        if rolled.is_empty() {
            return;
        }
        for (i, it) in plan.items.iter().enumerate() {
            if rolled.contains(&format!("{:?}", it.expr)) {
                if let Some(v) = out.get_mut(i) {
                    *v = Value::Null;
                }
            }
        }
    }
}
