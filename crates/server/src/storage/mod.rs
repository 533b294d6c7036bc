//! Storage: in-memory tables, ordered indexes, multi-version rows with read views, row and
//! gap locks, and InnoDB's transaction model at its four isolation levels.
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
//!   `encode(index columns) ++ encode(primary key)` to the same slots. Entries exist for the key
//!   of *every image the slot holds* (committed versions kept for read views, and the pending
//!   version); a reader accepts an entry only if the version it sees has the entry's key.
//!
//! A slot holds the row's versions and its lock (`lock.rs`):
//!
//! ```text
//! Slot { key (immutable), state: Mutex<SlotState> }
//! SlotState {
//!     latest, latest_seq    // newest committed image (None: absent) and the commit that made it
//!     older                 // older committed versions some read view may need, newest first
//!     pending               // the X holder's uncommitted image (None = deleted), if any
//!     x                     // the X-lock holder (only it may have a pending version)
//!     queue                 // S holders and waiting requests, allocated only while there are any
//!     flags                 // pending?, removed from the index?, queued for purge?
//! }
//! ```
//!
//! # Commit order is visibility order (`mvcc.rs`)
//!
//! `Engine::commit` takes the next [`CommitSeq`] under the commit mutex, installs each pending
//! version stamped with it, and only then publishes it (`published = seq`); the locks are
//! released after. A [`ReadView`] is a value of `published`, taken with a protocol that keeps
//! purge from dropping what it needs ([`TxnSlot`]). A consistent read sees, per row, its own
//! pending version, else the newest committed version with `seq <= view`.
//!
//! *Why a snapshot never sees a transaction without every transaction committed before it in
//! binlog order:* (1) the commit pipeline calls `Engine::commit` in log order, one transaction
//! at a time: groups take their turn (`log::group::CommitTurn`), and inside a group the leader
//! commits the members in order, or each member commits itself and then hands the turn to the
//! next (chained) — broadcast or targeted wakeups only change who is woken after; (2) the
//! commit mutex makes the seq order equal the call order even if two commits ever raced
//! (memory mode); (3) `published` reaches `n` only after every version of commits `1..=n` is
//! installed (Release store, Acquire load), and a version is read under its slot mutex. So a
//! view `v` contains exactly the commits `1..=v`, a prefix of the log.
//!
//! # Isolation levels (`txn.rs`, `read.rs`)
//!
//! | level | consistent read (`LockMode::None`) | locking reads, UPDATE, DELETE |
//! |---|---|---|
//! | READ UNCOMMITTED | the newest version, committed or not | record locks only |
//! | READ COMMITTED | a new view per statement (`Txn::start_statement`) | record locks only; rows the filter rejects are unlocked; UPDATE reads semi-consistently |
//! | REPEATABLE READ (default) | the view taken at the first consistent read (or `START TRANSACTION WITH CONSISTENT SNAPSHOT`), kept | next-key and gap locks |
//! | SERIALIZABLE | as REPEATABLE READ in an autocommit statement; inside a transaction plain reads become `Shared` locking reads | next-key and gap locks |
//!
//! Locking reads are *current reads*: they lock, then read the newest committed version (or
//! their own), and the statement's filter is evaluated on that version, after any wait. The
//! table of which locks each kind of read takes is in `read.rs`; it follows InnoDB as recorded
//! from MariaDB 10.11 by the differential suite in `tests/isolation`.
//!
//! # Locks, and what protects what
//!
//! | lock | protects | taken by |
//! |---|---|---|
//! | `Engine::catalog` (RwLock) | database → table maps, id → table | DDL exclusively; name lookups shared |
//! | `Table::mdl` (`mdl.rs`: two atomics; a Mutex + Condvar for waiters only) | which transactions use the table, whether a DDL statement claims it | a transaction's first read or write of the table (shared, until it ends); DDL statements (exclusive, before their first change until their outcome) |
//! | `Table::state` (RwLock) | the index set and definition of the table | every DML or read step shared (never across a lock wait nor a callback); DDL exclusively |
//! | each index's `RwLock<BTreeMap>` | that index's entries | shared to look up, scan a batch and lock a gap; exclusive to add/remove entries, around the insert-intention check and the check-and-reserve of a unique key |
//! | `GapLocks` (per index, Mutex) | the gap locks of that index and the inserters waiting on them | locking reads (under the map's read lock), inserts (under its write lock), release at txn end |
//! | `Slot::state` (Mutex) | the row's versions, its S/X lock and wait queue, its purge flag | every access to a row; held for a few instructions |
//! | `Mvcc::commit` (Mutex) | the last commit seq; held while one commit installs its versions | `Engine::commit` only (the pipeline never contends it) |
//! | `Mvcc::horizon` (RwLock) | which read views may exist (for pruning) | written by the purge pass, read by committers |
//! | `Mvcc::registry`, `Mvcc::history` (Mutex) | the sessions' slots; rows waiting for purge | connect / purge scans; committers push, purge pops |
//! | `TxnSlot::wait` (Mutex + Condvar) | a waiter's woken / victim flags | the waiter; whoever grants it a lock or chooses it as deadlock victim |
//! | `Table::stats` (`stats.rs`: `compute` Mutex, then `current` Mutex; an atomic change counter) | the table's index statistics | whoever needs statistics that are due (planner, EXPLAIN, SHOW INDEX), ANALYZE TABLE; `compute` → table state → index map, `current` held alone; commits only add to the counter |
//! | `WaitGraph` (Mutex) | the waits-for edges | only around a lock wait |
//!
//! Lock order: catalog → table state → index map → gap locks → slot mutex → a waiter's
//! `TxnSlot::wait`; the wait graph → a victim's `TxnSlot::wait`. No code takes a lock to the
//! left while holding one to the right, and no table, index or slot lock is held while
//! blocking on a row or gap lock or while calling a read callback.
//!
//! A point read by primary key takes: the table state (shared), the primary map (shared) and
//! one slot mutex — plus, once per transaction (REPEATABLE READ) or statement (READ
//! COMMITTED), the read view: two SeqCst accesses to atomics of the session's own slot and the
//! engine's `published`. A point write adds one uncontended commit mutex per transaction.
//! There is no global lock on those paths.
//!
//! # Locks, waits and deadlocks
//!
//! Record locks are S or X (S compatible with S), granted in arrival order: a request also
//! waits for conflicting requests queued before it. Gap locks (REPEATABLE READ, SERIALIZABLE)
//! are open key intervals of one index; they only stop inserts of other transactions into
//! them (insert intention). All locks are held until commit or rollback; savepoints keep them.
//! A wait registers its edges (every holder and earlier waiter it conflicts with) in the
//! waits-for graph and sleeps on the waiter's own condition variable inside
//! `wait::begin(WaitEvent::RowLock | GapLock)` (so every wait is in the wait summary and the
//! pool of threads hears of it). A cycle makes the lightest transaction of the cycle (rows
//! changed + locks held; the requester on a tie) the victim: 1213, and the session rolls the
//! transaction back. A wait past `innodb_lock_wait_timeout` gives 1205 (the statement is
//! rolled back; the transaction too with `innodb_rollback_on_timeout`). `NOWAIT` gives 1205 at
//! once (MariaDB's answer; MySQL 8 has 3572) and `SKIP LOCKED` leaves the row out.
//!
//! INSERT never reports an early duplicate: the key's row is S-locked (X-locked for REPLACE
//! and ON DUPLICATE KEY UPDATE) first, waiting for its writer, and only then is its newest
//! version examined (`dml.rs`).
//!
//! # Purge
//!
//! An old version is kept while a view may see it ([`mvcc::Horizon`]). The committer prunes a
//! row's chain whenever it installs a version there (so a row updated all the time keeps one
//! old version per *distinct* open view, not one per update); rows left with old versions are
//! queued once (`F_QUEUED`) and the purge thread prunes them in commit order once no view
//! older than their last commit remains, and takes deleted rows out of the indexes.
//!
//! # Transaction life cycle (driven by the session and the commit pipeline)
//!
//! `Engine::begin_in(slot, TxnOptions)` → statements, each opened with
//! `Txn::start_statement` (and wrapped in a statement savepoint by the SQL layer) → `prepare`
//! (freezes the txn: no more changes; `Txn::changes` gives the row images to log) → `commit`
//! (in log order: install, publish, release the locks) or `rollback`. Dropping an unfinished
//! `Txn` rolls it back.
//!
//! # Notes for the SQL layer
//!
//! The read interface is small and stable:
//!
//! * `Table::get(txn, pk_values, lock)` — point read by the whole primary key;
//!   `Table::scan(txn, index, range, reverse, lock, filter, f)` — everything else
//!   (`scan_primary` / `scan_index` / `scan_backward` are shorthands without a filter).
//!   `index` is `None` for the primary key or a position in `def.indexes`; `range` a
//!   [`KeyRange`] of leading index values (a point range is an equality: InnoDB's exact-match
//!   or unique search).
//! * `lock` is a [`ReadLock`]: `LockMode::None` (consistent read from the txn's view),
//!   `Shared` or `Exclusive` (current read), a [`WaitPolicy`] (`Wait`, `NoWait`, `SkipLocked`),
//!   and `semi_consistent` (UPDATE). The isolation level is the txn's; SERIALIZABLE's turning
//!   of plain reads into shared ones happens inside (`Txn::effective_lock`).
//! * `filter` is the statement's WHERE: the storage evaluates it on the version it returns
//!   (the latest one after any lock wait, for a current read) and does not keep rows it
//!   rejects locked in READ COMMITTED. Pass `|_| Ok(true)` to get every row of the range (then
//!   the locks of rows the statement does not want stay).
//! * Call `Txn::start_statement` at each statement start (READ COMMITTED's new view).
//! * UPDATE / DELETE: read with `Exclusive` (+ `semi_consistent` for UPDATE), collect, then
//!   `update` / `delete` the rows returned: they are locked and current. Scans are not stable
//!   against the caller's own writes (an UPDATE moving rows forward in the index would meet
//!   them again): collect first, then write.
//! * A join or subquery reads each table through the same calls with the same `txn`: all its
//!   consistent reads see one view (REPEATABLE READ: the transaction's; READ COMMITTED: the
//!   statement's, as long as `start_statement` is called once per statement).
//! * An index with prefix parts (`KEY (c(10))`) or a case-insensitive collation returns a
//!   superset of the exact predicate: re-check it (in the filter).
//! * `Engine::table` takes the catalog lock (shared); a prepared plan may keep its `Arc<Table>`
//!   and re-bind when `is_dropped()` or `schema_version()` moved.
//! * `InsertOutcome::Duplicate` → `Table::dup_entry_error(index, new_row)` gives the 1062 error;
//!   `insert_with(.., LockMode::Exclusive)` for REPLACE / ON DUPLICATE KEY UPDATE.
//! * Writes in a read-only txn give 1792 (`read_only_error`); check before the statement.
//! * DDL is not transactional and does not wait for other sessions' open transactions (there are
//!   no metadata locks here): TRUNCATE / DROP detach rows that open transactions still hold.
//!
//! # Files
//!
//! `keycode.rs` key encoding · `lock.rs` slots, record and gap locks, waits, deadlock
//! detection · `mvcc.rs` commit sequence, read views, registry, purge · `table.rs` indexes,
//! entries, commit and purge of a row, table DDL, recovery installs · `dml.rs` insert, update,
//! delete · `read.rs` consistent and locking reads · `txn.rs` transaction bookkeeping and
//! undo · `engine.rs` catalog and life cycle · `ddl_undo.rs` undoing a failed DDL statement ·
//! `schema.rs` table definitions · `testing.rs` the
//! golden-script runner (scripts in `testscripts/`) · `tests.rs` API and stress tests.
//!
//! # Durability hooks
//!
//! `Engine::catalog_snapshot` and `Table::scan_committed` (never blocking, the newest committed
//! image of each row) feed a fuzzy checkpoint; `Engine::restore_table` recreates a table with
//! its id and AUTO_INCREMENT counter, and `Engine::apply_recovered` installs a committed
//! before/after image (redo or binlog replay, idempotent for full images) as commit seq 0.

mod ddl_undo;
mod dml;
mod engine;
mod keycode;
mod lock;
mod mdl;
mod mvcc;
mod read;
mod rebuild;
pub mod schema;
pub mod stats;
#[cfg(test)]
mod stats_tests;
mod table;
#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
mod txn;
mod views;

pub use ddl_undo::DdlUndo;
pub use engine::{CatalogSnapshot, Engine, TableSnapshot};
pub use mdl::MdlGuard;
pub use mvcc::{CommitSeq, PurgeStats, ReadView, TrxRow, TrxState, TxnSlot};
pub use read::{RowFilter, RowSink};
pub use schema::{
    CheckDef, ColumnDef, ColumnDefault, FkAction, ForeignKeyDef, GeneratedDef, IndexDef, IndexPart,
    TableDef,
};
pub use stats::TableStats;
pub use table::{RowHandle, Table};
pub use txn::{
    read_only_error, Savepoint, Txn, TxnOptions, DEFAULT_LOCK_WAIT_TIMEOUT, DEFAULT_MDL_TIMEOUT,
};
pub use views::ViewDef;

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
        /// The row that was being written: error 1062 names its key values, as MariaDB does.
        attempted: Row,
    },
}

/// The net change of one row by a transaction: `before` is the committed image when the txn
/// first changed it (None: inserted), `after` the image it leaves (None: deleted).
#[derive(Clone, Debug)]
pub struct RowChange {
    /// Every change of the row came from a FOREIGN KEY cascade.
    pub cascaded: bool,
    pub table: Arc<Table>,
    pub before: Option<Row>,
    pub after: Option<Row>,
}
