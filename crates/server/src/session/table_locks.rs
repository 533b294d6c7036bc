//! Table locks: `LOCK TABLES t READ | WRITE, …` and `UNLOCK TABLES`, with the semantics
//! MariaDB gives InnoDB tables.
//!
//! * A session holding table locks may use only the tables it locked: any other table is
//!   1100 (ER_TABLE_NOT_LOCKED), a write to a table locked READ is 1099. System schemas
//!   (information_schema, performance_schema) stay readable.
//! * Other sessions wait: for any use of a table locked WRITE, for a write to a table locked
//!   READ. READ locks are shared, WRITE locks exclusive; `LOCK TABLES` waits for the locks of
//!   other sessions. A wait ends at `lock_wait_timeout` with 1205, or with 1317 on KILL.
//! * `LOCK TABLES` commits the open transaction and releases the session's previous table
//!   locks; `UNLOCK TABLES`, `START TRANSACTION` / `BEGIN` and the end of the connection
//!   release them.
//!
//! Where the check happens: the planner calls [`check`] for every catalog table a statement
//! reads (`plan::resolve_source`) or writes (`plan::resolve_target`). A prepared statement is
//! checked when it is bound (at PREPARE, and again when a schema change rebinds it).
//!
//! Locking: `TableLocks::held` (one mutex) protects the map of held locks; `released` is
//! signalled whenever a session releases some. The session's own list is in its
//! `SessionState` (no lock).

use crate::error::{Error, Result};
use cohort_protocol::ErrorCode;
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// One table of a session's `LOCK TABLES`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedTable {
    pub db: String,
    pub table: String,
    pub write: bool,
}

/// Who holds locks on one table.
#[derive(Default)]
struct Holders {
    writer: Option<u32>,
    readers: Vec<u32>,
}

impl Holders {
    /// May connection `me` use the table (`write`: to change it)?
    fn allows(&self, me: u32, write: bool) -> bool {
        let writer_ok = self.writer.is_none_or(|w| w == me);
        let readers_ok = !write || self.readers.iter().all(|&r| r == me);
        writer_ok && readers_ok
    }
}

/// The table locks of all sessions.
#[derive(Default)]
pub struct TableLocks {
    held: Mutex<HashMap<(String, String), Holders>>,
    released: Condvar,
    /// Number of tables locked by anyone: zero lets [`check`] skip the mutex.
    count: AtomicUsize,
}

impl TableLocks {
    /// Take `tables` for connection `me`, waiting for other sessions' locks up to `timeout`.
    pub fn lock(&self, me: u32, tables: &[LockedTable], timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        let mut held = self.held.lock();
        loop {
            let free = tables.iter().all(|t| {
                held.get(&(t.db.clone(), t.table.clone()))
                    .is_none_or(|h| h.allows(me, t.write))
            });
            if free {
                break;
            }
            wait(&self.released, &mut held, deadline)?;
        }
        for t in tables {
            let h = held.entry((t.db.clone(), t.table.clone())).or_default();
            if h.writer.is_none() && h.readers.is_empty() {
                self.count.fetch_add(1, Ordering::SeqCst);
            }
            match t.write {
                true => h.writer = Some(me),
                false => h.readers.push(me),
            }
        }
        Ok(())
    }

    /// Release what connection `me` holds of `tables`.
    pub fn unlock(&self, me: u32, tables: &[LockedTable]) {
        let mut held = self.held.lock();
        for t in tables {
            let key = (t.db.clone(), t.table.clone());
            let Some(h) = held.get_mut(&key) else {
                continue;
            };
            if h.writer == Some(me) {
                h.writer = None;
            }
            h.readers.retain(|&r| r != me);
            if h.writer.is_none() && h.readers.is_empty() {
                held.remove(&key);
                self.count.fetch_sub(1, Ordering::SeqCst);
            }
        }
        self.released.notify_all();
    }

    /// Wait until connection `me` (which holds no table locks) may use `db.table`.
    fn wait_for(
        &self,
        me: u32,
        db: &str,
        table: &str,
        write: bool,
        timeout: Duration,
    ) -> Result<()> {
        if self.count.load(Ordering::SeqCst) == 0 {
            return Ok(());
        }
        let deadline = Instant::now() + timeout;
        let key = (db.to_string(), table.to_string());
        let mut held = self.held.lock();
        while !held.get(&key).is_none_or(|h| h.allows(me, write)) {
            wait(&self.released, &mut held, deadline)?;
        }
        Ok(())
    }
}

/// Sleep until some locks are released, `deadline` (1205) or a KILL (1317).
fn wait<T>(
    cv: &Condvar,
    guard: &mut parking_lot::MutexGuard<'_, T>,
    deadline: Instant,
) -> Result<()> {
    crate::interrupt::check()?;
    let now = Instant::now();
    if now >= deadline {
        return Err(Error::lock_wait_timeout());
    }
    // Woken by a release; a KILL is seen within one slice.
    let slice = (deadline - now).min(Duration::from_millis(50));
    cv.wait_for(guard, slice);
    Ok(())
}

/// May the statement of session `me` (its locks: `mine`) use `db.table` (`write`: change it)?
/// With table locks of its own: 1100 / 1099; without: wait for other sessions' locks.
pub fn check(
    locks: &TableLocks,
    me: u32,
    mine: Option<&[LockedTable]>,
    db: &str,
    table: &str,
    write: bool,
    timeout: Duration,
) -> Result<()> {
    let Some(mine) = mine else {
        return locks.wait_for(me, db, table, write, timeout);
    };
    match mine.iter().find(|t| t.db == db && t.table == table) {
        None => Err(Error::new(
            ErrorCode::TableNotLocked,
            format!("Table '{table}' was not locked with LOCK TABLES"),
        )),
        Some(t) if write && !t.write => Err(Error::new(
            ErrorCode::TableNotLockedForWrite,
            format!("Table '{table}' was locked with a READ lock and can't be updated"),
        )),
        Some(_) => Ok(()),
    }
}

/// The planner's hook: may this statement read (`write` false) or change `db.table`?
pub fn check_statement(
    ctx: &crate::session::ServerContext,
    sess: &crate::sql::SessView<'_>,
    db: &str,
    table: &str,
    write: bool,
) -> Result<()> {
    let mine = sess.locked_tables;
    if mine.is_none() && ctx.table_locks.count.load(Ordering::SeqCst) == 0 {
        return Ok(());
    }
    let secs = match sess.session_vars.get("lock_wait_timeout") {
        Some(crate::types::Value::UInt(n)) => *n,
        Some(crate::types::Value::Int(n)) => (*n).max(0) as u64,
        _ => ctx.vars.global_u64("lock_wait_timeout"),
    };
    let timeout = Duration::from_secs(secs.min(365 * 86400));
    check(
        &ctx.table_locks,
        sess.conn_id,
        mine,
        db,
        table,
        write,
        timeout,
    )
}

/// `LOCK TABLES`: commit, release the session's table locks, take the new ones.
pub fn lock_tables(
    ctx: &crate::session::ServerContext,
    sess: &mut crate::session::SessionState,
    tables: Vec<LockedTable>,
) -> Result<()> {
    sess.commit(ctx)?;
    unlock_tables(ctx, sess);
    for t in &tables {
        if ctx.engine.view(&t.db, &t.table).is_none() {
            ctx.engine.table(&t.db, &t.table)?;
        }
    }
    let secs = match sess.session_vars.get("lock_wait_timeout") {
        Some(crate::types::Value::UInt(n)) => *n,
        Some(crate::types::Value::Int(n)) => (*n).max(0) as u64,
        _ => ctx.vars.global_u64("lock_wait_timeout"),
    };
    let timeout = Duration::from_secs(secs.min(365 * 86400));
    ctx.table_locks.lock(sess.conn_id, &tables, timeout)?;
    sess.locked_tables = Some(tables);
    Ok(())
}

/// `UNLOCK TABLES` (and BEGIN, the end of the connection): release the session's table locks.
pub fn unlock_tables(ctx: &crate::session::ServerContext, sess: &mut crate::session::SessionState) {
    if let Some(tables) = sess.locked_tables.take() {
        ctx.table_locks.unlock(sess.conn_id, &tables);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(name: &str, write: bool) -> LockedTable {
        LockedTable {
            db: "d".into(),
            table: name.into(),
            write,
        }
    }

    #[test]
    fn read_locks_share_write_locks_exclude() {
        let locks = TableLocks::default();
        let short = Duration::from_millis(60);
        locks.lock(1, &[t("a", false)], short).unwrap();
        locks.lock(2, &[t("a", false)], short).unwrap();
        assert_eq!(
            locks.lock(3, &[t("a", true)], short).unwrap_err().code(),
            ErrorCode::LockWaitTimeout
        );
        // Readers of a READ-locked table go on; writers wait.
        assert!(check(&locks, 3, None, "d", "a", false, short).is_ok());
        assert!(check(&locks, 3, None, "d", "a", true, short).is_err());
        locks.unlock(1, &[t("a", false)]);
        locks.unlock(2, &[t("a", false)]);
        assert!(check(&locks, 3, None, "d", "a", true, short).is_ok());
        locks.lock(3, &[t("a", true)], short).unwrap();
        assert!(check(&locks, 4, None, "d", "a", false, short).is_err());
        // The holder itself: only its tables, and READ ones read-only.
        let mine = [t("a", true), t("b", false)];
        assert!(check(&locks, 3, Some(&mine), "d", "a", true, short).is_ok());
        let e = check(&locks, 3, Some(&mine), "d", "b", true, short).unwrap_err();
        assert_eq!(e.code(), ErrorCode::TableNotLockedForWrite);
        let e = check(&locks, 3, Some(&mine), "d", "c", false, short).unwrap_err();
        assert_eq!(e.code(), ErrorCode::TableNotLocked);
    }

    #[test]
    fn a_waiter_goes_on_when_the_lock_is_released() {
        let locks = std::sync::Arc::new(TableLocks::default());
        locks
            .lock(1, &[t("a", true)], Duration::from_secs(1))
            .unwrap();
        let l = locks.clone();
        let waiter = std::thread::spawn(move || {
            check(&l, 2, None, "d", "a", false, Duration::from_secs(30))
        });
        std::thread::sleep(Duration::from_millis(100));
        assert!(!waiter.is_finished());
        locks.unlock(1, &[t("a", true)]);
        assert!(waiter.join().unwrap().is_ok());
    }
}
