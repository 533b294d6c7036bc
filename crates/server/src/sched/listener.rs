//! The listener role: one worker per group at a time waits in `epoll_wait` for ready
//! connections and queues them (see the rules in [`super::group`]).

use super::epoll::Events;
use super::group::ThreadGroup;
use super::PoolConn;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Most events taken from epoll at once.
pub const MAX_EVENTS: usize = 1024;

/// Listen until the listener keeps a connection for itself (the queue was empty); other
/// ready connections are queued and workers woken as the group's rules say.
pub fn listen(group: &Arc<ThreadGroup>, events: &mut Events) -> Arc<PoolConn> {
    loop {
        if let Err(e) = group.epoll.wait(events, -1) {
            tracing::error!("thread pool: epoll_wait failed: {e}");
            std::thread::sleep(Duration::from_millis(100));
            continue;
        }
        let limits = group.shared.limits();
        let ready = ready_connections(group, events, limits.priority);
        if ready.is_empty() {
            continue;
        }
        let (picked, spawn) = group
            .state
            .lock()
            .listener_got(ready, Instant::now(), &limits);
        group.spawn(spawn);
        if let Some(conn) = picked {
            return conn;
        }
    }
}

/// One ready connection without waiting, for a worker about to sleep.
pub fn poll_one(group: &ThreadGroup, events: &mut Events) -> Option<Arc<PoolConn>> {
    group.epoll.wait(events, 0).ok()?;
    let priority = group.shared.limits().priority;
    let mut ready = ready_connections(group, events, priority);
    // `events` may hold more than one: queue the others.
    let first = (!ready.is_empty()).then(|| ready.remove(0).0);
    if !ready.is_empty() {
        let mut st = group.state.lock();
        let now = Instant::now();
        for (conn, high) in ready {
            st.queue.push(conn, high, now);
        }
    }
    first
}

/// The connections behind delivered events that this thread now holds (see the claim
/// protocol in [`super::conn`]: an event for a connection somebody holds only tells the
/// holder), with their queue priority. They are no longer idle: their deadline is cleared.
fn ready_connections(
    group: &ThreadGroup,
    events: &Events,
    priority: super::Priority,
) -> Vec<(Arc<PoolConn>, bool)> {
    let conns = group.conns.lock();
    events
        .delivered()
        .filter_map(|(token, hangup)| {
            let conn = conns.get(&token)?;
            if hangup {
                conn.peer_hung_up();
            }
            conn.claim().then(|| conn.clone())
        })
        .map(|conn| {
            conn.deadline_ms
                .store(0, std::sync::atomic::Ordering::Relaxed);
            let high = conn.is_high_priority(priority);
            (conn, high)
        })
        .collect()
}
