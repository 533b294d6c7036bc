//! Row slots, row locks, lock waits and deadlock detection.
//!
//! A row lock is the `owner` field of a slot's state. Taking a free lock is one mutex
//! acquisition; waiting for a held one goes through [`acquire`], which registers a waits-for
//! edge in the [`WaitGraph`] (the requester gets 1213 if that closes a cycle), blocks on the
//! slot's own condvar inside `wait::begin(WaitEvent::RowLock)`, and gives 1205 when the txn's
//! lock wait timeout expires. Releasing a lock notifies only that slot's condvar.

use super::{Row, TxnId};
use crate::error::{Error, Result};
use crate::wait::{self, ev, Mutex, WaitEvent, WaitGuard};
use parking_lot::{Condvar, MutexGuard};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// One row: its versions and its lock. Lives in the primary index (and is pointed at by the
/// secondary index entries of its versions).
pub(crate) struct Slot {
    /// The encoded primary key (or hidden row id). Immutable: a primary key change is a delete
    /// of this slot and an insert into another.
    pub key: Box<[u8]>,
    /// Versions and lock; see [`SlotState`].
    pub state: Mutex<SlotState, ev::RowSlot>,
    /// Waiters for this row's lock (targeted wakeups).
    pub cv: Condvar,
}

/// Everything here is protected by `Slot::state`.
#[derive(Default)]
pub(crate) struct SlotState {
    /// The latest committed image; None if the row does not exist (yet / any more).
    pub committed: Option<Row>,
    /// The owner's uncommitted image: None = no change, Some(None) = deleted, Some(Some(r)).
    /// Only ever Some while `owner` is Some.
    pub pending: Option<Option<Row>>,
    /// The txn holding the X lock.
    pub owner: Option<TxnId>,
    /// Threads blocked on `Slot::cv`; a slot with waiters is never garbage-collected.
    pub waiters: u32,
    /// Set when the slot was taken out of its table's primary index (empty slot collected, or
    /// TRUNCATE / DROP). A removed slot is never used again; whoever finds it retries its lookup.
    pub removed: bool,
}

impl SlotState {
    /// The version `txn` sees without locking: its own pending one, else the committed one.
    pub fn visible(&self, txn: TxnId) -> Option<&Row> {
        match (&self.pending, self.owner) {
            (Some(p), Some(o)) if o == txn => p.as_ref(),
            _ => self.committed.as_ref(),
        }
    }

    /// True if the slot holds nothing and nobody needs it: it can leave the index.
    pub fn is_garbage(&self) -> bool {
        self.committed.is_none()
            && self.pending.is_none()
            && self.owner.is_none()
            && self.waiters == 0
            && !self.removed
    }
}

impl Slot {
    pub fn new(key: Vec<u8>, state: SlotState) -> Slot {
        Slot {
            key: key.into_boxed_slice(),
            state: Mutex::new(state),
            cv: Condvar::new(),
        }
    }
}

/// The result of trying to take a row lock.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Acquire {
    /// The caller holds the lock; `newly` if it was just taken (the txn must remember it).
    Owned { newly: bool },
    /// The slot left the index: look the key up again.
    Removed,
}

/// Try to take the lock without blocking. `Err(owner)` if another txn holds it.
pub(crate) fn try_acquire(st: &mut SlotState, me: TxnId) -> Result<Acquire, TxnId> {
    if st.removed {
        return Ok(Acquire::Removed);
    }
    match st.owner {
        None => {
            st.owner = Some(me);
            Ok(Acquire::Owned { newly: true })
        }
        Some(o) if o == me => Ok(Acquire::Owned { newly: false }),
        Some(o) => Err(o),
    }
}

/// Take the row lock of `slot` for `me`, waiting as long as `timeout` for its owner.
/// Must be called with no table or index lock held.
pub(crate) fn acquire(
    graph: &WaitGraph,
    slot: &Slot,
    me: TxnId,
    timeout: Duration,
) -> Result<Acquire> {
    let mut st = slot.state.lock();
    let mut waiting: Option<(WaitGuard, Instant)> = None;
    let result = loop {
        let owner = match try_acquire(&mut st, me) {
            Ok(a) => break Ok(a),
            Err(owner) => owner,
        };
        if let Err(e) = graph.wait_for(me, owner) {
            break Err(e);
        }
        let deadline = match &waiting {
            Some((_, deadline)) => *deadline,
            None => {
                // Tell the scheduler outside the slot mutex, then look again.
                MutexGuard::unlocked(&mut st, || {
                    waiting = Some((wait::begin(WaitEvent::RowLock), Instant::now() + timeout));
                });
                continue;
            }
        };
        st.waiters += 1;
        let timed_out = slot.cv.wait_until(&mut st, deadline).timed_out();
        st.waiters -= 1;
        if timed_out {
            match try_acquire(&mut st, me) {
                Ok(a) => break Ok(a),
                Err(_) => break Err(Error::lock_wait_timeout()),
            }
        }
    };
    drop(st);
    if waiting.is_some() || result.is_err() {
        graph.done(me);
    }
    result
}

/// Release `me`'s lock on the slot (its pending version must already be resolved) and wake the
/// slot's waiters. Returns true if the slot is now garbage.
pub(crate) fn release(slot: &Slot, me: TxnId) -> bool {
    let mut st = slot.state.lock();
    if st.owner != Some(me) {
        return false;
    }
    st.owner = None;
    st.pending = None;
    if st.waiters > 0 {
        slot.cv.notify_all();
    }
    st.is_garbage()
}

/// The waits-for graph of the engine: `waiter → holder`. A txn waits for at most one other at a
/// time, so the graph is a map and a cycle check is a walk along one chain.
#[derive(Default)]
pub(crate) struct WaitGraph {
    edges: Mutex<HashMap<TxnId, TxnId>, ev::LockWaitGraph>,
    deadlocks: std::sync::atomic::AtomicU64,
}

impl WaitGraph {
    /// Record that `me` waits for `holder`; 1213 if `holder` (transitively) waits for `me`.
    pub fn wait_for(&self, me: TxnId, holder: TxnId) -> Result<()> {
        let mut edges = self.edges.lock();
        let mut cur = holder;
        for _ in 0..=edges.len() {
            if cur == me {
                edges.remove(&me);
                self.deadlocks
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                return Err(Error::deadlock());
            }
            match edges.get(&cur) {
                Some(&next) => cur = next,
                None => break,
            }
        }
        edges.insert(me, holder);
        Ok(())
    }

    /// `me` no longer waits.
    pub fn done(&self, me: TxnId) {
        self.edges.lock().remove(&me);
    }

    /// Current `(waiter, holder)` edges.
    pub fn edges(&self) -> Vec<(TxnId, TxnId)> {
        let mut v: Vec<_> = self.edges.lock().iter().map(|(a, b)| (*a, *b)).collect();
        v.sort();
        v
    }

    /// Deadlocks detected so far.
    pub fn deadlock_count(&self) -> u64 {
        self.deadlocks.load(std::sync::atomic::Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Action;

    #[test]
    fn cycle_gives_deadlock_to_requester() {
        let g = WaitGraph::default();
        g.wait_for(TxnId(1), TxnId(2)).unwrap();
        g.wait_for(TxnId(2), TxnId(3)).unwrap();
        let e = g.wait_for(TxnId(3), TxnId(1)).unwrap_err();
        assert_eq!(e.action(), Action::RollbackTransaction);
        assert_eq!(g.deadlock_count(), 1);
        // The other edges stay; after 2 stops waiting, 3 can wait for 1.
        g.done(TxnId(2));
        g.wait_for(TxnId(3), TxnId(1)).unwrap();
    }

    #[test]
    fn lock_wait_times_out() {
        let g = WaitGraph::default();
        let slot = Slot::new(vec![1], SlotState::default());
        assert_eq!(
            acquire(&g, &slot, TxnId(1), Duration::from_secs(1)).unwrap(),
            Acquire::Owned { newly: true }
        );
        let e = acquire(&g, &slot, TxnId(2), Duration::from_millis(30)).unwrap_err();
        assert_eq!(e.code(), crate::error::Error::lock_wait_timeout().code());
        assert!(!g.edges.lock().contains_key(&TxnId(2)));
        assert!(release(&slot, TxnId(1)));
        assert_eq!(
            acquire(&g, &slot, TxnId(2), Duration::from_millis(30)).unwrap(),
            Acquire::Owned { newly: true }
        );
    }
}
