//! A thread group: its queues, its workers' accounting, and every decision about waking or
//! creating a worker.
//!
//! [`GroupState`] is the group's bookkeeping, protected by the group mutex
//! ([`ThreadGroup::state`]); its methods are the pool's rules and take the time and the limits
//! as arguments, so they are unit-tested without threads. A worker is always in exactly one of
//! these conditions:
//!
//! | condition | counted in | `active`? |
//! |---|---|---|
//! | running a connection, or about to look for work | `threads` | yes |
//! | the group's listener (in `epoll_wait`) | `threads`, `listening` | no |
//! | blocked in a wait of the wait API (row lock, commit, log sync…) | `threads`, `blocked` | no |
//! | asleep on its own condition variable, on the `sleepers` stack | `threads` | no |
//!
//! The rules (MariaDB's thread pool, in our words):
//!
//! - A worker takes queued work only while the group has fewer than `1 + oversubscribe` active
//!   workers (itself included) — unless the group is *stalled*. Blocked workers do not count:
//!   that is what lets a group keep serving while some of its sessions wait on locks or logs.
//! - Sleepers are woken last-in first-out (a warm cache, and the idle timeout then retires the
//!   workers nobody needs).
//! - When the last active worker blocks in a wait and there is queued work, or no listener
//!   while some connection waits in epoll, and
//!   when work is queued (by the listener or a commit completion) while no worker is active, a
//!   sleeper is woken or, if there is none, a worker is created at once: nobody else would run
//!   it. (MariaDB creates only when the listener is the group's only thread and otherwise
//!   waits for stall detection; we do not wait.)
//! - Other creations are throttled: none is delayed below `1 + oversubscribe` threads; then at
//!   most one per `stall_limit / 10` below 16 threads and one per `stall_limit / 5` above.
//! - `thread_pool_max_threads` bounds the workers of all groups, but a group may always have 2
//!   (a listener and a worker).
//! - Stall check (the timer, every `stall_limit`): queued work and no dequeue since the last
//!   check marks the group stalled (lifting the oversubscribe cap until work moves again) and
//!   wakes or creates a worker; connections but no listener and no I/O event since the last
//!   check wakes or creates one too.

use super::epoll::Epoll;
use super::{Limits, PoolConn, PoolShared};
use crate::status::StatusCounter;
use parking_lot::{Condvar, Mutex};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Two FIFO queues: connections inside a transaction (or delivering a commit outcome) first.
/// A low-priority entry waiting longer than `thread_pool_prio_kickup_timer` is moved to the
/// high queue by the timer ([`PriorityQueues::kick_up`]), so that a stream of transactions
/// cannot starve it.
pub struct PriorityQueues<T> {
    high: VecDeque<T>,
    /// With the time each entry was queued (oldest first).
    low: VecDeque<(T, Instant)>,
}

impl<T> Default for PriorityQueues<T> {
    fn default() -> Self {
        PriorityQueues {
            high: VecDeque::new(),
            low: VecDeque::new(),
        }
    }
}

impl<T> PriorityQueues<T> {
    pub fn push(&mut self, item: T, high: bool, now: Instant) {
        match high {
            true => self.high.push_back(item),
            false => self.low.push_back((item, now)),
        }
    }

    pub fn pop(&mut self) -> Option<T> {
        self.high
            .pop_front()
            .or_else(|| self.low.pop_front().map(|(item, _)| item))
    }

    /// Move the low-priority entries queued at or before `queued_by` to the high queue; how
    /// many moved.
    pub fn kick_up(&mut self, queued_by: Instant) -> usize {
        let mut moved = 0;
        while self.low.front().is_some_and(|(_, t)| *t <= queued_by) {
            let (item, _) = self.low.pop_front().expect("checked");
            self.high.push_back(item);
            moved += 1;
        }
        moved
    }

    pub fn is_empty(&self) -> bool {
        self.high.is_empty() && self.low.is_empty()
    }

    pub fn len(&self) -> usize {
        self.high.len() + self.low.len()
    }
}

/// A sleeping worker's own condition variable (waits on the group mutex).
#[derive(Default)]
pub struct Sleeper {
    pub cond: Condvar,
    /// Set (under the group mutex) by whoever pops this sleeper and counts it active again.
    pub woken: AtomicBool,
}

/// What the caller must do after a decision, outside the group mutex.
#[must_use]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spawn(pub usize);

impl Spawn {
    fn add(&mut self, other: Spawn) {
        self.0 += other.0;
    }
}

/// The group's bookkeeping. Protected by [`ThreadGroup::state`].
pub struct GroupState<T> {
    pub queue: PriorityQueues<T>,
    /// Sleeping workers, the most recent last (woken first).
    sleepers: Vec<Arc<Sleeper>>,
    /// Is some worker the listener now?
    pub listening: bool,
    /// Workers alive in this group.
    pub threads: usize,
    /// Workers running or ready to run connections.
    pub active: usize,
    /// Workers blocked in a wait of the wait API.
    pub blocked: usize,
    /// The stall check lifted the oversubscribe cap.
    pub stalled: bool,
    /// Dequeues and listener events since the last stall check.
    queue_events: u64,
    io_events: u64,
    last_created: Option<Instant>,
    /// Threadpool_threads / Threadpool_idle_threads and the pool-wide thread count.
    gauges: Arc<crate::session::ServerContext>,
}

impl<T> GroupState<T> {
    pub fn new(gauges: Arc<crate::session::ServerContext>) -> GroupState<T> {
        GroupState {
            queue: PriorityQueues::default(),
            sleepers: Vec::new(),
            listening: false,
            threads: 0,
            active: 0,
            blocked: 0,
            stalled: false,
            queue_events: 0,
            io_events: 0,
            last_created: None,
            gauges,
        }
    }

    fn status(&self) -> &crate::status::Status {
        &self.gauges.status
    }

    fn activate(&mut self) {
        self.active += 1;
        self.status().sub(StatusCounter::ThreadpoolIdleThreads, 1);
    }

    fn deactivate(&mut self) {
        self.active -= 1;
        self.status().add(StatusCounter::ThreadpoolIdleThreads, 1);
    }

    /// Too many active workers to take more work (the caller counts itself).
    pub fn too_many_active(&self, limits: &Limits) -> bool {
        self.active > limits.oversubscribe && !self.stalled
    }

    /// A worker (active) looks for queued work.
    pub fn take_work(&mut self, limits: &Limits) -> Option<T> {
        if self.too_many_active(limits) {
            return None;
        }
        let item = self.queue.pop()?;
        self.queue_events += 1;
        Some(item)
    }

    /// An active worker becomes the listener, if there is none.
    pub fn try_listen(&mut self) -> bool {
        if self.listening {
            return false;
        }
        self.listening = true;
        self.deactivate();
        true
    }

    /// The listener goes back to work.
    pub fn stop_listening(&mut self) {
        self.listening = false;
        self.activate();
    }

    /// A worker picked one event itself with a non-blocking poll.
    pub fn polled_one(&mut self) {
        self.io_events += 1;
    }

    /// The listener got `items` (with their priority). If the queue was empty it keeps the
    /// first for itself (no hand-off): it leaves the listener role and is active again, so no
    /// worker is woken — the group keeps one thread active, and the others queued here are
    /// taken when it finishes (or by a worker that is already active, or after a wait or a
    /// stall). Otherwise everything is queued, and if no worker is active one is woken or
    /// created.
    pub fn listener_got(
        &mut self,
        items: Vec<(T, bool)>,
        now: Instant,
        limits: &Limits,
    ) -> (Option<T>, Spawn) {
        self.io_events += items.len() as u64;
        let mut items = items.into_iter();
        let picked = match self.queue.is_empty() {
            true => items.next().map(|(item, _)| item),
            false => None,
        };
        for (item, high) in items {
            self.queue.push(item, high, now);
        }
        if picked.is_some() {
            self.stop_listening();
            return (picked, Spawn(0));
        }
        let spawn = self.kick_if_idle(now, limits);
        (picked, spawn)
    }

    /// Queue work from outside the listener (a commit completion).
    pub fn enqueue(&mut self, item: T, high: bool, now: Instant, limits: &Limits) -> Spawn {
        self.queue.push(item, high, now);
        self.kick_if_idle(now, limits)
    }

    /// Work is queued and no worker is active: somebody must run it.
    fn kick_if_idle(&mut self, now: Instant, limits: &Limits) -> Spawn {
        match !self.queue.is_empty() && self.active == 0 {
            true => self.wake_or_create(now, limits, true),
            false => Spawn(0),
        }
    }

    /// A worker is about to block in a wait (wait API). `free_connections`: some connection
    /// of the group is armed in epoll and held by nobody — without one, and with nothing
    /// queued, there is nothing a listener could find, so nobody is woken (a single busy
    /// connection's log sync costs no thread switch).
    pub fn wait_begin(&mut self, now: Instant, limits: &Limits, free_connections: bool) -> Spawn {
        self.deactivate();
        self.blocked += 1;
        let needed = !self.queue.is_empty() || (!self.listening && free_connections);
        match self.active == 0 && needed {
            true => self.wake_or_create(now, limits, true),
            false => Spawn(0),
        }
    }

    /// The wait ended: the worker runs again (even beyond the oversubscribe cap: it holds a
    /// session in the middle of a statement).
    pub fn wait_end(&mut self) {
        self.blocked -= 1;
        self.activate();
    }

    /// An active worker found nothing to do and goes to sleep.
    pub fn sleep(&mut self, me: Arc<Sleeper>) {
        me.woken.store(false, Ordering::Relaxed);
        self.sleepers.push(me);
        self.deactivate();
    }

    /// A sleeper's wait timed out: it exits (and true is returned) if it has been idle for
    /// `idle_timeout` and nobody woke it meanwhile.
    pub fn idle_exit(
        &mut self,
        me: &Arc<Sleeper>,
        idle_since: Instant,
        now: Instant,
        limits: &Limits,
    ) -> bool {
        if me.woken.load(Ordering::Relaxed) || now.duration_since(idle_since) < limits.idle_timeout
        {
            return false;
        }
        let Some(i) = self.sleepers.iter().position(|s| Arc::ptr_eq(s, me)) else {
            return false;
        };
        self.sleepers.remove(i);
        self.threads -= 1;
        self.status().sub(StatusCounter::ThreadpoolThreads, 1);
        self.status().sub(StatusCounter::ThreadpoolIdleThreads, 1);
        true
    }

    /// Wake the most recent sleeper (counted active from now on), or reserve a new worker
    /// (the caller spawns it). `urgent`: no active worker would otherwise run the group's
    /// work, so creation is not throttled.
    pub fn wake_or_create(&mut self, now: Instant, limits: &Limits, urgent: bool) -> Spawn {
        if let Some(s) = self.sleepers.pop() {
            s.woken.store(true, Ordering::Relaxed);
            self.activate();
            s.cond.notify_one();
            return Spawn(0);
        }
        if !self.may_create(now, limits, urgent) {
            return Spawn(0);
        }
        self.threads += 1;
        self.active += 1;
        self.last_created = Some(now);
        self.status().add(StatusCounter::ThreadpoolThreads, 1);
        Spawn(1)
    }

    fn may_create(&self, now: Instant, limits: &Limits, urgent: bool) -> bool {
        let total = self.status().get(StatusCounter::ThreadpoolThreads) as usize;
        if total >= limits.max_threads && self.threads >= 2 {
            return false;
        }
        if urgent {
            return true;
        }
        let delay = creation_delay(self.threads, limits);
        self.last_created
            .is_none_or(|t| now.duration_since(t) >= delay)
    }

    /// A reserved worker could not be started.
    pub fn creation_failed(&mut self) {
        self.threads -= 1;
        self.active -= 1;
        self.status().sub(StatusCounter::ThreadpoolThreads, 1);
    }

    /// A connection arrived: if nobody listens and no worker is active (a group without
    /// threads yet, or all blocked), wake or create one.
    pub fn connection_added(&mut self, now: Instant, limits: &Limits) -> Spawn {
        match !self.listening && self.active == 0 {
            true => self.wake_or_create(now, limits, true),
            false => Spawn(0),
        }
    }

    /// The timer's check, every `stall_limit` (`has_connections`: the group has some).
    pub fn check_stall(&mut self, now: Instant, limits: &Limits, has_connections: bool) -> Spawn {
        if let Some(queued_by) = now.checked_sub(limits.prio_kickup) {
            self.queue.kick_up(queued_by);
        }
        let mut spawn = Spawn(0);
        if has_connections && !self.listening && self.io_events == 0 {
            spawn.add(self.wake_or_create(now, limits, false));
        }
        self.io_events = 0;
        if !self.queue.is_empty() && self.queue_events == 0 {
            self.stalled = true;
            spawn.add(self.wake_or_create(now, limits, true));
        } else {
            self.stalled = false;
        }
        self.queue_events = 0;
        spawn
    }

    /// Sleepers now (for tests and status).
    pub fn sleeping(&self) -> usize {
        self.sleepers.len()
    }
}

/// The throttle between two non-urgent worker creations in one group.
pub fn creation_delay(threads: usize, limits: &Limits) -> Duration {
    if threads < 1 + limits.oversubscribe {
        Duration::ZERO
    } else if threads < 16 {
        limits.stall_limit / 10
    } else {
        limits.stall_limit / 5
    }
}

/// One thread group: its state, its epoll instance and its connections.
pub struct ThreadGroup {
    pub id: usize,
    pub shared: Arc<PoolShared>,
    /// The group mutex.
    pub state: Mutex<GroupState<Arc<PoolConn>>>,
    /// Every connection of the group is registered here (edge-triggered reads).
    pub epoll: Epoll,
    /// Connections armed in epoll that nobody holds (claim word `FREE`); counted up before a
    /// connection is let go and down after it is taken, so never below the truth's floor.
    pub free_connections: AtomicUsize,
    /// Connections assigned to the group (read without the group mutex: the stall check,
    /// steering's balance guard).
    pub members: AtomicUsize,
    /// Protected by this mutex: the group's connections by token (the listener looks events
    /// up here; the timer scans it for timeouts). Taken alone, never inside `state`.
    pub conns: Mutex<HashMap<u64, Arc<PoolConn>>>,
}

impl ThreadGroup {
    pub fn new(id: usize, shared: Arc<PoolShared>) -> std::io::Result<ThreadGroup> {
        Ok(ThreadGroup {
            id,
            state: Mutex::new(GroupState::new(shared.ctx.clone())),
            shared,
            epoll: Epoll::new()?,
            free_connections: AtomicUsize::new(0),
            members: AtomicUsize::new(0),
            conns: Mutex::new(HashMap::new()),
        })
    }

    /// Start the workers a decision reserved.
    pub fn spawn(self: &Arc<Self>, spawn: Spawn) {
        for _ in 0..spawn.0 {
            let group = self.clone();
            let started = std::thread::Builder::new()
                .name(format!("pool-{}", self.id))
                .stack_size(crate::net::CONNECTION_STACK)
                .spawn(move || super::worker::run(group));
            match started {
                Ok(_) => self.shared.ctx.status.incr(StatusCounter::ThreadsCreated),
                Err(e) => {
                    tracing::warn!("thread pool: cannot start a worker: {e}");
                    self.state.lock().creation_failed();
                }
            }
        }
    }

    /// Queue a connection whose deferred commit finished.
    pub fn enqueue(self: &Arc<Self>, conn: Arc<PoolConn>, high: bool) {
        let limits = self.shared.limits();
        let spawn = self
            .state
            .lock()
            .enqueue(conn, high, Instant::now(), &limits);
        self.spawn(spawn);
    }

    /// A new connection is registered: make sure a thread will notice it.
    pub fn connection_added(self: &Arc<Self>) {
        let limits = self.shared.limits();
        self.members.fetch_add(1, Ordering::Relaxed);
        let spawn = self.state.lock().connection_added(Instant::now(), &limits);
        self.spawn(spawn);
    }

    /// A connection closed: drop it from the table.
    pub fn forget(&self, token: u64) {
        self.conns.lock().remove(&token);
        self.members.fetch_sub(1, Ordering::Relaxed);
    }

    /// The timer's stall check.
    pub fn check_stall(self: &Arc<Self>, now: Instant, limits: &Limits) {
        let has_connections = self.members.load(Ordering::Relaxed) > 0;
        let spawn = self.state.lock().check_stall(now, limits, has_connections);
        self.spawn(spawn);
    }

    /// The group now, as `information_schema.THREAD_POOL_GROUPS` shows it.
    pub fn snapshot(&self) -> GroupRow {
        let st = self.state.lock();
        GroupRow {
            id: self.id,
            connections: self.members.load(Ordering::Relaxed),
            threads: st.threads,
            active_threads: st.active,
            standby_threads: st.sleeping(),
            queue_length: st.queue.len(),
            has_listener: st.listening,
            is_stalled: st.stalled,
        }
    }
}

/// One row of `information_schema.THREAD_POOL_GROUPS` (MariaDB's columns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupRow {
    pub id: usize,
    pub connections: usize,
    pub threads: usize,
    pub active_threads: usize,
    pub standby_threads: usize,
    pub queue_length: usize,
    pub has_listener: bool,
    pub is_stalled: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::ServerContext;

    fn limits() -> Limits {
        Limits {
            oversubscribe: 3,
            max_threads: 100,
            stall_limit: Duration::from_millis(500),
            idle_timeout: Duration::from_secs(60),
            priority: super::super::Priority::Auto,
            prio_kickup: Duration::from_secs(1),
        }
    }

    fn state() -> GroupState<u32> {
        GroupState::new(Arc::new(ServerContext::for_tests()))
    }

    /// A group with `n` running workers (as if created).
    fn with_workers(n: usize) -> GroupState<u32> {
        let mut s = state();
        let t0 = Instant::now();
        for _ in 0..n {
            assert_eq!(s.wake_or_create(t0, &limits(), true), Spawn(1));
        }
        s
    }

    #[test]
    fn high_priority_first_then_fifo() {
        let t = Instant::now();
        let mut q = PriorityQueues::default();
        q.push(1, false, t);
        q.push(2, true, t);
        q.push(3, false, t);
        q.push(4, true, t);
        assert_eq!(q.len(), 4);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![2, 4, 1, 3]);
        assert!(q.is_empty());
    }

    #[test]
    fn old_low_priority_entries_are_kicked_up_by_the_timer() {
        let l = limits();
        let t0 = Instant::now();
        let mut s = with_workers(1);
        s.queue.push(1, false, t0);
        s.queue.push(2, false, t0 + Duration::from_millis(900));
        // At t0 + 1.2 s only entry 1 has waited the kick-up time (1 s): it now goes before
        // high-priority work that arrives later; entry 2 still waits behind it.
        let _ = s.check_stall(t0 + Duration::from_millis(1200), &l, true);
        s.queue.push(3, true, t0 + Duration::from_millis(1300));
        let order: Vec<_> = std::iter::from_fn(|| s.queue.pop()).collect();
        assert_eq!(order, vec![1, 3, 2]);
    }

    #[test]
    fn oversubscribe_caps_active_workers_but_not_blocked_ones() {
        let l = limits();
        let mut s = with_workers(4);
        for i in 0..10 {
            s.queue.push(i, false, Instant::now());
        }
        assert_eq!(s.active, 4);
        assert!(
            s.take_work(&l).is_none(),
            "4 active = 1 + oversubscribe: no more work"
        );
        // One blocks on a row lock: it stops counting, so another may run.
        let t = Instant::now();
        assert_eq!(
            s.wait_begin(t, &l, true),
            Spawn(0),
            "other workers are active"
        );
        assert_eq!((s.active, s.blocked), (3, 1));
        assert!(s.take_work(&l).is_some());
        s.wait_end();
        assert_eq!((s.active, s.blocked), (4, 0));
        assert!(s.take_work(&l).is_none());
        // A stall lifts the cap.
        s.stalled = true;
        assert!(s.take_work(&l).is_some());
    }

    #[test]
    fn last_active_worker_blocking_wakes_or_creates_at_once() {
        let l = limits();
        let mut s = with_workers(2);
        let t = Instant::now();
        assert!(s.try_listen(), "worker 1 listens");
        assert!(!s.try_listen(), "one listener per group");
        s.queue.push(9, true, Instant::now());
        // Worker 2 blocks: no active worker left, work is queued → a new worker, unthrottled.
        assert_eq!(s.wait_begin(t, &l, true), Spawn(1));
        assert_eq!((s.threads, s.active), (3, 1));
        // With a sleeper, it is woken instead (LIFO).
        let mut s = with_workers(3);
        let (a, b) = (Arc::new(Sleeper::default()), Arc::new(Sleeper::default()));
        s.sleep(a.clone());
        s.sleep(b.clone());
        assert!(s.try_listen());
        assert_eq!(s.active, 0);
        s.queue.push(0, false, Instant::now());
        let (picked, spawn) = s.listener_got(vec![(1, false), (2, true)], t, &l);
        assert_eq!(
            picked, None,
            "the queue was not empty (the listener keeps nothing)"
        );
        assert_eq!(spawn, Spawn(0));
        assert!(
            b.woken.load(Ordering::Relaxed),
            "the last sleeper is woken first"
        );
        assert!(!a.woken.load(Ordering::Relaxed));
        assert_eq!(s.active, 1);
    }

    #[test]
    fn a_blocked_worker_wakes_nobody_when_no_connection_waits_in_epoll() {
        let l = limits();
        let t = Instant::now();
        // One worker, serving the group's only connection, blocks on its log sync: there is
        // no listener, but nothing a listener could find.
        let mut s = with_workers(1);
        assert_eq!(s.wait_begin(t, &l, false), Spawn(0));
        s.wait_end();
        // With another connection idle in epoll, somebody must listen.
        assert_eq!(s.wait_begin(t, &l, true), Spawn(1));
        s.wait_end();
        // And queued work always gets a worker.
        let mut s2 = with_workers(1);
        s2.queue.push(7, true, t);
        assert_eq!(s2.wait_begin(t, &l, false), Spawn(1));
    }

    #[test]
    fn listener_keeps_the_first_event_when_the_queue_is_empty() {
        let l = limits();
        let mut s = with_workers(1);
        assert!(s.try_listen());
        let (picked, spawn) = s.listener_got(vec![(5, false), (6, false)], Instant::now(), &l);
        assert_eq!(picked, Some(5));
        assert_eq!(s.queue.len(), 1);
        assert_eq!(
            spawn,
            Spawn(0),
            "the listener is active again and takes event 6 next: nobody is woken"
        );
        assert!(!s.listening);
        assert_eq!(s.active, 1);
        // Should it block on a wait, event 6 gets a worker at once.
        assert_eq!(s.wait_begin(Instant::now(), &l, true), Spawn(1));
    }

    #[test]
    fn creation_is_throttled_unless_urgent_and_bounded_by_max_threads() {
        let mut l = limits();
        let t0 = Instant::now();
        let mut s = with_workers(4);
        // 4 threads = 1 + oversubscribe: the next non-urgent creation waits stall_limit / 10.
        assert_eq!(s.wake_or_create(t0, &l, false), Spawn(0));
        let later = t0 + Duration::from_millis(60);
        assert_eq!(s.wake_or_create(later, &l, false), Spawn(1));
        assert_eq!(
            s.wake_or_create(later, &l, true),
            Spawn(1),
            "urgent: no throttle"
        );
        l.max_threads = 6;
        assert_eq!(s.threads, 6);
        assert_eq!(
            s.wake_or_create(later, &l, true),
            Spawn(0),
            "max_threads reached"
        );
        let mut small = GroupState::<u32>::new(s.gauges.clone());
        assert_eq!(
            small.wake_or_create(later, &l, true),
            Spawn(1),
            "a group may always have 2 threads"
        );
        assert_eq!(creation_delay(20, &l), Duration::from_millis(100));
    }

    #[test]
    fn idle_workers_exit_after_the_idle_timeout_unless_woken() {
        let l = limits();
        let t0 = Instant::now();
        let mut s = with_workers(2);
        let (a, b) = (Arc::new(Sleeper::default()), Arc::new(Sleeper::default()));
        s.sleep(a.clone());
        s.sleep(b.clone());
        assert!(!s.idle_exit(&a, t0, t0 + Duration::from_secs(59), &l));
        assert_eq!(s.wake_or_create(t0, &l, false), Spawn(0), "b is woken");
        assert!(
            !s.idle_exit(&b, t0, t0 + Duration::from_secs(61), &l),
            "a woken worker does not exit"
        );
        assert!(s.idle_exit(&a, t0, t0 + Duration::from_secs(61), &l));
        assert_eq!((s.threads, s.active, s.sleeping()), (1, 1, 0));
        let st = &s.gauges.status;
        assert_eq!(st.get(StatusCounter::ThreadpoolThreads), 1);
        assert_eq!(st.get(StatusCounter::ThreadpoolIdleThreads), 0);
    }

    #[test]
    fn stall_check_marks_a_group_without_progress_and_adds_a_worker() {
        let l = limits();
        let t = Instant::now();
        let mut s = with_workers(4);
        assert!(s.try_listen());
        for i in 0..3 {
            s.queue.push(i, false, Instant::now());
        }
        assert!(s.take_work(&l).is_some(), "progress in this interval");
        assert_eq!(s.check_stall(t, &l, true), Spawn(0));
        assert!(!s.stalled);
        // No dequeue during the next interval while work waits: stalled.
        assert_eq!(s.check_stall(t, &l, true), Spawn(1));
        assert!(s.stalled);
        assert!(s.take_work(&l).is_some(), "the cap is lifted");
        assert_eq!(s.check_stall(t, &l, true), Spawn(0));
        assert!(!s.stalled, "work moved again");
    }

    #[test]
    fn idle_gauge_counts_workers_not_running_connections() {
        let l = limits();
        let t = Instant::now();
        let mut s = with_workers(3);
        assert!(s.try_listen());
        let _ = s.wait_begin(t, &l, true);
        s.sleep(Arc::new(Sleeper::default()));
        let ctx = s.gauges.clone();
        let st = &ctx.status;
        assert_eq!(st.get(StatusCounter::ThreadpoolThreads), 3);
        assert_eq!(st.get(StatusCounter::ThreadpoolIdleThreads), 3);
        s.wait_end();
        s.stop_listening();
        assert_eq!(st.get(StatusCounter::ThreadpoolIdleThreads), 1);
        assert_eq!(s.active, 2);
    }
}
