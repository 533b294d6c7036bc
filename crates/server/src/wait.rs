//! The one wait API. Every blocking wait in the server goes through [`begin`].
//!
//! A wait has two audiences:
//!
//! 1. **The scheduler.** A pool of threads must know when one of its workers is about to block
//!    (on a row lock, the admission gate, a commit, a log sync) so that it can wake or create
//!    another worker for the same thread group; and when the wait ends. The scheduler installs a
//!    [`WaitObserver`] for the current thread with [`set_thread_observer`]; thread-per-connection
//!    installs none.
//! 2. **The wait summary.** Each wait is timed and counted under its [`WaitEvent`] name, the
//!    rows of `performance_schema.events_waits_summary_global_by_event_name`.
//!
//! ```text
//!   let _w = wait::begin(WaitEvent::RowLock);   // leave the admission gate; observer.wait_begin(); start timer
//!   condvar.wait_for(...);                       // the blocking call itself
//!   drop(_w);                                    // record elapsed time; observer.wait_end(); back into the gate
//! ```
//!
//! Three kinds of instruments feed the summary:
//!
//! - **Waits** ([`begin`]): the long waits a scheduler must hear about — row locks, commit
//!   completion, log syncs, the admission gate. A wait that is not engine work
//!   ([`WaitEvent::leaves_admission`]) also gives up the session's admission slot for its
//!   duration (InnoDB's `srv_conc_force_exit_innodb` around lock waits), see
//!   [`crate::sched::admission`].
//! - **Mutexes** ([`Mutex`]): a `parking_lot` mutex that times only *contended* acquisitions.
//!   `lock()` first tries the lock; only when that fails does it read the clock, block, and
//!   record. The uncontended cost is one `try_lock`, the same compare-and-swap `lock()` does.
//!   [`ParkingMutex`] is the same for a lock that may be held through an fsync: a contended
//!   acquisition sleeps at once instead of spinning with `sched_yield`.
//! - **Condition variables** ([`Condvar`]): each sleep on the condvar is one event.
//!
//! Mutex and condvar events are summary-only: they are not announced to the scheduler (they are
//! short, or already inside a [`begin`] wait, as `COND_done` sleeps are inside `commit_done`).
//!
//! # Where the counters live
//!
//! Counters are per event, lock-free (relaxed atomics): a wait is recorded after it ended, so the
//! cost is one clock read at each end and two atomic adds (four when a new extreme is seen).
//! They belong to a [`WaitStats`]: the process-wide one ([`global_stats`]) unless the thread
//! was bound to another with [`bind_thread_stats`] — used when several servers share one
//! process (tests), so that one server's `TRUNCATE` or `performance_schema = OFF` does not
//! touch another's summary. `performance_schema = OFF` stops the timing (waits are still told
//! to the scheduler).

use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

/// Every named wait of the server. The name is the performance-schema event name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitEvent {
    /// Waiting for another transaction's row lock.
    RowLock,
    /// Waiting for the commit pipeline to make one's commit durable and visible.
    CommitDone,
    /// An fsync of the redo log.
    RedoSync,
    /// An fsync of the binary log.
    BinlogSync,
    /// Waiting at the admission gate (`innodb_thread_concurrency`).
    Admission,
    /// Waiting to join a forming commit group (`binlog_commit_wait_usec`).
    GroupCommitWait,
    /// The log mutex, held by a group leader through write and sync (`LOCK_log`).
    LockLog,
    /// The commit queue's mutex (enqueue, take the group).
    CommitQueue,
    /// A group leader parked until the previous group's engine commits are done.
    CommitTurn,
    /// The commit turnstile's map of parked leaders.
    CommitTurnLock,
    /// Broadcast wakeups: the one mutex all commit waiters share (`LOCK_done`).
    LockDone,
    /// Broadcast wakeups: one sleep on the shared condition variable (`COND_done`).
    CondDone,
    /// Targeted wakeups: a commit ticket's own mutex.
    TicketLock,
    /// Targeted wakeups: one sleep on a commit ticket's own condition variable.
    TicketCond,
    /// The mutex leaders and arrivals share while a leader gathers a group.
    GatherLock,
    /// The redo log's append mutex.
    RedoLog,
    /// One row's slot mutex (its versions and lock owner).
    RowSlot,
    /// The engine's waits-for graph (deadlock detection).
    LockWaitGraph,
    /// The admission gate's FIFO queue mutex.
    AdmissionQueue,
    /// The flush stage (classic mode, `log_flush_placement = group`), held by a leader
    /// through its group's redo sync.
    FlushStage,
    /// An insert waiting for another transaction's gap lock (an insert intention).
    GapLock,
    /// One index's gap-lock list mutex.
    GapLocks,
    /// The DDL lock: one DDL statement from its effect to its logged outcome, or one
    /// checkpoint's snapshot, at a time.
    DdlLock,
    /// A transaction waiting for a DDL statement's metadata lock on a table, or a DDL
    /// statement waiting for the transactions that use it (`storage/mdl.rs`).
    MetadataLock,
}

impl WaitEvent {
    pub const ALL: [WaitEvent; 24] = [
        WaitEvent::RowLock,
        WaitEvent::CommitDone,
        WaitEvent::RedoSync,
        WaitEvent::BinlogSync,
        WaitEvent::Admission,
        WaitEvent::GroupCommitWait,
        WaitEvent::LockLog,
        WaitEvent::CommitQueue,
        WaitEvent::CommitTurn,
        WaitEvent::CommitTurnLock,
        WaitEvent::LockDone,
        WaitEvent::CondDone,
        WaitEvent::TicketLock,
        WaitEvent::TicketCond,
        WaitEvent::GatherLock,
        WaitEvent::RedoLog,
        WaitEvent::RowSlot,
        WaitEvent::LockWaitGraph,
        WaitEvent::AdmissionQueue,
        WaitEvent::FlushStage,
        WaitEvent::GapLock,
        WaitEvent::GapLocks,
        WaitEvent::DdlLock,
        WaitEvent::MetadataLock,
    ];

    pub fn name(self) -> &'static str {
        match self {
            WaitEvent::RowLock => "wait/lock/table/cohort/row_lock",
            WaitEvent::CommitDone => "wait/synch/cond/cohort/commit_done",
            WaitEvent::RedoSync => "wait/io/file/cohort/redo_sync",
            WaitEvent::BinlogSync => "wait/io/file/cohort/binlog_sync",
            WaitEvent::Admission => "wait/synch/cond/cohort/admission",
            WaitEvent::GroupCommitWait => "wait/synch/cond/cohort/group_commit_wait",
            WaitEvent::LockLog => "wait/synch/mutex/cohort/LOCK_log",
            WaitEvent::CommitQueue => "wait/synch/mutex/cohort/commit_queue",
            WaitEvent::CommitTurn => "wait/synch/cond/cohort/commit_turn",
            WaitEvent::CommitTurnLock => "wait/synch/mutex/cohort/commit_turn",
            WaitEvent::LockDone => "wait/synch/mutex/cohort/LOCK_done",
            WaitEvent::CondDone => "wait/synch/cond/cohort/COND_done",
            WaitEvent::TicketLock => "wait/synch/mutex/cohort/commit_ticket",
            WaitEvent::TicketCond => "wait/synch/cond/cohort/commit_ticket",
            WaitEvent::GatherLock => "wait/synch/mutex/cohort/commit_gather",
            WaitEvent::RedoLog => "wait/synch/mutex/cohort/redo_log",
            WaitEvent::RowSlot => "wait/synch/mutex/cohort/row_slot",
            WaitEvent::LockWaitGraph => "wait/synch/mutex/cohort/lock_wait_graph",
            WaitEvent::AdmissionQueue => "wait/synch/mutex/cohort/admission_queue",
            WaitEvent::FlushStage => "wait/synch/mutex/cohort/flush_stage",
            WaitEvent::GapLock => "wait/lock/table/cohort/gap_lock",
            WaitEvent::GapLocks => "wait/synch/mutex/cohort/gap_locks",
            WaitEvent::DdlLock => "wait/synch/mutex/cohort/ddl_lock",
            WaitEvent::MetadataLock => "wait/lock/metadata/sql/mdl",
        }
    }

    /// True for waits that are not engine work: a session gives its admission slot back for
    /// their duration, so that it does not keep others out while it sleeps.
    pub fn leaves_admission(self) -> bool {
        matches!(
            self,
            WaitEvent::RowLock
                | WaitEvent::GapLock
                | WaitEvent::MetadataLock
                | WaitEvent::CommitDone
                | WaitEvent::CommitTurn
                | WaitEvent::GroupCommitWait
                | WaitEvent::RedoSync
                | WaitEvent::BinlogSync
        )
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// What a scheduler learns about the waits of its worker threads.
pub trait WaitObserver: Send + Sync {
    fn wait_begin(&self, event: WaitEvent);
    fn wait_end(&self, event: WaitEvent);
}

thread_local! {
    static OBSERVER: RefCell<Option<Arc<dyn WaitObserver>>> = const { RefCell::new(None) };
}

/// Install (or clear) the observer for waits made on the current thread.
pub fn set_thread_observer(observer: Option<Arc<dyn WaitObserver>>) {
    OBSERVER.with(|o| *o.borrow_mut() = observer);
}

// ---------------------------------------------------------------------------------------------
// Counters

/// Summary counters of one event. All fields are updated with relaxed atomics.
struct EventStats {
    count: AtomicU64,
    sum_ns: AtomicU64,
    min_ns: AtomicU64,
    max_ns: AtomicU64,
}

impl EventStats {
    const fn new() -> Self {
        EventStats {
            count: AtomicU64::new(0),
            sum_ns: AtomicU64::new(0),
            min_ns: AtomicU64::new(u64::MAX),
            max_ns: AtomicU64::new(0),
        }
    }
}

/// One summary: a counter set per event, and the `performance_schema` switch.
pub struct WaitStats {
    /// `performance_schema`: when off, nothing is timed and the summary reads empty.
    enabled: AtomicBool,
    events: [EventStats; WaitEvent::ALL.len()],
}

impl Default for WaitStats {
    fn default() -> Self {
        Self::new()
    }
}

impl WaitStats {
    pub const fn new() -> WaitStats {
        WaitStats {
            enabled: AtomicBool::new(true),
            events: [const { EventStats::new() }; WaitEvent::ALL.len()],
        }
    }

    pub fn set_enabled(&self, on: bool) {
        self.enabled.store(on, Ordering::Relaxed);
    }

    pub fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// Record a completed wait of `ns` nanoseconds. The extremes are written only when they
    /// move (a plain load first), so most records cost two atomic adds.
    pub fn record(&self, event: WaitEvent, ns: u64) {
        let s = &self.events[event.index()];
        s.count.fetch_add(1, Ordering::Relaxed);
        s.sum_ns.fetch_add(ns, Ordering::Relaxed);
        if ns < s.min_ns.load(Ordering::Relaxed) {
            s.min_ns.fetch_min(ns, Ordering::Relaxed);
        }
        if ns > s.max_ns.load(Ordering::Relaxed) {
            s.max_ns.fetch_max(ns, Ordering::Relaxed);
        }
    }

    /// The current summary, one row per event (all of them, waited for or not, as MySQL
    /// lists every instrument).
    pub fn summary(&self) -> Vec<WaitSummaryRow> {
        WaitEvent::ALL
            .iter()
            .map(|&e| {
                let s = &self.events[e.index()];
                let count = s.count.load(Ordering::Relaxed);
                let sum = s.sum_ns.load(Ordering::Relaxed).saturating_mul(1000);
                let min = match s.min_ns.load(Ordering::Relaxed) {
                    u64::MAX => 0,
                    v => v.saturating_mul(1000),
                };
                WaitSummaryRow {
                    event_name: e.name(),
                    count_star: count,
                    sum_timer_wait: sum,
                    min_timer_wait: min,
                    avg_timer_wait: sum.checked_div(count).unwrap_or(0),
                    max_timer_wait: s.max_ns.load(Ordering::Relaxed).saturating_mul(1000),
                }
            })
            .collect()
    }

    /// `TRUNCATE TABLE performance_schema.events_waits_summary_global_by_event_name`: every
    /// counter back to zero (the rows stay).
    pub fn reset(&self) {
        for s in &self.events {
            s.count.store(0, Ordering::Relaxed);
            s.sum_ns.store(0, Ordering::Relaxed);
            s.min_ns.store(u64::MAX, Ordering::Relaxed);
            s.max_ns.store(0, Ordering::Relaxed);
        }
    }
}

static GLOBAL: LazyLock<Arc<WaitStats>> = LazyLock::new(|| Arc::new(WaitStats::new()));

thread_local! {
    /// The summary this thread records into; None = the process-wide one.
    static BOUND: RefCell<Option<Arc<WaitStats>>> = const { RefCell::new(None) };
}

/// The process-wide summary (what a server uses unless it is one of several in a process).
pub fn global_stats() -> Arc<WaitStats> {
    GLOBAL.clone()
}

/// Make the current thread record into `stats` (None: the process-wide summary) until the
/// returned guard is dropped, which restores the previous binding.
pub fn bind_thread_stats(stats: Option<Arc<WaitStats>>) -> StatsBinding {
    let previous = BOUND.with(|b| std::mem::replace(&mut *b.borrow_mut(), stats));
    StatsBinding { previous }
}

/// Restores a thread's previous summary binding when dropped.
#[must_use = "the binding ends when the guard is dropped"]
pub struct StatsBinding {
    previous: Option<Arc<WaitStats>>,
}

impl Drop for StatsBinding {
    fn drop(&mut self) {
        let prev = self.previous.take();
        BOUND.with(|b| *b.borrow_mut() = prev);
    }
}

/// Run `f` on the summary of the current thread.
fn with_stats<R>(f: impl FnOnce(&WaitStats) -> R) -> R {
    BOUND.with(|b| match &*b.borrow() {
        Some(s) => f(s),
        None => f(&GLOBAL),
    })
}

/// Switch timing on or off for the current thread's summary.
pub fn set_enabled(on: bool) {
    with_stats(|s| s.set_enabled(on))
}

pub fn enabled() -> bool {
    with_stats(|s| s.enabled())
}

/// Record a completed wait of `ns` nanoseconds in the current thread's summary.
pub fn record(event: WaitEvent, ns: u64) {
    with_stats(|s| s.record(event, ns))
}

/// The current thread's summary, one row per event.
pub fn summary() -> Vec<WaitSummaryRow> {
    with_stats(|s| s.summary())
}

/// Reset the current thread's summary.
pub fn reset() {
    with_stats(|s| s.reset())
}

fn record_since(event: WaitEvent, start: Instant) {
    record(event, duration_ns(start.elapsed()));
}

fn duration_ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// One row of the wait summary, times in picoseconds as performance_schema reports them.
#[derive(Clone, Debug, PartialEq)]
pub struct WaitSummaryRow {
    pub event_name: &'static str,
    pub count_star: u64,
    pub sum_timer_wait: u64,
    pub min_timer_wait: u64,
    pub avg_timer_wait: u64,
    pub max_timer_wait: u64,
}

// ---------------------------------------------------------------------------------------------
// Waits

/// A wait in progress; dropping it ends the wait.
#[must_use = "the wait ends when the guard is dropped"]
pub struct WaitGuard {
    event: WaitEvent,
    start: Option<Instant>,
    /// The session gave its admission slot back for this wait and re-enters when it ends.
    left_gate: bool,
}

/// Announce that the current thread is about to block on `event`.
pub fn begin(event: WaitEvent) -> WaitGuard {
    let left_gate = event.leaves_admission() && crate::sched::admission::step_out();
    OBSERVER.with(|o| {
        if let Some(obs) = o.borrow().as_ref() {
            obs.wait_begin(event)
        }
    });
    let start = enabled().then(Instant::now);
    WaitGuard {
        event,
        start,
        left_gate,
    }
}

impl Drop for WaitGuard {
    fn drop(&mut self) {
        if let Some(start) = self.start {
            record_since(self.event, start);
        }
        OBSERVER.with(|o| {
            if let Some(obs) = o.borrow().as_ref() {
                obs.wait_end(self.event)
            }
        });
        if self.left_gate {
            crate::sched::admission::step_back_in();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Instrumented mutexes and condition variables

/// Names the event of an instrumented [`Mutex`] or [`Condvar`] at the type level, so that the
/// wrapper costs no memory and is built with the same `new(value)` as the mutex it replaces.
pub trait Instrument {
    const EVENT: WaitEvent;
}

/// Marker types naming the instrumented locks (`wait::Mutex<LogState, ev::LockLog>`).
pub mod ev {
    use super::{Instrument, WaitEvent};

    macro_rules! instruments {
        ($($marker:ident),* $(,)?) => {
            $(
                #[doc = concat!("Instrument marker for [`WaitEvent::", stringify!($marker), "`].")]
                pub struct $marker;
                impl Instrument for $marker {
                    const EVENT: WaitEvent = WaitEvent::$marker;
                }
            )*
        };
    }

    instruments!(
        RedoSync,
        LockLog,
        CommitQueue,
        CommitTurnLock,
        LockDone,
        CondDone,
        TicketLock,
        TicketCond,
        GatherLock,
        RedoLog,
        RowSlot,
        LockWaitGraph,
        AdmissionQueue,
        FlushStage,
        GapLocks,
        DdlLock,
    );
}

/// A `parking_lot` mutex whose contended acquisitions are timed under `E::EVENT`. The guard is
/// `parking_lot`'s own, so `parking_lot::Condvar` and `MutexGuard::unlocked` work unchanged.
pub struct Mutex<T, E: Instrument> {
    inner: parking_lot::Mutex<T>,
    event: PhantomData<fn() -> E>,
}

impl<T, E: Instrument> Mutex<T, E> {
    pub const fn new(value: T) -> Self {
        Mutex {
            inner: parking_lot::Mutex::new(value),
            event: PhantomData,
        }
    }

    /// Lock; only a lock that is taken when we arrive costs a clock read and a record.
    #[inline]
    pub fn lock(&self) -> parking_lot::MutexGuard<'_, T> {
        match self.inner.try_lock() {
            Some(g) => g,
            None => self.lock_contended(),
        }
    }

    #[cold]
    fn lock_contended(&self) -> parking_lot::MutexGuard<'_, T> {
        if !enabled() {
            return self.inner.lock();
        }
        let start = Instant::now();
        let g = self.inner.lock();
        record_since(E::EVENT, start);
        g
    }

    /// Lock a mutex that may be held for long (through an fsync): a contended acquisition is
    /// a blocking wait, announced like any other ([`begin`]), so that a pool worker blocked
    /// here lets its group run another connection.
    #[inline]
    pub fn lock_blocking(&self) -> parking_lot::MutexGuard<'_, T> {
        match self.inner.try_lock() {
            Some(g) => g,
            None => {
                let _wait = begin(E::EVENT);
                self.inner.lock()
            }
        }
    }

    pub fn try_lock(&self) -> Option<parking_lot::MutexGuard<'_, T>> {
        self.inner.try_lock()
    }

    pub fn get_mut(&mut self) -> &mut T {
        self.inner.get_mut()
    }

    pub fn into_inner(self) -> T {
        self.inner.into_inner()
    }
}

impl<T: Default, E: Instrument> Default for Mutex<T, E> {
    fn default() -> Self {
        Mutex::new(T::default())
    }
}

impl<T, E: Instrument> std::fmt::Debug for Mutex<T, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mutex({})", E::EVENT.name())
    }
}

/// A mutex for the locks a waiter holds out for *long* (a group leader's write and fsync), timed
/// like [`Mutex`]. A contended [`lock_blocking`](Self::lock_blocking) sleeps in the kernel at
/// once.
///
/// Why not [`Mutex`]: a contended `parking_lot` lock spins before it parks, and past its third
/// round each round is a `sched_yield` (seven of them). That pays off when the holder is about
/// to let go; when it holds the lock through an fsync (milliseconds) the waiter burns seven
/// system calls and as many trips through the scheduler for nothing. Under TPC-C on the pool of
/// threads the next group leader waiting for the log mutex made half of all the server's
/// `sched_yield`s. `std::sync::Mutex` (a futex on Linux) spins only on the lock word, without
/// system calls, then sleeps until the holder wakes it. Its poisoning is not used: a panic
/// while holding the lock leaves the state as `parking_lot` would, so the guard is taken back.
pub struct ParkingMutex<T, E: Instrument> {
    inner: std::sync::Mutex<T>,
    event: PhantomData<fn() -> E>,
}

impl<T, E: Instrument> ParkingMutex<T, E> {
    pub const fn new(value: T) -> Self {
        ParkingMutex {
            inner: std::sync::Mutex::new(value),
            event: PhantomData,
        }
    }

    /// Lock; a contended acquisition is timed under `E::EVENT` (a summary-only event, as
    /// [`Mutex::lock`]).
    pub fn lock(&self) -> std::sync::MutexGuard<'_, T> {
        if let Some(g) = self.try_lock() {
            return g;
        }
        let start = enabled().then(Instant::now);
        let g = self.lock_unpoisoned();
        if let Some(s) = start {
            record_since(E::EVENT, s);
        }
        g
    }

    /// Lock; a contended acquisition is a blocking wait, announced like any other ([`begin`]),
    /// so that a pool worker blocked here lets its group run another connection.
    pub fn lock_blocking(&self) -> std::sync::MutexGuard<'_, T> {
        if let Some(g) = self.try_lock() {
            return g;
        }
        let _wait = begin(E::EVENT);
        self.lock_unpoisoned()
    }

    pub fn try_lock(&self) -> Option<std::sync::MutexGuard<'_, T>> {
        match self.inner.try_lock() {
            Ok(g) => Some(g),
            Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    fn lock_unpoisoned(&self) -> std::sync::MutexGuard<'_, T> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl<T, E: Instrument> std::fmt::Debug for ParkingMutex<T, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ParkingMutex({})", E::EVENT.name())
    }
}

/// A `parking_lot` condition variable; each sleep on it is one `E::EVENT` wait.
pub struct Condvar<E: Instrument> {
    inner: parking_lot::Condvar,
    event: PhantomData<fn() -> E>,
}

impl<E: Instrument> Default for Condvar<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Instrument> Condvar<E> {
    pub const fn new() -> Self {
        Condvar {
            inner: parking_lot::Condvar::new(),
            event: PhantomData,
        }
    }

    pub fn notify_one(&self) -> bool {
        self.inner.notify_one()
    }

    pub fn notify_all(&self) -> usize {
        self.inner.notify_all()
    }

    pub fn wait<T>(&self, guard: &mut parking_lot::MutexGuard<'_, T>) {
        let start = enabled().then(Instant::now);
        self.inner.wait(guard);
        if let Some(s) = start {
            record_since(E::EVENT, s);
        }
    }

    pub fn wait_for<T>(
        &self,
        guard: &mut parking_lot::MutexGuard<'_, T>,
        timeout: Duration,
    ) -> parking_lot::WaitTimeoutResult {
        let start = enabled().then(Instant::now);
        let r = self.inner.wait_for(guard, timeout);
        if let Some(s) = start {
            record_since(E::EVENT, s);
        }
        r
    }

    pub fn wait_until<T>(
        &self,
        guard: &mut parking_lot::MutexGuard<'_, T>,
        deadline: Instant,
    ) -> parking_lot::WaitTimeoutResult {
        let start = enabled().then(Instant::now);
        let r = self.inner.wait_until(guard, deadline);
        if let Some(s) = start {
            record_since(E::EVENT, s);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(stats: &WaitStats, e: WaitEvent) -> u64 {
        stats
            .summary()
            .iter()
            .find(|r| r.event_name == e.name())
            .unwrap()
            .count_star
    }

    #[test]
    fn event_names_are_unique_and_indexes_match() {
        for (i, e) in WaitEvent::ALL.iter().enumerate() {
            assert_eq!(e.index(), i, "{e:?}");
        }
        let mut names: Vec<_> = WaitEvent::ALL.iter().map(|e| e.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), WaitEvent::ALL.len());
    }

    /// Counts the waits announced on its thread.
    struct CountingObserver(AtomicU64, AtomicU64);

    impl WaitObserver for CountingObserver {
        fn wait_begin(&self, _event: WaitEvent) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
        fn wait_end(&self, _event: WaitEvent) {
            self.1.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn a_contended_blocking_lock_is_announced_to_the_scheduler() {
        let m: Arc<Mutex<u32, ev::LockLog>> = Arc::new(Mutex::new(0));
        let obs = Arc::new(CountingObserver(AtomicU64::new(0), AtomicU64::new(0)));
        let begun =
            |o: &CountingObserver| (o.0.load(Ordering::Relaxed), o.1.load(Ordering::Relaxed));
        set_thread_observer(Some(obs.clone()));
        *m.lock_blocking() += 1;
        assert_eq!(begun(&obs), (0, 0), "uncontended: nothing to announce");
        let held = m.lock();
        let (m2, o2) = (m.clone(), obs.clone());
        let h = std::thread::spawn(move || {
            set_thread_observer(Some(o2));
            *m2.lock_blocking() += 1;
        });
        let deadline = Instant::now() + Duration::from_secs(5);
        while begun(&obs).0 == 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(
            begun(&obs),
            (1, 0),
            "blocked: the wait has begun, not ended"
        );
        drop(held);
        h.join().unwrap();
        set_thread_observer(None);
        assert_eq!(begun(&obs), (1, 1));
        assert_eq!(*m.lock(), 2);
    }

    #[test]
    fn only_contended_mutex_acquisitions_are_recorded() {
        let stats = Arc::new(WaitStats::new());
        let _bind = bind_thread_stats(Some(stats.clone()));
        let m: Arc<Mutex<u32, ev::LockLog>> = Arc::new(Mutex::new(0));
        for _ in 0..100 {
            *m.lock() += 1;
        }
        assert_eq!(
            count(&stats, WaitEvent::LockLog),
            0,
            "uncontended: no record"
        );
        let held = m.lock();
        let (m2, s2) = (m.clone(), stats.clone());
        let h = std::thread::spawn(move || {
            let _bind = bind_thread_stats(Some(s2));
            *m2.lock() += 1;
        });
        std::thread::sleep(Duration::from_millis(30));
        drop(held);
        h.join().unwrap();
        assert_eq!(*m.lock(), 101);
        let row = stats
            .summary()
            .into_iter()
            .find(|r| r.event_name == "wait/synch/mutex/cohort/LOCK_log")
            .unwrap();
        assert_eq!(row.count_star, 1);
        assert!(
            row.min_timer_wait >= 10_000_000_000,
            "waited ≥ 10 ms: {row:?}"
        );
        assert_eq!(row.min_timer_wait, row.max_timer_wait);
        assert_eq!(row.sum_timer_wait, row.avg_timer_wait);
    }

    #[test]
    fn binding_isolates_summaries_and_the_switch() {
        let a = Arc::new(WaitStats::new());
        let b = bind_thread_stats(Some(a.clone()));
        drop(begin(WaitEvent::GroupCommitWait));
        assert_eq!(count(&a, WaitEvent::GroupCommitWait), 1);
        set_enabled(false);
        drop(begin(WaitEvent::GroupCommitWait));
        assert_eq!(count(&a, WaitEvent::GroupCommitWait), 1, "OFF: not timed");
        assert!(
            global_stats().enabled(),
            "the process-wide switch is untouched"
        );
        reset();
        assert_eq!(count(&a, WaitEvent::GroupCommitWait), 0);
        drop(b);
        let before = count(&global_stats(), WaitEvent::GroupCommitWait);
        drop(begin(WaitEvent::GroupCommitWait));
        assert!(count(&global_stats(), WaitEvent::GroupCommitWait) > before);
        assert_eq!(count(&a, WaitEvent::GroupCommitWait), 0);
    }

    #[test]
    fn condvar_sleeps_are_counted() {
        let stats = Arc::new(WaitStats::new());
        let _bind = bind_thread_stats(Some(stats.clone()));
        let m: Mutex<(), ev::LockDone> = Mutex::new(());
        let cv: Condvar<ev::CondDone> = Condvar::new();
        let mut g = m.lock();
        for _ in 0..3 {
            cv.wait_for(&mut g, Duration::from_millis(1));
        }
        assert_eq!(count(&stats, WaitEvent::CondDone), 3);
    }
}
