//! One table: its indexes, row slots and their version chains, table DDL and recovery.
//!
//! DML lives in `dml.rs`, reads (consistent and locking) in `read.rs`. Every DML method works
//! in *steps*: a step takes the table state (shared), does index and slot work that never
//! blocks, and either finishes or names a lock it must wait for ([`WaitFor`]). The wait
//! happens with no table or index lock held, then the step is retried.
//!
//! # Index entries of a row
//!
//! A secondary index holds an entry `key(image) ++ primary key → slot` for every image the
//! slot holds: its newest committed version, each older version kept for read views, and the
//! pending version. Entries are added before the image they serve is installed (under the
//! index's write lock, with the gap and unique checks) and removed once no image of the slot
//! has that key ([`Table::fix_entries`]). A reader accepts an entry only if the version it
//! sees has the entry's key, so each row is found once.

use super::keycode::{self, KeySpec};
use super::lock::{GapLocks, Slot, SlotState, Wakes};
use super::mvcc::{CommitSeq, Horizon, PurgeStats};
use super::{Row, TableId, TxnId};
use crate::error::{Error, Result};
use crate::storage::schema::{IndexDef, TableDef};
use crate::types::Value;
use cohort_protocol::ErrorCode;
use parking_lot::{RwLock, RwLockReadGuard};
use smallvec::SmallVec;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

/// Opaque: identifies one row slot of one table.
#[derive(Clone)]
pub struct RowHandle {
    pub(crate) table: TableId,
    pub(crate) slot: Arc<Slot>,
}

impl RowHandle {
    pub fn table_id(&self) -> TableId {
        self.table
    }
}

impl PartialEq for RowHandle {
    fn eq(&self, other: &RowHandle) -> bool {
        self.table == other.table && Arc::ptr_eq(&self.slot, &other.slot)
    }
}

impl Eq for RowHandle {}

impl std::hash::Hash for RowHandle {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.table.hash(state);
        (Arc::as_ptr(&self.slot) as usize).hash(state);
    }
}

impl std::fmt::Debug for RowHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "RowHandle({:?}, {:02x?})",
            self.table,
            &self.slot.key[..]
        )
    }
}

pub(crate) type IndexMap = RwLock<BTreeMap<Vec<u8>, Arc<Slot>>>;

/// A secondary index: entries `key(version) ++ primary key → slot` for every image of every
/// row (see the module doc).
pub(crate) struct SecIndex {
    pub spec: KeySpec,
    pub unique: bool,
    /// Its own RwLock: shared to scan and to lock gaps, exclusive to add/remove entries (and
    /// around the gap and unique checks of an entry being added).
    pub map: IndexMap,
    pub gaps: Arc<GapLocks>,
}

/// The part of a table that DDL replaces; protected by `Table::state`.
/// Replaced or changed only with `Table::state` held exclusively.
pub(crate) struct TableState {
    pub def: Arc<TableDef>,
    /// None: rows are keyed by a hidden row id.
    pub pk: Option<KeySpec>,
    /// Encoded primary key → slot. Its own RwLock: shared for lookups, scans and gap locks,
    /// exclusive to add a slot (insert, with the gap check) or remove an empty one.
    pub primary: IndexMap,
    pub primary_gaps: Arc<GapLocks>,
    /// Parallel to `def.indexes`.
    pub secondary: Vec<SecIndex>,
}

impl TableState {
    fn new(def: Arc<TableDef>) -> TableState {
        let pk = def.primary_key.as_ref().map(|i| KeySpec::new(&def, i));
        let secondary = def
            .indexes
            .iter()
            .map(|i| SecIndex {
                spec: KeySpec::new(&def, i),
                unique: i.unique,
                map: RwLock::new(BTreeMap::new()),
                gaps: Arc::default(),
            })
            .collect();
        TableState {
            def,
            pk,
            primary: RwLock::new(BTreeMap::new()),
            primary_gaps: Arc::default(),
            secondary,
        }
    }

    /// The map and gap locks of an index (None: primary).
    pub fn index(&self, index: Option<usize>) -> (&IndexMap, &Arc<GapLocks>) {
        match index {
            None => (&self.primary, &self.primary_gaps),
            Some(i) => (&self.secondary[i].map, &self.secondary[i].gaps),
        }
    }
}

/// What a DML step must wait for before it is retried.
pub(crate) enum WaitFor {
    /// A record lock.
    Row(Arc<Slot>, super::LockMode),
    /// An insert intention: the end of the transactions holding a gap around `key`.
    Gap(Arc<GapLocks>, Vec<u8>, Vec<TxnId>),
}

/// One step of a DML operation.
pub(crate) enum Step<T> {
    Done(T),
    /// Wait (with no table lock held), then retry.
    Wait(WaitFor),
    /// Something moved (a slot was collected): retry.
    Retry,
}

/// The images of a slot: the index entries it needs.
pub(crate) type Images = SmallVec<[Row; 4]>;

/// An in-memory table. Shared as `Arc<Table>`; all methods take `&self`.
pub struct Table {
    /// Immutable: id, names, self reference, the engine's waits-for graph.
    pub(crate) id: TableId,
    db: String,
    name: String,
    me: Weak<Table>,
    pub(crate) graph: Arc<super::lock::WaitGraph>,
    /// Definition and indexes: taken shared by each DML step (never across a lock wait or a
    /// scan callback), exclusively by DDL. Each index map inside has its own RwLock.
    pub(crate) state: RwLock<TableState>,
    /// Atomic; bumped under `state` (write) by CREATE/DROP INDEX, TRUNCATE, DROP.
    schema_version: AtomicU64,
    /// Atomic; set under `state` (write) by DROP TABLE / DROP DATABASE.
    dropped: AtomicBool,
    /// Atomic: the next AUTO_INCREMENT value (fetch_add reserves, fetch_max observes).
    auto_inc: AtomicU64,
    /// Atomic: committed rows (approximate while commits run).
    rows: AtomicI64,
    /// Atomic: the next hidden row id (tables without a PRIMARY KEY).
    pub(crate) next_row_id: AtomicU64,
    /// The metadata lock (`mdl.rs`): its own atomics and wait mutex.
    pub(crate) mdl: super::mdl::MetaLock,
    /// A session's TEMPORARY table: outside the catalog, its changes never logged.
    temporary: AtomicBool,
    /// Index statistics and the change counter that makes them due (`stats.rs`).
    pub(crate) stats: super::stats::StatsCell,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Table({:?} {}.{})", self.id, self.db, self.name)
    }
}

impl Table {
    pub(crate) fn new(
        id: TableId,
        db: &str,
        def: TableDef,
        graph: Arc<super::lock::WaitGraph>,
        auto_inc: u64,
    ) -> Arc<Table> {
        let name = def.name.clone();
        Arc::new_cyclic(|me| Table {
            id,
            db: db.to_string(),
            name,
            me: me.clone(),
            graph,
            state: RwLock::new(TableState::new(Arc::new(def))),
            schema_version: AtomicU64::new(1),
            dropped: AtomicBool::new(false),
            auto_inc: AtomicU64::new(auto_inc.max(1)),
            rows: AtomicI64::new(0),
            next_row_id: AtomicU64::new(1),
            mdl: super::mdl::MetaLock::default(),
            temporary: AtomicBool::new(false),
            stats: Default::default(),
        })
    }

    /// True for a session's TEMPORARY table (see [`super::Engine::create_temporary_table`]).
    pub fn is_temporary(&self) -> bool {
        self.temporary.load(Ordering::Relaxed)
    }

    pub(crate) fn arc(&self) -> Arc<Table> {
        self.me.upgrade().expect("table is alive")
    }

    pub fn id(&self) -> TableId {
        self.id
    }

    pub fn def(&self) -> Arc<TableDef> {
        self.state.read().def.clone()
    }

    pub fn db(&self) -> &str {
        &self.db
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Changes on CREATE/DROP INDEX and TRUNCATE: a prepared plan re-binds when it moved.
    pub fn schema_version(&self) -> u64 {
        self.schema_version.load(Ordering::Acquire)
    }

    pub fn is_dropped(&self) -> bool {
        self.dropped.load(Ordering::Acquire)
    }

    pub fn approx_rows(&self) -> u64 {
        self.rows.load(Ordering::Relaxed).max(0) as u64
    }

    // ---- AUTO_INCREMENT ----

    /// Reserve and return the next value; None once the counter is exhausted. The counter
    /// never wraps: `u64::MAX` means "no value left" and is never handed out (MySQL refuses to
    /// generate 18446744073709551615 with 1467), so an explicit insert of `u64::MAX - 1`
    /// exhausts it too.
    pub fn reserve_auto_increment(&self) -> Option<u64> {
        self.auto_inc
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n != u64::MAX).then(|| n + 1)
            })
            .ok()
    }

    /// Reserve `n` consecutive values at once (a multi-row INSERT … VALUES, as InnoDB's
    /// "consecutive" mode does): the first, or None if the counter is exhausted. Values of the
    /// block the statement does not use are lost, as in MariaDB.
    pub fn reserve_auto_increment_block(&self, n: u64) -> Option<u64> {
        self.auto_inc
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |v| {
                (v != u64::MAX).then(|| v.saturating_add(n.max(1)))
            })
            .ok()
    }

    /// [`Table::reserve_auto_increment`] for callers that cannot run out (tests, tools).
    pub fn next_auto_increment(&self) -> u64 {
        self.reserve_auto_increment()
            .expect("auto-increment counter exhausted")
    }

    /// An explicit value was inserted: counter = max(counter, used + 1).
    pub fn observe_auto_increment(&self, used: u64) {
        self.auto_inc
            .fetch_max(used.saturating_add(1), Ordering::AcqRel);
    }

    /// The value the next insert would get (SHOW CREATE TABLE, checkpoints).
    pub fn auto_increment_peek(&self) -> u64 {
        self.auto_inc.load(Ordering::Acquire)
    }

    // ---- helpers ----

    pub(crate) fn read_state(&self) -> Result<RwLockReadGuard<'_, TableState>> {
        let st = self.state.read();
        if self.is_dropped() {
            return Err(Error::no_such_table(&self.db, &self.name));
        }
        Ok(st)
    }

    pub(crate) fn handle(&self, slot: &Arc<Slot>) -> RowHandle {
        RowHandle {
            table: self.id,
            slot: slot.clone(),
        }
    }

    pub(crate) fn check_handle(&self, h: &RowHandle) -> Result<()> {
        if h.table != self.id {
            return Err(Error::internal("row handle of another table"));
        }
        Ok(())
    }

    pub(crate) fn check_row(&self, st: &TableState, row: &[Value]) -> Result<()> {
        if row.len() != st.def.columns.len() {
            return Err(Error::internal(format!(
                "row of {} values for table {} of {} columns",
                row.len(),
                self.name,
                st.def.columns.len()
            )));
        }
        if let Some(pk) = &st.def.primary_key {
            for p in &pk.parts {
                if row[p.column].is_null() {
                    return Err(Error::new(
                        ErrorCode::BadNull,
                        format!("Column '{}' cannot be null", st.def.columns[p.column].name),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The primary-index key of a full primary key value list (None for a table without one,
    /// unless a single integer hidden row id is given).
    pub(crate) fn pk_key(&self, st: &TableState, key: &[Value]) -> Option<Vec<u8>> {
        match &st.pk {
            Some(spec) => {
                if key.len() != spec.cols.len() {
                    return None;
                }
                let mut out = Vec::with_capacity(16);
                spec.encode_values(key, &mut out);
                Some(out)
            }
            None => match key {
                [Value::Int(i)] if *i >= 0 => Some(keycode::row_id_key(*i as u64)),
                [Value::UInt(u)] => Some(keycode::row_id_key(*u)),
                _ => None,
            },
        }
    }

    // ---- index entries ----

    /// The images of a slot (call with its mutex held).
    pub(crate) fn images(s: &SlotState) -> Images {
        s.images().cloned().collect()
    }

    /// Make the index entries of `slot` go from those of the images `before` to those of
    /// `after`: add the missing ones, remove those no image uses any more.
    pub(crate) fn fix_entries(
        &self,
        st: &TableState,
        slot: &Arc<Slot>,
        before: &[Row],
        after: &[Row],
    ) {
        let covered = |idx: &SecIndex, of: &[Row], by: &[Row]| {
            of.iter()
                .all(|r| by.iter().any(|o| idx.spec.same_key_values(r, o)))
        };
        for idx in &st.secondary {
            // Most changes leave this index's columns alone: nothing to build or change.
            if covered(idx, before, after) && covered(idx, after, before) {
                continue;
            }
            let keys = |vs: &[Row]| -> SmallVec<[Vec<u8>; 4]> {
                let mut out: SmallVec<[Vec<u8>; 4]> = vs
                    .iter()
                    .map(|r| {
                        let mut k = idx.spec.row_key(r);
                        k.extend_from_slice(&slot.key);
                        k
                    })
                    .collect();
                out.sort_unstable();
                out.dedup();
                out
            };
            let kb = keys(before);
            let ka = keys(after);
            let added: SmallVec<[&Vec<u8>; 4]> = ka.iter().filter(|k| !kb.contains(k)).collect();
            let removed: SmallVec<[&Vec<u8>; 4]> = kb.iter().filter(|k| !ka.contains(k)).collect();
            if added.is_empty() && removed.is_empty() {
                continue;
            }
            let mut map = idx.map.write();
            for k in added {
                map.insert(k.clone(), slot.clone());
            }
            for k in removed {
                if map.get(k).is_some_and(|s| Arc::ptr_eq(s, slot)) {
                    map.remove(k);
                }
            }
        }
    }

    /// Replace the pending version of `slot` (X-locked by `me`) and fix the index entries (the
    /// new image's entries were reserved by the caller). Returns (newest committed, previous
    /// pending).
    pub(crate) fn set_pending(
        &self,
        st: &TableState,
        slot: &Arc<Slot>,
        me: TxnId,
        new: Option<Option<Row>>,
    ) -> (Option<Row>, Option<Option<Row>>) {
        let has_sec = !st.secondary.is_empty();
        let images = |s: &SlotState| {
            if has_sec {
                Table::images(s)
            } else {
                Images::new()
            }
        };
        let (committed, old, before, after, removed) = {
            let mut s = slot.state.lock();
            debug_assert_eq!(s.owner(), Some(me));
            let before = images(&s);
            let old = s.set_pending(new);
            (s.latest.clone(), old, before, images(&s), s.removed())
        };
        if has_sec && !removed {
            self.fix_entries(st, slot, &before, &after);
        }
        (committed, old)
    }

    /// Undo support: put back a previous pending version (None: no change).
    pub(crate) fn restore_pending(&self, slot: &Arc<Slot>, me: TxnId, prev: Option<Option<Row>>) {
        let st = self.state.read();
        if slot.state.lock().owner() != Some(me) {
            return;
        }
        self.set_pending(&st, slot, me, prev);
    }

    /// Commit `me`'s pending version of `slot` as version `seq` (the lock is released
    /// separately), pruning the versions no view needs. Returns true if the slot still keeps
    /// old versions and was not queued for purge yet: the caller queues it.
    pub(crate) fn commit_slot(
        &self,
        slot: &Arc<Slot>,
        me: TxnId,
        seq: CommitSeq,
        horizon: &Horizon,
        stats: &PurgeStats,
    ) -> bool {
        let st = self.state.read();
        let has_sec = !st.secondary.is_empty();
        let (delta, before, after, queue, removed) = {
            let mut s = slot.state.lock();
            if s.owner() != Some(me) {
                return false;
            }
            let before = if has_sec {
                Table::images(&s)
            } else {
                Images::new()
            };
            let Some(new) = s.take_pending() else {
                return false;
            };
            let delta = new.is_some() as i64 - s.latest.is_some() as i64;
            s.install(new, seq);
            let dropped = s.prune(horizon);
            if dropped > 0 {
                stats
                    .versions_purged
                    .fetch_add(dropped as u64, Ordering::Relaxed);
            }
            let queue = s.has_older() && !s.queued();
            if queue {
                s.set_queued(true);
            }
            let after = if has_sec {
                Table::images(&s)
            } else {
                Images::new()
            };
            (delta, before, after, queue, s.removed())
        };
        if removed {
            return false;
        }
        self.stats.changed(1);
        if delta != 0 {
            self.rows.fetch_add(delta, Ordering::Relaxed);
        }
        if has_sec {
            self.fix_entries(&st, slot, &before, &after);
        }
        queue
    }

    /// Purge: drop the old versions of `slot` no view needs; remove the slot from the index
    /// if nothing is left. Returns the seq to look at it again if old versions remain, or if
    /// a writer holds the row now (its commit prunes it; purge looks again after).
    ///
    /// Secondary entries of a row change either under its X lock (by the writer) or here, on
    /// a row nobody locks: the index maps are taken (write) before the row, so that no writer
    /// can lock it and reserve entries between the look and the removal.
    pub(crate) fn purge_slot(
        &self,
        slot: &Arc<Slot>,
        horizon: &Horizon,
        stats: &PurgeStats,
    ) -> Option<CommitSeq> {
        let Ok(st) = self.read_state() else {
            return None;
        };
        {
            let s = slot.state.lock();
            if s.removed() {
                return None;
            }
            if s.owner().is_some() {
                return Some(s.latest_seq);
            }
        }
        let mut maps: SmallVec<[_; 4]> = st.secondary.iter().map(|i| i.map.write()).collect();
        let (before, after, garbage, again) = {
            let mut s = slot.state.lock();
            if s.removed() {
                return None;
            }
            if s.owner().is_some() {
                return Some(s.latest_seq);
            }
            let before = Table::images(&s);
            let dropped = s.prune(horizon);
            stats
                .versions_purged
                .fetch_add(dropped as u64, Ordering::Relaxed);
            let again = s.has_older().then_some(s.latest_seq);
            if again.is_none() {
                s.set_queued(false);
            }
            (before, Table::images(&s), s.is_garbage(), again)
        };
        for (idx, map) in st.secondary.iter().zip(maps.iter_mut()) {
            for r in &before {
                if after.iter().any(|a| idx.spec.same_key_values(r, a)) {
                    continue;
                }
                let mut k = idx.spec.row_key(r);
                if after.iter().any(|a| idx.spec.row_key(a) == k) {
                    continue;
                }
                k.extend_from_slice(&slot.key);
                if map.get(&k).is_some_and(|x| Arc::ptr_eq(x, slot)) {
                    map.remove(&k);
                }
            }
        }
        drop(maps);
        drop(st);
        if garbage {
            self.collect_slot(slot);
        }
        again
    }

    /// Take an empty, unlocked slot out of the primary index.
    pub(crate) fn collect_slot(&self, slot: &Arc<Slot>) {
        let st = self.state.read();
        let mut map = st.primary.write();
        let mut s = slot.state.lock();
        if s.is_garbage() {
            if map.get(&slot.key[..]).is_some_and(|x| Arc::ptr_eq(x, slot)) {
                map.remove(&slot.key[..]);
            }
            s.set_removed();
        }
    }

    // ---- DDL (called by the engine, which handles the catalog) ----

    pub(crate) fn mark_temporary(&self) {
        self.temporary.store(true, Ordering::Relaxed);
    }

    /// Its session dropped a TEMPORARY table (or ended): plans holding it re-bind.
    pub fn drop_temporary(&self) {
        if self.is_temporary() {
            self.mark_dropped();
        }
    }

    pub(crate) fn mark_dropped(&self) {
        let st = self.state.write();
        self.dropped.store(true, Ordering::Release);
        self.schema_version.fetch_add(1, Ordering::AcqRel);
        detach_all(&st);
    }

    /// TRUNCATE: drop every row, reset AUTO_INCREMENT. Returns what was replaced: until the
    /// statement's outcome is known it can be put back ([`Table::undo_truncate`]); once it is
    /// kept, [`TruncatedState::finish`] detaches the old rows. No open transaction holds them:
    /// the statement holds the table's exclusive metadata lock (`mdl.rs`).
    pub(crate) fn truncate(&self) -> TruncatedState {
        let mut st = self.state.write();
        let def = st.def.clone();
        let start = def.auto_increment_start.max(1);
        let old = std::mem::replace(&mut *st, TableState::new(def));
        let saved = TruncatedState {
            state: old,
            rows: self.rows.swap(0, Ordering::Relaxed),
            auto_inc: self.auto_inc.swap(start, Ordering::AcqRel),
            next_row_id: self.next_row_id.swap(1, Ordering::Relaxed),
        };
        self.schema_version.fetch_add(1, Ordering::AcqRel);
        saved
    }

    /// Put back what a TRUNCATE replaced (its statement failed); rows written since are
    /// detached.
    pub(crate) fn undo_truncate(&self, saved: TruncatedState) {
        let mut st = self.state.write();
        let since = std::mem::replace(&mut *st, saved.state);
        detach_all(&since);
        self.rows.store(saved.rows, Ordering::Relaxed);
        self.auto_inc.store(saved.auto_inc, Ordering::Release);
        self.next_row_id.store(saved.next_row_id, Ordering::Relaxed);
        self.schema_version.fetch_add(1, Ordering::AcqRel);
    }

    /// Add `index` at its place in MariaDB's key order ([`TableDef::key_position`]).
    pub(crate) fn create_index(&self, index: IndexDef) -> Result<()> {
        let pos = self.state.read().def.key_position(&index);
        self.create_index_at(pos, index)
    }

    /// Build `index` from the rows and insert it at position `pos` of the definition (an
    /// undone DROP INDEX puts it back where it was).
    pub(crate) fn create_index_at(&self, pos: usize, index: IndexDef) -> Result<()> {
        let mut st = self.state.write();
        if self.is_dropped() {
            return Err(Error::no_such_table(&self.db, &self.name));
        }
        let mut def = (*st.def).clone();
        let pos = pos.min(def.indexes.len());
        def.indexes.insert(pos, index.clone());
        validate_def(&def)?;
        let spec = KeySpec::new(&def, &index);
        let mut map = BTreeMap::new();
        let mut owners: BTreeMap<Vec<u8>, (Arc<Slot>, Row)> = BTreeMap::new();
        for slot in st.primary.read().values() {
            let (images, current) = {
                let s = slot.state.lock();
                let current: Vec<Row> = s
                    .latest
                    .iter()
                    .chain(s.pending().flatten())
                    .cloned()
                    .collect();
                (Table::images(&s), current)
            };
            if index.unique {
                for r in &current {
                    if spec.row_has_null(r) {
                        continue;
                    }
                    let key = spec.row_key(r);
                    if let Some((other, orow)) = owners.get(&key) {
                        if !Arc::ptr_eq(other, slot) {
                            return Err(Error::dup_entry(
                                &format_key(&def, &index, orow),
                                &index.name,
                            ));
                        }
                    }
                    owners.insert(key, (slot.clone(), r.clone()));
                }
            }
            for r in images {
                let mut full = spec.row_key(&r);
                full.extend_from_slice(&slot.key);
                map.insert(full, slot.clone());
            }
        }
        st.secondary.insert(
            pos,
            SecIndex {
                spec,
                unique: index.unique,
                map: RwLock::new(map),
                gaps: Arc::default(),
            },
        );
        st.def = Arc::new(def);
        self.schema_version.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    /// Returns where the index was and its definition (to put it back if the statement fails).
    pub(crate) fn drop_index(&self, name: &str) -> Result<(usize, IndexDef)> {
        let mut st = self.state.write();
        if self.is_dropped() {
            return Err(Error::no_such_table(&self.db, &self.name));
        }
        let Some(pos) = st
            .def
            .indexes
            .iter()
            .position(|i| i.name.eq_ignore_ascii_case(name))
        else {
            return Err(Error::new(
                ErrorCode::CantDropFieldOrKey,
                format!("Can't DROP INDEX `{name}`; check that it exists"),
            ));
        };
        let mut def = (*st.def).clone();
        let index = def.indexes.remove(pos);
        st.secondary.remove(pos);
        st.def = Arc::new(def);
        self.schema_version.fetch_add(1, Ordering::AcqRel);
        Ok((pos, index))
    }

    /// Recovery: load a checkpoint's rows into this table while it is still empty, building
    /// every index at once from sorted entries (a bulk build instead of one B-tree insert per
    /// row and index). Falls back to row-by-row installs for a table without a PRIMARY KEY or
    /// one that already has rows.
    pub(crate) fn bulk_load(&self, rows: Vec<Row>) -> Result<()> {
        let st = self.read_state()?;
        let Some(spec) = st.pk.as_ref().filter(|_| st.primary.read().is_empty()) else {
            drop(st);
            return rows
                .into_iter()
                .try_for_each(|r| self.apply_committed(None, Some(r)));
        };
        let mut primary = Vec::with_capacity(rows.len());
        for row in rows {
            self.check_row(&st, &row)?;
            let key = spec.row_key(&row);
            let mut secondary_keys = Vec::with_capacity(st.secondary.len());
            for idx in &st.secondary {
                let mut k = idx.spec.row_key(&row);
                k.extend_from_slice(&key);
                secondary_keys.push(k);
            }
            let slot = Arc::new(Slot::new(key.clone(), SlotState::with_latest(row)));
            primary.push((key, slot, secondary_keys));
        }
        for (i, idx) in st.secondary.iter().enumerate() {
            let entries = primary
                .iter_mut()
                .map(|(_, slot, keys)| (std::mem::take(&mut keys[i]), slot.clone()));
            *idx.map.write() = entries.collect();
        }
        let mut map = st.primary.write();
        *map = primary.into_iter().map(|(k, slot, _)| (k, slot)).collect();
        self.rows.store(map.len() as i64, Ordering::Relaxed);
        Ok(())
    }

    /// Recovery: install a committed before → after image directly (no transaction, no locks;
    /// the server is not serving yet). Idempotent for full images: replaying an insert of a row
    /// that is there overwrites it; replaying a delete of a row that is gone does nothing.
    /// Without a PRIMARY KEY, `before` is found by comparing full images.
    pub(crate) fn apply_committed(
        &self,
        before: Option<&[Value]>,
        after: Option<Row>,
    ) -> Result<()> {
        let st = self.read_state()?;
        if let Some(a) = &after {
            self.check_row(&st, a)?;
        }
        match &st.pk {
            Some(spec) => {
                let after_key = after.as_ref().map(|a| spec.row_key(a));
                if let Some(b) = before {
                    let bk = spec.row_key(b);
                    if after_key.as_ref() != Some(&bk) {
                        self.install(&st, &bk, None)?;
                    }
                }
                if let (Some(k), Some(a)) = (after_key, after) {
                    self.install(&st, &k, Some(a))?;
                }
            }
            None => {
                let found = match before {
                    Some(b) => st
                        .primary
                        .read()
                        .iter()
                        .find(|(_, s)| s.state.lock().latest.as_ref().is_some_and(|r| r[..] == *b))
                        .map(|(k, _)| k.clone()),
                    None => None,
                };
                let key = match found {
                    Some(k) => k,
                    None if after.is_some() => {
                        keycode::row_id_key(self.next_row_id.fetch_add(1, Ordering::Relaxed))
                    }
                    None => return Ok(()),
                };
                self.install(&st, &key, after)?;
            }
        }
        Ok(())
    }

    fn install(&self, st: &TableState, key: &[u8], image: Option<Row>) -> Result<()> {
        let slot = {
            let mut map = st.primary.write();
            match map.get(key) {
                Some(s) => s.clone(),
                None if image.is_none() => return Ok(()),
                None => {
                    let s = Arc::new(Slot::new(key.to_vec(), SlotState::default()));
                    map.insert(key.to_vec(), s.clone());
                    s
                }
            }
        };
        let (before, after, old) = {
            let mut s = slot.state.lock();
            if s.owner().is_some() {
                return Err(Error::internal("recovery write to a locked row"));
            }
            let before = Table::images(&s);
            let old = std::mem::replace(&mut s.latest, image.clone());
            s.older = None;
            (before, Table::images(&s), old)
        };
        let delta = image.is_some() as i64 - old.is_some() as i64;
        self.rows.fetch_add(delta, Ordering::Relaxed);
        self.fix_entries(st, &slot, &before, &after);
        if image.is_none() {
            let mut map = st.primary.write();
            let mut s = slot.state.lock();
            if s.is_garbage() {
                map.remove(key);
                s.set_removed();
            }
        }
        Ok(())
    }

    /// Recovery: restore the hidden row id counter and AUTO_INCREMENT counter.
    pub(crate) fn set_auto_increment(&self, v: u64) {
        self.auto_inc.store(v.max(1), Ordering::Release);
    }

    /// Undo of `ALTER TABLE … AUTO_INCREMENT`: back to `old` if no insert took a value since
    /// the ALTER set it to `set`.
    pub(crate) fn undo_auto_increment(&self, set: u64, old: u64) {
        let _ = self
            .auto_inc
            .compare_exchange(set, old, Ordering::AcqRel, Ordering::Acquire);
    }

    /// The 1062 error for a `Duplicate` outcome: `Duplicate entry 'v1-v2' for key 'name'`, where
    /// `row` is the row being written (MySQL prints the new key's values).
    pub fn dup_entry_error(&self, index: Option<usize>, row: &[Value]) -> Error {
        let def = self.def();
        let idx = match index {
            None => def.primary_key.as_ref(),
            Some(i) => def.indexes.get(i),
        };
        match idx {
            Some(idx) => Error::dup_entry(&format_key(&def, idx, row), &idx.name),
            None => Error::dup_entry("", "PRIMARY"),
        }
    }

    /// The name of `index` (None: the primary key), as a 1062 / 1761 names it.
    pub fn index_name(&self, index: Option<usize>) -> String {
        let def = self.def();
        match index {
            None => def.primary_key.as_ref(),
            Some(i) => def.indexes.get(i),
        }
        .map_or_else(|| "PRIMARY".to_string(), |x| x.name.clone())
    }

    /// `row`'s primary-key values as a 1062 shows them (`a-1`); empty without a primary key.
    pub fn primary_key_text(&self, row: &[Value]) -> String {
        let def = self.def();
        def.primary_key
            .as_ref()
            .map_or_else(String::new, |pk| format_key(&def, pk, row))
    }
}

impl Table {
    /// (primary-index slots, entries of the first secondary index), for leak checks in tests.
    #[cfg(test)]
    pub(crate) fn state_for_tests(&self) -> (usize, usize) {
        let st = self.state.read();
        let p = st.primary.read().len();
        let s = st.secondary.first().map_or(0, |i| i.map.read().len());
        (p, s)
    }

    /// Old versions held by all rows, for tests and measurements.
    pub fn old_versions(&self) -> usize {
        let st = self.state.read();
        let map = st.primary.read();
        map.values()
            .map(|s| s.state.lock().older.as_ref().map_or(0, |o| o.len()))
            .sum()
    }
}

pub(crate) fn remove_entry(map: &IndexMap, key: &[u8], slot: &Arc<Slot>) {
    let mut m = map.write();
    if m.get(key).is_some_and(|s| Arc::ptr_eq(s, slot)) {
        m.remove(key);
    }
}

/// What a TRUNCATE replaced (see [`Table::truncate`]).
pub(crate) struct TruncatedState {
    state: TableState,
    rows: i64,
    auto_inc: u64,
    next_row_id: u64,
}

impl TruncatedState {
    /// The TRUNCATE is kept: detach the old rows from the transactions that hold them.
    pub(crate) fn finish(self) {
        detach_all(&self.state);
    }
}

fn detach_all(st: &TableState) {
    for slot in st.primary.read().values() {
        let mut wakes = Wakes::default();
        slot.state.lock().detach(&mut wakes);
    }
}

/// A key's values as MySQL prints them in 1062 messages: joined with '-'.
pub(crate) fn format_key(def: &TableDef, idx: &IndexDef, row: &[Value]) -> String {
    idx.parts
        .iter()
        .map(|p| {
            let v = &row[p.column];
            let s = format_value(v);
            match p.prefix_len {
                Some(n) if def.columns[p.column].data_type.is_text() => {
                    s.chars().take(n as usize).collect()
                }
                _ => s,
            }
        })
        .collect::<Vec<_>>()
        .join("-")
}

pub(crate) fn format_value(v: &Value) -> String {
    match v {
        Value::Null => "NULL".to_string(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Double(f) => f.to_string(),
        Value::Decimal(d) => d.to_string(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Date(d) => d.to_string(),
        Value::DateTime(dt) => dt.to_string(),
        Value::Time(t) => crate::sql::time_value::format(*t, None),
    }
}

/// Minimal checks of a table definition, with MySQL's codes: 1113 no columns, 1060 duplicate
/// column, 1061 duplicate key name, 1072 key column out of range, 1068 an index named PRIMARY.
pub(crate) fn validate_def(def: &TableDef) -> Result<()> {
    if def.columns.is_empty() {
        return Err(Error::new(
            ErrorCode::TableMustHaveColumns,
            "A table must have at least 1 column",
        ));
    }
    for (i, c) in def.columns.iter().enumerate() {
        if def.columns[..i]
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case(&c.name))
        {
            return Err(Error::new(
                ErrorCode::DupFieldName,
                format!("Duplicate column name '{}'", c.name),
            ));
        }
    }
    let all = def.primary_key.iter().chain(def.indexes.iter());
    let mut names: Vec<&str> = Vec::new();
    for idx in all {
        if idx.parts.is_empty() {
            return Err(Error::internal(format!("index {} has no parts", idx.name)));
        }
        for p in &idx.parts {
            if p.column >= def.columns.len() {
                return Err(Error::new(
                    ErrorCode::KeyColumnDoesNotExist,
                    format!("Key column #{} doesn't exist in table", p.column),
                ));
            }
        }
        if names.iter().any(|n| n.eq_ignore_ascii_case(&idx.name)) {
            if idx.name.eq_ignore_ascii_case("PRIMARY") {
                return Err(Error::new(
                    ErrorCode::MultiplePriKey,
                    "Multiple primary key defined",
                ));
            }
            return Err(Error::new(
                ErrorCode::DupKeyName,
                format!("Duplicate key name '{}'", idx.name),
            ));
        }
        names.push(&idx.name);
    }
    Ok(())
}
