//! FOREIGN KEY enforcement, with InnoDB's semantics (definitions: `ddl/fk.rs`).
//!
//! * **Child side.** After a row is inserted, or updated so that a foreign key's columns
//!   change, each foreign key whose columns are all non-NULL must find its parent row: a
//!   locking read of the parent's index with a *shared* lock (so a concurrent DELETE of the
//!   parent waits for this transaction, and this one waits for an uncommitted delete). None
//!   found: 1452. Checking after the write lets a row reference itself.
//! * **Parent side.** After a row is deleted, or updated so that referenced columns change,
//!   the child rows that matched its old values are read through the child's index: with a
//!   shared lock for RESTRICT / NO ACTION (any row: 1451), with an exclusive lock for CASCADE
//!   and SET NULL, which delete or update them in the same transaction, recursively. As in
//!   InnoDB, a cascade 15 levels deep is error 1296 (InnoDB's error 193), and a cascading
//!   update of a table an enclosing update is changing is 1451. A cascaded update that
//!   duplicates a child's unique key is 1761, naming the statement's table and its row's
//!   primary key, the child and its key; as in InnoDB, a referenced key's change cascades
//!   before the parent's own duplicate is found ([`FkWork::before_duplicate`]).
//! * `foreign_key_checks = 0` turns off both sides (no checks, no cascades).
//!
//! A statement that uses no table with foreign keys pays one flag test: the child side runs
//! only for tables with foreign keys, the parent side only once some table has one
//! ([`crate::storage::Engine::any_foreign_keys`]).

use crate::error::{Error, Result};
use crate::sql::env::Env;
use crate::sql::exec::ddl::fk::{checks_on, index_for};
use crate::storage::{
    FkAction, ForeignKeyDef, InsertOutcome, KeyRange, LockMode, ReadLock, Row, RowHandle,
    ScanControl, Table, TableDef, TableId, Txn, WaitPolicy,
};
use crate::types::Value;
use cohort_protocol::ErrorCode;
use std::sync::Arc;

/// InnoDB's FK_MAX_CASCADE_DEL: the deepest a cascade goes.
const MAX_CASCADE_DEPTH: usize = 15;

/// `CONSTRAINT `n` FOREIGN KEY (`a`) REFERENCES `p` (`x`) [ON DELETE …] [ON UPDATE …]`, as
/// SHOW CREATE TABLE prints it (the parent's database only when it is not `child_db`, or
/// always with `qualify`).
pub fn constraint_sql(fk: &ForeignKeyDef, child_db: &str, qualify: bool) -> String {
    let list = |cols: &[String]| {
        cols.iter()
            .map(|c| format!("`{}`", c.replace('`', "``")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let parent = if qualify || fk.parent_db != child_db {
        format!("`{}`.`{}`", fk.parent_db, fk.parent_table)
    } else {
        format!("`{}`", fk.parent_table)
    };
    let mut s = format!(
        "CONSTRAINT `{}` FOREIGN KEY ({}) REFERENCES {parent} ({})",
        fk.name,
        list(&fk.columns),
        list(&fk.parent_columns)
    );
    if fk.on_delete != FkAction::Restrict {
        s.push_str(" ON DELETE ");
        s.push_str(fk.on_delete.sql());
    }
    if fk.on_update != FkAction::Restrict {
        s.push_str(" ON UPDATE ");
        s.push_str(fk.on_update.sql());
    }
    s
}

/// "(`db`.`child`, CONSTRAINT …)" — how InnoDB names a constraint in its errors.
fn describe(db: &str, table: &str, fk: &ForeignKeyDef) -> String {
    format!("`{db}`.`{table}`, {}", constraint_sql(fk, db, false))
}

fn no_parent(db: &str, table: &str, fk: &ForeignKeyDef) -> Error {
    Error::new(
        ErrorCode::NoReferencedRow2,
        format!(
            "Cannot add or update a child row: a foreign key constraint fails ({})",
            describe(db, table, fk)
        ),
    )
}

fn referenced(db: &str, table: &str, fk: &ForeignKeyDef) -> Error {
    Error::new(
        ErrorCode::RowIsReferenced2,
        format!(
            "Cannot delete or update a parent row: a foreign key constraint fails ({})",
            describe(db, table, fk)
        ),
    )
}

/// 1451 without a constraint: DROP TABLE of a referenced table.
pub fn parent_table_referenced() -> Error {
    Error::new(
        ErrorCode::RowIsReferenced2,
        "Cannot delete or update a parent row: a foreign key constraint fails",
    )
}

/// 1701: TRUNCATE of a referenced table.
pub fn truncate_referenced(db: &str, table: &str, fk: &ForeignKeyDef) -> Error {
    Error::new(
        ErrorCode::TruncateIllegalFk,
        format!(
            "Cannot truncate a table referenced in a foreign key constraint (`{db}`.`{table}`, {})",
            constraint_sql(fk, db, true)
        ),
    )
}

/// 1761: a cascaded update duplicates `index` of `child`.
fn foreign_duplicate(origin: (&Table, &[Value]), child: &Table, index: Option<usize>) -> Error {
    let (top, row) = origin;
    Error::new(
        ErrorCode::ForeignDuplicateKeyWithChildInfo,
        format!(
            "Foreign key constraint for table '{}', record '{}' would lead to a duplicate \
             entry in table '{}', key '{}'",
            top.name(),
            top.primary_key_text(row),
            child.name(),
            child.index_name(index)
        ),
    )
}

fn too_deep(db: &str, table: &str, fk: &ForeignKeyDef) -> Error {
    Error::new(
        ErrorCode::GetErrmsg,
        format!("Got error 193 '{}' from InnoDB", describe(db, table, fk)),
    )
}

/// Positions of `cols` in `def` (None if one is missing).
fn positions(def: &TableDef, cols: &[String]) -> Option<Vec<usize>> {
    cols.iter().map(|c| def.column_index(c)).collect()
}

/// Is foreign key work needed for writes to this table in this statement: its own foreign
/// keys (child side) and whether any table might reference it (parent side)?
pub struct FkWork {
    child: bool,
    parent: bool,
}

impl FkWork {
    /// Computed once per statement: the parent side (`parent_side`: the statement deletes or
    /// updates rows) is looked at only if some table references `table` now.
    pub fn of(env: &Env<'_>, table: &Table, def: &TableDef, parent_side: bool) -> FkWork {
        let child = !def.foreign_keys.is_empty();
        let maybe_parent = parent_side && env.ctx.engine.any_foreign_keys();
        if !(child || maybe_parent) || !checks_on(env) {
            return FkWork {
                child: false,
                parent: false,
            };
        }
        let parent = maybe_parent
            && !env
                .ctx
                .engine
                .referencing(table.db(), table.name())
                .is_empty();
        FkWork { child, parent }
    }

    pub fn none(&self) -> bool {
        !self.child && !self.parent
    }

    /// After `row` was inserted into `table`.
    pub fn after_insert(
        &self,
        env: &Env<'_>,
        txn: &mut Txn,
        table: &Table,
        row: &[Value],
    ) -> Result<()> {
        if self.child {
            check_parents(env, txn, table, &table.def(), None, row, None)?;
        }
        Ok(())
    }

    /// After `table`'s row `old` became `new`.
    pub fn after_update(
        &self,
        env: &Env<'_>,
        txn: &mut Txn,
        table: &Arc<Table>,
        old: &[Value],
        new: &[Value],
    ) -> Result<()> {
        if self.child {
            check_parents(env, txn, table, &table.def(), Some(old), new, None)?;
        }
        if self.parent {
            let mut chain = vec![(table.id(), false)];
            parent_changed(env, txn, table, old, Some(new), &mut chain, (table, new))?;
        }
        Ok(())
    }

    /// `table`'s row `old` could not become `new`: a duplicate in `table`'s own unique key.
    /// InnoDB cascades a change of a referenced key before it meets that duplicate, so an
    /// error of the cascade (1761, 1451, …) is the statement's. Runs the cascades (the failing
    /// statement's rollback, or UPDATE IGNORE's savepoint, undoes them); Ok if they pass.
    pub fn before_duplicate(
        &self,
        env: &Env<'_>,
        txn: &mut Txn,
        table: &Arc<Table>,
        old: &[Value],
        new: &[Value],
    ) -> Result<()> {
        if self.parent {
            let mut chain = vec![(table.id(), false)];
            parent_changed(env, txn, table, old, Some(new), &mut chain, (table, new))?;
        }
        Ok(())
    }

    /// After `table`'s row `old` was deleted.
    pub fn after_delete(
        &self,
        env: &Env<'_>,
        txn: &mut Txn,
        table: &Arc<Table>,
        old: &[Value],
    ) -> Result<()> {
        if self.parent {
            let mut chain = vec![(table.id(), true)];
            parent_changed(env, txn, table, old, None, &mut chain, (table, old))?;
        }
        Ok(())
    }
}

/// Child side: each foreign key of `def` (but `skip`) whose columns are non-NULL in `row` and
/// changed from `old` (if an update) finds its parent row, S-locked.
fn check_parents(
    env: &Env<'_>,
    txn: &mut Txn,
    table: &Table,
    def: &TableDef,
    old: Option<&[Value]>,
    row: &[Value],
    skip: Option<&str>,
) -> Result<()> {
    for fk in &def.foreign_keys {
        if skip.is_some_and(|s| s == fk.name) {
            continue;
        }
        let Some(cols) = positions(def, &fk.columns) else {
            continue;
        };
        if cols.iter().any(|&c| row[c].is_null()) {
            continue;
        }
        if let Some(old) = old {
            if cols.iter().all(|&c| old[c] == row[c]) {
                continue;
            }
        }
        let fail = || no_parent(table.db(), table.name(), fk);
        let parent = match env.ctx.engine.table(&fk.parent_db, &fk.parent_table) {
            Ok(p) => p,
            Err(_) => return Err(fail()),
        };
        let pdef = parent.def();
        let Some(idx) = index_for(&pdef, &fk.parent_columns) else {
            return Err(fail());
        };
        let key: Vec<Value> = cols.iter().map(|&c| row[c].clone()).collect();
        let mut found = false;
        parent.scan(
            txn,
            idx,
            &KeyRange::point(key),
            false,
            ReadLock::new(LockMode::Shared, WaitPolicy::Wait),
            &mut |_| Ok(true),
            &mut |_, _| {
                found = true;
                Ok(ScanControl::Stop)
            },
        )?;
        if !found {
            return Err(fail());
        }
    }
    Ok(())
}

/// Parent side of a delete (`new` None) or update of `parent`'s row `old` (module doc).
/// `chain`: the tables changed by the enclosing steps, with whether each was a delete;
/// `origin`: the statement's table and its row's new version (for a 1761).
fn parent_changed(
    env: &Env<'_>,
    txn: &mut Txn,
    parent: &Arc<Table>,
    old: &[Value],
    new: Option<&[Value]>,
    chain: &mut Vec<(TableId, bool)>,
    origin: (&Table, &[Value]),
) -> Result<()> {
    let children = env.ctx.engine.referencing(parent.db(), parent.name());
    if children.is_empty() {
        return Ok(());
    }
    let pdef = parent.def();
    // InnoDB visits the referencing constraints in name order.
    let mut pairs: Vec<(Arc<Table>, Arc<TableDef>, usize)> = Vec::new();
    for child in children {
        let cdef = child.def();
        for (i, fk) in cdef.foreign_keys.iter().enumerate() {
            if fk.parent_db == parent.db() && fk.parent_table == parent.name() {
                pairs.push((child.clone(), cdef.clone(), i));
            }
        }
    }
    pairs.sort_by(|a, b| a.1.foreign_keys[a.2].name.cmp(&b.1.foreign_keys[b.2].name));
    for (child, cdef, i) in pairs {
        let fk = &cdef.foreign_keys[i];
        {
            let Some(pcols) = positions(&pdef, &fk.parent_columns) else {
                continue;
            };
            let Some(ccols) = positions(&cdef, &fk.columns) else {
                continue;
            };
            if pcols.iter().any(|&c| old[c].is_null()) {
                continue;
            }
            if let Some(new) = new {
                if pcols.iter().all(|&c| old[c] == new[c]) {
                    continue;
                }
            }
            let action = match new {
                None => fk.on_delete,
                Some(_) => fk.on_update,
            };
            let Some(idx) = index_for(&cdef, &fk.columns) else {
                continue;
            };
            let key: Vec<Value> = pcols.iter().map(|&c| old[c].clone()).collect();
            let restrict = matches!(action, FkAction::Restrict | FkAction::NoAction);
            let mode = if restrict {
                LockMode::Shared
            } else {
                LockMode::Exclusive
            };
            let mut rows: Vec<(RowHandle, Row)> = Vec::new();
            child.scan(
                txn,
                idx,
                &KeyRange::point(key),
                false,
                ReadLock::new(mode, WaitPolicy::Wait),
                &mut |_| Ok(true),
                &mut |h, r| {
                    rows.push((h.clone(), r.clone()));
                    Ok(if restrict {
                        ScanControl::Stop
                    } else {
                        ScanControl::Continue
                    })
                },
            )?;
            if rows.is_empty() {
                continue;
            }
            if restrict {
                return Err(referenced(child.db(), child.name(), fk));
            }
            if chain.len() >= MAX_CASCADE_DEPTH {
                return Err(too_deep(child.db(), child.name(), fk));
            }
            let deletes = new.is_none() && action == FkAction::Cascade;
            if !deletes && chain.iter().any(|&(id, del)| !del && id == child.id()) {
                return Err(referenced(child.db(), child.name(), fk));
            }
            for (h, r) in rows {
                crate::sched::admission::spend_ticket();
                if deletes {
                    let was = txn.set_cascading(true);
                    let r2 = child.delete(txn, &h);
                    txn.set_cascading(was);
                    r2?;
                    chain.push((child.id(), true));
                    let res = parent_changed(env, txn, &child, &r, None, chain, origin);
                    chain.pop();
                    res?;
                    continue;
                }
                let mut changed = r.to_vec();
                for (i, &c) in ccols.iter().enumerate() {
                    changed[c] = match (action, new) {
                        (FkAction::Cascade, Some(new)) => new[pcols[i]].clone(),
                        _ => Value::Null,
                    };
                }
                if changed[..] == r[..] {
                    continue;
                }
                let was = txn.set_cascading(true);
                let updated = child.update(txn, &h, changed.clone());
                txn.set_cascading(was);
                match updated? {
                    InsertOutcome::Inserted(_) => {}
                    InsertOutcome::Duplicate { index, .. } => {
                        // As for the statement's own row: the child's change cascades first.
                        chain.push((child.id(), false));
                        let res =
                            parent_changed(env, txn, &child, &r, Some(&changed), chain, origin);
                        chain.pop();
                        res?;
                        return Err(foreign_duplicate(origin, &child, index));
                    }
                }
                check_parents(env, txn, &child, &cdef, Some(&r), &changed, Some(&fk.name))?;
                chain.push((child.id(), false));
                let res = parent_changed(env, txn, &child, &r, Some(&changed), chain, origin);
                chain.pop();
                res?;
            }
        }
    }
    Ok(())
}

/// ALTER TABLE … ADD FOREIGN KEY: the table's rows (`rows`, in the new shape) must each find
/// their parent under the foreign keys from `first_new` on (1452 for the first that does not).
pub fn check_existing_rows(
    env: &Env<'_>,
    db: &str,
    def: &TableDef,
    rows: &[Row],
    first_new: usize,
) -> Result<()> {
    for fk in &def.foreign_keys[first_new..] {
        let Some(cols) = positions(def, &fk.columns) else {
            continue;
        };
        let self_ref = fk.parent_db == db && fk.parent_table == def.name;
        let parent_rows = if self_ref {
            rows.to_vec()
        } else {
            match env.ctx.engine.table(&fk.parent_db, &fk.parent_table) {
                Ok(p) => p.committed_rows()?,
                Err(_) => Vec::new(),
            }
        };
        let pdef = if self_ref {
            None
        } else {
            env.ctx
                .engine
                .table(&fk.parent_db, &fk.parent_table)
                .ok()
                .map(|p| p.def())
        };
        let pdef_ref: &TableDef = pdef.as_deref().unwrap_or(def);
        let Some(pcols) = positions(pdef_ref, &fk.parent_columns) else {
            continue;
        };
        let colls: Vec<_> = pcols
            .iter()
            .map(|&c| pdef_ref.columns[c].data_type.collation())
            .collect();
        let mut keys: Vec<Vec<Value>> = parent_rows
            .iter()
            .map(|r| pcols.iter().map(|&c| r[c].clone()).collect())
            .collect();
        let cmp = |a: &[Value], b: &[Value]| {
            for ((x, y), coll) in a.iter().zip(b).zip(&colls) {
                let o = crate::sql::expr::compare::sort_cmp(x, y, *coll);
                if o != std::cmp::Ordering::Equal {
                    return o;
                }
            }
            std::cmp::Ordering::Equal
        };
        keys.sort_by(|a, b| cmp(a, b));
        for r in rows {
            let k: Vec<Value> = cols.iter().map(|&c| r[c].clone()).collect();
            if k.iter().any(Value::is_null) {
                continue;
            }
            if keys.binary_search_by(|p| cmp(p, &k)).is_err() {
                return Err(no_parent(db, &def.name, fk));
            }
        }
    }
    Ok(())
}
