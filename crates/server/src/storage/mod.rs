//! Storage: in-memory tables, ordered indexes, row locks, READ COMMITTED transactions.
//!
//! # Data model
//!
//! An [`Engine`] holds a catalog of databases and [`Table`]s. Each table has a stable numeric
//! [`TableId`] and a state (definition + indexes, replaced only by DDL) made of
//!
//! * a **primary index**: an ordered map from the memcomparable encoding of the primary key
//!   (see `keycode.rs`; a hidden 8-byte row id when the table has no PRIMARY KEY) to a **row
//!   slot** (`Arc<Slot>`);
//! * one **secondary index** per `def.indexes[i]`: an ordered map from
//!   `encode(index columns) ++ encode(primary key)` to the same slots. Entries exist for the key of
//!   the committed version *and* of the pending version of a row; readers drop entries whose key
//!   is not the key of the version they see.
//!
//! A slot holds the row's versions and its lock:
//!
//! ```text
//! Slot { key (immutable), state: Mutex<SlotState>, cv: Condvar }
//! SlotState {
//!     committed: Option<Row>,            // latest committed image (None: not there / deleted)
//!     pending:   Option<Option<Row>>,    // the lock owner's uncommitted image; Some(None) = deleted
//!     owner:     Option<TxnId>,          // X lock holder; pending is Some only when owner is
//!     waiters:   u32,                    // threads blocked on cv for this row
//!     removed:   bool,                   // slot detached from the index (GC, TRUNCATE)
//! }
//! ```
//!
//! # Visibility (READ COMMITTED, no dirty reads)
//!
//! A non-locking read (`LockMode::None`) sees `pending` if the reader owns the slot, else
//! `committed`. It takes the slot mutex for a few instructions and never blocks on a row lock.
//! A locking read (`LockMode::Exclusive`) first takes the row lock and then sees the latest
//! version (its own pending one, or the committed one).
//!
//! Reads are per row, not per statement: there is no statement snapshot. A scan sees each row
//! as it is committed when the scan reaches it, so a row that another txn moves forward in the
//! scanned index and commits during a long scan can be met twice, and one moved backward can be
//! missed. Uncommitted data is never seen.
//!
//! # Locks, and what protects what
//!
//! | lock | protects | taken by |
//! |---|---|---|
//! | `Engine::catalog` (RwLock) | database → table maps, id → table | DDL exclusively; name lookups shared |
//! | `Table::state` (RwLock) | the index set and definition of the table | every DML step shared (never across a row-lock wait nor a callback); DDL (CREATE/DROP INDEX, TRUNCATE, DROP) exclusively |
//! | each index's `RwLock<BTreeMap>` | that index's entries | shared to look up / scan a batch, exclusive to add/remove entries and for the check-and-reserve of a unique key |
//! | `Slot::state` (Mutex) | the row's versions, lock owner and waiter count | every access to a row; held only for a few instructions |
//! | `WaitGraph` (Mutex) | the waits-for edges | only around a row-lock wait |
//!
//! Lock order: catalog → table state → index map → slot mutex → wait graph. No code takes a lock
//! to the left while holding one to the right, and no table/index lock is held while blocking
//! on a row lock or while calling a scan callback.
//!
//! A point read or write by primary key takes: the table state (shared), the primary map
//! (shared) and one slot mutex. There is no global lock on that path.
//!
//! Row locks are exclusive, taken by every write, by locking reads (`FOR UPDATE`) and by the
//! duplicate check of INSERT/UPDATE on the conflicting row, and held until commit or rollback.
//! A statement savepoint undoes changes but keeps the locks.
//!
//! # Waits and deadlocks
//!
//! A txn that finds a row locked by another registers the edge `me → owner` in the engine's
//! waits-for graph and blocks on the slot's condvar through `wait::begin(WaitEvent::RowLock)`.
//! If adding the edge closes a cycle, the **requester** gets 1213 (the session then rolls the
//! whole transaction back). A wait longer than the txn's `lock_wait_timeout` gives 1205 (the
//! session rolls back the statement only). Releasing a row notifies the condvar of that row
//! only (targeted wakeups); each woken waiter re-checks the owner, re-registers its edge against
//! a new owner if another waiter won, and re-runs the cycle check.
//!
//! INSERT never reports an early duplicate: the key's slot (primary) or the slots holding the
//! same unique key (secondary) are locked first, waiting for their owners, and only then is the
//! latest version examined: a committed (or own) row with the key → `InsertOutcome::Duplicate`,
//! with the row left X-locked by the inserter. Unique-key check and entry insertion happen under
//! the index's write lock so that two inserters cannot both pass the check.
//!
//! # Transaction life cycle (driven by the session and the commit pipeline)
//!
//! `begin` → DML (`insert`/`update`/`delete`/locking reads) with `savepoint` /
//! `rollback_to_savepoint` around each statement → `prepare` (freezes the txn: no more
//! changes; `Txn::changes` gives the row images to log) → `commit` (in the order the pipeline
//! decides: makes the pending versions committed, releases the locks, returns the net changes)
//! or `rollback` (drops pending versions, releases locks). Dropping an unfinished `Txn` rolls it
//! back.
//!
//! # Notes for the SQL layer
//!
//! * Hold the row lock before `update` / `delete` (a locking read or `lock_row`), and compute the
//!   new image from the row returned *after* locking.
//! * Scans are not stable against the caller's own writes: an UPDATE that moves rows forward in
//!   the scanned index would meet them again. Collect the handles first, then write.
//! * An index with prefix parts (`KEY (c(10))`) or a case-insensitive collation returns a
//!   superset of the exact predicate: re-check it.
//! * `Engine::table` takes the catalog lock (shared); a prepared plan may keep its `Arc<Table>`
//!   and re-bind when `is_dropped()` or `schema_version()` moved.
//! * `InsertOutcome::Duplicate` → `Table::dup_entry_error(index, new_row)` gives the 1062 error.
//! * DDL is not transactional and does not wait for other sessions' open transactions (there are
//!   no metadata locks here): TRUNCATE / DROP detach rows that open transactions still hold.
//!
//! # Files
//!
//! `keycode.rs` key encoding · `lock.rs` slots, row locks, waits, deadlock detection ·
//! `table.rs` indexes, DML, scans, table DDL · `txn.rs` transaction bookkeeping and undo ·
//! `engine.rs` catalog and life cycle · `schema.rs` table definitions · `testing.rs` the
//! golden-script runner (scripts in `testscripts/`) · `tests.rs` API and stress tests.
//!
//! # Durability hooks
//!
//! `Engine::catalog_snapshot` and `Table::scan_committed` (never blocking, committed images
//! only) feed a fuzzy checkpoint; `Engine::restore_table` recreates a table with its id and
//! AUTO_INCREMENT counter, and `Engine::apply_recovered` installs a committed before/after
//! image (redo or binlog replay, idempotent for full images).

mod dml;
mod engine;
mod keycode;
mod lock;
mod mvcc;
mod read;
pub mod schema;
mod table;
#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
mod txn;

pub use engine::{CatalogSnapshot, Engine, TableSnapshot};
pub use mvcc::{CommitSeq, PurgeStats, ReadView, TrxRow, TrxState, TxnSlot};
pub use read::{RowFilter, RowSink};
pub use schema::{ColumnDef, ColumnDefault, IndexDef, IndexPart, TableDef};
pub use table::{RowHandle, Table};
pub use txn::{read_only_error, Savepoint, Txn, TxnOptions, DEFAULT_LOCK_WAIT_TIMEOUT};

pub(crate) use lock::ReadAt;

use crate::types::Value;
use std::ops::Bound;
use std::sync::Arc;

/// One row image, column values in table order.
pub type Row = Arc<[Value]>;

/// A transaction id, unique for the life of the engine (ids increase with `begin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TxnId(pub u64);

/// A table's stable numeric id (never reused within an engine; restored by recovery).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableId(pub u64);

/// The four isolation levels, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IsolationLevel {
    ReadUncommitted,
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

impl IsolationLevel {
    /// The value of `tx_isolation` / `transaction_isolation` (`REPEATABLE-READ`).
    pub fn var_name(self) -> &'static str {
        match self {
            IsolationLevel::ReadUncommitted => "READ-UNCOMMITTED",
            IsolationLevel::ReadCommitted => "READ-COMMITTED",
            IsolationLevel::RepeatableRead => "REPEATABLE-READ",
            IsolationLevel::Serializable => "SERIALIZABLE",
        }
    }

    /// As INNODB_TRX.trx_isolation_level shows it (`REPEATABLE READ`).
    pub fn sql_name(self) -> &'static str {
        match self {
            IsolationLevel::ReadUncommitted => "READ UNCOMMITTED",
            IsolationLevel::ReadCommitted => "READ COMMITTED",
            IsolationLevel::RepeatableRead => "REPEATABLE READ",
            IsolationLevel::Serializable => "SERIALIZABLE",
        }
    }

    /// From a variable value (`READ-COMMITTED`, case-insensitive; spaces allowed for dashes).
    pub fn parse(s: &str) -> Option<IsolationLevel> {
        let s = s.trim().replace(' ', "-").to_ascii_uppercase();
        [
            IsolationLevel::ReadUncommitted,
            IsolationLevel::ReadCommitted,
            IsolationLevel::RepeatableRead,
            IsolationLevel::Serializable,
        ]
        .into_iter()
        .find(|l| l.var_name() == s)
    }
}

/// How a read treats row locks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockMode {
    /// Consistent (non-locking) read from the transaction's read view (its own changes
    /// included). In SERIALIZABLE, inside a transaction, it becomes `Shared`.
    None,
    /// `LOCK IN SHARE MODE` / `FOR SHARE`: S-lock what is read (readers share; writers wait),
    /// then read its latest committed version.
    Shared,
    /// `FOR UPDATE`, and the reads of UPDATE / DELETE: X-lock what is read, then read its
    /// latest committed version.
    Exclusive,
}

/// What a locking read does when a row is locked by another transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitPolicy {
    /// Wait (up to `innodb_lock_wait_timeout`).
    Wait,
    /// `NOWAIT`: fail at once, with 1205 as MariaDB does.
    NoWait,
    /// `SKIP LOCKED`: leave the row out.
    SkipLocked,
}

/// The lock a read takes, and how it waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLock {
    pub mode: LockMode,
    pub wait: WaitPolicy,
    /// UPDATE: in READ COMMITTED and READ UNCOMMITTED, a row locked by another transaction
    /// whose newest committed version does not match the filter is skipped without waiting
    /// (InnoDB's semi-consistent read).
    pub semi_consistent: bool,
}

impl ReadLock {
    /// A consistent read.
    pub const NONE: ReadLock = ReadLock {
        mode: LockMode::None,
        wait: WaitPolicy::Wait,
        semi_consistent: false,
    };

    pub fn new(mode: LockMode, wait: WaitPolicy) -> ReadLock {
        ReadLock {
            mode,
            wait,
            semi_consistent: false,
        }
    }
}

impl From<LockMode> for ReadLock {
    fn from(mode: LockMode) -> ReadLock {
        ReadLock::new(mode, WaitPolicy::Wait)
    }
}

/// A range of index keys. Bounds hold values for the first index parts; fewer values than the
/// index has parts make a prefix bound (`Included([5])..=Included([5])` on `(a, b)` is `a = 5`).
#[derive(Clone, Debug, PartialEq)]
pub struct KeyRange {
    pub start: Bound<Vec<Value>>,
    pub end: Bound<Vec<Value>>,
}

impl KeyRange {
    /// Every key.
    pub fn all() -> KeyRange {
        KeyRange {
            start: Bound::Unbounded,
            end: Bound::Unbounded,
        }
    }

    /// Every key equal to `vals` (a prefix if shorter than the index).
    pub fn point(vals: Vec<Value>) -> KeyRange {
        KeyRange {
            start: Bound::Included(vals.clone()),
            end: Bound::Included(vals),
        }
    }
}

/// What a read callback wants next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanControl {
    Continue,
    Stop,
}

/// The result of `Table::insert` / `Table::update`.
#[derive(Clone, Debug)]
pub enum InsertOutcome {
    Inserted(RowHandle),
    /// A committed (or own) row already holds this key. It is now X-locked by the caller's txn.
    /// `index` is None for the primary key, Some(i) for `def.indexes[i]`.
    Duplicate {
        index: Option<usize>,
        handle: RowHandle,
        row: Row,
    },
}

/// The net change of one row by a transaction: `before` is the committed image when the txn
/// first changed it (None: inserted), `after` the image it leaves (None: deleted).
#[derive(Clone, Debug)]
pub struct RowChange {
    pub table: Arc<Table>,
    pub before: Option<Row>,
    pub after: Option<Row>,
}
