//! Semi-synchronous replication: a commit group's clients are answered only once a replica
//! has acknowledged receiving the group (MariaDB's `rpl_semi_sync_master_*`).
//!
//! # The wait point
//!
//! `rpl_semi_sync_master_wait_point = AFTER_SYNC` (Cohort's default): the group is written
//! and synced (its commit point), then it *waits* before its engine commit. Nobody can read
//! its changes, and nobody is told it committed, until a replica has it: if the primary's
//! machine is lost, every commit a client saw is on the replica, and nothing any other client
//! read is missing there. `AFTER_COMMIT` (MariaDB's default) commits in the engine first and
//! holds only the answers: other clients may read changes the replica lacks.
//!
//! ```text
//!  leader: write ─ sync ─► Tracker::enqueue(group end) ─► returns (no thread waits)
//!  dump thread: sends the group, asks for an ack on its last event ─► replica
//!  replica ─ ack(file, pos) ─► ack reader thread ─► Tracker::ack ─► groups ending ≤ pos:
//!        AFTER_SYNC: engine commit in log order, then complete every ticket
//!        AFTER_COMMIT: complete every ticket (committed by the leader already)
//!  timer thread: oldest group waited rpl_semi_sync_master_timeout ms ─► status OFF, release all
//! ```
//!
//! One acknowledgement covers every group that ends at or before its position. Waiting holds
//! no thread: the leader registers the group and returns, the members' tickets are completed
//! later by whoever releases the group (as the pipeline's deferred completion does for the
//! fsync) — the ack reader of the replica, or the timer.
//!
//! # Status and fallback
//!
//! The tracker is *on* while `rpl_semi_sync_master_enabled` and no timeout has switched it
//! off. When the oldest waiting group times out it switches off (`Rpl_semi_sync_master_no_times`),
//! releases every waiting group unacknowledged (`Rpl_semi_sync_master_no_tx`), and later
//! groups do not wait. It switches on again when a replica acknowledges the end of the last
//! group written (it has caught up). With no semi-sync replica connected, groups wait (and time
//! out) if `rpl_semi_sync_master_wait_no_slave = ON`, else the tracker switches off at once.
//!
//! Groups are registered under the log mutex, so the queue is in log order; an ack that came
//! before a group registered (the dump thread may send a group as soon as it is synced) is
//! remembered (`acked`), and such a group is released as it registers.
//!
//! Locking: one mutex over the queue and the status; released groups are handed back to the
//! caller and processed outside it. Counters are relaxed atomics.

use super::binlog::LogPosition;
use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// The settings a leader reads per group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    pub enabled: bool,
    pub timeout: Duration,
    pub wait_no_slave: bool,
    /// AFTER_SYNC (true) or AFTER_COMMIT.
    pub after_sync: bool,
}

impl Settings {
    pub fn read(vars: &crate::vars::SystemVariables) -> Settings {
        Settings {
            enabled: vars.global_bool("rpl_semi_sync_master_enabled"),
            timeout: Duration::from_millis(vars.global_u64("rpl_semi_sync_master_timeout")),
            wait_no_slave: vars.global_bool("rpl_semi_sync_master_wait_no_slave"),
            after_sync: vars.global("rpl_semi_sync_master_wait_point")
                != Some(crate::types::Value::str("AFTER_COMMIT")),
        }
    }
}

/// One group waiting for an acknowledgement.
struct Waiting<T> {
    end: LogPosition,
    txns: u64,
    since: Instant,
    deadline: Instant,
    payload: T,
}

struct Inner<T> {
    /// Switched off by a timeout (or by no replica, without `wait_no_slave`).
    off: bool,
    /// Semi-sync replicas connected (their dump threads).
    clients: u64,
    /// The furthest position a replica acknowledged.
    acked: Option<LogPosition>,
    /// The end of the last group written (waiting or not): an ack there means caught up.
    last_written: Option<LogPosition>,
    queue: VecDeque<Waiting<T>>,
    shut: bool,
}

/// The counters `SHOW GLOBAL STATUS` shows (`Rpl_semi_sync_master_*`).
#[derive(Default)]
pub struct Stats {
    pub yes_tx: AtomicU64,
    pub no_tx: AtomicU64,
    pub no_times: AtomicU64,
    pub net_wait_us: AtomicU64,
    pub net_waits: AtomicU64,
    pub tx_wait_us: AtomicU64,
    pub tx_waits: AtomicU64,
    pub get_ack: AtomicU64,
    pub request_ack: AtomicU64,
}

/// The acknowledgement tracker (module doc). `T` is what the pipeline needs to finish a
/// group once released.
pub struct Tracker<T> {
    inner: Mutex<Inner<T>>,
    /// The timer sleeps on this until the oldest deadline or a change.
    changed: Condvar,
    pub stats: Stats,
}

impl<T> Default for Tracker<T> {
    fn default() -> Self {
        Tracker {
            inner: Mutex::new(Inner {
                off: false,
                clients: 0,
                acked: None,
                last_written: None,
                queue: VecDeque::new(),
                shut: false,
            }),
            changed: Condvar::new(),
            stats: Stats::default(),
        }
    }
}

/// Groups a call released: acknowledged (`true`) or not.
pub type Released<T> = Vec<(T, bool)>;

impl<T> Tracker<T> {
    /// Is semi-sync on now (`Rpl_semi_sync_master_status`)?
    pub fn status(&self, s: &Settings) -> bool {
        s.enabled && !self.inner.lock().off
    }

    pub fn clients(&self) -> u64 {
        self.inner.lock().clients
    }

    /// Groups waiting now (`Rpl_semi_sync_master_wait_sessions` counts their transactions).
    pub fn waiting_txns(&self) -> u64 {
        self.inner.lock().queue.iter().map(|w| w.txns).sum()
    }

    /// A group ending at `end` (with `txns` transactions) passed its commit point; the log
    /// mutex is held, so groups come in log order. If it must wait, it is queued and None is
    /// returned; otherwise its payload comes back at once, to be finished now (acknowledged:
    /// a replica had it already; or not: semi-sync is off). Returns `(payload, waited)`.
    pub fn register(
        &self,
        s: &Settings,
        end: LogPosition,
        txns: u64,
        payload: T,
    ) -> Option<(T, bool)> {
        let mut inner = self.inner.lock();
        inner.last_written = Some(end.clone());
        if !s.enabled || inner.off || inner.shut {
            if s.enabled {
                self.stats.no_tx.fetch_add(txns, Relaxed);
            }
            return Some((payload, false));
        }
        if inner.clients == 0 && !s.wait_no_slave {
            self.switch_off(&mut inner);
            self.stats.no_tx.fetch_add(txns, Relaxed);
            return Some((payload, false));
        }
        if inner.acked.as_ref().is_some_and(|a| *a >= end) {
            self.stats.yes_tx.fetch_add(txns, Relaxed);
            return Some((payload, true));
        }
        let now = Instant::now();
        let was_empty = inner.queue.is_empty();
        inner.queue.push_back(Waiting {
            end,
            txns,
            since: now,
            deadline: now + s.timeout,
            payload,
        });
        if was_empty {
            self.changed.notify_all();
        }
        None
    }

    /// A replica acknowledged everything up to `pos`; `asked` is when the dump thread asked
    /// for it (network wait). Returns the groups released, in log order.
    pub fn ack(&self, pos: &LogPosition, asked: Option<Instant>) -> Released<T> {
        self.stats.get_ack.fetch_add(1, Relaxed);
        if let Some(at) = asked {
            self.stats
                .net_wait_us
                .fetch_add(at.elapsed().as_micros() as u64, Relaxed);
            self.stats.net_waits.fetch_add(1, Relaxed);
        }
        let mut inner = self.inner.lock();
        if inner.acked.as_ref().is_none_or(|a| a < pos) {
            inner.acked = Some(pos.clone());
        }
        if inner.off && inner.last_written.as_ref().is_none_or(|w| w <= pos) {
            // The replica caught up: wait for it again from the next group on.
            inner.off = false;
        }
        let mut out = Vec::new();
        while inner.queue.front().is_some_and(|w| w.end <= *pos) {
            let w = inner.queue.pop_front().expect("front exists");
            self.stats.yes_tx.fetch_add(w.txns, Relaxed);
            self.stats.tx_waits.fetch_add(w.txns, Relaxed);
            let waited = w.since.elapsed().as_micros() as u64;
            self.stats.tx_wait_us.fetch_add(waited * w.txns, Relaxed);
            out.push((w.payload, true));
        }
        out
    }

    fn switch_off(&self, inner: &mut Inner<T>) {
        if !inner.off {
            inner.off = true;
            self.stats.no_times.fetch_add(1, Relaxed);
        }
    }

    /// Switch off and release every waiting group unacknowledged.
    fn release_all(&self, inner: &mut Inner<T>) -> Released<T> {
        self.switch_off(inner);
        inner
            .queue
            .drain(..)
            .map(|w| {
                self.stats.no_tx.fetch_add(w.txns, Relaxed);
                (w.payload, false)
            })
            .collect()
    }

    /// The timer: if the oldest group waited past its deadline, switch off and release all.
    /// Returns what was released and when to look again (None: nothing waits).
    pub fn expire(&self, now: Instant) -> (Released<T>, Option<Instant>) {
        let mut inner = self.inner.lock();
        match inner.queue.front().map(|w| w.deadline) {
            Some(d) if d <= now => (self.release_all(&mut inner), None),
            next => (Vec::new(), next),
        }
    }

    /// The timer's sleep: until `until` (or indefinitely), or until the queue changes.
    /// Returns false once the tracker is shut down.
    pub fn sleep(&self, until: Option<Instant>) -> bool {
        let mut inner = self.inner.lock();
        if inner.shut {
            return false;
        }
        let front = inner.queue.front().map(|w| w.deadline);
        match until.or(front) {
            Some(d) => {
                self.changed.wait_until(&mut inner, d);
            }
            None => self.changed.wait(&mut inner),
        }
        !inner.shut
    }

    /// A semi-sync replica's dump thread started.
    pub fn client_connected(&self) {
        self.inner.lock().clients += 1;
    }

    /// A semi-sync replica's dump thread ended; with no replica left and `wait_no_slave` off,
    /// the waiting groups are released.
    pub fn client_gone(&self, s: &Settings) -> Released<T> {
        let mut inner = self.inner.lock();
        inner.clients = inner.clients.saturating_sub(1);
        if inner.clients == 0 && !s.wait_no_slave && s.enabled {
            return self.release_all(&mut inner);
        }
        Vec::new()
    }

    /// `rpl_semi_sync_master_enabled` went OFF: release every waiting group (not counted as
    /// a switch to asynchronous: it was asked for). Enabled again later, it starts on.
    pub fn disabled(&self) -> Released<T> {
        let mut inner = self.inner.lock();
        inner.off = false;
        inner
            .queue
            .drain(..)
            .map(|w| {
                self.stats.no_tx.fetch_add(w.txns, Relaxed);
                (w.payload, false)
            })
            .collect()
    }

    /// Stop the timer for good; release what waits.
    pub fn shut_down(&self) -> Released<T> {
        let mut inner = self.inner.lock();
        inner.shut = true;
        let out = self.release_all(&mut inner);
        self.changed.notify_all();
        out
    }

    /// Note that a dump thread asked a replica for an ack (`Rpl_semi_sync_master_request_ack`).
    pub fn asked(&self) {
        self.stats.request_ack.fetch_add(1, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(file: &str, pos: u64) -> LogPosition {
        LogPosition {
            file: file.into(),
            pos,
        }
    }

    fn on(timeout_ms: u64) -> Settings {
        Settings {
            enabled: true,
            timeout: Duration::from_millis(timeout_ms),
            wait_no_slave: true,
            after_sync: true,
        }
    }

    #[test]
    fn one_ack_releases_every_group_it_covers_in_order() {
        let t = Tracker::default();
        let s = on(10_000);
        t.client_connected();
        assert!(t.register(&s, at("b.1", 100), 2, "g1").is_none());
        assert!(t.register(&s, at("b.1", 200), 3, "g2").is_none());
        assert!(t.register(&s, at("b.2", 50), 1, "g3").is_none());
        assert_eq!(t.waiting_txns(), 6);
        assert_eq!(t.ack(&at("b.1", 99), None), vec![]);
        assert_eq!(
            t.ack(&at("b.1", 200), None),
            vec![("g1", true), ("g2", true)]
        );
        assert_eq!(t.ack(&at("b.2", 50), None), vec![("g3", true)]);
        assert_eq!(t.stats.yes_tx.load(Relaxed), 6);
        // An ack that came first: the group is released as it registers.
        assert_eq!(t.register(&s, at("b.2", 40), 1, "old"), Some(("old", true)));
    }

    #[test]
    fn a_timeout_switches_off_and_an_ack_at_the_end_switches_on() {
        let t = Tracker::default();
        let s = on(10);
        t.client_connected();
        assert!(t.register(&s, at("b.1", 100), 1, 1).is_none());
        assert!(t.register(&s, at("b.1", 150), 1, 2).is_none());
        let (none, next) = t.expire(Instant::now());
        assert!(none.is_empty() && next.is_some());
        std::thread::sleep(Duration::from_millis(15));
        let (released, _) = t.expire(Instant::now());
        assert_eq!(released, vec![(1, false), (2, false)]);
        assert!(!t.status(&s));
        assert_eq!(t.stats.no_times.load(Relaxed), 1);
        // Off: groups pass at once, counted as not acknowledged.
        assert_eq!(t.register(&s, at("b.1", 200), 4, 3), Some((3, false)));
        assert_eq!(t.stats.no_tx.load(Relaxed), 6);
        // An ack short of the last group keeps it off; one at its end switches it on.
        t.ack(&at("b.1", 150), None);
        assert!(!t.status(&s));
        t.ack(&at("b.1", 200), None);
        assert!(t.status(&s));
        assert!(t.register(&s, at("b.1", 300), 1, 4).is_none());
    }

    #[test]
    fn no_replica_waits_only_with_wait_no_slave() {
        let t: Tracker<u8> = Tracker::default();
        let mut s = on(10_000);
        assert!(
            t.register(&s, at("b.1", 10), 1, 1).is_none(),
            "waits for a replica"
        );
        s.wait_no_slave = false;
        t.client_connected();
        assert_eq!(t.client_gone(&s), vec![(1, false)]);
        assert!(!t.status(&s));
        assert_eq!(t.register(&s, at("b.1", 20), 1, 2), Some((2, false)));
        assert_eq!(t.disabled(), vec![]);
        assert!(t.status(&s), "enabled again, it starts on");
    }
}
