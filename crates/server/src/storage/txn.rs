//! Transactions: isolation level and read view, the locks held, changed rows, undo.
//!
//! A [`Txn`] is owned by one session (it is `Send`, not shared). It remembers
//!
//! * its isolation level, whether it is read-only, and whether it is the implicit
//!   transaction of one autocommit statement;
//! * its read view (REPEATABLE READ: taken at the first consistent read, or at `START
//!   TRANSACTION WITH CONSISTENT SNAPSHOT`, and kept; READ COMMITTED: dropped at every
//!   statement start, so each statement takes a fresh one; READ UNCOMMITTED: none);
//! * every row it locked and every index where it holds gap locks (released at commit or
//!   rollback; READ COMMITTED also releases the lock of a row a locking read did not keep);
//! * every row it changed, in order of first change, with the committed image at that
//!   moment (`before`; stable, since the txn holds the row's X lock);
//! * an undo log of `(slot, previous pending version)` for statement and named savepoints.
//!
//! The current `after` image of a changed row is the slot's pending version.
//!
//! Commit (`Engine::commit`, in log order) takes the next commit sequence number, installs
//! every pending version stamped with it, publishes it, then releases the locks; see
//! [`super::mvcc`].

use super::lock::{GapLocks, Slot, Waiter, Wakes};
use super::mvcc::{
    CommitSeq, HistoryItem, Horizon, Mvcc, ReadView, TrxState, TxnFacts, TxnSlot,
    NO_VIEW_COMMIT_MAX,
};
use super::table::Table;
use super::{IsolationLevel, LockMode, ReadAt, ReadLock, Row, RowChange, TxnId};
use crate::error::{Error, Result};
use cohort_protocol::ErrorCode;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// The default `innodb_lock_wait_timeout`.
pub const DEFAULT_LOCK_WAIT_TIMEOUT: Duration = Duration::from_secs(50);

/// How a transaction starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxnOptions {
    pub isolation: IsolationLevel,
    /// `START TRANSACTION READ ONLY` / `transaction_read_only`: writes fail with 1792.
    pub read_only: bool,
    /// The implicit transaction of one statement in autocommit mode (a SERIALIZABLE SELECT
    /// in it stays a consistent read, as in InnoDB).
    pub autocommit: bool,
    pub lock_wait_timeout: Duration,
    /// `lock_wait_timeout`: how long a metadata-lock wait may last (`mdl.rs`).
    pub mdl_timeout: Duration,
}

/// MariaDB's default `lock_wait_timeout`: one day.
pub const DEFAULT_MDL_TIMEOUT: Duration = Duration::from_secs(86_400);

impl Default for TxnOptions {
    fn default() -> TxnOptions {
        TxnOptions {
            isolation: IsolationLevel::RepeatableRead,
            read_only: false,
            autocommit: false,
            lock_wait_timeout: DEFAULT_LOCK_WAIT_TIMEOUT,
            mdl_timeout: DEFAULT_MDL_TIMEOUT,
        }
    }
}

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
    /// Set by commit: the row keeps old versions for purge.
    queue: bool,
    /// Some change of the row was the statement's own, not a FOREIGN KEY cascade's.
    direct: bool,
    /// An UPDATE changed a primary key, moving the row here from the record at this
    /// position ([`Txn::note_move`]).
    moved_from: Option<usize>,
}

struct UndoRec {
    table: u32,
    slot: Arc<Slot>,
    /// The slot's pending version before this change.
    prev: Option<Option<Row>>,
}

/// A savepoint: how far to undo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Savepoint {
    undo_len: usize,
    changes_len: usize,
}

/// One transaction. Create with `Engine::begin` / `Engine::begin_in`; finish with
/// `Engine::commit` or `Engine::rollback` (dropping an unfinished txn rolls it back).
///
/// A `Txn` is owned by one session and needs no lock of its own; the slots it points at are
/// protected by their own mutexes, and its `TxnSlot` (shared with purge, INNODB_TRX and
/// lock waiters) documents its own.
pub struct Txn {
    id: TxnId,
    slot: Arc<TxnSlot>,
    opts: TxnOptions,
    view: Option<ReadView>,
    state: TxnState,
    /// Tables touched; `locks`, `changes` and `undo` refer to them by position.
    tables: Vec<Arc<Table>>,
    /// Rows locked (each once, whatever the mode).
    locks: Vec<(u32, Arc<Slot>)>,
    /// `locks.len()` when the current statement started: READ COMMITTED may release the
    /// locks after it (rows the statement read but did not keep).
    stmt_locks: usize,
    /// Indexes where the txn holds gap locks.
    gaps: Vec<Arc<GapLocks>>,
    changes: Vec<ChangeRec>,
    /// Slot address → position in `changes`.
    change_pos: HashMap<usize, usize>,
    undo: Vec<UndoRec>,
    /// `SAVEPOINT name`s, oldest first.
    named: Vec<(String, Savepoint)>,
    /// The tables whose metadata lock this transaction holds shared (`mdl.rs`), until it
    /// ends.
    mdl: Vec<Arc<Table>>,
    /// Changes are being made by a FOREIGN KEY cascade (`sql/exec/fk.rs`): MariaDB's binlog
    /// leaves them out (the replica cascades).
    cascading: bool,
    /// The next read is the statement's only one ([`Txn::set_lone_read`]).
    lone_read: bool,
}

impl std::fmt::Debug for Txn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Txn")
            .field("id", &self.id)
            .field("isolation", &self.opts.isolation)
            .field("state", &self.state)
            .field("locks", &self.locks.len())
            .field("changes", &self.changes.len())
            .finish()
    }
}

impl Txn {
    pub(crate) fn new(id: TxnId, slot: Arc<TxnSlot>, opts: TxnOptions) -> Txn {
        slot.rows_modified.store(0, Ordering::Relaxed);
        slot.rows_locked.store(0, Ordering::Relaxed);
        slot.tables_in_use.store(0, Ordering::Relaxed);
        slot.facts.lock().txn = Some(TxnFacts {
            id,
            state: TrxState::Running,
            started: SystemTime::now(),
            waiting: None,
            isolation: opts.isolation,
            read_only: opts.read_only,
            autocommit: opts.autocommit,
        });
        Txn {
            id,
            slot,
            opts,
            view: None,
            state: TxnState::Active,
            tables: Vec::new(),
            locks: Vec::new(),
            stmt_locks: 0,
            gaps: Vec::new(),
            changes: Vec::new(),
            change_pos: HashMap::new(),
            undo: Vec::new(),
            named: Vec::new(),
            mdl: Vec::new(),
            cascading: false,
            lone_read: false,
        }
    }

    /// Hold `table`'s metadata lock shared until the transaction ends (`mdl.rs`): waits while
    /// a DDL statement holds or claims it. 1412 if the table was replaced while this waited
    /// (the statement's plan names the old table: it re-binds), 1205 after
    /// `lock_wait_timeout`, 1213 if waiting could close a cycle with the DDL.
    pub(crate) fn use_table(&mut self, table: &Table) -> Result<()> {
        if self.mdl.iter().any(|t| std::ptr::eq(Arc::as_ptr(t), table)) {
            return Ok(());
        }
        let version = table.schema_version();
        let held = &self.mdl;
        let holds_claimed = || held.iter().any(|t| t.mdl.is_claimed());
        let waited = table
            .mdl
            .acquire_shared(self.opts.mdl_timeout, &holds_claimed)?;
        self.mdl.push(table.arc());
        if waited && (table.is_dropped() || table.schema_version() != version) {
            return Err(Error::new(
                ErrorCode::TableDefChanged,
                "Table definition has changed, please retry transaction",
            ));
        }
        Ok(())
    }

    fn release_metadata_locks(&mut self) {
        for t in self.mdl.drain(..) {
            t.mdl.release_shared();
        }
    }

    pub fn id(&self) -> TxnId {
        self.id
    }

    pub fn isolation(&self) -> IsolationLevel {
        self.opts.isolation
    }

    pub fn is_read_only(&self) -> bool {
        self.opts.read_only
    }

    pub fn is_autocommit(&self) -> bool {
        self.opts.autocommit
    }

    /// The session's slot (INNODB_TRX, the statement text).
    pub fn slot(&self) -> &Arc<TxnSlot> {
        &self.slot
    }

    /// Statement start: READ COMMITTED takes a fresh read view for each statement (the old one
    /// is dropped here; the next consistent read takes a new one). REPEATABLE READ keeps its
    /// view for the whole transaction.
    pub fn start_statement(&mut self) {
        self.stmt_locks = self.locks.len();
        if self.opts.isolation <= IsolationLevel::ReadCommitted && self.view.is_some() {
            self.view = None;
            self.slot.drop_view();
        }
    }

    /// `START TRANSACTION WITH CONSISTENT SNAPSHOT`: take the read view now (REPEATABLE READ
    /// and SERIALIZABLE; the other levels take one per statement, so this does nothing).
    pub fn take_snapshot(&mut self) {
        if self.opts.isolation >= IsolationLevel::RepeatableRead {
            self.read_view();
        }
    }

    /// The read view of consistent reads, taken now if the txn has none yet.
    pub fn read_view(&mut self) -> ReadView {
        match self.view {
            Some(v) => v,
            None => {
                let v = self.slot.take_view();
                self.view = Some(v);
                v
            }
        }
    }

    /// The SQL layer's word that the next read of this transaction is the only read of its
    /// statement (a point select by primary key in autocommit): if it is a consistent point
    /// read and the transaction has no read view yet, it may read without one ("Lone reads"
    /// in [`super::mvcc`]). Taken back by the next read, whatever it is.
    pub fn set_lone_read(&mut self) {
        self.lone_read = true;
    }

    /// Was the next read announced as a lone read? Clears the mark.
    pub(crate) fn take_lone_read(&mut self) -> bool {
        std::mem::take(&mut self.lone_read)
    }

    /// For a read announced lone: the commit sequence that is published now, if the read
    /// may go without a read view — the transaction is one autocommit statement that holds no
    /// view and reads from views (not READ UNCOMMITTED). Call under the slot's mutex.
    pub(crate) fn lone_read_published(&self) -> Option<u64> {
        let reads_views = self.opts.isolation != IsolationLevel::ReadUncommitted;
        (self.opts.autocommit && self.view.is_none() && reads_views)
            .then(|| self.slot.mvcc.published.load(Ordering::SeqCst))
    }

    /// The snapshot held, if any.
    pub fn snapshot(&self) -> Option<CommitSeq> {
        self.view.map(ReadView::upto)
    }

    /// How a consistent read of this txn sees rows.
    pub(crate) fn read_at(&mut self) -> ReadAt {
        if self.opts.isolation == IsolationLevel::ReadUncommitted {
            return ReadAt::Dirty;
        }
        ReadAt::View(self.read_view())
    }

    /// The lock a read asks for, as this isolation level turns it: SERIALIZABLE makes the
    /// plain reads of a transaction (not of an autocommit statement) shared-locking reads.
    pub fn effective_lock(&self, lock: ReadLock) -> ReadLock {
        if lock.mode == LockMode::None
            && self.opts.isolation == IsolationLevel::Serializable
            && !self.opts.autocommit
        {
            return ReadLock {
                mode: LockMode::Shared,
                ..lock
            };
        }
        lock
    }

    /// Locking reads lock gaps (next-key locking) in REPEATABLE READ and SERIALIZABLE.
    pub(crate) fn gap_locking(&self) -> bool {
        self.opts.isolation >= IsolationLevel::RepeatableRead
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
        let mut moved = false;
        for (i, rec) in self.changes.iter().enumerate() {
            moved |= rec.moved_from.is_some();
            let after = match rec.slot.state.lock().pending() {
                Some(p) => p.cloned(),
                None => continue,
            };
            if !same_image(&rec.before, &after) && !self.tables[rec.table as usize].is_temporary() {
                let change = RowChange {
                    cascaded: !rec.direct,
                    table: self.tables[rec.table as usize].clone(),
                    before: rec.before.clone(),
                    after,
                };
                out.push((i, change));
            }
        }
        if moved {
            self.pair_moves(&mut out);
        }
        out
    }

    /// An UPDATE of a primary key is a delete from one slot and an insert into another
    /// ([`super::Table::update`]). Where nothing else happened to either row, the two net
    /// changes become one update at the first's place, as MariaDB logs it: a replica's
    /// ON UPDATE cascades (a delete would cascade as ON DELETE) and CDC clients need it.
    /// Recovery applies such an update as a move ([`super::Table::apply_committed`]).
    fn pair_moves(&self, out: &mut Vec<(usize, RowChange)>) {
        let index: HashMap<usize, usize> =
            out.iter().enumerate().map(|(k, (i, _))| (*i, k)).collect();
        let mut merged = vec![false; out.len()];
        for k in 0..out.len() {
            let Some(&f) = self.changes[out[k].0]
                .moved_from
                .and_then(|from| index.get(&from))
            else {
                continue;
            };
            let (src, dst) = (&out[f].1, &out[k].1);
            let pairs = src.before.is_some()
                && src.after.is_none()
                && dst.before.is_none()
                && dst.after.is_some()
                && src.cascaded == dst.cascaded;
            if pairs && !merged[f] && !merged[k] {
                out[f].1.after = out[k].1.after.take();
                merged[k] = true;
            }
        }
        let mut k = 0;
        out.retain(|_| {
            k += 1;
            !merged[k - 1]
        });
    }

    /// The txn moved a row from `from` to `to` (a primary-key UPDATE); both changes are noted.
    pub(crate) fn note_move(&mut self, from: &Arc<Slot>, to: &Arc<Slot>) {
        let pos = |s: &Arc<Slot>| self.change_pos.get(&(Arc::as_ptr(s) as usize)).copied();
        if let (Some(f), Some(t)) = (pos(from), pos(to)) {
            self.changes[t].moved_from = Some(f);
        }
    }

    /// Mark the changes that follow as a FOREIGN KEY cascade's (true) or the statement's own;
    /// returns the previous setting.
    pub fn set_cascading(&mut self, on: bool) -> bool {
        std::mem::replace(&mut self.cascading, on)
    }

    /// How many rows this transaction has changed so far (see [`Txn::changes_positioned`]).
    pub fn change_count(&self) -> usize {
        self.changes.len()
    }

    /// True if the transaction changed only TEMPORARY tables (which are not logged); false
    /// at once when it touched none.
    pub fn only_temporary_changes(&self) -> bool {
        self.tables.iter().any(|t| t.is_temporary()) && self.changes_positioned().is_empty()
    }

    /// True if the txn has a net change (what `changes()` would return is not empty, counting
    /// TEMPORARY tables' changes too).
    pub fn has_changes(&self) -> bool {
        self.changes
            .iter()
            .any(|rec| match rec.slot.state.lock().pending() {
                Some(p) => !same_image_ref(&rec.before, p),
                None => false,
            })
    }

    /// `innodb_lock_wait_timeout` for this txn's waits (default 50 s).
    pub fn set_lock_wait_timeout(&mut self, d: Duration) {
        self.opts.lock_wait_timeout = d;
    }

    pub fn lock_wait_timeout(&self) -> Duration {
        self.opts.lock_wait_timeout
    }

    /// True once `Engine::prepare` was called.
    pub fn is_prepared(&self) -> bool {
        self.state == TxnState::Prepared
    }

    /// Number of rows locked.
    pub fn lock_count(&self) -> usize {
        self.locks.len()
    }

    // ---- named savepoints ----

    /// `SAVEPOINT name` (an existing savepoint of that name is replaced, as in MariaDB).
    pub fn set_savepoint(&mut self, name: &str) {
        self.named.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        let sp = self.savepoint();
        self.named.push((name.to_string(), sp));
    }

    /// `ROLLBACK TO SAVEPOINT name`: undo the changes made since, keep the locks; later
    /// savepoints are forgotten. 1305 if there is no such savepoint.
    pub fn rollback_to_savepoint(&mut self, name: &str) -> Result<()> {
        let i = self.find_savepoint(name)?;
        let sp = self.named[i].1;
        self.named.truncate(i + 1);
        self.rollback_to(sp);
        Ok(())
    }

    /// `RELEASE SAVEPOINT name`: forget it and every later one. 1305 if there is none.
    pub fn release_savepoint(&mut self, name: &str) -> Result<()> {
        let i = self.find_savepoint(name)?;
        self.named.truncate(i);
        Ok(())
    }

    fn find_savepoint(&self, name: &str) -> Result<usize> {
        self.named
            .iter()
            .rposition(|(n, _)| n.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::SpDoesNotExist,
                    format!("SAVEPOINT {name} does not exist"),
                )
            })
    }

    // ---- used by the table code ----

    pub(crate) fn check_active(&self) -> Result<()> {
        match self.state {
            TxnState::Active => Ok(()),
            TxnState::Prepared => Err(Error::internal("the transaction is prepared")),
            TxnState::Done => Err(Error::internal("the transaction has ended")),
        }
    }

    /// Writes are refused in a read-only transaction (1792).
    pub(crate) fn check_writable(&self) -> Result<()> {
        self.check_active()?;
        if self.opts.read_only {
            return Err(read_only_error());
        }
        Ok(())
    }

    pub(crate) fn waiter(&self) -> Waiter<'_> {
        Waiter {
            me: self.id,
            slot: &self.slot,
            timeout: self.opts.lock_wait_timeout,
            weight: (self.undo.len() + self.locks.len()) as u64,
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
        self.slot
            .tables_in_use
            .store(self.tables.len() as u64, Ordering::Relaxed);
        (self.tables.len() - 1) as u32
    }

    /// The txn now holds a lock on `slot` (of `table`) it did not hold before.
    pub(crate) fn note_lock(&mut self, table: &Table, slot: Arc<Slot>) {
        let t = self.table_index(table);
        self.locks.push((t, slot));
        self.slot
            .rows_locked
            .store(self.locks.len() as u64, Ordering::Relaxed);
    }

    /// The txn holds gap locks in `gaps`.
    pub(crate) fn note_gap(&mut self, gaps: &Arc<GapLocks>) {
        if !self.gaps.iter().any(|g| Arc::ptr_eq(g, gaps)) {
            self.gaps.push(gaps.clone());
        }
    }

    /// READ COMMITTED: give back the lock of a row the current statement locked but does not
    /// keep (it did not match), unless the txn changed the row.
    pub(crate) fn unlock_unkept(&mut self, slot: &Arc<Slot>) {
        let Some(pos) = self.locks[self.stmt_locks..]
            .iter()
            .rposition(|(_, s)| Arc::ptr_eq(s, slot))
        else {
            return;
        };
        if self.change_pos.contains_key(&(Arc::as_ptr(slot) as usize)) {
            return;
        }
        let (t, s) = self.locks.remove(self.stmt_locks + pos);
        let garbage = {
            let mut wakes = Wakes::default();
            let mut st = s.state.lock();
            st.release(self.id, &mut wakes);
            st.is_garbage()
        };
        if garbage {
            self.tables[t as usize].collect_slot(&s);
        }
        self.slot
            .rows_locked
            .store(self.locks.len() as u64, Ordering::Relaxed);
    }

    /// The txn changed `slot`'s pending version from `prev`; `committed` is the slot's
    /// newest committed image.
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
                queue: false,
                direct: !self.cascading,
                moved_from: None,
            });
        } else if !self.cascading {
            let pos = self.change_pos[&addr];
            self.changes[pos].direct = true;
        }
        self.undo.push(UndoRec {
            table: t,
            slot: slot.clone(),
            prev,
        });
        self.slot
            .rows_modified
            .store(self.undo.len() as u64, Ordering::Relaxed);
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
        self.slot
            .rows_modified
            .store(self.undo.len() as u64, Ordering::Relaxed);
    }

    pub(crate) fn prepare(&mut self) -> Result<()> {
        match self.state {
            TxnState::Active | TxnState::Prepared => {
                self.state = TxnState::Prepared;
                // A committing transaction reads no more.
                self.view = None;
                self.slot.drop_view();
                if let Some(f) = self.slot.facts.lock().txn.as_mut() {
                    f.state = TrxState::Committing;
                }
                Ok(())
            }
            TxnState::Done => Err(Error::internal("the transaction has ended")),
        }
    }

    /// Commit: install the pending versions under the next commit sequence number, publish
    /// it, release every lock, and queue the rows that keep old versions for purge.
    pub(crate) fn commit(&mut self, mvcc: &Arc<Mvcc>) {
        if self.state == TxnState::Done {
            return;
        }
        let mut seq = None;
        if !self.changes.is_empty() {
            let mut last = mvcc.commit.lock();
            let s = CommitSeq(*last + 1);
            *last = s.0;
            // No open view (see mvcc.rs, "Commits with no open view"): drop what `s`
            // supersedes now instead of queueing it for purge.
            let no_view = self.changes.len() <= NO_VIEW_COMMIT_MAX && {
                mvcc.installing.store(s.0, Ordering::SeqCst);
                mvcc.open_views.none()
            };
            {
                let (fresh, shared);
                let horizon: &Horizon = if no_view {
                    fresh = Horizon::none_before(s);
                    &fresh
                } else {
                    shared = mvcc.horizon.read();
                    &shared
                };
                for rec in &mut self.changes {
                    let table = &self.tables[rec.table as usize];
                    rec.queue = table.commit_slot(&rec.slot, self.id, s, horizon, &mvcc.stats);
                }
            }
            // Every version of commit `s` is installed: views may see it now.
            mvcc.published.store(s.0, Ordering::SeqCst);
            drop(last);
            seq = Some(s);
        }
        self.release_all();
        if let Some(seq) = seq {
            let mut changes = std::mem::take(&mut self.changes);
            changes.retain(|c| c.queue);
            if !changes.is_empty() {
                let slots = changes.into_iter().map(|c| (c.table, c.slot)).collect();
                mvcc.push_history(HistoryItem {
                    seq,
                    tables: std::mem::take(&mut self.tables),
                    slots,
                });
            }
        }
        self.end();
    }

    /// Roll back: drop the pending versions, release every lock.
    pub(crate) fn rollback(&mut self) {
        if self.state == TxnState::Done {
            return;
        }
        for rec in &self.changes {
            let table = &self.tables[rec.table as usize];
            table.restore_pending(&rec.slot, self.id, None);
        }
        self.release_all();
        self.end();
    }

    fn release_all(&mut self) {
        for (t, slot) in &self.locks {
            let garbage = {
                let mut wakes = Wakes::default();
                let mut st = slot.state.lock();
                st.release(self.id, &mut wakes);
                st.is_garbage()
            };
            if garbage {
                self.tables[*t as usize].collect_slot(slot);
            }
        }
        for g in &self.gaps {
            g.release(self.id);
        }
    }

    fn end(&mut self) {
        self.release_metadata_locks();
        self.locks.clear();
        self.gaps.clear();
        self.changes.clear();
        self.change_pos.clear();
        self.undo.clear();
        self.named.clear();
        self.view = None;
        self.slot.drop_view();
        self.slot.facts.lock().txn = None;
        self.state = TxnState::Done;
    }
}

impl Drop for Txn {
    fn drop(&mut self) {
        if self.state != TxnState::Done {
            self.rollback();
        }
    }
}

/// 1792.
pub fn read_only_error() -> Error {
    Error::new(
        ErrorCode::CantExecuteInReadOnlyTransaction,
        "Cannot execute statement in a READ ONLY transaction",
    )
}

fn same_image(a: &Option<Row>, b: &Option<Row>) -> bool {
    same_image_ref(a, b.as_ref())
}

fn same_image_ref(a: &Option<Row>, b: Option<&Row>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a[..] == b[..],
        _ => false,
    }
}
