//! A pool worker: find work, serve it, repeat; sleep when there is none; exit when idle too
//! long. Its waits are reported to its group through the wait API's observer.

use super::conn::Buffers;
use super::epoll::Events;
use super::group::{Sleeper, ThreadGroup};
use super::listener::{self, MAX_EVENTS};
use super::PoolConn;
use crate::wait::{self, WaitEvent, WaitObserver};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The body of a worker thread (counted in its group when it was reserved).
pub fn run(group: Arc<ThreadGroup>) {
    if let Some(steering) = &group.shared.steering {
        steering.pin_worker(group.id);
    }
    wait::set_thread_observer(Some(Arc::new(WorkerObserver {
        group: group.clone(),
        depth: AtomicU32::new(0),
    })));
    let me = Arc::new(Sleeper::default());
    let mut bufs = Buffers::new();
    let mut events = Events::with_capacity(MAX_EVENTS);
    let mut one = Events::with_capacity(1);
    while let Some(conn) = next_work(&group, &me, &mut events, &mut one) {
        serve_guarded(&conn, &mut bufs);
    }
    wait::set_thread_observer(None);
}

/// Serve; a panic in the session code closes that connection, not the worker.
fn serve_guarded(conn: &Arc<PoolConn>, bufs: &mut Buffers) {
    let served = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| conn.serve(bufs)));
    if served.is_err() {
        tracing::error!("thread pool: a connection's command panicked; closing it");
        *bufs = Buffers::new();
        conn.abort();
    }
}

/// The next connection to serve, or None when this worker should exit (idle timeout).
/// Order: queued work (if not oversubscribed) → the listener role (if vacant) → one event
/// without waiting → sleep.
fn next_work(
    group: &Arc<ThreadGroup>,
    me: &Arc<Sleeper>,
    events: &mut Events,
    one: &mut Events,
) -> Option<Arc<PoolConn>> {
    let mut st = group.state.lock();
    loop {
        let limits = group.shared.limits();
        if let Some(conn) = st.take_work(&limits) {
            return Some(conn);
        }
        if st.try_listen() {
            drop(st);
            // It returns having left the listener role (active again).
            return Some(listener::listen(group, events));
        }
        if !st.too_many_active(&limits) {
            drop(st);
            let polled = listener::poll_one(group, one);
            st = group.state.lock();
            if let Some(conn) = polled {
                st.polled_one();
                return Some(conn);
            }
            if let Some(conn) = st.take_work(&limits) {
                return Some(conn);
            }
        }
        st.sleep(me.clone());
        let idle_since = Instant::now();
        loop {
            let timed_out = me.cond.wait_for(&mut st, limits.idle_timeout).timed_out();
            if me.woken.swap(false, Ordering::Relaxed) {
                break;
            }
            let limits = group.shared.limits();
            if timed_out && st.idle_exit(me, idle_since, Instant::now(), &limits) {
                return None;
            }
        }
    }
}

/// Tells the worker's group when the worker blocks and unblocks. Nested waits (a log sync
/// inside a commit wait) count once.
pub struct WorkerObserver {
    group: Arc<ThreadGroup>,
    depth: AtomicU32,
}

impl WaitObserver for WorkerObserver {
    fn wait_begin(&self, _event: WaitEvent) {
        if self.depth.fetch_add(1, Ordering::Relaxed) > 0 {
            return;
        }
        let limits = self.group.shared.limits();
        let free = self.group.free_connections.load(Ordering::Acquire) > 0;
        let spawn = self
            .group
            .state
            .lock()
            .wait_begin(Instant::now(), &limits, free);
        self.group.spawn(spawn);
    }

    fn wait_end(&self, _event: WaitEvent) {
        if self.depth.fetch_sub(1, Ordering::Relaxed) == 1 {
            self.group.state.lock().wait_end();
        }
    }
}
