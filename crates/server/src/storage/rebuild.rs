//! Table rebuild: how ALTER TABLE and RENAME TABLE replace a table.
//!
//! A rebuild makes a **new** [`Table`] object with the same [`TableId`](super::TableId): the new
//! definition, the committed rows converted by the caller ([`Table::committed_rows`] then the
//! caller's conversion), every index built at once from sorted keys (duplicates of the primary
//! key or of a UNIQUE index are 1062, as MariaDB's copy reports them). Only then is the catalog
//! switched, under its write lock: the old object is unlinked and the new one linked under its
//! (maybe new) name, in one step that readers of the catalog see whole.
//!
//! The switch is journalled like a DROP of the old object followed by a CREATE of the new one
//! (`ddl_undo`): if the statement fails later (a later operation, or its log write), the revert
//! unlinks the new object and links the old one back, untouched. If it stands, the old object
//! is marked dropped. A statement that bound the old object sees `is_dropped()` and re-binds.
//!
//! The id stays: the redo log names tables by id, and the rows written after the ALTER (with
//! the new column count) replay into the table the replayed ALTER produced.
//!
//! **Concurrency.** The rows are read with [`Table::committed_rows`], which refuses a table
//! with an open change (a pending version or an X lock): the caller holds the table's
//! exclusive metadata lock (`mdl.rs`), so no transaction uses the table while it is copied,
//! and none can start using it until the statement ends.

use super::ddl_undo::{record, Undo};
use super::engine::Engine;
use super::keycode::KeySpec;
use super::table::{format_key, validate_def, Table};
use super::{Row, TableDef};
use crate::error::{Error, Result};
use crate::storage::IndexDef;
use cohort_protocol::ErrorCode;
use std::sync::Arc;

impl Table {
    /// Every committed row, in primary-key order. 1205-like internal error if a row has an open
    /// change: the caller must hold the table's exclusive metadata lock.
    pub fn committed_rows(&self) -> Result<Vec<Row>> {
        let st = self.read_state()?;
        let map = st.primary.read();
        let mut rows = Vec::with_capacity(map.len());
        for slot in map.values() {
            let s = slot.state.lock();
            if s.owner().is_some() || s.pending().is_some() {
                return Err(Error::internal(format!(
                    "table {}.{} has an open change during its rebuild",
                    self.db(),
                    self.name()
                )));
            }
            if let Some(r) = &s.latest {
                rows.push(r.clone());
            }
        }
        Ok(rows)
    }
}

/// 1062 if two rows have the same key in `index` (NULLs never collide in a UNIQUE index).
fn check_unique(def: &TableDef, index: &IndexDef, rows: &[Row], primary: bool) -> Result<()> {
    let spec = KeySpec::new(def, index);
    let mut keys: Vec<(Vec<u8>, usize)> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| primary || !spec.row_has_null(r))
        .map(|(i, r)| (spec.row_key(r), i))
        .collect();
    keys.sort_unstable();
    for w in keys.windows(2) {
        if w[0].0 == w[1].0 {
            // MariaDB reports the row met second in its copy.
            let second = w[0].1.max(w[1].1);
            return Err(Error::dup_entry(
                &format_key(def, index, &rows[second]),
                &index.name,
            ));
        }
    }
    Ok(())
}

/// What every rebuilt table must satisfy before it replaces the old one: a valid definition,
/// rows of its width, no NULL in the primary key (1171), no duplicate key (1062).
fn check_rebuilt(def: &TableDef, rows: &[Row]) -> Result<()> {
    validate_def(def)?;
    for r in rows {
        if r.len() != def.columns.len() {
            return Err(Error::internal("rebuilt row of the wrong width"));
        }
    }
    if let Some(pk) = &def.primary_key {
        if let Some(c) = pk
            .parts
            .iter()
            .find(|p| rows.iter().any(|r| r[p.column].is_null()))
        {
            return Err(Error::new(
                    ErrorCode::PrimaryCantHaveNull,
                    format!(
                        "All parts of a PRIMARY KEY must be NOT NULL; if you need NULL in a key, use UNIQUE instead (column '{}')",
                        def.columns[c.column].name
                    ),
                ));
        }
        check_unique(def, pk, rows, true)?;
    }
    for idx in def.indexes.iter().filter(|i| i.unique) {
        check_unique(def, idx, rows, false)?;
    }
    Ok(())
}

impl Engine {
    /// Replace `old` by a table named `new_db`.`def.name` with definition `def`, holding `rows`
    /// (already in `def`'s shape) and AUTO_INCREMENT counter `auto_inc` (see the module doc).
    /// 1050 if the new name is taken by another table, 1049 if `new_db` does not exist, 1062
    /// on duplicate keys, 1146 if `old` is no longer in the catalog.
    pub fn replace_table(
        &self,
        old: &Arc<Table>,
        new_db: &str,
        def: TableDef,
        rows: Vec<Row>,
        auto_inc: u64,
    ) -> Result<Arc<Table>> {
        check_rebuilt(&def, &rows)?;
        let new = Table::new(old.id(), new_db, def, old.graph.clone(), auto_inc);
        new.bulk_load(rows)?;
        self.switch_tables(old, &new)?;
        record(Undo::DroppedTable(old.clone()));
        record(Undo::CreatedTable(new.clone()));
        Ok(new)
    }

    /// A session's TEMPORARY table rebuilt (ALTER TABLE, RENAME): a new temporary object with
    /// the same id, definition `def` in database `db`, holding `rows`. Nothing enters the
    /// catalog or the undo journal: the caller swaps the object in its session's list only
    /// when this succeeded, and a temporary table's changes are never logged.
    pub fn rebuild_temporary(
        &self,
        old: &Arc<Table>,
        db: &str,
        def: TableDef,
        rows: Vec<Row>,
        auto_inc: u64,
    ) -> Result<Arc<Table>> {
        check_rebuilt(&def, &rows)?;
        let new = Table::new(old.id(), db, def, old.graph.clone(), auto_inc);
        new.mark_temporary();
        new.bulk_load(rows)?;
        Ok(new)
    }
}
