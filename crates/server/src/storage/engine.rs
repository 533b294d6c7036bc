//! The engine: the catalog (databases → tables, table ids), transaction ids, and the
//! transaction life cycle entry points.
//!
//! The catalog is one `RwLock`: DDL takes it exclusively, name lookups (`Engine::table`) take
//! it shared for a map lookup. Row operations never touch it.

use super::ddl_undo::{record, Undo};
use super::lock::WaitGraph;
use super::mvcc::{CommitSeq, Mvcc, PurgeStats, TrxRow, TxnSlot};
use super::table::{validate_def, Table};
use super::txn::{Txn, TxnOptions};
use super::{Row, Savepoint, TableId, TxnId};
use crate::error::{Error, Result};
use crate::storage::schema::{IndexDef, TableDef};
use crate::types::Value;
use cohort_protocol::ErrorCode;
use parking_lot::RwLock;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Default)]
struct Catalog {
    /// database → table name → table. Names compare case-sensitively.
    dbs: BTreeMap<String, BTreeMap<String, Arc<Table>>>,
    by_id: HashMap<TableId, Arc<Table>>,
    /// database → its default collation (`CREATE DATABASE … CHARACTER SET …`), set at every
    /// CREATE DATABASE; kept after a DROP (so that an undone DROP keeps it), overwritten by
    /// the next CREATE of the name.
    db_collations: HashMap<String, crate::types::Collation>,
}

/// One table in a [`CatalogSnapshot`].
#[derive(Clone, Debug)]
pub struct TableSnapshot {
    pub id: TableId,
    pub db: String,
    pub def: Arc<TableDef>,
    pub auto_increment: u64,
    pub table: Arc<Table>,
}

/// The catalog at one moment, for a checkpoint: databases (sorted) and tables.
#[derive(Clone, Debug, Default)]
pub struct CatalogSnapshot {
    pub databases: Vec<String>,
    /// The default collation of each of `databases`, in the same order.
    pub database_collations: Vec<crate::types::Collation>,
    pub tables: Vec<TableSnapshot>,
    /// Every view, with its database.
    pub views: Vec<(String, Arc<super::views::ViewDef>)>,
    /// The next table id the engine would hand out.
    pub next_table_id: u64,
}

/// The storage engine. `Send + Sync`, shared as `Arc<Engine>`.
pub struct Engine {
    /// Exclusive for CREATE/DROP DATABASE/TABLE, shared for lookups by name or id.
    catalog: RwLock<Catalog>,
    /// Atomic counters.
    next_table_id: AtomicU64,
    next_txn_id: AtomicU64,
    /// The waits-for graph shared by all tables (its own mutex, taken only around waits).
    graph: Arc<WaitGraph>,
    /// Commit sequence, read views, purge (see `mvcc.rs` for its locking).
    mvcc: Arc<Mvcc>,
    /// Set once a table with a FOREIGN KEY enters the catalog (never cleared): while it is
    /// false, a DELETE or UPDATE looks for no referencing table (`sql/exec/fk.rs`).
    foreign_keys: std::sync::atomic::AtomicBool,
    /// View definitions (see `views.rs`).
    pub(super) views: super::views::ViewCatalog,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Engine")
    }
}

impl Engine {
    pub fn new() -> Arc<Engine> {
        Arc::new(Engine {
            catalog: RwLock::new(Catalog::default()),
            next_table_id: AtomicU64::new(1),
            next_txn_id: AtomicU64::new(1),
            graph: Arc::new(WaitGraph::default()),
            mvcc: Mvcc::new(),
            foreign_keys: std::sync::atomic::AtomicBool::new(false),
            views: Default::default(),
        })
    }

    /// True if some table has (or had) a FOREIGN KEY.
    pub fn any_foreign_keys(&self) -> bool {
        self.foreign_keys.load(Ordering::Acquire)
    }

    /// The tables with a FOREIGN KEY that references `db`.`name` (the table itself included
    /// when it references itself), in catalog order.
    pub fn referencing(&self, db: &str, name: &str) -> Vec<Arc<Table>> {
        if !self.any_foreign_keys() {
            return Vec::new();
        }
        let cat = self.catalog.read();
        let mut out = Vec::new();
        for t in cat.dbs.values().flat_map(|ts| ts.values()) {
            let def = t.def();
            if def
                .foreign_keys
                .iter()
                .any(|f| f.parent_db == db && f.parent_table == name)
            {
                out.push(t.clone());
            }
        }
        out
    }

    fn note_foreign_keys(&self, def: &TableDef) {
        if !def.foreign_keys.is_empty() {
            self.foreign_keys.store(true, Ordering::Release);
        }
    }

    // ---- catalog ----

    pub fn create_database(&self, name: &str, if_not_exists: bool) -> Result<()> {
        let mut cat = self.catalog.write();
        if cat.dbs.contains_key(name) {
            if if_not_exists {
                return Ok(());
            }
            return Err(Error::new(
                ErrorCode::DbCreateExists,
                format!("Can't create database '{name}'; database exists"),
            ));
        }
        cat.dbs.insert(name.to_string(), BTreeMap::new());
        cat.db_collations
            .insert(name.to_string(), crate::types::Collation::Utf8mb4GeneralCi);
        drop(cat);
        record(Undo::CreatedDatabase(name.to_string()));
        Ok(())
    }

    /// A database's default collation (utf8mb4_general_ci unless it was given one).
    pub fn database_collation(&self, name: &str) -> crate::types::Collation {
        let cat = self.catalog.read();
        match cat.dbs.contains_key(name) {
            true => cat.db_collations.get(name).copied(),
            false => None,
        }
        .unwrap_or(crate::types::Collation::Utf8mb4GeneralCi)
    }

    /// Set a database's default collation (CREATE / ALTER DATABASE, recovery); 1049 if it
    /// does not exist.
    pub fn set_database_collation(&self, name: &str, coll: crate::types::Collation) -> Result<()> {
        let mut cat = self.catalog.write();
        if !cat.dbs.contains_key(name) {
            return Err(Error::bad_db(name));
        }
        cat.db_collations.insert(name.to_string(), coll);
        Ok(())
    }

    pub fn drop_database(&self, name: &str, if_exists: bool) -> Result<()> {
        let mut cat = self.catalog.write();
        let Some(tables) = cat.dbs.remove(name) else {
            if if_exists {
                return Ok(());
            }
            return Err(Error::new(
                ErrorCode::DbDropExists,
                format!("Can't drop database '{name}'; database doesn't exist"),
            ));
        };
        for t in tables.values() {
            cat.by_id.remove(&t.id());
        }
        drop(cat);
        self.drop_views_of(name);
        // Marked dropped once the statement's outcome is known (see `ddl_undo`).
        record(Undo::DroppedDatabase {
            name: name.to_string(),
            tables,
        });
        Ok(())
    }

    pub fn database_exists(&self, name: &str) -> bool {
        self.catalog.read().dbs.contains_key(name)
    }

    /// Sorted.
    pub fn databases(&self) -> Vec<String> {
        self.catalog.read().dbs.keys().cloned().collect()
    }

    /// Sorted; 1049 if the database does not exist.
    pub fn tables(&self, db: &str) -> Result<Vec<String>> {
        let cat = self.catalog.read();
        match cat.dbs.get(db) {
            Some(t) => Ok(t.keys().cloned().collect()),
            None => Err(Error::bad_db(db)),
        }
    }

    /// 1049 no database, 1050 exists (Ok(false) with `if_not_exists`), 1060/1061/1068/1072/1113
    /// for a bad definition.
    pub fn create_table(&self, db: &str, def: TableDef, if_not_exists: bool) -> Result<bool> {
        if self.view(db, &def.name).is_some() {
            return Err(Error::new(
                ErrorCode::TableExists,
                format!("Table '{}' already exists", def.name),
            ));
        }
        let id = TableId(self.next_table_id.fetch_add(1, Ordering::Relaxed));
        let auto_inc = def.auto_increment_start;
        let created = self.install_table(db, def, id, auto_inc, if_not_exists)?;
        let made = created.is_some();
        if let Some(t) = created {
            record(Undo::CreatedTable(t));
        }
        Ok(made)
    }

    fn install_table(
        &self,
        db: &str,
        def: TableDef,
        id: TableId,
        auto_inc: u64,
        if_not_exists: bool,
    ) -> Result<Option<Arc<Table>>> {
        let mut cat = self.catalog.write();
        let cat = &mut *cat;
        let Some(tables) = cat.dbs.get_mut(db) else {
            return Err(Error::bad_db(db));
        };
        if tables.contains_key(&def.name) {
            if if_not_exists {
                return Ok(None);
            }
            return Err(Error::new(
                ErrorCode::TableExists,
                format!("Table '{}' already exists", def.name),
            ));
        }
        validate_def(&def)?;
        self.note_foreign_keys(&def);
        if cat.by_id.contains_key(&id) {
            return Err(Error::internal(format!("table id {} in use", id.0)));
        }
        let name = def.name.clone();
        let table = Table::new(id, db, def, self.graph.clone(), auto_inc);
        tables.insert(name, table.clone());
        cat.by_id.insert(id, table.clone());
        Ok(Some(table))
    }

    /// A session's TEMPORARY table: a table of database `db` (which, as in MariaDB, need not
    /// exist) that is not in the catalog — only its session reaches it — and whose changes
    /// are not logged.
    pub fn create_temporary_table(&self, db: &str, def: TableDef) -> Result<Arc<Table>> {
        validate_def(&def)?;
        let id = TableId(self.next_table_id.fetch_add(1, Ordering::Relaxed));
        let auto_inc = def.auto_increment_start;
        let table = Table::new(id, db, def, self.graph.clone(), auto_inc);
        table.mark_temporary();
        Ok(table)
    }

    /// 1051 if it does not exist (Ok(false) with `if_exists`).
    pub fn drop_table(&self, db: &str, name: &str, if_exists: bool) -> Result<bool> {
        let mut cat = self.catalog.write();
        let removed = cat.dbs.get_mut(db).and_then(|t| t.remove(name));
        match removed {
            Some(t) => {
                cat.by_id.remove(&t.id());
                drop(cat);
                // Marked dropped once the statement's outcome is known (see `ddl_undo`).
                record(Undo::DroppedTable(t));
                Ok(true)
            }
            None if if_exists => Ok(false),
            None => Err(Error::new(
                ErrorCode::BadTable,
                format!("Unknown table '{db}.{name}'"),
            )),
        }
    }

    /// Remove every row and reset AUTO_INCREMENT.
    pub fn truncate_table(&self, db: &str, name: &str) -> Result<()> {
        let table = self.table(db, name)?;
        let saved = table.truncate();
        record(Undo::Truncated { table, saved });
        Ok(())
    }

    /// 1061 duplicate name, 1072 bad column, 1062 if a UNIQUE index meets existing duplicates.
    pub fn create_index(&self, db: &str, table: &str, index: IndexDef) -> Result<()> {
        let table = self.table(db, table)?;
        let name = index.name.clone();
        table.create_index(index)?;
        record(Undo::CreatedIndex { table, name });
        Ok(())
    }

    /// 1091 if there is no such index.
    pub fn drop_index(&self, db: &str, table: &str, name: &str) -> Result<()> {
        let table = self.table(db, table)?;
        let (pos, index) = table.drop_index(name)?;
        record(Undo::DroppedIndex { table, pos, index });
        Ok(())
    }

    /// `ALTER TABLE … AUTO_INCREMENT = next`: raise the counter to `next` (never lower it).
    pub fn alter_auto_increment(&self, table: &Arc<Table>, next: u64) {
        let old = table.auto_increment_peek();
        if next > 1 {
            table.observe_auto_increment(next - 1);
        }
        let set = table.auto_increment_peek();
        if set != old {
            let table = table.clone();
            record(Undo::AutoIncrement { table, set, old });
        }
    }

    /// Rebuild and rename (`rebuild.rs`): unlink `old` and link `new` (same id) under
    /// `new.db()`.`new.name()`, in one step. 1146 if `old` is not in the catalog, 1049 if the
    /// new database does not exist, 1050 if the new name is another table's.
    pub(super) fn switch_tables(&self, old: &Arc<Table>, new: &Arc<Table>) -> Result<()> {
        let mut cat = self.catalog.write();
        let cat = &mut *cat;
        let linked = cat
            .dbs
            .get(old.db())
            .and_then(|ts| ts.get(old.name()))
            .is_some_and(|x| Arc::ptr_eq(x, old));
        if !linked {
            return Err(Error::no_such_table(old.db(), old.name()));
        }
        let Some(target) = cat.dbs.get(new.db()) else {
            return Err(Error::bad_db(new.db()));
        };
        let same_place = old.db() == new.db() && old.name() == new.name();
        if !same_place && target.contains_key(new.name()) {
            return Err(Error::new(
                ErrorCode::TableExists,
                format!("Table '{}' already exists", new.name()),
            ));
        }
        self.note_foreign_keys(&new.def());
        cat.dbs.get_mut(old.db()).map(|ts| ts.remove(old.name()));
        cat.dbs
            .get_mut(new.db())
            .map(|ts| ts.insert(new.name().to_string(), new.clone()));
        cat.by_id.insert(new.id(), new.clone());
        Ok(())
    }

    // ---- undo of a failed DDL statement (see `ddl_undo`) ----

    pub(super) fn undo_create_database(&self, name: &str) -> Result<()> {
        let mut cat = self.catalog.write();
        let Some(tables) = cat.dbs.remove(name) else {
            return Err(Error::internal(format!("database {name} is gone")));
        };
        for t in tables.values() {
            cat.by_id.remove(&t.id());
            t.mark_dropped();
        }
        Ok(())
    }

    pub(super) fn undo_drop_database(
        &self,
        name: &str,
        tables: BTreeMap<String, Arc<Table>>,
    ) -> Result<()> {
        let mut cat = self.catalog.write();
        if cat.dbs.contains_key(name) {
            drop(cat);
            tables.values().for_each(|t| t.mark_dropped());
            return Err(Error::internal(format!("database {name} exists again")));
        }
        for t in tables.values() {
            cat.by_id.insert(t.id(), t.clone());
        }
        cat.dbs.insert(name.to_string(), tables);
        Ok(())
    }

    pub(super) fn undo_create_table(&self, t: &Arc<Table>) -> Result<()> {
        let mut cat = self.catalog.write();
        let ours = cat
            .dbs
            .get(t.db())
            .and_then(|ts| ts.get(t.name()))
            .is_some_and(|x| Arc::ptr_eq(x, t));
        if ours {
            cat.dbs.get_mut(t.db()).map(|ts| ts.remove(t.name()));
            cat.by_id.remove(&t.id());
        }
        drop(cat);
        t.mark_dropped();
        Ok(())
    }

    pub(super) fn undo_drop_table(&self, t: &Arc<Table>) -> Result<()> {
        let mut cat = self.catalog.write();
        let cat = &mut *cat;
        match cat.dbs.get_mut(t.db()) {
            Some(ts) if !ts.contains_key(t.name()) => {
                ts.insert(t.name().to_string(), t.clone());
                cat.by_id.insert(t.id(), t.clone());
                Ok(())
            }
            _ => {
                t.mark_dropped();
                Err(Error::internal(format!(
                    "table {}.{} cannot be put back",
                    t.db(),
                    t.name()
                )))
            }
        }
    }

    /// 1146 (1049 if the database does not exist).
    pub fn table(&self, db: &str, name: &str) -> Result<Arc<Table>> {
        let cat = self.catalog.read();
        match cat.dbs.get(db) {
            None => Err(Error::bad_db(db)),
            Some(t) => match t.get(name) {
                Some(t) => Ok(t.clone()),
                None => Err(Error::no_such_table(db, name)),
            },
        }
    }

    pub fn table_by_id(&self, id: TableId) -> Option<Arc<Table>> {
        self.catalog.read().by_id.get(&id).cloned()
    }

    // ---- transactions ----

    /// A slot for one session: its transactions publish their read views and lock waits
    /// there, and INNODB_TRX lists them (with `thread_id` as `trx_mysql_thread_id`).
    pub fn register_session(&self, thread_id: u32) -> Arc<TxnSlot> {
        self.mvcc.register(thread_id)
    }

    /// A REPEATABLE READ transaction in a slot of its own (tests, tools).
    pub fn begin(&self) -> Txn {
        self.begin_with(TxnOptions::default())
    }

    /// A transaction in a slot of its own.
    pub fn begin_with(&self, opts: TxnOptions) -> Txn {
        let slot = self.mvcc.register(0);
        self.begin_in(&slot, opts)
    }

    /// A transaction of the session that owns `slot` (one at a time per slot).
    pub fn begin_in(&self, slot: &Arc<TxnSlot>, opts: TxnOptions) -> Txn {
        let id = TxnId(self.next_txn_id.fetch_add(1, Ordering::Relaxed));
        Txn::new(id, slot.clone(), opts)
    }

    /// Statement start.
    pub fn savepoint(&self, txn: &Txn) -> Savepoint {
        txn.savepoint()
    }

    /// Undo the changes made since `sp`; the locks stay.
    pub fn rollback_to_savepoint(&self, txn: &mut Txn, sp: Savepoint) {
        txn.rollback_to(sp)
    }

    /// No more changes; the images (`txn.changes()`) are frozen.
    pub fn prepare(&self, txn: &mut Txn) -> Result<()> {
        txn.prepare()
    }

    /// Make the changes visible (under the next commit sequence number: call in log order),
    /// release the locks. (The net row changes were taken with `txn.changes()` at prepare,
    /// for the logs.)
    pub fn commit(&self, mut txn: Txn) {
        txn.commit(&self.mvcc)
    }

    /// Discard the changes and release the locks.
    pub fn rollback(&self, mut txn: Txn) {
        txn.rollback();
    }

    /// The commit through which every version is installed: a view taken now sees it.
    pub fn published(&self) -> CommitSeq {
        self.mvcc.published()
    }

    /// The open transactions (INNODB_TRX).
    pub fn transactions(&self) -> Vec<TrxRow> {
        self.mvcc.transactions()
    }

    /// Rows waiting for purge.
    pub fn purge_backlog(&self) -> usize {
        self.mvcc.history_len()
    }

    /// Purge counters.
    pub fn purge_stats(&self) -> &PurgeStats {
        &self.mvcc.stats
    }

    /// Tests: purge only when `purge_now` is called (no purge thread).
    #[cfg(test)]
    pub(crate) fn manual_purge(&self) {
        self.mvcc
            .auto_purge
            .store(false, std::sync::atomic::Ordering::Relaxed);
    }

    /// Run one purge pass now, on this thread (tests and measurements); returns the rows
    /// visited.
    pub fn purge_now(&self, max_rows: usize) -> usize {
        self.mvcc.purge_round(max_rows)
    }

    /// The engine's rows of SHOW GLOBAL STATUS (MariaDB's names where the meaning matches).
    pub fn status(&self) -> Vec<(String, crate::types::Value)> {
        use crate::types::Value;
        let g = &self.graph;
        let n = |v: u64| Value::UInt(v);
        let rel = Ordering::Relaxed;
        vec![
            ("Innodb_deadlocks".into(), n(g.deadlock_count())),
            (
                "Innodb_history_list_length".into(),
                n(self.purge_backlog() as u64),
            ),
            (
                "Innodb_purged_versions".into(),
                n(self.mvcc.stats.versions_purged.load(rel)),
            ),
            (
                "Innodb_row_lock_current_waits".into(),
                n(g.waiting() as u64),
            ),
            (
                "Innodb_row_lock_time".into(),
                n(g.wait_micros.load(rel) / 1000),
            ),
            ("Innodb_row_lock_waits".into(), n(g.waits.load(rel))),
        ]
    }

    /// Deadlocks detected since start (for SHOW STATUS).
    pub fn deadlock_count(&self) -> u64 {
        self.graph.deadlock_count()
    }

    /// The lock waits in progress: `(waiting txn, txn it waits for)`.
    pub fn lock_waits(&self) -> Vec<(TxnId, TxnId)> {
        self.graph.edges()
    }

    /// Is the transaction waiting for a lock?
    pub fn is_waiting(&self, txn: TxnId) -> bool {
        self.graph.is_waiting(txn)
    }

    // ---- durability ----

    /// The catalog, for a checkpoint. Rows follow with `Table::scan_committed`.
    pub fn catalog_snapshot(&self) -> CatalogSnapshot {
        let cat = self.catalog.read();
        let mut tables = Vec::new();
        for (db, ts) in &cat.dbs {
            for t in ts.values() {
                tables.push(TableSnapshot {
                    id: t.id(),
                    db: db.clone(),
                    def: t.def(),
                    auto_increment: t.auto_increment_peek(),
                    table: t.clone(),
                });
            }
        }
        CatalogSnapshot {
            databases: cat.dbs.keys().cloned().collect(),
            database_collations: cat
                .dbs
                .keys()
                .map(|d| {
                    cat.db_collations
                        .get(d)
                        .copied()
                        .unwrap_or(crate::types::Collation::Utf8mb4GeneralCi)
                })
                .collect(),
            tables,
            views: self.all_views(),
            next_table_id: self.next_table_id.load(Ordering::Relaxed),
        }
    }

    /// Recovery: recreate a table with its id and AUTO_INCREMENT counter (the database must
    /// exist). Later table ids are allocated above it.
    pub fn restore_table(
        &self,
        db: &str,
        def: TableDef,
        id: TableId,
        auto_increment: u64,
    ) -> Result<Arc<Table>> {
        self.next_table_id.fetch_max(id.0 + 1, Ordering::Relaxed);
        match self.install_table(db, def, id, auto_increment, false)? {
            Some(t) => Ok(t),
            None => Err(Error::internal("table exists")),
        }
    }

    /// Recovery: load a checkpoint's rows of one table at once (see `Table::bulk_load`).
    pub fn bulk_load(&self, table: TableId, rows: Vec<Row>) -> Result<()> {
        let t = self
            .table_by_id(table)
            .ok_or_else(|| Error::internal(format!("no table with id {}", table.0)))?;
        t.bulk_load(rows)
    }

    /// Recovery: install one committed row change (`before` → `after`, full images) directly,
    /// without a transaction. Replaying full images is idempotent. Must not run concurrently with
    /// transactions on the same rows.
    pub fn apply_recovered(
        &self,
        table: TableId,
        before: Option<&[Value]>,
        after: Option<Row>,
    ) -> Result<()> {
        let t = self
            .table_by_id(table)
            .ok_or_else(|| Error::internal(format!("no table with id {}", table.0)))?;
        t.apply_committed(before, after)?;
        Ok(())
    }

    /// Recovery: set a table's AUTO_INCREMENT counter (e.g. from a checkpoint).
    pub fn restore_auto_increment(&self, table: TableId, next: u64) -> Result<()> {
        let t = self
            .table_by_id(table)
            .ok_or_else(|| Error::internal(format!("no table with id {}", table.0)))?;
        t.set_auto_increment(next);
        Ok(())
    }
}
