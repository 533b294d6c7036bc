//! Transactions: the locks a txn holds, its changed rows, and its undo log.
//!
//! A [`Txn`] is owned by one session (it is `Send`, not shared). It remembers
//!
//! * every row slot it locked (released at commit / rollback),
//! * every row slot it changed, in order of first change, with the committed image at that
//!   moment (`before`; stable, since the txn holds the row's lock),
//! * an undo log of `(slot, previous pending version)` for statement savepoints.
//!
//! The current `after` image of a changed row is the slot's pending version.

use super::lock::{self, Slot};
use super::table::Table;
use super::{Row, RowChange, TxnId};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// The default `innodb_lock_wait_timeout`.
pub const DEFAULT_LOCK_WAIT_TIMEOUT: Duration = Duration::from_secs(50);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TxnState {
    Active,
    /// `Engine::prepare` was called: no more changes; commit or rollback follow.
    Prepared,
    /// Committed or rolled back.
    Done,
}

struct ChangeRec {
    table: u32,
    slot: Arc<Slot>,
    /// Committed image when the txn first changed the row.
    before: Option<Row>,
}

struct UndoRec {
    table: u32,
    slot: Arc<Slot>,
    /// The slot's pending version before this change.
    prev: Option<Option<Row>>,
}

/// A statement savepoint: how far to undo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Savepoint {
    undo_len: usize,
    changes_len: usize,
}

/// One transaction. Create with `Engine::begin`; finish with `Engine::commit` or
/// `Engine::rollback` (dropping an unfinished txn rolls it back).
///
/// A `Txn` is owned by one session and needs no lock of its own; the slots it points at are
/// protected by their own mutexes.
pub struct Txn {
    id: TxnId,
    lock_wait_timeout: Duration,
    state: TxnState,
    /// Tables touched; `locks`, `changes` and `undo` refer to them by position.
    tables: Vec<Arc<Table>>,
    locks: Vec<(u32, Arc<Slot>)>,
    changes: Vec<ChangeRec>,
    /// Slot address → position in `changes`.
    change_pos: HashMap<usize, usize>,
    undo: Vec<UndoRec>,
}

impl std::fmt::Debug for Txn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Txn")
            .field("id", &self.id)
            .field("state", &self.state)
            .field("locks", &self.locks.len())
            .field("changes", &self.changes.len())
            .finish()
    }
}

impl Txn {
    pub(crate) fn new(id: TxnId) -> Txn {
        Txn {
            id,
            lock_wait_timeout: DEFAULT_LOCK_WAIT_TIMEOUT,
            state: TxnState::Active,
            tables: Vec::new(),
            locks: Vec::new(),
            changes: Vec::new(),
            change_pos: HashMap::new(),
            undo: Vec::new(),
        }
    }

    pub fn id(&self) -> TxnId {
        self.id
    }

    /// Net effect per row, in order of first change. Rows changed and changed back (or
    /// inserted and deleted) are left out.
    pub fn changes(&self) -> Vec<RowChange> {
        self.changes_positioned()
            .into_iter()
            .map(|(_, c)| c)
            .collect()
    }

    /// [`Txn::changes`], each with its place among the rows this transaction changed, in
    /// order of first change: a change made by a statement that started when
    /// [`Txn::change_count`] was `n` has a place of `n` or more (the binlog's Annotate_rows
    /// events name the statement that first changed each row).
    pub fn changes_positioned(&self) -> Vec<(usize, RowChange)> {
        let mut out = Vec::with_capacity(self.changes.len());
        for (i, rec) in self.changes.iter().enumerate() {
            let after = match &rec.slot.state.lock().pending {
                Some(p) => p.clone(),
                None => continue,
            };
            if !same_image(&rec.before, &after) {
                let change = RowChange {
                    table: self.tables[rec.table as usize].clone(),
                    before: rec.before.clone(),
                    after,
                };
                out.push((i, change));
            }
        }
        out
    }

    /// How many rows this transaction has changed so far (see [`Txn::changes_positioned`]).
    pub fn change_count(&self) -> usize {
        self.changes.len()
    }

    /// True if the txn has a net change (what `changes()` would return is not empty).
    pub fn has_changes(&self) -> bool {
        self.changes
            .iter()
            .any(|rec| match &rec.slot.state.lock().pending {
                Some(p) => !same_image(&rec.before, p),
                None => false,
            })
    }

    /// `innodb_lock_wait_timeout` for this txn's waits (default 50 s).
    pub fn set_lock_wait_timeout(&mut self, d: Duration) {
        self.lock_wait_timeout = d;
    }

    pub fn lock_wait_timeout(&self) -> Duration {
        self.lock_wait_timeout
    }

    /// True once `Engine::prepare` was called.
    pub fn is_prepared(&self) -> bool {
        self.state == TxnState::Prepared
    }

    /// Number of row locks held.
    pub fn lock_count(&self) -> usize {
        self.locks.len()
    }

    // ---- used by the table code ----

    pub(crate) fn check_active(&self) -> Result<()> {
        match self.state {
            TxnState::Active => Ok(()),
            TxnState::Prepared => Err(Error::internal("the transaction is prepared")),
            TxnState::Done => Err(Error::internal("the transaction has ended")),
        }
    }

    fn table_index(&mut self, table: &Table) -> u32 {
        if let Some(i) = self
            .tables
            .iter()
            .rposition(|t| std::ptr::eq(Arc::as_ptr(t), table))
        {
            return i as u32;
        }
        self.tables.push(table.arc());
        (self.tables.len() - 1) as u32
    }

    /// The txn now holds the lock of `slot` (of `table`).
    pub(crate) fn note_lock(&mut self, table: &Table, slot: Arc<Slot>) {
        let t = self.table_index(table);
        self.locks.push((t, slot));
    }

    /// The txn changed `slot`'s pending version from `prev`; `committed` is the slot's
    /// committed image.
    pub(crate) fn note_change(
        &mut self,
        table: &Table,
        slot: &Arc<Slot>,
        committed: Option<Row>,
        prev: Option<Option<Row>>,
    ) {
        let t = self.table_index(table);
        let addr = Arc::as_ptr(slot) as usize;
        if !self.change_pos.contains_key(&addr) {
            self.change_pos.insert(addr, self.changes.len());
            self.changes.push(ChangeRec {
                table: t,
                slot: slot.clone(),
                before: committed,
            });
        }
        self.undo.push(UndoRec {
            table: t,
            slot: slot.clone(),
            prev,
        });
    }

    pub(crate) fn savepoint(&self) -> Savepoint {
        Savepoint {
            undo_len: self.undo.len(),
            changes_len: self.changes.len(),
        }
    }

    /// Undo every change after `sp` (locks stay).
    pub(crate) fn rollback_to(&mut self, sp: Savepoint) {
        while self.undo.len() > sp.undo_len {
            let rec = self.undo.pop().expect("undo record");
            self.tables[rec.table as usize].restore_pending(&rec.slot, self.id, rec.prev);
        }
        for rec in self.changes.drain(sp.changes_len.min(self.changes.len())..) {
            self.change_pos.remove(&(Arc::as_ptr(&rec.slot) as usize));
        }
    }

    pub(crate) fn prepare(&mut self) -> Result<()> {
        match self.state {
            TxnState::Active | TxnState::Prepared => {
                self.state = TxnState::Prepared;
                Ok(())
            }
            TxnState::Done => Err(Error::internal("the transaction has ended")),
        }
    }

    /// Commit (make pending versions committed) or roll back, then release every lock.
    pub(crate) fn finish(&mut self, commit: bool) {
        if self.state == TxnState::Done {
            return;
        }
        for rec in &self.changes {
            let table = &self.tables[rec.table as usize];
            if commit {
                table.commit_slot(&rec.slot, self.id);
            } else {
                table.restore_pending(&rec.slot, self.id, None);
            }
        }
        for (t, slot) in &self.locks {
            if lock::release(slot, self.id) {
                self.tables[*t as usize].collect_slot(slot);
            }
        }
        self.locks.clear();
        self.changes.clear();
        self.change_pos.clear();
        self.undo.clear();
        self.state = TxnState::Done;
    }
}

impl Drop for Txn {
    fn drop(&mut self) {
        if self.state != TxnState::Done {
            self.finish(false);
        }
    }
}

fn same_image(a: &Option<Row>, b: &Option<Row>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a[..] == b[..],
        _ => false,
    }
}
