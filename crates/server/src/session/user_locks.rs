//! User-level locks: `GET_LOCK(name, timeout)`, `RELEASE_LOCK(name)`, `IS_FREE_LOCK(name)`,
//! `IS_USED_LOCK(name)`, `RELEASE_ALL_LOCKS()`, with MariaDB 10.11's semantics (observed):
//!
//! * a lock belongs to the connection that took it; taking it again nests (RELEASE_LOCK must
//!   be called as many times); it is released when the connection ends;
//! * GET_LOCK waits up to `timeout` seconds (negative: forever) and answers 1, or 0 on
//!   timeout; a wait that would close a cycle of connections waiting for each other's locks
//!   fails at once with 1213 (deadlock); KILL ends a wait with 1317;
//! * NULL or empty names give NULL; RELEASE_LOCK gives 1 (released one level), 0 (another
//!   connection holds it), NULL (nobody does); RELEASE_ALL_LOCKS gives the number of levels
//!   released. Names compare case-insensitively.
//!
//! Locking: `UserLocks::state` (one mutex) holds the owners and the waits; `released` is
//! signalled whenever a lock is released.

use crate::error::{Error, Result};
use cohort_protocol::ErrorCode;
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::time::{Duration, Instant};

#[derive(Default)]
struct State {
    /// Lock name (lower-case) → (owner connection, nesting depth).
    owners: HashMap<String, (u32, u64)>,
    /// Connection → the lock it waits for.
    waiting: HashMap<u32, String>,
}

/// The user-level locks of the server.
#[derive(Default)]
pub struct UserLocks {
    state: Mutex<State>,
    released: Condvar,
}

fn key(name: &str) -> String {
    name.to_lowercase()
}

impl UserLocks {
    /// GET_LOCK: Some(1) taken, Some(0) timed out; None for an empty name.
    pub fn get(&self, me: u32, name: &str, timeout: Option<Duration>) -> Result<Option<i64>> {
        if name.is_empty() {
            return Ok(None);
        }
        let k = key(name);
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut st = self.state.lock();
        loop {
            match st.owners.get_mut(&k) {
                None => {
                    st.owners.insert(k.clone(), (me, 1));
                    st.waiting.remove(&me);
                    return Ok(Some(1));
                }
                Some((owner, depth)) if *owner == me => {
                    *depth += 1;
                    st.waiting.remove(&me);
                    return Ok(Some(1));
                }
                Some(_) => {}
            }
            if closes_cycle(&st, me, &k) {
                st.waiting.remove(&me);
                return Err(Error::new(
                    ErrorCode::LockDeadlock,
                    "Deadlock found when trying to get lock; try restarting transaction",
                ));
            }
            if crate::interrupt::requested() {
                st.waiting.remove(&me);
                return Err(crate::interrupt::interrupted());
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                st.waiting.remove(&me);
                return Ok(Some(0));
            }
            st.waiting.insert(me, k.clone());
            // A KILL is seen within one slice.
            let slice = deadline.map_or(Duration::from_millis(50), |d| {
                (d - now).min(Duration::from_millis(50))
            });
            self.released.wait_for(&mut st, slice);
        }
    }

    /// RELEASE_LOCK.
    pub fn release(&self, me: u32, name: &str) -> Option<i64> {
        let k = key(name);
        let mut st = self.state.lock();
        let (owner, depth) = st.owners.get_mut(&k)?;
        if *owner != me {
            return Some(0);
        }
        *depth -= 1;
        if *depth == 0 {
            st.owners.remove(&k);
            self.released.notify_all();
        }
        Some(1)
    }

    /// RELEASE_ALL_LOCKS (and the end of a connection): levels released.
    pub fn release_all(&self, me: u32) -> i64 {
        let mut st = self.state.lock();
        let mut n = 0;
        st.owners.retain(|_, (owner, depth)| {
            if *owner == me {
                n += *depth as i64;
                false
            } else {
                true
            }
        });
        st.waiting.remove(&me);
        if n > 0 {
            self.released.notify_all();
        }
        n
    }

    /// IS_USED_LOCK: the owner's connection id.
    pub fn owner(&self, name: &str) -> Option<u32> {
        self.state.lock().owners.get(&key(name)).map(|(o, _)| *o)
    }
}

/// Would `me` waiting for lock `k` close a cycle (the owner of `k` waits, transitively, for a
/// lock `me` holds)?
fn closes_cycle(st: &State, me: u32, k: &str) -> bool {
    let mut lock = k.to_string();
    for _ in 0..=st.waiting.len() {
        let Some((owner, _)) = st.owners.get(&lock) else {
            return false;
        };
        if *owner == me {
            return true;
        }
        match st.waiting.get(owner) {
            Some(next) => lock = next.clone(),
            None => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn nesting_ownership_and_release_all() {
        let l = UserLocks::default();
        let now = Some(Duration::ZERO);
        assert_eq!(l.get(1, "a", now).unwrap(), Some(1));
        assert_eq!(l.get(1, "A", now).unwrap(), Some(1));
        assert_eq!(l.owner("a"), Some(1));
        assert_eq!(
            l.get(2, "a", Some(Duration::from_millis(30))).unwrap(),
            Some(0)
        );
        assert_eq!(l.release(2, "a"), Some(0));
        assert_eq!(l.release(1, "a"), Some(1));
        assert_eq!(l.owner("a"), Some(1));
        assert_eq!(l.release(1, "a"), Some(1));
        assert_eq!(l.release(1, "a"), None);
        assert_eq!(l.get(1, "", now).unwrap(), None);
        l.get(1, "b", now).unwrap();
        l.get(1, "c", now).unwrap();
        l.get(1, "c", now).unwrap();
        assert_eq!(l.release_all(1), 3);
        assert_eq!(l.owner("b"), None);
    }

    #[test]
    fn a_waiter_gets_the_lock_when_released_and_a_cycle_is_a_deadlock() {
        let l = Arc::new(UserLocks::default());
        let now = Some(Duration::ZERO);
        l.get(1, "x1", now).unwrap();
        l.get(2, "x2", now).unwrap();
        let l2 = l.clone();
        let waiter = std::thread::spawn(move || l2.get(1, "x2", Some(Duration::from_secs(30))));
        std::thread::sleep(Duration::from_millis(100));
        let e = l.get(2, "x1", Some(Duration::from_secs(30))).unwrap_err();
        assert_eq!(e.code(), ErrorCode::LockDeadlock);
        assert_eq!(l.release_all(2), 1);
        assert_eq!(waiter.join().unwrap().unwrap(), Some(1));
        assert_eq!(l.owner("x2"), Some(1));
    }
}
