//! Interrupting a running statement: `KILL QUERY` / `KILL CONNECTION` / COM_PROCESS_KILL.
//!
//! Every connection owns a [`KillFlag`] (listed in the process list, see
//! [`crate::session::processlist`]). `KILL` sets it from another connection; the connection
//! running the statement looks at it only at its interruption points:
//!
//! * the start of each statement (a multi-statement query stops between statements);
//! * a lock wait ([`crate::storage`]: the killer also wakes the waiter's slot, so the wait
//!   ends at once with 1317 instead of at `innodb_lock_wait_timeout`);
//! * `SLEEP()` and `GET_LOCK()` waits ([`sleep`] wakes on the flag's condition variable);
//! * every batch of a consistent scan and every 256 entries of a locking scan (`storage::read`),
//!   so a long SELECT, UPDATE or DELETE ends with 1317 too.
//!
//! Commits are never an interruption point: a transaction handed to the commit pipeline is
//! made durable and acknowledged whatever the flag says, so a KILL never undoes a commit that
//! recovery would replay. A connection killed meanwhile is closed after its answer.
//!
//! The flag of the statement running on this thread is found through a thread-local set by
//! [`enter`] for the length of one command (schedulers run one command on one thread from its
//! start to its end). Lock order: the flag's mutex is a leaf.

use crate::error::{Error, Result};
use cohort_protocol::ErrorCode;
use parking_lot::{Condvar, Mutex};
use std::cell::RefCell;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a KILL asked of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kill {
    None,
    /// `KILL QUERY`: end the running statement with 1317.
    Query,
    /// `KILL [CONNECTION]`: end the running statement and close the connection.
    Connection,
}

/// One connection's kill request. The mutex protects the request; the condition variable
/// wakes an interruptible sleep ([`sleep`]).
#[derive(Debug)]
pub struct KillFlag {
    state: Mutex<Kill>,
    wake: Condvar,
}

impl Default for KillFlag {
    fn default() -> Self {
        KillFlag {
            state: Mutex::new(Kill::None),
            wake: Condvar::new(),
        }
    }
}

impl KillFlag {
    /// Ask for `kill` (a connection kill is never weakened into a query kill).
    pub fn request(&self, kill: Kill) {
        let mut s = self.state.lock();
        if *s != Kill::Connection {
            *s = kill;
        }
        self.wake.notify_all();
    }

    pub fn get(&self) -> Kill {
        *self.state.lock()
    }

    /// A new statement starts: a `KILL QUERY` aimed at the previous one is forgotten (as in
    /// MariaDB); a connection kill stays.
    pub fn clear_query(&self) {
        let mut s = self.state.lock();
        if *s == Kill::Query {
            *s = Kill::None;
        }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<KillFlag>>> = const { RefCell::new(None) };
    /// The `max_statement_time` deadline of the statement running on this thread (None: no
    /// limit, so a check point reads no clock).
    static DEADLINE: std::cell::Cell<Option<Instant>> = const { std::cell::Cell::new(None) };
}

/// Give the statement running on this thread a deadline (`max_statement_time`), or none.
/// Returns the previous one, to put back when the statement ends.
pub fn set_deadline(deadline: Option<Instant>) -> Option<Instant> {
    DEADLINE.with(|d| d.replace(deadline))
}

/// The deadline of the statement running on this thread, if it has one.
pub fn deadline() -> Option<Instant> {
    DEADLINE.with(|d| d.get())
}

/// Restores the previous deadline of this thread when dropped (see [`limit`]).
pub struct DeadlineGuard {
    previous: Option<Option<Instant>>,
}

impl Drop for DeadlineGuard {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            set_deadline(previous);
        }
    }
}

/// Give the statement about to run on this thread `micros` microseconds
/// (`max_statement_time`; 0: no limit, and no clock is read) until the guard is dropped.
pub fn limit(micros: u64) -> DeadlineGuard {
    if micros == 0 {
        return DeadlineGuard { previous: None };
    }
    let at = Instant::now() + Duration::from_micros(micros);
    DeadlineGuard {
        previous: Some(set_deadline(Some(at))),
    }
}

/// True once this thread's statement is past its deadline.
fn timed_out() -> bool {
    deadline().is_some_and(|d| Instant::now() >= d)
}

/// Restores the previous flag of this thread when dropped.
pub struct Entered {
    previous: Option<Arc<KillFlag>>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|c| *c.borrow_mut() = previous);
    }
}

/// Make `flag` the one this thread's statement answers to, until the guard is dropped.
pub fn enter(flag: Arc<KillFlag>) -> Entered {
    let previous = CURRENT.with(|c| c.borrow_mut().replace(flag));
    Entered { previous }
}

/// True if the statement running on this thread was killed.
pub fn requested() -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(|f| f.get() != Kill::None)) || timed_out()
}

fn killed() -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(|f| f.get() != Kill::None))
}

/// 1317 if the statement running on this thread was killed.
pub fn check() -> Result<()> {
    match requested() {
        true => Err(interrupted()),
        false => Ok(()),
    }
}

/// ER_QUERY_INTERRUPTED, or ER_STATEMENT_TIMEOUT (1969) when the statement was not killed but
/// ran past its `max_statement_time` deadline.
pub fn interrupted() -> Error {
    if !killed() && timed_out() {
        return Error::new(
            ErrorCode::StatementTimeout,
            "Query execution was interrupted (max_statement_time exceeded)",
        );
    }
    Error::new(
        ErrorCode::QueryInterrupted,
        "Query execution was interrupted",
    )
}

/// Sleep for `d`, or less if this thread's statement is killed meanwhile: returns false then.
pub fn sleep(d: Duration) -> bool {
    let wanted = Instant::now() + d;
    let (until, cut) = match deadline() {
        Some(stmt) if stmt < wanted => (stmt, true),
        _ => (wanted, false),
    };
    let Some(flag) = CURRENT.with(|c| c.borrow().clone()) else {
        std::thread::sleep(until.saturating_duration_since(Instant::now()));
        return !cut;
    };
    let mut s = flag.state.lock();
    while *s == Kill::None {
        if flag.wake.wait_until(&mut s, until).timed_out() {
            return *s == Kill::None && !cut;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kill_ends_a_sleep_early_and_a_query_kill_is_forgotten_at_the_next_statement() {
        let flag = Arc::new(KillFlag::default());
        let _in = enter(flag.clone());
        let killer = {
            let flag = flag.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                flag.request(Kill::Query);
            })
        };
        let began = Instant::now();
        assert!(!sleep(Duration::from_secs(30)));
        assert!(began.elapsed() < Duration::from_secs(10));
        killer.join().unwrap();
        assert_eq!(check().unwrap_err().code(), ErrorCode::QueryInterrupted);
        flag.clear_query();
        assert!(check().is_ok());
        flag.request(Kill::Connection);
        flag.request(Kill::Query);
        flag.clear_query();
        assert_eq!(flag.get(), Kill::Connection);
    }

    #[test]
    fn a_deadline_cuts_a_sleep_with_1969() {
        let flag = Arc::new(KillFlag::default());
        let _in = enter(flag);
        let prev = set_deadline(Some(Instant::now() + Duration::from_millis(50)));
        let began = Instant::now();
        assert!(!sleep(Duration::from_secs(30)));
        assert!(began.elapsed() < Duration::from_secs(10));
        assert_eq!(check().unwrap_err().code(), ErrorCode::StatementTimeout);
        set_deadline(prev);
        assert!(check().is_ok());
    }

    #[test]
    fn without_a_kill_a_sleep_lasts() {
        let flag = Arc::new(KillFlag::default());
        let _in = enter(flag);
        let began = Instant::now();
        assert!(sleep(Duration::from_millis(30)));
        assert!(began.elapsed() >= Duration::from_millis(30));
    }
}
