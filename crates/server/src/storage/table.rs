//! One table: its indexes, row slots, DML and scans.
//!
//! Every DML method works in *steps*: a step takes the table state (shared), does index and
//! slot work that never blocks, and either finishes or names a row lock it must wait for. The
//! wait happens with no table or index lock held (see `lock::acquire`), then the step is
//! retried. Scans collect a batch of index entries under the index's read lock, drop it, and
//! then read (or lock) each row and call the callback with no lock held, so a callback may call
//! back into the table.

use super::keycode::{self, KeySpec};
use super::lock::{self, Acquire, Slot, SlotState, WaitGraph};
use super::{InsertOutcome, KeyRange, LockMode, Row, ScanControl, TableId, Txn, TxnId};
use crate::error::{Error, Result};
use crate::storage::schema::{IndexDef, TableDef};
use crate::types::Value;
use cohort_protocol::ErrorCode;
use parking_lot::{RwLock, RwLockReadGuard};
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

/// Opaque: identifies one row slot of one table.
#[derive(Clone)]
pub struct RowHandle {
    table: TableId,
    slot: Arc<Slot>,
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

type IndexMap = RwLock<BTreeMap<Vec<u8>, Arc<Slot>>>;

/// A secondary index: entries `key(version) ++ primary key → slot` for the committed and the
/// pending version of every row.
pub(crate) struct SecIndex {
    pub spec: KeySpec,
    pub unique: bool,
    /// Its own RwLock: shared to scan a batch, exclusive to add/remove entries and around the
    /// check-and-reserve of a unique key.
    pub map: IndexMap,
}

/// The part of a table that DDL replaces; protected by `Table::state`.
/// Replaced or changed only with `Table::state` held exclusively.
pub(crate) struct TableState {
    pub def: Arc<TableDef>,
    /// None: rows are keyed by a hidden row id.
    pub pk: Option<KeySpec>,
    /// Encoded primary key → slot. Its own RwLock: shared for lookups and scan batches,
    /// exclusive to add a slot (insert) or remove an empty one (garbage collection).
    pub primary: IndexMap,
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
            })
            .collect();
        TableState {
            def,
            pk,
            primary: RwLock::new(BTreeMap::new()),
            secondary,
        }
    }
}

/// One step of a DML operation.
enum Step<T> {
    Done(T),
    /// Wait for this row's lock (with no table lock held), then retry.
    Wait(Arc<Slot>),
    /// Something moved (a slot was collected): retry.
    Retry,
}

/// An in-memory table. Shared as `Arc<Table>`; all methods take `&self`.
pub struct Table {
    /// Immutable: id, names, self reference, the engine's waits-for graph.
    id: TableId,
    db: String,
    name: String,
    me: Weak<Table>,
    graph: Arc<WaitGraph>,
    /// Definition and indexes: taken shared by each DML step (never across a row-lock wait or a
    /// scan callback), exclusively by DDL. Each index map inside has its own RwLock.
    state: RwLock<TableState>,
    /// Atomic; bumped under `state` (write) by CREATE/DROP INDEX, TRUNCATE, DROP.
    schema_version: AtomicU64,
    /// Atomic; set under `state` (write) by DROP TABLE / DROP DATABASE.
    dropped: AtomicBool,
    /// Atomic: the next AUTO_INCREMENT value (fetch_add reserves, fetch_max observes).
    auto_inc: AtomicU64,
    /// Atomic: committed rows (approximate while commits run).
    rows: AtomicI64,
    /// Atomic: the next hidden row id (tables without a PRIMARY KEY).
    next_row_id: AtomicU64,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Table({:?} {}.{})", self.id, self.db, self.name)
    }
}

const SCAN_BATCH_MIN: usize = 8;
const SCAN_BATCH_MAX: usize = 256;

impl Table {
    pub(crate) fn new(
        id: TableId,
        db: &str,
        def: TableDef,
        graph: Arc<WaitGraph>,
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
        })
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

    fn read_state(&self) -> Result<RwLockReadGuard<'_, TableState>> {
        let st = self.state.read();
        if self.is_dropped() {
            return Err(Error::no_such_table(&self.db, &self.name));
        }
        Ok(st)
    }

    fn handle(&self, slot: &Arc<Slot>) -> RowHandle {
        RowHandle {
            table: self.id,
            slot: slot.clone(),
        }
    }

    fn check_handle(&self, h: &RowHandle) -> Result<()> {
        if h.table != self.id {
            return Err(Error::internal("row handle of another table"));
        }
        Ok(())
    }

    fn check_row(&self, st: &TableState, row: &[Value]) -> Result<()> {
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
    fn pk_key(&self, st: &TableState, key: &[Value]) -> Option<Vec<u8>> {
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

    /// Take `slot`'s lock without blocking.
    fn try_lock(&self, txn: &mut Txn, slot: &Arc<Slot>) -> Step<()> {
        let r = lock::try_acquire(&mut slot.state.lock(), txn.id());
        match r {
            Ok(Acquire::Owned { newly }) => {
                if newly {
                    txn.note_lock(self, slot.clone());
                }
                Step::Done(())
            }
            Ok(Acquire::Removed) => Step::Retry,
            Err(_) => Step::Wait(slot.clone()),
        }
    }

    /// Take `slot`'s lock, waiting if needed. False if the slot was removed from the index.
    /// Call with no table or index lock held.
    fn lock_blocking(&self, txn: &mut Txn, slot: &Arc<Slot>) -> Result<bool> {
        match lock::acquire(&self.graph, slot, txn.id(), txn.lock_wait_timeout())? {
            Acquire::Owned { newly } => {
                if newly {
                    txn.note_lock(self, slot.clone());
                }
                Ok(true)
            }
            Acquire::Removed => Ok(false),
        }
    }

    /// Find or create the slot of primary key `key`, locked by `txn`.
    fn lock_key(&self, st: &TableState, txn: &mut Txn, key: &[u8]) -> Step<Arc<Slot>> {
        let existing = st.primary.read().get(key).cloned();
        let slot = match existing {
            Some(s) => s,
            None => {
                let mut map = st.primary.write();
                match map.get(key) {
                    Some(s) => s.clone(),
                    None => {
                        let slot = Arc::new(Slot::new(
                            key.to_vec(),
                            SlotState {
                                owner: Some(txn.id()),
                                ..SlotState::default()
                            },
                        ));
                        map.insert(key.to_vec(), slot.clone());
                        drop(map);
                        txn.note_lock(self, slot.clone());
                        return Step::Done(slot);
                    }
                }
            }
        };
        match self.try_lock(txn, &slot) {
            Step::Done(()) => Step::Done(slot),
            Step::Wait(s) => Step::Wait(s),
            Step::Retry => Step::Retry,
        }
    }

    /// The unique-key check of `key` in unique index `i` for a row going into `mine`, and, if no
    /// other row holds it, the reservation of the entry `key ++ mine.key` — under the index's
    /// write lock, so that two inserters of the same key serialize. Rows holding the key are
    /// locked first (waiting for their owner: no early duplicate). `exclude` is a slot the
    /// caller is deleting (the old version of a primary-key-changing update).
    fn reserve_unique(
        &self,
        st: &TableState,
        txn: &mut Txn,
        i: usize,
        key: &[u8],
        mine: &Arc<Slot>,
        exclude: Option<&Arc<Slot>>,
    ) -> Step<Option<(RowHandle, Row)>> {
        let idx = &st.secondary[i];
        let me = txn.id();
        let mut newly_locked = Vec::new();
        let mut outcome = None;
        let mut map = idx.map.write();
        for (k, s) in map.range(key.to_vec()..) {
            if !k.starts_with(key) {
                break;
            }
            if Arc::ptr_eq(s, mine) || exclude.is_some_and(|e| Arc::ptr_eq(e, s)) {
                continue;
            }
            let mut ss = s.state.lock();
            match lock::try_acquire(&mut ss, me) {
                Ok(Acquire::Removed) => continue,
                Ok(Acquire::Owned { newly }) => {
                    if newly {
                        newly_locked.push(s.clone());
                    }
                    if let Some(r) = ss.visible(me) {
                        if idx.spec.row_key(r) == key {
                            outcome = Some(Step::Done(Some((self.handle(s), r.clone()))));
                            break;
                        }
                    }
                }
                Err(_) => {
                    outcome = Some(Step::Wait(s.clone()));
                    break;
                }
            }
        }
        if outcome.is_none() {
            let mut full = key.to_vec();
            full.extend_from_slice(&mine.key);
            map.insert(full, mine.clone());
        }
        drop(map);
        for s in newly_locked {
            txn.note_lock(self, s);
        }
        outcome.unwrap_or(Step::Done(None))
    }

    /// Take back reservations that no version of `mine` uses.
    fn unreserve(&self, st: &TableState, mine: &Arc<Slot>, reserved: &[(usize, Vec<u8>)]) {
        if reserved.is_empty() {
            return;
        }
        let (c, p) = {
            let s = mine.state.lock();
            (s.committed.clone(), s.pending.clone().flatten())
        };
        for (i, key) in reserved {
            let idx = &st.secondary[*i];
            let used = [&c, &p]
                .iter()
                .any(|v| v.as_ref().is_some_and(|r| idx.spec.row_key(r) == *key));
            if !used {
                let mut full = key.clone();
                full.extend_from_slice(&mine.key);
                remove_entry(&idx.map, &full, mine);
            }
        }
    }

    /// Make the index entries of `slot` go from those of versions `before` to those of `after`.
    fn reindex(
        &self,
        st: &TableState,
        slot: &Arc<Slot>,
        before: [Option<&Row>; 2],
        after: [Option<&Row>; 2],
    ) {
        let covered = |idx: &SecIndex, of: &[Option<&Row>; 2], by: &[Option<&Row>; 2]| {
            of.iter()
                .flatten()
                .all(|r| by.iter().flatten().any(|o| idx.spec.same_key_values(r, o)))
        };
        for idx in &st.secondary {
            // Most updates leave this index's columns alone: nothing to build or change.
            if covered(idx, &before, &after) && covered(idx, &after, &before) {
                continue;
            }
            let keys = |vs: [Option<&Row>; 2]| -> [Option<Vec<u8>>; 2] {
                vs.map(|v| {
                    v.map(|r| {
                        let mut k = idx.spec.row_key(r);
                        k.extend_from_slice(&slot.key);
                        k
                    })
                })
            };
            let kb = keys(before);
            let ka = keys(after);
            let added: Vec<&Vec<u8>> = ka
                .iter()
                .flatten()
                .filter(|k| !kb.iter().flatten().any(|b| b == *k))
                .collect();
            let removed: Vec<&Vec<u8>> = kb
                .iter()
                .flatten()
                .filter(|k| !ka.iter().flatten().any(|a| a == *k))
                .collect();
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

    /// Replace the pending version of `slot` (owned by `me`) and fix the index entries.
    /// Returns (committed, previous pending).
    fn set_pending(
        &self,
        st: &TableState,
        slot: &Arc<Slot>,
        me: TxnId,
        new: Option<Option<Row>>,
    ) -> (Option<Row>, Option<Option<Row>>) {
        let (committed, old, removed) = {
            let mut s = slot.state.lock();
            debug_assert_eq!(s.owner, Some(me));
            let old = std::mem::replace(&mut s.pending, new.clone());
            (s.committed.clone(), old, s.removed)
        };
        if !removed {
            let old_p = old.clone().flatten();
            let new_p = new.flatten();
            self.reindex(
                st,
                slot,
                [committed.as_ref(), old_p.as_ref()],
                [committed.as_ref(), new_p.as_ref()],
            );
        }
        (committed, old)
    }

    /// Undo support: put back a previous pending version (None: no change).
    pub(crate) fn restore_pending(&self, slot: &Arc<Slot>, me: TxnId, prev: Option<Option<Row>>) {
        let st = self.state.read();
        if slot.state.lock().owner != Some(me) {
            return;
        }
        self.set_pending(&st, slot, me, prev);
    }

    /// Commit `me`'s pending version of `slot` (the lock is released separately).
    pub(crate) fn commit_slot(&self, slot: &Arc<Slot>, me: TxnId) {
        let st = self.state.read();
        let (old, new, removed) = {
            let mut s = slot.state.lock();
            if s.owner != Some(me) {
                return;
            }
            let Some(p) = s.pending.take() else { return };
            let old = std::mem::replace(&mut s.committed, p.clone());
            (old, p, s.removed)
        };
        if removed {
            return;
        }
        let delta = new.is_some() as i64 - old.is_some() as i64;
        if delta != 0 {
            self.rows.fetch_add(delta, Ordering::Relaxed);
        }
        self.reindex(
            &st,
            slot,
            [old.as_ref(), new.as_ref()],
            [new.as_ref(), None],
        );
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
            s.removed = true;
        }
    }

    // ---- reads ----

    /// Point read by primary key (all primary key values).
    pub fn get(
        &self,
        txn: &mut Txn,
        key: &[Value],
        lock: LockMode,
    ) -> Result<Option<(RowHandle, Row)>> {
        loop {
            let slot = {
                let st = self.read_state()?;
                let Some(k) = self.pk_key(&st, key) else {
                    return Ok(None);
                };
                let found = st.primary.read().get(&k).cloned();
                match found {
                    Some(s) => s,
                    None => return Ok(None),
                }
            };
            match lock {
                LockMode::None => {
                    let row = slot.state.lock().visible(txn.id()).cloned();
                    return Ok(row.map(|r| (self.handle(&slot), r)));
                }
                LockMode::Exclusive => {
                    txn.check_active()?;
                    if !self.lock_blocking(txn, &slot)? {
                        continue;
                    }
                    let row = slot.state.lock().visible(txn.id()).cloned();
                    return Ok(row.map(|r| (self.handle(&slot), r)));
                }
            }
        }
    }

    /// Scan the primary index in key order. Without a PRIMARY KEY, the order is insertion order
    /// (hidden row id) and range bounds, if any, are row ids.
    pub fn scan_primary(
        &self,
        txn: &mut Txn,
        range: &KeyRange,
        lock: LockMode,
        f: &mut dyn FnMut(&RowHandle, &Row) -> Result<ScanControl>,
    ) -> Result<()> {
        self.scan(txn, None, range, lock, false, f)
    }

    /// Scan secondary index `index` (position in `def.indexes`) in index order. A row comes
    /// through the entry of the version the reader sees (entries of its other version are
    /// skipped), so only if that version's key is in the range. With an index prefix length
    /// (`KEY (c(10))`) the range applies to the prefix: re-check the predicate.
    pub fn scan_index(
        &self,
        txn: &mut Txn,
        index: usize,
        range: &KeyRange,
        lock: LockMode,
        f: &mut dyn FnMut(&RowHandle, &Row) -> Result<ScanControl>,
    ) -> Result<()> {
        self.scan(txn, Some(index), range, lock, false, f)
    }

    fn encode_bound(
        &self,
        st: &TableState,
        spec: Option<&KeySpec>,
        b: &Bound<Vec<Value>>,
    ) -> Bound<Vec<u8>> {
        let enc = |vals: &Vec<Value>| -> Vec<u8> {
            match spec {
                Some(spec) => {
                    let mut out = Vec::new();
                    spec.encode_values(vals, &mut out);
                    out
                }
                None => self
                    .pk_key(st, &vals[..vals.len().min(1)])
                    .unwrap_or_default(),
            }
        };
        match b {
            Bound::Unbounded => Bound::Unbounded,
            Bound::Included(v) if v.is_empty() => Bound::Unbounded,
            Bound::Excluded(v) if v.is_empty() => Bound::Unbounded,
            Bound::Included(v) => Bound::Included(enc(v)),
            Bound::Excluded(v) => Bound::Excluded(enc(v)),
        }
    }

    /// Like `scan_primary` (`index` None) / `scan_index` (`Some(i)`), in descending key order
    /// (`ORDER BY … DESC`).
    pub fn scan_backward(
        &self,
        txn: &mut Txn,
        index: Option<usize>,
        range: &KeyRange,
        lock: LockMode,
        f: &mut dyn FnMut(&RowHandle, &Row) -> Result<ScanControl>,
    ) -> Result<()> {
        self.scan(txn, index, range, lock, true, f)
    }

    fn scan(
        &self,
        txn: &mut Txn,
        index: Option<usize>,
        range: &KeyRange,
        lock: LockMode,
        reverse: bool,
        f: &mut dyn FnMut(&RowHandle, &Row) -> Result<ScanControl>,
    ) -> Result<()> {
        if lock == LockMode::Exclusive {
            txn.check_active()?;
        }
        let (mut lo, mut hi, filter, version) = {
            let st = self.read_state()?;
            let spec = match index {
                Some(i) => match st.secondary.get(i) {
                    Some(idx) => Some(idx.spec.clone()),
                    None => return Err(Error::internal(format!("no index {i} on {}", self.name))),
                },
                None => st.pk.clone(),
            };
            let (lo, hi) = keycode::byte_bounds(
                self.encode_bound(&st, spec.as_ref(), &range.start),
                self.encode_bound(&st, spec.as_ref(), &range.end),
            );
            let filter = if index.is_some() { spec } else { None };
            (lo, hi, filter, self.schema_version())
        };
        let mut batch_size = SCAN_BATCH_MIN;
        loop {
            let batch: Vec<(Vec<u8>, Arc<Slot>)> = {
                let st = self.read_state()?;
                if index.is_some() && self.schema_version() != version {
                    return Err(Error::new(
                        ErrorCode::Unknown,
                        "Table definition has changed, please retry transaction",
                    ));
                }
                if keycode::range_is_empty(&lo, &hi) {
                    return Ok(());
                }
                let map = match index {
                    Some(i) => st.secondary[i].map.read(),
                    None => st.primary.read(),
                };
                let range = map.range((lo.clone(), hi.clone()));
                let entry = |(k, s): (&Vec<u8>, &Arc<Slot>)| (k.clone(), s.clone());
                if reverse {
                    range.rev().take(batch_size).map(entry).collect()
                } else {
                    range.take(batch_size).map(entry).collect()
                }
            };
            let more = batch.len() == batch_size;
            if let Some((k, _)) = batch.last() {
                if reverse {
                    hi = Bound::Excluded(k.clone());
                } else {
                    lo = Bound::Excluded(k.clone());
                }
            }
            for (k, slot) in batch {
                let row = match lock {
                    LockMode::None => slot.state.lock().visible(txn.id()).cloned(),
                    LockMode::Exclusive => {
                        if self.lock_blocking(txn, &slot)? {
                            slot.state.lock().visible(txn.id()).cloned()
                        } else {
                            None
                        }
                    }
                };
                let Some(row) = row else { continue };
                if let Some(spec) = &filter {
                    let mut ek = spec.row_key(&row);
                    ek.extend_from_slice(&slot.key);
                    if ek != k {
                        continue;
                    }
                }
                if f(&self.handle(&slot), &row)? == ScanControl::Stop {
                    return Ok(());
                }
            }
            if !more {
                return Ok(());
            }
            batch_size = (batch_size * 2).min(SCAN_BATCH_MAX);
        }
    }

    /// Every committed row in primary-key order, for a fuzzy checkpoint: never blocks on row
    /// locks and never sees uncommitted data.
    pub fn scan_committed(&self, f: &mut dyn FnMut(&Row) -> Result<ScanControl>) -> Result<()> {
        let mut lo: Bound<Vec<u8>> = Bound::Unbounded;
        loop {
            let batch: Vec<(Vec<u8>, Arc<Slot>)> = {
                let st = self.read_state()?;
                let map = st.primary.read();
                map.range((lo.clone(), Bound::Unbounded))
                    .take(SCAN_BATCH_MAX)
                    .map(|(k, s)| (k.clone(), s.clone()))
                    .collect()
            };
            let more = batch.len() == SCAN_BATCH_MAX;
            if let Some((k, _)) = batch.last() {
                lo = Bound::Excluded(k.clone());
            }
            for (_, slot) in batch {
                let row = slot.state.lock().committed.clone();
                if let Some(row) = row {
                    if f(&row)? == ScanControl::Stop {
                        return Ok(());
                    }
                }
            }
            if !more {
                return Ok(());
            }
        }
    }

    /// X-lock the row (waiting), then return its latest version; None if it is gone.
    pub fn lock_row(&self, txn: &mut Txn, h: &RowHandle) -> Result<Option<Row>> {
        self.check_handle(h)?;
        txn.check_active()?;
        if !self.lock_blocking(txn, &h.slot)? {
            return Ok(None);
        }
        let row = h.slot.state.lock().visible(txn.id()).cloned();
        Ok(row)
    }

    // ---- writes ----

    /// Insert a row. Waits for the lock of a conflicting key; never an early 1062: a committed
    /// (or own) row with the same primary or unique key gives `Duplicate`, X-locked.
    pub fn insert(&self, txn: &mut Txn, row: Vec<Value>) -> Result<InsertOutcome> {
        txn.check_active()?;
        let row: Row = row.into();
        let mut hidden_key: Option<Vec<u8>> = None;
        loop {
            let st = self.read_state()?;
            self.check_row(&st, &row)?;
            let key = match &st.pk {
                Some(spec) => spec.row_key(&row),
                None => hidden_key
                    .get_or_insert_with(|| {
                        keycode::row_id_key(self.next_row_id.fetch_add(1, Ordering::Relaxed))
                    })
                    .clone(),
            };
            let slot = match self.lock_key(&st, txn, &key) {
                Step::Done(s) => s,
                Step::Wait(s) => {
                    drop(st);
                    self.lock_blocking(txn, &s)?;
                    continue;
                }
                Step::Retry => continue,
            };
            let cur = slot.state.lock().visible(txn.id()).cloned();
            if let Some(cur) = cur {
                return Ok(InsertOutcome::Duplicate {
                    index: None,
                    handle: self.handle(&slot),
                    row: cur,
                });
            }
            match self.check_unique(&st, txn, &row, None, &slot, None) {
                Step::Done(None) => {}
                Step::Done(Some(dup)) => return Ok(dup),
                Step::Wait(s) => {
                    drop(st);
                    self.lock_blocking(txn, &s)?;
                    continue;
                }
                Step::Retry => continue,
            }
            let (committed, prev) = self.set_pending(&st, &slot, txn.id(), Some(Some(row.clone())));
            txn.note_change(self, &slot, committed, prev);
            return Ok(InsertOutcome::Inserted(self.handle(&slot)));
        }
    }

    /// Check and reserve every unique secondary key of `row` going into `mine` (skipping keys
    /// equal to those of `old`, the row's current version in the same slot). On a duplicate or
    /// a wait, the reservations made are taken back.
    fn check_unique(
        &self,
        st: &TableState,
        txn: &mut Txn,
        row: &Row,
        old: Option<&Row>,
        mine: &Arc<Slot>,
        exclude: Option<&Arc<Slot>>,
    ) -> Step<Option<InsertOutcome>> {
        let mut reserved: Vec<(usize, Vec<u8>)> = Vec::new();
        for i in 0..st.secondary.len() {
            let idx = &st.secondary[i];
            if !idx.unique || idx.spec.row_has_null(row) {
                continue;
            }
            let key = idx.spec.row_key(row);
            if old.is_some_and(|o| idx.spec.row_key(o) == key) {
                continue;
            }
            match self.reserve_unique(st, txn, i, &key, mine, exclude) {
                Step::Done(None) => reserved.push((i, key)),
                Step::Done(Some((handle, row))) => {
                    self.unreserve(st, mine, &reserved);
                    return Step::Done(Some(InsertOutcome::Duplicate {
                        index: Some(i),
                        handle,
                        row,
                    }));
                }
                Step::Wait(s) => {
                    self.unreserve(st, mine, &reserved);
                    return Step::Wait(s);
                }
                Step::Retry => {
                    self.unreserve(st, mine, &reserved);
                    return Step::Retry;
                }
            }
        }
        Step::Done(None)
    }

    /// Replace the row `h` (the caller normally holds its lock; it is taken if not). If the
    /// primary key changes, the row moves to another slot: the returned handle is the new one.
    /// `Duplicate` if the new primary or unique key is held by another committed (or own) row.
    pub fn update(&self, txn: &mut Txn, h: &RowHandle, row: Vec<Value>) -> Result<InsertOutcome> {
        self.check_handle(h)?;
        txn.check_active()?;
        let row: Row = row.into();
        loop {
            let st = self.read_state()?;
            self.check_row(&st, &row)?;
            match self.try_lock(txn, &h.slot) {
                Step::Done(()) => {}
                Step::Wait(s) => {
                    drop(st);
                    self.lock_blocking(txn, &s)?;
                    continue;
                }
                Step::Retry => return Err(Error::internal("updated row no longer exists")),
            }
            let Some(cur) = h.slot.state.lock().visible(txn.id()).cloned() else {
                return Err(Error::internal("update of a deleted row"));
            };
            let new_key = match &st.pk {
                Some(spec) => spec.row_key(&row),
                None => h.slot.key.to_vec(),
            };
            if new_key[..] == h.slot.key[..] {
                match self.check_unique(&st, txn, &row, Some(&cur), &h.slot, None) {
                    Step::Done(None) => {}
                    Step::Done(Some(dup)) => return Ok(dup),
                    Step::Wait(s) => {
                        drop(st);
                        self.lock_blocking(txn, &s)?;
                        continue;
                    }
                    Step::Retry => continue,
                }
                let (committed, prev) = self.set_pending(&st, &h.slot, txn.id(), Some(Some(row)));
                txn.note_change(self, &h.slot, committed, prev);
                return Ok(InsertOutcome::Inserted(h.clone()));
            }
            // The primary key changes: delete from this slot, insert into the new key's slot.
            let target = match self.lock_key(&st, txn, &new_key) {
                Step::Done(s) => s,
                Step::Wait(s) => {
                    drop(st);
                    self.lock_blocking(txn, &s)?;
                    continue;
                }
                Step::Retry => continue,
            };
            let existing = target.state.lock().visible(txn.id()).cloned();
            if let Some(existing) = existing {
                return Ok(InsertOutcome::Duplicate {
                    index: None,
                    handle: self.handle(&target),
                    row: existing,
                });
            }
            match self.check_unique(&st, txn, &row, None, &target, Some(&h.slot)) {
                Step::Done(None) => {}
                Step::Done(Some(dup)) => return Ok(dup),
                Step::Wait(s) => {
                    drop(st);
                    self.lock_blocking(txn, &s)?;
                    continue;
                }
                Step::Retry => continue,
            }
            let (committed, prev) = self.set_pending(&st, &h.slot, txn.id(), Some(None));
            txn.note_change(self, &h.slot, committed, prev);
            let (committed, prev) = self.set_pending(&st, &target, txn.id(), Some(Some(row)));
            txn.note_change(self, &target, committed, prev);
            return Ok(InsertOutcome::Inserted(self.handle(&target)));
        }
    }

    /// Delete the row `h` (its lock is taken if the caller does not hold it). Deleting a row
    /// that is already gone is a no-op.
    pub fn delete(&self, txn: &mut Txn, h: &RowHandle) -> Result<()> {
        self.check_handle(h)?;
        txn.check_active()?;
        loop {
            let st = self.read_state()?;
            match self.try_lock(txn, &h.slot) {
                Step::Done(()) => {}
                Step::Wait(s) => {
                    drop(st);
                    self.lock_blocking(txn, &s)?;
                    continue;
                }
                Step::Retry => return Ok(()),
            }
            if h.slot.state.lock().visible(txn.id()).is_none() {
                return Ok(());
            }
            let (committed, prev) = self.set_pending(&st, &h.slot, txn.id(), Some(None));
            txn.note_change(self, &h.slot, committed, prev);
            return Ok(());
        }
    }

    // ---- DDL (called by the engine, which handles the catalog) ----

    pub(crate) fn mark_dropped(&self) {
        let st = self.state.write();
        self.dropped.store(true, Ordering::Release);
        self.schema_version.fetch_add(1, Ordering::AcqRel);
        detach_all(&st);
    }

    /// TRUNCATE: drop every row, reset AUTO_INCREMENT. Returns what was replaced: until the
    /// statement's outcome is known it can be put back ([`Table::undo_truncate`]); once it is
    /// kept, [`TruncatedState::finish`] detaches the old rows. Rows locked by open transactions
    /// are detached then: their pending changes are lost (the session layer is expected to
    /// keep DDL away from tables with open transactions, as MySQL's metadata locks do).
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

    pub(crate) fn create_index(&self, index: IndexDef) -> Result<()> {
        let pos = self.state.read().def.indexes.len();
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
            let s = slot.state.lock();
            let versions = [s.committed.clone(), s.pending.clone().flatten()];
            drop(s);
            for r in versions.into_iter().flatten() {
                let key = spec.row_key(&r);
                if index.unique && !spec.row_has_null(&r) {
                    if let Some((other, orow)) = owners.get(&key) {
                        if !Arc::ptr_eq(other, slot) {
                            return Err(Error::dup_entry(
                                &format_key(&def, &index, orow),
                                &index.name,
                            ));
                        }
                    }
                    owners.insert(key.clone(), (slot.clone(), r.clone()));
                }
                let mut full = key;
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
            let state = SlotState {
                committed: Some(row),
                ..SlotState::default()
            };
            let slot = Arc::new(Slot::new(key.clone(), state));
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
                        .find(|(_, s)| {
                            s.state
                                .lock()
                                .committed
                                .as_ref()
                                .is_some_and(|r| r[..] == *b)
                        })
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
        let old = {
            let mut s = slot.state.lock();
            if s.owner.is_some() {
                return Err(Error::internal("recovery write to a locked row"));
            }
            std::mem::replace(&mut s.committed, image.clone())
        };
        let delta = image.is_some() as i64 - old.is_some() as i64;
        self.rows.fetch_add(delta, Ordering::Relaxed);
        self.reindex(st, &slot, [old.as_ref(), None], [image.as_ref(), None]);
        if image.is_none() {
            let mut map = st.primary.write();
            let mut s = slot.state.lock();
            if s.is_garbage() {
                map.remove(key);
                s.removed = true;
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
}

fn remove_entry(map: &IndexMap, key: &[u8], slot: &Arc<Slot>) {
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
        let mut s = slot.state.lock();
        s.removed = true;
        if s.waiters > 0 {
            slot.cv.notify_all();
        }
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
