//! Metadata locks: DDL waits for the transactions that use a table, and DML waits for DDL.
//!
//! Each [`Table`](super::Table) has one [`MetaLock`]. A transaction takes it **shared** the
//! first time it reads or writes the table (`Txn::use_table`, at the entry of every read and
//! DML method) and keeps it until it commits or rolls back. A DDL statement on the table takes
//! it **exclusive** before it changes anything (`Engine::lock_tables_exclusive`) and keeps it
//! until its outcome is known (the guard lives in the statement's undo journal, `ddl_undo`):
//! it waits until no transaction holds the table, and meanwhile new shared requests wait
//! behind it (no starvation of DDL by a stream of short transactions), as in MariaDB.
//!
//! # Cost on the hot path
//!
//! The shared side is two atomics per table and no mutex: `shared` (holders) and `exclusive`
//! (a DDL holds or waits). A shared request increments `shared`, then reads `exclusive`; a DDL
//! sets `exclusive`, then reads `shared`. Both with `SeqCst`, so at least one of them sees the
//! other (Dekker): the reader backs out and waits, or the DDL waits for the count to drain. A
//! transaction touches the atomics once per table, not once per row or statement.
//!
//! # Waiting
//!
//! Waits take `MetaLock::wait` (a mutex used only by waiters and by whoever must wake them)
//! and its condition variable; each is a `WaitEvent::MetadataLock` wait (the wait summary and
//! the scheduler see it). A release that may unblock someone notifies under that mutex, and a
//! waiter re-checks under it before sleeping, so no wakeup is lost. Timeouts use
//! `lock_wait_timeout` (MariaDB's, default 86400 s): 1205 on expiry, and a DDL that gives up
//! clears its claim and wakes the readers it held back.
//!
//! # Deadlocks
//!
//! DDL takes its exclusive locks in table-id order, so DDL statements never wait for each
//! other in a cycle. A transaction that must wait for a DDL while it already holds another
//! table that a DDL claims could be in a cycle with it (the DDL waits for the transaction's
//! shared lock, the transaction for the DDL): the transaction is then chosen as the victim
//! (1213, the caller rolls it back), re-checked every 100 ms while it waits.

use crate::error::{Error, Result};
use crate::wait::{self, WaitEvent};
use cohort_protocol::ErrorCode;
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::time::{Duration, Instant};

/// The metadata lock of one table (module doc).
#[derive(Default)]
pub struct MetaLock {
    /// Transactions holding the table shared.
    shared: AtomicU64,
    /// A DDL statement holds the table or waits for it.
    exclusive: AtomicBool,
    /// Taken only to wait and to wake waiters.
    wait: Mutex<()>,
    cond: Condvar,
}

/// How often a waiting transaction re-checks for a deadlock with a DDL statement.
const DEADLOCK_RECHECK: Duration = Duration::from_millis(100);

pub(crate) fn timeout_error() -> Error {
    Error::new(
        ErrorCode::LockWaitTimeout,
        "Lock wait timeout exceeded; try restarting transaction",
    )
}

fn deadlock_error() -> Error {
    Error::new(
        ErrorCode::LockDeadlock,
        "Deadlock found when trying to get lock; try restarting transaction",
    )
}

impl MetaLock {
    /// Is a DDL statement holding or waiting for this table?
    pub fn is_claimed(&self) -> bool {
        self.exclusive.load(SeqCst)
    }

    fn try_shared(&self) -> bool {
        if self.exclusive.load(SeqCst) {
            return false;
        }
        self.shared.fetch_add(1, SeqCst);
        if !self.exclusive.load(SeqCst) {
            return true;
        }
        self.release_shared();
        false
    }

    /// Take the lock shared. Returns true if it had to wait (the table may have been changed
    /// meanwhile). `holds_claimed` tells whether the caller holds another table a DDL
    /// statement claims (a possible cycle: 1213).
    pub fn acquire_shared(
        &self,
        timeout: Duration,
        holds_claimed: &dyn Fn() -> bool,
    ) -> Result<bool> {
        if self.try_shared() {
            return Ok(false);
        }
        let deadline = Instant::now() + timeout;
        let _w = wait::begin(WaitEvent::MetadataLock);
        let mut g = self.wait.lock();
        loop {
            if self.try_shared() {
                return Ok(true);
            }
            if holds_claimed() {
                return Err(deadlock_error());
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(timeout_error());
            }
            let until = deadline.min(now + DEADLOCK_RECHECK);
            self.cond.wait_until(&mut g, until);
        }
    }

    pub fn release_shared(&self) {
        if self.shared.fetch_sub(1, SeqCst) == 1 && self.exclusive.load(SeqCst) {
            let _g = self.wait.lock();
            self.cond.notify_all();
        }
    }

    /// Take the lock exclusively: wait for another DDL's claim to end, claim the table, then
    /// wait for its holders to finish. 1205 after `timeout` (the claim is withdrawn).
    pub fn acquire_exclusive(&self, timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        let mut g = self.wait.lock();
        let mut waiting = None;
        while self.exclusive.load(SeqCst) {
            waiting.get_or_insert_with(|| wait::begin(WaitEvent::MetadataLock));
            if self.cond.wait_until(&mut g, deadline).timed_out() && self.exclusive.load(SeqCst) {
                return Err(timeout_error());
            }
        }
        self.exclusive.store(true, SeqCst);
        while self.shared.load(SeqCst) != 0 {
            waiting.get_or_insert_with(|| wait::begin(WaitEvent::MetadataLock));
            if self.cond.wait_until(&mut g, deadline).timed_out() && self.shared.load(SeqCst) != 0 {
                self.exclusive.store(false, SeqCst);
                self.cond.notify_all();
                return Err(timeout_error());
            }
        }
        Ok(())
    }

    pub fn release_exclusive(&self) {
        let _g = self.wait.lock();
        self.exclusive.store(false, SeqCst);
        self.cond.notify_all();
    }
}

/// Exclusive metadata locks of one DDL statement, released when dropped.
pub struct MdlGuard {
    tables: Vec<std::sync::Arc<super::Table>>,
}

impl Drop for MdlGuard {
    fn drop(&mut self) {
        for t in self.tables.drain(..).rev() {
            t.mdl.release_exclusive();
        }
    }
}

impl super::Engine {
    /// Take the metadata locks of `tables` exclusively, in table-id order (module doc). On
    /// 1205 the ones already taken are released.
    pub fn lock_tables_exclusive(
        &self,
        tables: &[std::sync::Arc<super::Table>],
        timeout: Duration,
    ) -> Result<MdlGuard> {
        let mut order: Vec<_> = tables.to_vec();
        order.sort_by_key(|t| t.id());
        order.dedup_by(|a, b| std::sync::Arc::ptr_eq(a, b));
        let deadline = Instant::now() + timeout;
        let mut guard = MdlGuard { tables: Vec::new() };
        for t in order {
            let left = deadline.saturating_duration_since(Instant::now());
            t.mdl.acquire_exclusive(left)?;
            guard.tables.push(t);
        }
        Ok(guard)
    }
}
