//! INSERT / UPDATE / DELETE on a table, and the lock helpers they share with locking reads.
//!
//! # Inserting a key
//!
//! * No slot holds the key: under the primary index's write lock, check the *insert
//!   intention* against the gap locks of other transactions (wait for them if the key falls in
//!   one), then create the slot X-locked by the inserter.
//! * A slot holds the key (a row, or a deleted row's versions): take a *shared* lock on it (an
//!   exclusive one for REPLACE and ON DUPLICATE KEY UPDATE, as InnoDB), waiting for a writer;
//!   if its latest version exists, that is the duplicate (the lock stays); else upgrade to X
//!   and write into it. Never an early 1062: an uncommitted insert of the key is waited for.
//! * Every secondary entry the new image needs is *reserved* before the image is installed,
//!   under the index's write lock: insert-intention check, and for a UNIQUE index the
//!   duplicate check (the rows holding the key are S-locked first, then their latest version
//!   examined). On a wait or a duplicate the reservations made are taken back.

use super::lock::{self, Acquire, Slot, SlotState};
use super::table::{remove_entry, Step, Table, TableState, WaitFor};
use super::{InsertOutcome, LockMode, ReadAt, Row, Txn, WaitPolicy};
use crate::error::{Error, Result};
use crate::types::Value;
use std::sync::Arc;

/// A claimed primary key.
enum Claim {
    /// The slot is X-locked by the caller and holds no current row: write into it.
    Free(Arc<Slot>),
    /// The current row holding the key (locked in the duplicate mode).
    Taken(Arc<Slot>, Row),
}

impl Table {
    /// Take a record lock, waiting per `policy` (with no table or index lock held); a lock the
    /// txn did not hold before is noted in it.
    pub(crate) fn lock_blocking(
        &self,
        txn: &mut Txn,
        slot: &Arc<Slot>,
        mode: LockMode,
        policy: WaitPolicy,
    ) -> Result<Acquire> {
        let r = lock::lock_record(&self.graph, slot, &txn.waiter(), mode, policy)?;
        if r == (Acquire::Granted { newly: true }) {
            txn.note_lock(self, slot.clone());
        }
        Ok(r)
    }

    /// Wait for what a step named (call with no table lock held).
    pub(crate) fn wait_step(&self, txn: &mut Txn, w: WaitFor) -> Result<()> {
        match w {
            WaitFor::Row(slot, mode) => {
                self.lock_blocking(txn, &slot, mode, WaitPolicy::Wait)?;
                Ok(())
            }
            WaitFor::Gap(gaps, key, holders) => {
                gaps.wait(&self.graph, &txn.waiter(), &key, holders)
            }
        }
    }

    /// Take a record lock without blocking, inside a step.
    fn try_lock_step(&self, txn: &mut Txn, slot: &Arc<Slot>, mode: LockMode) -> Step<()> {
        let r = lock::try_lock(&mut slot.state.lock(), txn.id(), mode);
        match r {
            Ok(Acquire::Granted { newly }) => {
                if newly {
                    txn.note_lock(self, slot.clone());
                }
                Step::Done(())
            }
            Ok(Acquire::Removed | Acquire::Skipped) => Step::Retry,
            Err(_) => Step::Wait(WaitFor::Row(slot.clone(), mode)),
        }
    }

    /// Find or create the slot of primary key `key` for a row being written there (see the
    /// module doc). `dup` is the lock a duplicate gets.
    fn claim_key(&self, st: &TableState, txn: &mut Txn, key: &[u8], dup: LockMode) -> Step<Claim> {
        let me = txn.id();
        let existing = st.primary.read().get(key).cloned();
        let slot = match existing {
            Some(s) => s,
            None => {
                let mut map = st.primary.write();
                match map.get(key) {
                    Some(s) => s.clone(),
                    None => {
                        let holders = st.primary_gaps.conflicts(me, key);
                        if !holders.is_empty() {
                            let g = st.primary_gaps.clone();
                            return Step::Wait(WaitFor::Gap(g, key.to_vec(), holders));
                        }
                        let slot = Arc::new(Slot::new(key.to_vec(), SlotState::locked_by(me)));
                        map.insert(key.to_vec(), slot.clone());
                        drop(map);
                        txn.note_lock(self, slot.clone());
                        return Step::Done(Claim::Free(slot));
                    }
                }
            }
        };
        for mode in [dup, LockMode::Exclusive] {
            match self.try_lock_step(txn, &slot, mode) {
                Step::Done(()) => {}
                Step::Wait(w) => return Step::Wait(w),
                Step::Retry => return Step::Retry,
            }
            let cur = slot.state.lock().read(me, ReadAt::Latest).cloned();
            if let Some(row) = cur {
                return Step::Done(Claim::Taken(slot, row));
            }
        }
        Step::Done(Claim::Free(slot))
    }

    /// Reserve the secondary entries `row` needs in `mine` (those no image of the slot has
    /// yet): insert-intention check, and the unique check of UNIQUE indexes. `exclude` is a
    /// slot the caller is deleting (the old version of a primary-key-changing update). On a
    /// duplicate or a wait, the reservations made are taken back.
    fn reserve_entries(
        &self,
        st: &TableState,
        txn: &mut Txn,
        row: &Row,
        mine: &Arc<Slot>,
        exclude: Option<&Arc<Slot>>,
        dup: LockMode,
    ) -> Step<Option<InsertOutcome>> {
        if st.secondary.is_empty() {
            return Step::Done(None);
        }
        let me = txn.id();
        // The row as the txn sees it now: its keys were checked when it was written. (Older
        // versions prove nothing: another row may hold their keys now.)
        let current = mine.state.lock().read(me, ReadAt::Latest).cloned();
        let mut reserved: Vec<(usize, Vec<u8>)> = Vec::new();
        let mut newly_locked: Vec<Arc<Slot>> = Vec::new();
        let mut outcome = None;
        for (i, idx) in st.secondary.iter().enumerate() {
            if current
                .as_ref()
                .is_some_and(|r| idx.spec.same_key_values(r, row))
            {
                continue;
            }
            let key = idx.spec.row_key(row);
            let mut full = key.clone();
            full.extend_from_slice(&mine.key);
            let mut map = idx.map.write();
            let exists = map.get(&full).is_some_and(|s| Arc::ptr_eq(s, mine));
            if !exists {
                let holders = idx.gaps.conflicts(me, &full);
                if !holders.is_empty() {
                    outcome = Some(Step::Wait(WaitFor::Gap(idx.gaps.clone(), full, holders)));
                    break;
                }
            }
            if idx.unique && !idx.spec.row_has_null(row) {
                for (k, s) in map.range(key.clone()..) {
                    if !k.starts_with(&key) {
                        break;
                    }
                    if Arc::ptr_eq(s, mine) || exclude.is_some_and(|e| Arc::ptr_eq(e, s)) {
                        continue;
                    }
                    let mut ss = s.state.lock();
                    match lock::try_lock(&mut ss, me, dup) {
                        Ok(Acquire::Removed | Acquire::Skipped) => continue,
                        Ok(Acquire::Granted { newly }) => {
                            if newly {
                                newly_locked.push(s.clone());
                            }
                            if let Some(r) = ss.read(me, ReadAt::Latest) {
                                if idx.spec.row_key(r) == key {
                                    outcome = Some(Step::Done(Some(InsertOutcome::Duplicate {
                                        index: Some(i),
                                        handle: self.handle(s),
                                        row: r.clone(),
                                        attempted: row.clone(),
                                    })));
                                    break;
                                }
                            }
                        }
                        Err(_) => {
                            outcome = Some(Step::Wait(WaitFor::Row(s.clone(), dup)));
                            break;
                        }
                    }
                }
                if outcome.is_some() {
                    break;
                }
            }
            if !exists {
                map.insert(full.clone(), mine.clone());
                reserved.push((i, full));
            }
        }
        for s in newly_locked {
            txn.note_lock(self, s);
        }
        match outcome {
            Some(o) => {
                self.unreserve(st, mine, &reserved);
                o
            }
            None => Step::Done(None),
        }
    }

    /// Take back reservations that no image of `mine` uses.
    fn unreserve(&self, st: &TableState, mine: &Arc<Slot>, reserved: &[(usize, Vec<u8>)]) {
        if reserved.is_empty() {
            return;
        }
        let images = Table::images(&mine.state.lock());
        for (i, full) in reserved {
            let idx = &st.secondary[*i];
            let key = &full[..full.len() - mine.key.len()];
            if !images.iter().any(|r| idx.spec.row_key(r) == key) {
                remove_entry(&idx.map, full, mine);
            }
        }
    }

    /// Insert a row. Waits for conflicting locks; never an early 1062: a committed (or own)
    /// row with the same primary or unique key gives `Duplicate`, locked in `dup` mode
    /// (`Shared` for INSERT, `Exclusive` for REPLACE and ON DUPLICATE KEY UPDATE).
    pub fn insert(&self, txn: &mut Txn, row: Vec<Value>) -> Result<InsertOutcome> {
        self.insert_with(txn, row, LockMode::Shared)
    }

    /// [`Table::insert`] with the lock mode a duplicate gets.
    pub fn insert_with(
        &self,
        txn: &mut Txn,
        row: Vec<Value>,
        dup: LockMode,
    ) -> Result<InsertOutcome> {
        txn.use_table(self)?;
        txn.check_writable()?;
        let row: Row = row.into();
        let mut hidden_key: Option<Vec<u8>> = None;
        loop {
            let st = self.read_state()?;
            self.check_row(&st, &row)?;
            let key = match &st.pk {
                Some(spec) => spec.row_key(&row),
                None => hidden_key
                    .get_or_insert_with(|| {
                        super::keycode::row_id_key(
                            self.next_row_id
                                .fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                        )
                    })
                    .clone(),
            };
            let slot = match self.claim_key(&st, txn, &key, dup) {
                Step::Done(Claim::Free(s)) => s,
                Step::Done(Claim::Taken(slot, cur)) => {
                    return Ok(InsertOutcome::Duplicate {
                        index: None,
                        handle: self.handle(&slot),
                        row: cur,
                        attempted: row.clone(),
                    });
                }
                Step::Wait(w) => {
                    drop(st);
                    self.wait_step(txn, w)?;
                    continue;
                }
                Step::Retry => continue,
            };
            match self.reserve_entries(&st, txn, &row, &slot, None, dup) {
                Step::Done(None) => {}
                Step::Done(Some(dup)) => return Ok(dup),
                Step::Wait(w) => {
                    drop(st);
                    self.wait_step(txn, w)?;
                    continue;
                }
                Step::Retry => continue,
            }
            let (committed, prev) = self.set_pending(&st, &slot, txn.id(), Some(Some(row)));
            txn.note_change(self, &slot, committed, prev);
            return Ok(InsertOutcome::Inserted(self.handle(&slot)));
        }
    }

    /// Replace the row `h` (the caller normally holds its X lock; it is taken if not). If the
    /// primary key changes, the row moves to another slot: the returned handle is the new one.
    /// `Duplicate` if the new primary or unique key is held by another committed (or own) row.
    pub fn update(
        &self,
        txn: &mut Txn,
        h: &super::RowHandle,
        row: Vec<Value>,
    ) -> Result<InsertOutcome> {
        txn.use_table(self)?;
        self.check_handle(h)?;
        txn.check_writable()?;
        let row: Row = row.into();
        loop {
            let st = self.read_state()?;
            self.check_row(&st, &row)?;
            match self.try_lock_step(txn, &h.slot, LockMode::Exclusive) {
                Step::Done(()) => {}
                Step::Wait(w) => {
                    drop(st);
                    self.wait_step(txn, w)?;
                    continue;
                }
                Step::Retry => return Err(Error::internal("updated row no longer exists")),
            }
            if h.slot.state.lock().read(txn.id(), ReadAt::Latest).is_none() {
                return Err(Error::internal("update of a deleted row"));
            }
            let new_key = match &st.pk {
                Some(spec) => spec.row_key(&row),
                None => h.slot.key.to_vec(),
            };
            if new_key[..] == h.slot.key[..] {
                match self.reserve_entries(&st, txn, &row, &h.slot, None, LockMode::Shared) {
                    Step::Done(None) => {}
                    Step::Done(Some(dup)) => return Ok(dup),
                    Step::Wait(w) => {
                        drop(st);
                        self.wait_step(txn, w)?;
                        continue;
                    }
                    Step::Retry => continue,
                }
                let (committed, prev) = self.set_pending(&st, &h.slot, txn.id(), Some(Some(row)));
                txn.note_change(self, &h.slot, committed, prev);
                return Ok(InsertOutcome::Inserted(h.clone()));
            }
            // The primary key changes: delete from this slot, insert into the new key's slot.
            let target = match self.claim_key(&st, txn, &new_key, LockMode::Shared) {
                Step::Done(Claim::Free(s)) => s,
                Step::Done(Claim::Taken(slot, cur)) => {
                    return Ok(InsertOutcome::Duplicate {
                        index: None,
                        handle: self.handle(&slot),
                        row: cur,
                        attempted: row.clone(),
                    });
                }
                Step::Wait(w) => {
                    drop(st);
                    self.wait_step(txn, w)?;
                    continue;
                }
                Step::Retry => continue,
            };
            match self.reserve_entries(&st, txn, &row, &target, Some(&h.slot), LockMode::Shared) {
                Step::Done(None) => {}
                Step::Done(Some(dup)) => return Ok(dup),
                Step::Wait(w) => {
                    drop(st);
                    self.wait_step(txn, w)?;
                    continue;
                }
                Step::Retry => continue,
            }
            let (committed, prev) = self.set_pending(&st, &h.slot, txn.id(), Some(None));
            txn.note_change(self, &h.slot, committed, prev);
            let (committed, prev) = self.set_pending(&st, &target, txn.id(), Some(Some(row)));
            txn.note_change(self, &target, committed, prev);
            txn.note_move(&h.slot, &target);
            return Ok(InsertOutcome::Inserted(self.handle(&target)));
        }
    }

    /// Delete the row `h` (its X lock is taken if the caller does not hold it). Deleting a row
    /// that is already gone is a no-op.
    pub fn delete(&self, txn: &mut Txn, h: &super::RowHandle) -> Result<()> {
        txn.use_table(self)?;
        self.check_handle(h)?;
        txn.check_writable()?;
        loop {
            let st = self.read_state()?;
            match self.try_lock_step(txn, &h.slot, LockMode::Exclusive) {
                Step::Done(()) => {}
                Step::Wait(w) => {
                    drop(st);
                    self.wait_step(txn, w)?;
                    continue;
                }
                Step::Retry => return Ok(()),
            }
            if h.slot.state.lock().read(txn.id(), ReadAt::Latest).is_none() {
                return Ok(());
            }
            let (committed, prev) = self.set_pending(&st, &h.slot, txn.id(), Some(None));
            txn.note_change(self, &h.slot, committed, prev);
            return Ok(());
        }
    }

    /// Lock the row `h` (waiting) and return its latest version; None if it is gone.
    pub fn lock_row(
        &self,
        txn: &mut Txn,
        h: &super::RowHandle,
        mode: LockMode,
    ) -> Result<Option<Row>> {
        txn.use_table(self)?;
        self.check_handle(h)?;
        txn.check_active()?;
        let mode = match mode {
            LockMode::None => LockMode::Shared,
            m => m,
        };
        match self.lock_blocking(txn, &h.slot, mode, WaitPolicy::Wait)? {
            Acquire::Granted { .. } => {}
            Acquire::Removed | Acquire::Skipped => return Ok(None),
        }
        let row = h.slot.state.lock().read(txn.id(), ReadAt::Latest).cloned();
        Ok(row)
    }
}
