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
//!   let _w = wait::begin(WaitEvent::RowLock);   // observer.wait_begin(); start timer
//!   condvar.wait_for(...);                       // the blocking call itself
//!   drop(_w);                                    // observer.wait_end(); record elapsed time
//! ```
//!
//! The counters are per event, lock-free (relaxed atomics): a wait is recorded after it ended,
//! so the cost is one clock read at each end and four atomic updates.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

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
    /// Waiting at the admission gate (`thread_concurrency`).
    Admission,
    /// Waiting to join a forming commit group (`binlog_commit_wait_usec`).
    GroupCommitWait,
}

impl WaitEvent {
    pub const ALL: [WaitEvent; 6] = [
        WaitEvent::RowLock,
        WaitEvent::CommitDone,
        WaitEvent::RedoSync,
        WaitEvent::BinlogSync,
        WaitEvent::Admission,
        WaitEvent::GroupCommitWait,
    ];

    pub fn name(self) -> &'static str {
        match self {
            WaitEvent::RowLock => "wait/lock/table/cohort/row_lock",
            WaitEvent::CommitDone => "wait/synch/cond/cohort/commit_done",
            WaitEvent::RedoSync => "wait/io/file/cohort/redo_sync",
            WaitEvent::BinlogSync => "wait/io/file/cohort/binlog_sync",
            WaitEvent::Admission => "wait/synch/cond/cohort/admission",
            WaitEvent::GroupCommitWait => "wait/synch/cond/cohort/group_commit_wait",
        }
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

static STATS: [EventStats; WaitEvent::ALL.len()] = [
    EventStats::new(),
    EventStats::new(),
    EventStats::new(),
    EventStats::new(),
    EventStats::new(),
    EventStats::new(),
];

/// `performance_schema`: when off, waits are not timed (the scheduler is still told).
static ENABLED: AtomicBool = AtomicBool::new(true);

pub fn set_enabled(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// A wait in progress; dropping it ends the wait.
#[must_use = "the wait ends when the guard is dropped"]
pub struct WaitGuard {
    event: WaitEvent,
    start: Option<Instant>,
}

/// Announce that the current thread is about to block on `event`.
pub fn begin(event: WaitEvent) -> WaitGuard {
    OBSERVER.with(|o| {
        if let Some(obs) = o.borrow().as_ref() {
            obs.wait_begin(event)
        }
    });
    let start = enabled().then(Instant::now);
    WaitGuard { event, start }
}

impl Drop for WaitGuard {
    fn drop(&mut self) {
        if let Some(start) = self.start {
            record(self.event, start.elapsed().as_nanos() as u64);
        }
        OBSERVER.with(|o| {
            if let Some(obs) = o.borrow().as_ref() {
                obs.wait_end(self.event)
            }
        });
    }
}

/// Record a completed wait of `ns` nanoseconds.
pub fn record(event: WaitEvent, ns: u64) {
    let s = &STATS[event.index()];
    s.count.fetch_add(1, Ordering::Relaxed);
    s.sum_ns.fetch_add(ns, Ordering::Relaxed);
    s.min_ns.fetch_min(ns, Ordering::Relaxed);
    s.max_ns.fetch_max(ns, Ordering::Relaxed);
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

/// The current summary, one row per event.
pub fn summary() -> Vec<WaitSummaryRow> {
    WaitEvent::ALL
        .iter()
        .map(|&e| {
            let s = &STATS[e.index()];
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

/// `TRUNCATE TABLE performance_schema.events_waits_summary_global_by_event_name`.
pub fn reset() {
    for s in &STATS {
        s.count.store(0, Ordering::Relaxed);
        s.sum_ns.store(0, Ordering::Relaxed);
        s.min_ns.store(u64::MAX, Ordering::Relaxed);
        s.max_ns.store(0, Ordering::Relaxed);
    }
}
