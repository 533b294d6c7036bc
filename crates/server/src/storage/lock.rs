//! Row slots, record locks (shared and exclusive), gap locks, lock waits and deadlocks.
//!
//! # Record locks
//!
//! A row's lock lives in its slot: the exclusive holder (`x`, the only one who may have a
//! pending version), and, allocated only while needed, a [`LockQueue`] with the shared
//! holders and the waiting requests in arrival order. S is compatible with S; X with
//! nothing. A new request waits if it conflicts with a lock granted to another transaction
//! *or with a request of another transaction already waiting* (first come, first served, as
//! InnoDB: a shared request queues behind a waiting exclusive one). When locks are released,
//! [`grant_waiting`] grants the waiting requests from the front of the queue for as long as
//! they are compatible, and wakes exactly those waiters (targeted wakeups, through each
//! waiter's own [`TxnSlot`] condition variable). The wakeups are collected in a [`Wakes`] and
//! given after the slot mutex is released: a waiter woken while the releaser still held it
//! would run only to find the mutex taken (and spin on it, `sched_yield` after
//! `sched_yield`, while the releaser makes its next wakeup's system call).
//!
//! # Gap locks
//!
//! In REPEATABLE READ and SERIALIZABLE a locking read also locks the *gaps* between index
//! entries it passes ([`GapLocks`], one per index): an open interval of encoded index keys
//! `(lo, hi)` held by a transaction. Gap locks never conflict with each other; they only stop
//! an *insert intention*: a transaction that adds an index entry inside another
//! transaction's gap waits until that transaction ends (gap locks are held to the end). A
//! next-key lock is a record lock plus the gap before the record.
//!
//! # Waits and deadlocks
//!
//! A waiting transaction registers in the engine's [`WaitGraph`] the transactions it waits
//! for (its edges, below) and sleeps on its own condition variable inside
//! `wait::begin(WaitEvent::RowLock)` (or `GapLock`). If its edges close a cycle, the lightest
//! transaction of the cycle (fewest rows changed plus locks held, the requester on a tie, as
//! InnoDB) is the victim: it gets 1213, woken if it is not the requester. A wait longer than
//! the transaction's `innodb_lock_wait_timeout` gives 1205.
//!
//! **Edges.** A record-lock waiter's edges are the holders it conflicts with and only the
//! *nearest* earlier waiter it conflicts with, not every one: on a hot row with n waiters
//! that keeps the graph at O(n) edges instead of O(n²), so the cycle search stays short (a
//! search past [`MAX_SEARCH`] steps counts as a deadlock, and with all-pairs edges 256
//! sessions queued on TPC-C's warehouse and district rows passed it on nearly every wait:
//! false 1213s). No cycle is missed, because the nearest conflicting waiter reaches the
//! earlier ones. An S request conflicts only with the X waiters before it; its nearest one
//! reaches the rest, since an X waiter's edge goes to the request just before it, whatever
//! its mode. An X request conflicts with every earlier request, and reaches them the same
//! way, except for the S waiters that an S waiter's edge skips. Those have the same blockers
//! as the S waiter that skips them (the same holders, the same nearest X waiter), so a cycle
//! through one of them is also a cycle through that S waiter.
//!
//! Edges go stale when a request leaves the queue (granted, or given up): the waiters
//! around it are woken to register theirs again (`wake_to_refresh_edges`), and a woken
//! waiter's edges are not followed until it has. A transaction chosen as a victim after its
//! last look at its request gets its 1213 all the same (the deadlock was counted), and one
//! chosen while it was between two registrations does not register again.
//!
//! Lock order: slot mutex → a waiter's `TxnSlot::wait` (to wake it); gap mutex → a waiter's
//! `TxnSlot::wait`; the wait graph mutex → a waiter's `TxnSlot::wait` (to wake a victim, or to see whether it is woken). Nothing takes a slot
//! or gap mutex while holding the graph mutex or a `TxnSlot::wait`.

use super::mvcc::{CommitSeq, Horizon, ReadView, TxnSlot, Version};
use super::{LockMode, Row, TxnId, WaitPolicy};
use crate::error::{Error, Result};
use crate::wait::{self, ev, Mutex, WaitEvent};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One row: its versions and its lock. Lives in the primary index (and is pointed at by the
/// secondary index entries of its versions).
pub(crate) struct Slot {
    /// The encoded primary key (or hidden row id). Immutable: a primary key change is a delete
    /// of this slot and an insert into another.
    pub key: Box<[u8]>,
    /// Versions and lock; see [`SlotState`]. A spinning (`parking_lot`) mutex on purpose: it is
    /// held for a few field updates, never across a wait or a system call (wakeups are given
    /// after it is released, see [`Wakes`]), and it costs a row one byte.
    pub state: Mutex<SlotState, ev::RowSlot>,
}

impl Slot {
    pub fn new(key: Vec<u8>, state: SlotState) -> Slot {
        Slot {
            key: key.into_boxed_slice(),
            state: Mutex::new(state),
        }
    }
}

const F_PENDING: u8 = 1;
const F_REMOVED: u8 = 2;
const F_QUEUED: u8 = 4;

/// Everything here is protected by `Slot::state`.
#[derive(Default)]
pub(crate) struct SlotState {
    /// The newest committed image; None if the row does not exist (yet / any more).
    pub latest: Option<Row>,
    /// The commit that installed `latest` (0: loaded by recovery, or never committed).
    pub latest_seq: CommitSeq,
    /// Older committed versions some read view may still need, newest first. Boxed: most
    /// rows have none, and `Option<Box<_>>` costs every slot 8 bytes where a `Vec` costs 24.
    #[allow(clippy::box_collection)]
    pub older: Option<Box<Vec<Version>>>,
    /// The X holder's uncommitted image when `F_PENDING` is set (None = deleted).
    pending: Option<Row>,
    /// The transaction holding the X lock (0: none). Only it may have a pending version.
    x: u64,
    /// Shared holders and waiting requests, allocated while there are any.
    queue: Option<Box<LockQueue>>,
    flags: u8,
}

/// The shared holders and waiting requests of one row.
#[derive(Default)]
pub(crate) struct LockQueue {
    shared: Vec<TxnId>,
    waiting: Vec<Request>,
}

struct Request {
    txn: TxnId,
    mode: LockMode,
    waker: Arc<TxnSlot>,
}

/// How a read sees a row.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ReadAt {
    /// Current read: the reader's own pending version, else the newest committed one.
    Latest,
    /// Consistent read: the reader's own pending version, else the newest committed version
    /// in the view.
    View(ReadView),
    /// READ UNCOMMITTED: anyone's pending version, else the newest committed one.
    Dirty,
}

impl SlotState {
    pub fn with_latest(row: Row) -> SlotState {
        SlotState {
            latest: Some(row),
            ..SlotState::default()
        }
    }

    /// A new slot whose X lock `me` holds (a row being inserted).
    pub fn locked_by(me: TxnId) -> SlotState {
        SlotState {
            x: me.0,
            ..SlotState::default()
        }
    }

    pub fn removed(&self) -> bool {
        self.flags & F_REMOVED != 0
    }

    pub fn set_removed(&mut self) {
        self.flags |= F_REMOVED;
    }

    /// Queued for purge (see `Mvcc::push_history`).
    pub fn queued(&self) -> bool {
        self.flags & F_QUEUED != 0
    }

    pub fn set_queued(&mut self, on: bool) {
        if on {
            self.flags |= F_QUEUED;
        } else {
            self.flags &= !F_QUEUED;
        }
    }

    /// The X holder.
    pub fn owner(&self) -> Option<TxnId> {
        (self.x != 0).then_some(TxnId(self.x))
    }

    /// The pending version: None = no change, Some(None) = deleted, Some(Some(r)).
    pub fn pending(&self) -> Option<Option<&Row>> {
        (self.flags & F_PENDING != 0).then_some(self.pending.as_ref())
    }

    /// Replace the pending version (the caller holds the X lock); returns the previous one.
    pub fn set_pending(&mut self, new: Option<Option<Row>>) -> Option<Option<Row>> {
        let old = self.take_pending();
        if let Some(p) = new {
            self.flags |= F_PENDING;
            self.pending = p;
        }
        old
    }

    pub fn take_pending(&mut self) -> Option<Option<Row>> {
        if self.flags & F_PENDING == 0 {
            return None;
        }
        self.flags &= !F_PENDING;
        Some(self.pending.take())
    }

    /// The version a read sees.
    pub fn read(&self, me: TxnId, at: ReadAt) -> Option<&Row> {
        if let Some(p) = self.pending() {
            if self.x == me.0 || matches!(at, ReadAt::Dirty) {
                return p;
            }
        }
        match at {
            ReadAt::Latest | ReadAt::Dirty => self.latest.as_ref(),
            ReadAt::View(v) => self.committed_in(v),
        }
    }

    /// A lone read's version (see "Lone reads" in [`super::mvcc`]): the newest committed one,
    /// if its commit is published (`<= published`, read under this slot's mutex); None when
    /// the reader must take a read view instead (its own change pending, or the newest
    /// commit still installing).
    pub fn latest_published(&self, me: TxnId, published: u64) -> Option<Option<&Row>> {
        if self.pending().is_some() && self.x == me.0 {
            return None;
        }
        (self.latest_seq.0 <= published).then_some(self.latest.as_ref())
    }

    /// The newest committed version in `view`.
    pub fn committed_in(&self, view: ReadView) -> Option<&Row> {
        if view.sees(self.latest_seq) {
            return self.latest.as_ref();
        }
        self.older
            .as_ref()?
            .iter()
            .find(|v| view.sees(v.seq))
            .and_then(|v| v.row.as_ref())
    }

    /// Every image the slot holds (committed versions and the pending one): the index
    /// entries it needs.
    pub fn images(&self) -> impl Iterator<Item = &Row> {
        let older = self.older.iter().flat_map(|o| o.iter());
        self.latest
            .iter()
            .chain(older.filter_map(|v| v.row.as_ref()))
            .chain(self.pending().flatten())
    }

    pub fn has_older(&self) -> bool {
        self.older.as_ref().is_some_and(|o| !o.is_empty())
    }

    /// True if the slot holds nothing and nobody needs it: it can leave the index.
    pub fn is_garbage(&self) -> bool {
        self.latest.is_none()
            && !self.has_older()
            && self.flags & (F_PENDING | F_REMOVED) == 0
            && self.x == 0
            && self.queue.is_none()
    }

    /// Make `new` the newest committed version, committed at `seq`; the previous newest
    /// becomes an old version. (A "did not exist" version at the bottom of the chain is
    /// implicit: it is what a view older than every version sees.)
    pub fn install(&mut self, new: Option<Row>, seq: CommitSeq) {
        let prev = Version {
            seq: self.latest_seq,
            row: std::mem::replace(&mut self.latest, new),
        };
        self.latest_seq = seq;
        if prev.row.is_some() || self.has_older() {
            self.older.get_or_insert_with(Box::default).insert(0, prev);
        }
    }

    /// Drop the old versions no view may see (see `Horizon::needs`); returns how many.
    pub fn prune(&mut self, h: &Horizon) -> usize {
        let Some(older) = self.older.as_mut() else {
            return 0;
        };
        let n = older.len();
        let mut newer = self.latest_seq;
        older.retain(|v| {
            let keep = h.needs(v.seq, newer);
            newer = v.seq;
            keep
        });
        while older.last().is_some_and(|v| v.row.is_none()) {
            older.pop();
        }
        let left = older.len();
        if left == 0 {
            self.older = None;
        }
        n - left
    }

    /// TRUNCATE / DROP: the slot leaves its table; its waiters are woken to find that out.
    pub fn detach(&mut self, wakes: &mut Wakes) {
        self.set_removed();
        if let Some(q) = &self.queue {
            for r in &q.waiting {
                wakes.add(&r.waker);
            }
        }
    }

    /// Does `me` hold a lock at least as strong as `mode`?
    pub fn holds(&self, me: TxnId, mode: LockMode) -> bool {
        if self.x == me.0 {
            return true;
        }
        mode == LockMode::Shared && self.queue.as_ref().is_some_and(|q| q.shared.contains(&me))
    }

    /// Does `me` hold any lock on the row?
    pub fn holds_any(&self, me: TxnId) -> bool {
        self.holds(me, LockMode::Shared)
    }

    /// Is the row locked by a transaction other than `me`?
    pub fn locked_by_other(&self, me: TxnId) -> bool {
        (self.x != 0 && self.x != me.0)
            || self
                .queue
                .as_ref()
                .is_some_and(|q| q.shared.iter().any(|&t| t != me))
    }

    /// The transactions whose granted locks conflict with `me` taking `mode`.
    fn granted_conflicts(&self, me: TxnId, mode: LockMode, out: &mut Vec<TxnId>) {
        if self.x != 0 && self.x != me.0 {
            out.push(TxnId(self.x));
        }
        if mode == LockMode::Exclusive {
            if let Some(q) = &self.queue {
                out.extend(q.shared.iter().filter(|&&t| t != me));
            }
        }
    }

    /// The transactions `me` would wait for to take `mode`: conflicting holders, and the
    /// *nearest* conflicting request of another transaction waiting before position `before`
    /// of the queue (see "Edges" in the module doc: the earlier ones are reached through it).
    fn blockers(&self, me: TxnId, mode: LockMode, before: usize) -> Vec<TxnId> {
        let mut out = Vec::new();
        self.granted_conflicts(me, mode, &mut out);
        if let Some(q) = &self.queue {
            let earlier = q.waiting.iter().take(before).rev();
            let conflicting = |r: &&Request| {
                r.txn != me && (mode == LockMode::Exclusive || r.mode == LockMode::Exclusive)
            };
            if let Some(r) = earlier.into_iter().find(conflicting) {
                out.push(r.txn);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    fn grant(&mut self, me: TxnId, mode: LockMode) {
        match mode {
            LockMode::Exclusive => {
                self.x = me.0;
                if let Some(q) = self.queue.as_mut() {
                    q.shared.retain(|&t| t != me);
                }
                self.drop_empty_queue();
            }
            _ => self.queue.get_or_insert_with(Box::default).shared.push(me),
        }
    }

    fn drop_empty_queue(&mut self) {
        if self
            .queue
            .as_ref()
            .is_some_and(|q| q.shared.is_empty() && q.waiting.is_empty())
        {
            self.queue = None;
        }
    }

    fn position(&self, me: TxnId) -> Option<usize> {
        self.queue
            .as_ref()
            .and_then(|q| q.waiting.iter().position(|r| r.txn == me))
    }

    fn cancel(&mut self, me: TxnId, wakes: &mut Wakes) {
        if let Some(q) = self.queue.as_mut() {
            if let Some(at) = q.waiting.iter().position(|r| r.txn == me) {
                q.waiting.remove(at);
                wake_to_refresh_edges(self, at, wakes);
            }
        }
        self.drop_empty_queue();
        grant_waiting(self, wakes);
    }

    /// Release every lock `me` holds on the row (its pending version must be resolved) and
    /// grant what can be granted (the waiters to wake go to `wakes`). Returns true if it held
    /// one.
    pub fn release(&mut self, me: TxnId, wakes: &mut Wakes) -> bool {
        let mut held = false;
        if self.x == me.0 {
            self.x = 0;
            held = true;
            if self.flags & F_PENDING != 0 {
                self.flags &= !F_PENDING;
                self.pending = None;
            }
        }
        if let Some(q) = self.queue.as_mut() {
            let n = q.shared.len();
            q.shared.retain(|&t| t != me);
            held |= q.shared.len() != n;
        }
        if held {
            self.drop_empty_queue();
            grant_waiting(self, wakes);
        }
        held
    }
}

/// Waiters to wake once the slot mutex is released: declare it *before* taking the guard, so
/// that it drops (and wakes them) after the guard. See "Record locks" in the module doc.
#[derive(Default)]
pub(crate) struct Wakes(Vec<Arc<TxnSlot>>);

impl Wakes {
    fn add(&mut self, waker: &Arc<TxnSlot>) {
        self.0.push(waker.clone());
    }
}

impl Drop for Wakes {
    fn drop(&mut self) {
        for w in self.0.drain(..) {
            w.wake_up();
        }
    }
}

/// Grant the waiting requests at the front of the queue for as long as they are compatible
/// with what is granted and with the requests before them; wake each one granted.
fn grant_waiting(st: &mut SlotState, wakes: &mut Wakes) {
    let mut i = 0;
    let mut first_granted = None;
    while let Some(r) = st.queue.as_ref().and_then(|q| q.waiting.get(i)) {
        let (txn, mode) = (r.txn, r.mode);
        if st.blockers(txn, mode, i).is_empty() {
            let r = st.queue.as_mut().expect("queue").waiting.remove(i);
            st.grant(txn, mode);
            wakes.add(&r.waker);
            first_granted.get_or_insert(i);
        } else if mode == LockMode::Exclusive {
            // Every later request conflicts with this one: none can be granted.
            break;
        } else {
            i += 1;
        }
    }
    if let Some(at) = first_granted {
        wake_to_refresh_edges(st, at, wakes);
    }
}

/// A waiting request left the queue at position `at` (granted or given up): the waiters
/// whose edges may have pointed to it or skipped past it — those from `at` up to and
/// including the first X request — are woken to register their edges again (see "Edges" in
/// the module doc). Every waiter after them reaches them through its own nearest edge, so
/// the graph is complete again. On a row where every request is X this wakes one waiter.
fn wake_to_refresh_edges(st: &SlotState, at: usize, wakes: &mut Wakes) {
    let Some(q) = st.queue.as_ref() else { return };
    for r in q.waiting.iter().skip(at) {
        wakes.add(&r.waker);
        if r.mode == LockMode::Exclusive {
            break;
        }
    }
}

/// The result of asking for a record lock.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Acquire {
    /// The caller holds the lock; `newly` if it did not hold any lock on the row before.
    Granted { newly: bool },
    /// The slot left the index: look the key up again.
    Removed,
    /// SKIP LOCKED: the row is locked by another transaction.
    Skipped,
}

/// What a waiting transaction needs: who it is and how long it may wait.
pub(crate) struct Waiter<'a> {
    pub me: TxnId,
    pub slot: &'a Arc<TxnSlot>,
    pub timeout: Duration,
    /// Rows changed plus locks held: the deadlock victim is the lightest.
    pub weight: u64,
}

/// Try to take a lock without waiting. `Err(blockers)` if it conflicts.
pub(crate) fn try_lock(
    st: &mut SlotState,
    me: TxnId,
    mode: LockMode,
) -> std::result::Result<Acquire, Vec<TxnId>> {
    if st.removed() {
        return Ok(Acquire::Removed);
    }
    if st.holds(me, mode) {
        return Ok(Acquire::Granted { newly: false });
    }
    let queued = st.queue.as_ref().map_or(0, |q| q.waiting.len());
    let blockers = st.blockers(me, mode, queued);
    if !blockers.is_empty() {
        return Err(blockers);
    }
    let newly = !st.holds_any(me);
    st.grant(me, mode);
    Ok(Acquire::Granted { newly })
}

/// Take a record lock on `slot`, waiting per `policy`. Must be called with no table or index
/// lock held.
pub(crate) fn lock_record(
    graph: &WaitGraph,
    slot: &Slot,
    w: &Waiter<'_>,
    mode: LockMode,
    policy: WaitPolicy,
) -> Result<Acquire> {
    let mut st = slot.state.lock();
    let blockers = match try_lock(&mut st, w.me, mode) {
        Ok(a) => return Ok(a),
        Err(b) => b,
    };
    match policy {
        WaitPolicy::NoWait => return Err(Error::lock_wait_timeout()),
        WaitPolicy::SkipLocked => return Ok(Acquire::Skipped),
        WaitPolicy::Wait => {}
    }
    let newly = !st.holds_any(w.me);
    w.slot.reset_wait();
    st.queue
        .get_or_insert_with(Box::default)
        .waiting
        .push(Request {
            txn: w.me,
            mode,
            waker: w.slot.clone(),
        });
    drop(st);
    let what = format!("{}:{}", w.me.0, hex(&slot.key));
    let outcome = wait_loop(graph, w, WaitEvent::RowLock, what, blockers, |check| {
        let mut wakes = Wakes::default();
        let mut st = slot.state.lock();
        if st.holds(w.me, mode) {
            return Poll::Done(Acquire::Granted { newly });
        }
        if st.removed() {
            st.cancel(w.me, &mut wakes);
            return Poll::Done(Acquire::Removed);
        }
        if check == Check::GiveUp {
            st.cancel(w.me, &mut wakes);
            return Poll::GaveUp;
        }
        let pos = st.position(w.me).unwrap_or(usize::MAX);
        Poll::Wait(st.blockers(w.me, mode, pos))
    });
    if outcome.is_err() && newly {
        // A deadlock victim may have been granted the lock just before it learnt it lost:
        // the caller will not note it, so give it back now (its transaction rolls back).
        let mut wakes = Wakes::default();
        let mut st = slot.state.lock();
        if st.holds_any(w.me) {
            st.release(w.me, &mut wakes);
        }
    }
    outcome
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Still waiting: report the blockers.
    Wait,
    /// The wait ends in an error: take the request back (unless it was granted meanwhile).
    GiveUp,
}

enum Poll<T> {
    Done(T),
    Wait(Vec<TxnId>),
    GaveUp,
}

/// The wait of a lock request: register the edges, sleep, look again. `poll` checks the
/// request under its own mutex.
fn wait_loop<T>(
    graph: &WaitGraph,
    w: &Waiter<'_>,
    event: WaitEvent,
    what: String,
    mut blockers: Vec<TxnId>,
    mut poll: impl FnMut(Check) -> Poll<T>,
) -> Result<T> {
    let _wait = wait::begin(event);
    w.slot.set_waiting(Some(what));
    let began = Instant::now();
    graph.waits.fetch_add(1, Ordering::Relaxed);
    let deadline = began + w.timeout;
    let result = loop {
        if let Err(e) = graph.wait_for(w.me, &blockers, w.weight, w.slot) {
            match poll(Check::GiveUp) {
                Poll::Done(t) => break Ok(t),
                _ => break Err(e),
            }
        }
        // Killed before this wait began: its wake-up may have been cleared by reset_wait.
        let (_, victim) = match crate::interrupt::requested() {
            true => (true, false),
            // A max_statement_time deadline (crate::interrupt) ends the wait too.
            false => match crate::interrupt::deadline() {
                Some(stmt) if stmt < deadline => w.slot.sleep(stmt),
                _ => w.slot.sleep(deadline),
            },
        };
        if victim {
            match poll(Check::GiveUp) {
                // Granted meanwhile: the transaction is rolled back all the same.
                Poll::Done(_) | Poll::GaveUp | Poll::Wait(_) => break Err(Error::deadlock()),
            }
        }
        // KILL (see crate::interrupt): the killer woke this slot; give the request back.
        let killed = crate::interrupt::requested();
        let check = if killed || Instant::now() >= deadline {
            Check::GiveUp
        } else {
            Check::Wait
        };
        match poll(check) {
            Poll::Done(t) => break Ok(t),
            Poll::GaveUp if killed => break Err(crate::interrupt::interrupted()),
            Poll::GaveUp => break Err(Error::lock_wait_timeout()),
            Poll::Wait(b) => blockers = b,
        }
    };
    // Chosen as a victim after the last look at the request (it was granted, and the search
    // of another waiter went through this one's edges before they were taken down): the
    // deadlock is counted, so the transaction rolls back as the victim all the same.
    let result = match (graph.done(w.me), result) {
        (false, Ok(_)) => Err(Error::deadlock()),
        (_, r) => r,
    };
    w.slot.set_waiting(None);
    graph
        .wait_micros
        .fetch_add(began.elapsed().as_micros() as u64, Ordering::Relaxed);
    result
}

fn hex(key: &[u8]) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

// ---------------------------------------------------------------------------------------------
// Gap locks

/// An open interval of encoded index keys `(lo, hi)`; None is unbounded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Gap {
    pub lo: Option<Box<[u8]>>,
    pub hi: Option<Box<[u8]>>,
}

impl Gap {
    fn contains(&self, key: &[u8]) -> bool {
        self.lo.as_deref().is_none_or(|lo| lo < key) && self.hi.as_deref().is_none_or(|hi| key < hi)
    }

    fn covers(&self, other: &Gap) -> bool {
        let lo_ok = match (&self.lo, &other.lo) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(a), Some(b)) => a <= b,
        };
        let hi_ok = match (&self.hi, &other.hi) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(a), Some(b)) => a >= b,
        };
        lo_ok && hi_ok
    }
}

/// The gap locks of one index. See the module doc.
#[derive(Default)]
pub(crate) struct GapLocks {
    /// Gap locks held (a lock-free look before an insert takes the mutex).
    count: AtomicUsize,
    inner: Mutex<GapState, ev::GapLocks>,
}

#[derive(Default)]
struct GapState {
    gaps: Vec<(TxnId, Gap)>,
    /// Inserters waiting for a gap holder to end.
    waiters: Vec<(TxnId, Arc<TxnSlot>)>,
}

impl GapLocks {
    /// Lock `gap` for `me` (call with the index's map lock held, so that no insert into the
    /// gap can slip between the reader's look at the index and this). A gap that extends the
    /// one `me` locked last (`hi == gap.lo`) is merged into it. Returns true if `me` held no
    /// gap here before.
    pub fn lock(&self, me: TxnId, gap: Gap) -> bool {
        let mut st = self.inner.lock();
        let mut first = true;
        for (t, g) in st.gaps.iter_mut().rev() {
            if *t != me {
                continue;
            }
            first = false;
            if g.covers(&gap) {
                return false;
            }
            if g.hi.is_some() && g.hi == gap.lo {
                g.hi = gap.hi;
                return false;
            }
        }
        st.gaps.push((me, gap));
        self.count.fetch_add(1, Ordering::Release);
        first
    }

    /// The transactions other than `me` holding a gap that contains `key` (an insert
    /// intention's conflicts). Call with the index's map lock held exclusively.
    pub fn conflicts(&self, me: TxnId, key: &[u8]) -> Vec<TxnId> {
        if self.count.load(Ordering::Acquire) == 0 {
            return Vec::new();
        }
        let st = self.inner.lock();
        let mut out: Vec<TxnId> = st
            .gaps
            .iter()
            .filter(|(t, g)| *t != me && g.contains(key))
            .map(|(t, _)| *t)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Release `me`'s gaps and wake the inserters waiting here.
    pub fn release(&self, me: TxnId) {
        let mut wakes = Wakes::default();
        let mut st = self.inner.lock();
        let n = st.gaps.len();
        st.gaps.retain(|(t, _)| *t != me);
        let removed = n - st.gaps.len();
        if removed == 0 {
            return;
        }
        self.count.fetch_sub(removed, Ordering::Release);
        wakes.0.extend(st.waiters.drain(..).map(|(_, w)| w));
    }

    /// Wait until none of `holders` holds a gap containing `key` any more (they end), or
    /// fail with 1205 / 1213.
    pub fn wait(
        &self,
        graph: &WaitGraph,
        w: &Waiter<'_>,
        key: &[u8],
        holders: Vec<TxnId>,
    ) -> Result<()> {
        w.slot.reset_wait();
        self.inner.lock().waiters.push((w.me, w.slot.clone()));
        let what = format!("{}:gap:{}", w.me.0, hex(key));
        wait_loop(graph, w, WaitEvent::GapLock, what, holders, |check| {
            let mut st = self.inner.lock();
            st.waiters.retain(|(t, _)| *t != w.me);
            let left: Vec<TxnId> = st
                .gaps
                .iter()
                .filter(|(t, g)| *t != w.me && g.contains(key))
                .map(|(t, _)| *t)
                .collect();
            if left.is_empty() {
                return Poll::Done(());
            }
            if check == Check::GiveUp {
                return Poll::GaveUp;
            }
            st.waiters.push((w.me, w.slot.clone()));
            Poll::Wait(left)
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The waits-for graph

/// The waits-for graph of the engine: each waiting transaction and the transactions it waits
/// for. Guarded by its own mutex, taken only around waits.
#[derive(Default)]
pub(crate) struct WaitGraph {
    /// A spinning (`parking_lot`) mutex on purpose: it is held only for an insert or removal
    /// and the cycle search, which takes no other lock (a visited waiter's `woken` is read
    /// lock-free), so a waiter that finds it taken gets it after a few spins; parking would
    /// cost a futex wait and a wakeup each time.
    nodes: Mutex<HashMap<TxnId, Node>, ev::LockWaitGraph>,
    deadlocks: AtomicU64,
    /// Lock waits begun, and their total time in µs (SHOW STATUS).
    pub waits: AtomicU64,
    pub wait_micros: AtomicU64,
}

struct Node {
    blockers: Vec<TxnId>,
    weight: u64,
    waker: Arc<TxnSlot>,
}

/// Nodes one deadlock search visits at most; a longer search counts as a deadlock (InnoDB
/// does the same past its search limit).
const MAX_SEARCH: usize = 10_000;

impl WaitGraph {
    /// Record that `me` waits for `blockers`; 1213 if that closes a cycle and `me` is the
    /// victim. If another transaction of the cycle is the victim, it is woken with its
    /// deadlock and `me` goes on waiting.
    pub fn wait_for(
        &self,
        me: TxnId,
        blockers: &[TxnId],
        weight: u64,
        waker: &Arc<TxnSlot>,
    ) -> Result<()> {
        let mut g = self.nodes.lock();
        if waker.is_victim() {
            // Another waiter's search chose `me` (and counted the deadlock) after `me` last
            // woke: it must not register again, or its own search would count it twice.
            return Err(Error::deadlock());
        }
        g.insert(
            me,
            Node {
                blockers: blockers.to_vec(),
                weight,
                waker: waker.clone(),
            },
        );
        loop {
            let Some(cycle) = find_cycle(&g, me) else {
                return Ok(());
            };
            self.deadlocks.fetch_add(1, Ordering::Relaxed);
            let victim = choose_victim(&g, &cycle, me);
            if victim == me {
                g.remove(&me);
                return Err(Error::deadlock());
            }
            if let Some(v) = g.remove(&victim) {
                v.waker.wake_victim();
            }
        }
    }

    /// `me` no longer waits. False if its node was already gone: another waiter's search
    /// chose it as a deadlock victim (or its own search did, and it has its 1213).
    pub fn done(&self, me: TxnId) -> bool {
        self.nodes.lock().remove(&me).is_some()
    }

    /// Current `(waiter, holder)` edges.
    pub fn edges(&self) -> Vec<(TxnId, TxnId)> {
        let g = self.nodes.lock();
        let mut v: Vec<_> = g
            .iter()
            .flat_map(|(w, n)| n.blockers.iter().map(move |b| (*w, *b)))
            .collect();
        v.sort();
        v
    }

    /// Is `me` waiting for a lock?
    pub fn is_waiting(&self, me: TxnId) -> bool {
        self.nodes.lock().contains_key(&me)
    }

    /// Transactions waiting for a lock now.
    pub fn waiting(&self) -> usize {
        self.nodes.lock().len()
    }

    /// Deadlocks detected so far.
    pub fn deadlock_count(&self) -> u64 {
        self.deadlocks.load(Ordering::Relaxed)
    }
}

/// A cycle through `start`, as the path start → … (each waits for the next, the last for
/// `start`), among waiters not woken. Depth-first; a search longer than `MAX_SEARCH` is
/// reported as the cycle `[start]`.
fn find_cycle(g: &HashMap<TxnId, Node>, start: TxnId) -> Option<Vec<TxnId>> {
    let mut path = vec![start];
    let mut next: Vec<usize> = vec![0];
    let mut seen: HashSet<TxnId> = HashSet::new();
    seen.insert(start);
    let mut steps = 0;
    while let Some(&top) = path.last() {
        steps += 1;
        if steps > MAX_SEARCH {
            return Some(vec![start]);
        }
        let i = *next.last().expect("parallel to path");
        let blockers = g.get(&top).map_or(&[][..], |n| &n.blockers[..]);
        let Some(&b) = blockers.get(i) else {
            path.pop();
            next.pop();
            continue;
        };
        *next.last_mut().expect("parallel to path") += 1;
        if b == start {
            return Some(path);
        }
        // A woken waiter's edges may be stale (its request was granted, or the queue before
        // it changed): it is not followed. If it still waits, it registers again and runs
        // this search itself; so a real cycle through it is found then, and a stale one never
        // makes a victim of a transaction that has its lock.
        if g.get(&b).is_some_and(|n| !n.waker.is_woken()) && seen.insert(b) {
            path.push(b);
            next.push(0);
        }
    }
    None
}

/// The lightest transaction of the cycle; the requester on a tie.
fn choose_victim(g: &HashMap<TxnId, Node>, cycle: &[TxnId], me: TxnId) -> TxnId {
    let weight = |t: &TxnId| g.get(t).map_or(u64::MAX, |n| n.weight);
    let min = cycle.iter().map(weight).min().unwrap_or(0);
    if weight(&me) == min {
        return me;
    }
    cycle
        .iter()
        .copied()
        .find(|t| weight(t) == min)
        .unwrap_or(me)
}

#[cfg(test)]
mod tests {
    use super::super::mvcc::Mvcc;
    use super::*;
    use crate::error::Action;

    #[test]
    fn cycle_gives_deadlock_to_requester_on_a_tie() {
        let m = Mvcc::new();
        let s = m.register(0);
        let g = WaitGraph::default();
        g.wait_for(TxnId(1), &[TxnId(2)], 1, &s).unwrap();
        g.wait_for(TxnId(2), &[TxnId(3)], 1, &s).unwrap();
        let e = g.wait_for(TxnId(3), &[TxnId(1)], 1, &s).unwrap_err();
        assert_eq!(e.action(), Action::RollbackTransaction);
        assert_eq!(g.deadlock_count(), 1);
        // The other edges stay; after 2 stops waiting, 3 can wait for 1.
        g.done(TxnId(2));
        g.wait_for(TxnId(3), &[TxnId(1)], 1, &s).unwrap();
    }

    #[test]
    fn a_lighter_transaction_in_the_cycle_is_the_victim() {
        let m = Mvcc::new();
        let (a, b) = (m.register(1), m.register(2));
        let g = WaitGraph::default();
        g.wait_for(TxnId(1), &[TxnId(2)], 1, &a).unwrap();
        // 2 is heavier: 1 is chosen and woken; 2 keeps waiting.
        g.wait_for(TxnId(2), &[TxnId(1)], 5, &b).unwrap();
        assert!(a.wait.lock().victim);
        assert!(!g.is_waiting(TxnId(1)));
        assert!(g.is_waiting(TxnId(2)));
    }

    #[test]
    fn waiting_for_several_holders_finds_the_cycle_through_any() {
        let m = Mvcc::new();
        let s = m.register(0);
        let g = WaitGraph::default();
        g.wait_for(TxnId(1), &[TxnId(2), TxnId(3)], 1, &s).unwrap();
        assert!(g.wait_for(TxnId(3), &[TxnId(1)], 1, &s).is_err());
    }

    #[test]
    fn shared_locks_are_compatible_and_exclusive_waits_for_all() {
        let mut st = SlotState::default();
        assert_eq!(
            try_lock(&mut st, TxnId(1), LockMode::Shared),
            Ok(Acquire::Granted { newly: true })
        );
        assert_eq!(
            try_lock(&mut st, TxnId(2), LockMode::Shared),
            Ok(Acquire::Granted { newly: true })
        );
        assert_eq!(
            try_lock(&mut st, TxnId(3), LockMode::Exclusive),
            Err(vec![TxnId(1), TxnId(2)])
        );
        assert!(st.release(TxnId(1), &mut Wakes::default()));
        // 2 alone may upgrade.
        assert_eq!(
            try_lock(&mut st, TxnId(2), LockMode::Exclusive),
            Ok(Acquire::Granted { newly: false })
        );
        assert_eq!(st.owner(), Some(TxnId(2)));
    }

    /// Queue `txn` for `mode` on the row (as `lock_record` does) and return its edges.
    fn enqueue(st: &mut SlotState, txn: u64, mode: LockMode, waker: &Arc<TxnSlot>) -> Vec<TxnId> {
        let blockers = try_lock(st, TxnId(txn), mode).expect_err("must wait");
        st.queue
            .get_or_insert_with(Box::default)
            .waiting
            .push(Request {
                txn: TxnId(txn),
                mode,
                waker: waker.clone(),
            });
        blockers
    }

    #[test]
    fn a_waiter_waits_for_the_holders_and_the_nearest_conflicting_waiter() {
        let m = Mvcc::new();
        let w = m.register(0);
        let (s, x) = (LockMode::Shared, LockMode::Exclusive);
        let mut st = SlotState::locked_by(TxnId(1));
        assert_eq!(enqueue(&mut st, 2, x, &w), vec![TxnId(1)]);
        assert_eq!(enqueue(&mut st, 3, s, &w), vec![TxnId(1), TxnId(2)]);
        assert_eq!(enqueue(&mut st, 4, s, &w), vec![TxnId(1), TxnId(2)]);
        // An X request: the request just before it, whatever its mode; not 2 and 3 as well.
        assert_eq!(enqueue(&mut st, 5, x, &w), vec![TxnId(1), TxnId(4)]);
        assert_eq!(enqueue(&mut st, 6, s, &w), vec![TxnId(1), TxnId(5)]);
        // 1 ends: 2 is granted, and nothing after it (everything conflicts with a waiting X).
        assert!(st.release(TxnId(1), &mut Wakes::default()));
        assert_eq!(st.owner(), Some(TxnId(2)));
        assert_eq!(st.queue.as_ref().map(|q| q.waiting.len()), Some(4));
    }

    #[test]
    fn a_cycle_through_a_skipped_shared_waiter_is_found_through_the_next() {
        // Row r: holder 1 (X); waiting 3 (S), 4 (S), 5 (X). 5's edges skip 3 (see the module
        // doc): 5 → 1 and 5 → 4, and 4 → 1 as 3 → 1. 1 now waits for 3 on another row: the
        // cycle 1 → 3 → 1 is found; and if 1 waits for 5, 5 → 1 closes it directly.
        let m = Mvcc::new();
        let w = m.register(0);
        let (s, x) = (LockMode::Shared, LockMode::Exclusive);
        let mut st = SlotState::locked_by(TxnId(1));
        let g = WaitGraph::default();
        for (t, mode) in [(3, s), (4, s), (5, x)] {
            let edges = enqueue(&mut st, t, mode, &w);
            g.wait_for(TxnId(t), &edges, 10, &w).unwrap();
        }
        assert!(g.wait_for(TxnId(1), &[TxnId(3)], 1, &w).is_err());
        // The same wait of 1 for 5's rows instead: found through 5 → 4 → 1.
        assert!(g.wait_for(TxnId(1), &[TxnId(5)], 1, &w).is_err());
    }

    #[test]
    fn a_long_queue_on_one_row_is_no_deadlock() {
        // 2,000 X waiters on one row: with an edge to every earlier waiter the search passed
        // MAX_SEARCH and every new waiter got a false 1213.
        let m = Mvcc::new();
        let w = m.register(0);
        let mut st = SlotState::locked_by(TxnId(1));
        let g = WaitGraph::default();
        for t in 2..2_002 {
            let edges = enqueue(&mut st, t, LockMode::Exclusive, &w);
            assert!(edges.len() <= 2);
            g.wait_for(TxnId(t), &edges, 1, &w).unwrap();
        }
        assert_eq!(g.deadlock_count(), 0);
    }

    #[test]
    fn gaps_merge_and_block_only_inserts_of_others() {
        let gl = GapLocks::default();
        let k = |b: u8| Some(vec![b].into_boxed_slice());
        assert!(gl.lock(TxnId(1), Gap { lo: k(1), hi: k(3) }));
        assert!(!gl.lock(TxnId(1), Gap { lo: k(3), hi: k(5) }));
        assert_eq!(gl.count.load(Ordering::Relaxed), 1);
        assert_eq!(gl.conflicts(TxnId(2), &[4]), vec![TxnId(1)]);
        assert!(gl.conflicts(TxnId(2), &[1]).is_empty());
        assert!(gl.conflicts(TxnId(1), &[4]).is_empty());
        gl.release(TxnId(1));
        assert!(gl.conflicts(TxnId(2), &[4]).is_empty());
    }
}
