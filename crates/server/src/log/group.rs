//! Group commit: one ordered queue, a leader per group, and completion handles.
//!
//! ```text
//!   session A ─ enqueue (queue was empty → A leads) ──► lock LOG ─ take queue [A B C] ─ serial work ─► complete A B C
//!   session B ─ enqueue ─────────────────────────────► wait on own ticket ─────────────────────────► woken
//!   session C ─ enqueue ─────────────────────────────► wait on own ticket ─────────────────────────► woken
//! ```
//!
//! The first session to find the queue empty becomes the leader. It then takes the log mutex
//! (waiting for the previous group's leader to finish its write and sync); by the time it has it,
//! everyone who arrived meanwhile is in the queue, and the leader takes them all as its group.
//! Followers only wait: they never touch the log.
//!
//! Completion is a [`Ticket`]. How a finished ticket wakes its waiter is the experiment-4
//! switch ([`Wakeup`]):
//! - `Targeted` (default): each ticket has its own mutex and condition variable; completing it
//!   wakes exactly its waiter.
//! - `Broadcast` (MySQL Bug #76686): all waiters share one mutex and condition variable; every
//!   completion wakes every waiter, who re-checks its own flag and sleeps again.
//!
//! A ticket can also have no waiter at all: a *deferred* ticket ([`Ticket::deferred`], pool of
//! threads) carries a completion callback instead, which `complete` calls on the completing
//! thread (the leader) with the outcome. No thread sleeps for it.

use crate::error::Error;
use crate::wait::{self, ev, WaitEvent};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;

/// How completions wake their waiters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wakeup {
    Targeted,
    Broadcast,
}

/// Where a ticket is.
const PENDING: u8 = 0;
/// Chained mode: this member may now commit itself in the engine.
const YOUR_TURN: u8 = 1;
const DONE: u8 = 2;

/// The shared mutex and condition variable of broadcast wakeups (`LOCK_done` / `COND_done`).
#[derive(Default)]
pub struct BroadcastDone {
    lock: wait::Mutex<(), ev::LockDone>,
    cond: wait::Condvar<ev::CondDone>,
}

/// Called once with a deferred ticket's outcome, on the thread that completes it. Shared (the
/// session's notifier serves all its commits), so a deferred commit allocates no closure.
pub type OnDone = Arc<dyn Fn(Result<(), Error>) + Send + Sync>;

/// One transaction's place in the commit queue and its completion.
pub struct Ticket<T> {
    /// The work item; taken by whoever performs the serial steps on it.
    pub item: Mutex<Option<T>>,
    state: AtomicU8,
    /// Protected by `own_lock`: the outcome once DONE.
    result: Mutex<Option<Result<(), Error>>>,
    own_lock: wait::Mutex<(), ev::TicketLock>,
    own_cond: wait::Condvar<ev::TicketCond>,
    /// How this ticket's waiter sleeps, fixed at creation so waiter and completer agree.
    wakeup: Wakeup,
    /// Deferred tickets: the completion callback (taken by `complete`). Set at creation only,
    /// so `is_deferred` needs no lock of the completer's.
    on_done: Mutex<Option<OnDone>>,
    deferred: bool,
}

impl<T> Ticket<T> {
    pub fn new(item: T, wakeup: Wakeup) -> Arc<Ticket<T>> {
        Arc::new(Ticket {
            wakeup,
            item: Mutex::new(Some(item)),
            state: AtomicU8::new(PENDING),
            result: Mutex::new(None),
            own_lock: wait::Mutex::new(()),
            own_cond: wait::Condvar::new(),
            on_done: Mutex::new(None),
            deferred: false,
        })
    }

    /// A ticket nobody waits on: `complete` calls `on_done` with the outcome instead.
    pub fn deferred(item: T, on_done: OnDone) -> Arc<Ticket<T>> {
        Arc::new(Ticket {
            wakeup: Wakeup::Targeted,
            item: Mutex::new(Some(item)),
            state: AtomicU8::new(PENDING),
            result: Mutex::new(None),
            own_lock: wait::Mutex::new(()),
            own_cond: wait::Condvar::new(),
            on_done: Mutex::new(Some(on_done)),
            deferred: true,
        })
    }

    /// Does this ticket complete through a callback (no waiting thread)?
    pub fn is_deferred(&self) -> bool {
        self.deferred
    }

    pub fn wakeup(&self) -> Wakeup {
        self.wakeup
    }

    pub fn take_item(&self) -> Option<T> {
        self.item.lock().take()
    }

    /// Finish this ticket with `result` and wake its waiter (or call its callback).
    pub fn complete(&self, result: Result<(), Error>, bcast: &BroadcastDone) {
        if self.deferred {
            self.state.store(DONE, Ordering::Release);
            let on_done = self.on_done.lock().take();
            if let Some(on_done) = on_done {
                on_done(result);
            }
            return;
        }
        *self.result.lock() = Some(result);
        self.set_state(DONE, bcast);
    }

    /// Chained mode: tell this member it may commit itself now.
    pub fn give_turn(&self, bcast: &BroadcastDone) {
        self.set_state(YOUR_TURN, bcast);
    }

    fn set_state(&self, state: u8, bcast: &BroadcastDone) {
        match self.wakeup {
            Wakeup::Targeted => {
                let _g = self.own_lock.lock();
                self.state.store(state, Ordering::Release);
                self.own_cond.notify_one();
            }
            Wakeup::Broadcast => {
                let _g = bcast.lock.lock();
                self.state.store(state, Ordering::Release);
                bcast.cond.notify_all();
            }
        }
    }

    /// Block until the ticket reaches at least `YOUR_TURN` (chained) or `DONE`; returns true
    /// when it is DONE.
    pub fn wait(&self, bcast: &BroadcastDone) -> bool {
        if self.state.load(Ordering::Acquire) == PENDING {
            let _w = wait::begin(WaitEvent::CommitDone);
            match self.wakeup {
                Wakeup::Targeted => {
                    let mut g = self.own_lock.lock();
                    while self.state.load(Ordering::Acquire) == PENDING {
                        self.own_cond.wait(&mut g);
                    }
                }
                Wakeup::Broadcast => {
                    let mut g = bcast.lock.lock();
                    while self.state.load(Ordering::Acquire) == PENDING {
                        bcast.cond.wait(&mut g);
                    }
                }
            }
        }
        self.state.load(Ordering::Acquire) == DONE
    }

    /// The outcome (call after `wait` returned true).
    pub fn result(&self) -> Result<(), Error> {
        self.result.lock().take().unwrap_or(Ok(()))
    }
}

/// The queue of tickets waiting for a leader.
pub struct CommitQueue<T> {
    /// Protected by this mutex: tickets in arrival order.
    queue: wait::Mutex<Vec<Arc<Ticket<T>>>, ev::CommitQueue>,
    /// The size of the last group taken (relaxed; only sizes the next queue's buffer).
    last_group: AtomicUsize,
}

impl<T> Default for CommitQueue<T> {
    fn default() -> Self {
        CommitQueue {
            queue: wait::Mutex::new(Vec::new()),
            last_group: AtomicUsize::new(0),
        }
    }
}

impl<T> CommitQueue<T> {
    /// Join the queue; true if the caller must lead (the queue was empty).
    pub fn enqueue(&self, t: Arc<Ticket<T>>) -> bool {
        let mut q = self.queue.lock();
        q.push(t);
        q.len() == 1
    }

    /// The leader takes everyone queued so far. The queue starts again with room for as many
    /// as the last group, so that a large group does not regrow it push by push; that buffer
    /// is allocated before taking the lock enqueuers contend on.
    pub fn take_group(&self) -> Vec<Arc<Ticket<T>>> {
        let room = Vec::with_capacity(self.last_group.load(Ordering::Relaxed));
        let group = std::mem::replace(&mut *self.queue.lock(), room);
        self.last_group.store(group.len(), Ordering::Relaxed);
        group
    }

    pub fn len(&self) -> usize {
        self.queue.lock().len()
    }

    /// Does any queued ticket's work satisfy `pred`?
    pub fn any(&self, pred: impl Fn(&T) -> bool) -> bool {
        self.queue
            .lock()
            .iter()
            .any(|t| t.item.lock().as_ref().is_some_and(&pred))
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Engine commits happen group after group, in log order (the commit-ordered turnstile).
///
/// Group `g` may start its engine commits once `done == g`; finishing sets `done = g + 1` and
/// wakes only the leader of group `g + 1` (a targeted wakeup: with small groups many leaders
/// can be waiting here, and waking them all on every finish would be a thundering herd).
#[derive(Default)]
pub struct CommitTurn {
    /// The number of groups whose engine commits are finished.
    done: std::sync::atomic::AtomicU64,
    /// Protected by this mutex: the parked leader of each waiting group.
    waiters: wait::Mutex<std::collections::HashMap<u64, std::thread::Thread>, ev::CommitTurnLock>,
}

impl CommitTurn {
    pub fn wait_for(&self, group: u64) {
        if self.done.load(Ordering::Acquire) >= group {
            return;
        }
        {
            let mut w = self.waiters.lock();
            // Re-check under the lock: `finish` takes it before looking for a waiter.
            if self.done.load(Ordering::Acquire) >= group {
                return;
            }
            w.insert(group, std::thread::current());
        }
        let _w =
            (self.done.load(Ordering::Acquire) < group).then(|| wait::begin(WaitEvent::CommitTurn));
        while self.done.load(Ordering::Acquire) < group {
            std::thread::park();
        }
    }

    pub fn finish(&self, group: u64) {
        let next = {
            let mut w = self.waiters.lock();
            self.done.store(group + 1, Ordering::Release);
            w.remove(&(group + 1))
        };
        if let Some(t) = next {
            t.unpark();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_leader_takes_everyone_queued() {
        let q = CommitQueue::default();
        assert!(q.enqueue(Ticket::new(1, Wakeup::Targeted)));
        assert!(!q.enqueue(Ticket::new(2, Wakeup::Targeted)));
        let g = q.take_group();
        assert_eq!(g.len(), 2);
        assert!(
            q.enqueue(Ticket::new(3, Wakeup::Targeted)),
            "the next arrival leads the next group"
        );
    }

    #[test]
    fn completion_wakes_the_waiter_in_both_modes() {
        for mode in [Wakeup::Targeted, Wakeup::Broadcast] {
            let b = Arc::new(BroadcastDone::default());
            let t = Ticket::new((), mode);
            let (t2, b2) = (t.clone(), b.clone());
            let h = std::thread::spawn(move || {
                assert!(t2.wait(&b2));
                t2.result()
            });
            std::thread::sleep(std::time::Duration::from_millis(20));
            t.complete(Err(Error::deadlock()), &b);
            assert_eq!(h.join().unwrap(), Err(Error::deadlock()));
        }
    }

    #[test]
    fn deferred_ticket_calls_back_once_without_a_waiter() {
        let b = BroadcastDone::default();
        let got = Arc::new(Mutex::new(Vec::new()));
        let g = got.clone();
        let t = Ticket::deferred((), Arc::new(move |r| g.lock().push(r)));
        assert!(t.is_deferred());
        t.complete(Err(Error::deadlock()), &b);
        t.complete(Ok(()), &b);
        assert_eq!(*got.lock(), vec![Err(Error::deadlock())]);
        assert!(t.wait(&b), "a completed deferred ticket reads as DONE");
    }

    #[test]
    fn turnstile_orders_groups() {
        let turn = Arc::new(CommitTurn::default());
        let log = Arc::new(Mutex::new(Vec::new()));
        let hs: Vec<_> = (0..4u64)
            .rev()
            .map(|g| {
                let (turn, log) = (turn.clone(), log.clone());
                std::thread::spawn(move || {
                    turn.wait_for(g);
                    log.lock().push(g);
                    turn.finish(g);
                })
            })
            .collect();
        hs.into_iter().for_each(|h| h.join().unwrap());
        assert_eq!(*log.lock(), vec![0, 1, 2, 3]);
    }
}
