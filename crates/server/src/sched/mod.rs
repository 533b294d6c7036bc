//! Scheduling: who gives a connection CPU — connection threads, the pool of threads — and the
//! admission gate around engine work ([`admission`]).
//!
//! `thread_handling = one-thread-per-connection` (the default) gives every connection a thread
//! of its own ([`crate::net::run_connection`]). `thread_handling = pool-of-threads`, this
//! module, serves tens of thousands of connections on a few threads. Its shape is MariaDB's
//! thread pool, written in our own code; both modes drive the same sans-IO
//! [`crate::session::Session`], and both accept through [`accept`].
//!
//! # Shape
//!
//! ```text
//!  acceptor ──(token % thread_pool_size)────► group 0   group 1  …  one per CPU by default;
//!                                              │          a connection moves to the group of
//!                                              │          the CPU its client sends from
//!      epoll (edge) ──► listener ──► queue high │ low ──► workers ──► Session
//!             ▲                                           │        │
//!             └──────────── let go after serving ─────────┘        └─► wait API: blocked
//!   commit pipeline ── deferred commit done ──► queue high ──────────┘   workers don't count
//!   timer: stall check every thread_pool_stall_limit ms; wait_timeout / handshake timeouts
//! ```
//!
//! 1. **Accept** ([`accept`]): the connection is counted, gets the greeting, becomes
//!    non-blocking and is registered in its group's epoll instance — edge-triggered for
//!    reading and left armed, so a request costs no `epoll_ctl`; an atomic *claim* word makes
//!    sure only one thread holds a connection at a time ([`conn`]).
//! 2. **Listen** ([`listener`]): one worker per group at a time is the *listener*, blocked in
//!    `epoll_wait`. Ready connections go to the group's queue — the high-priority queue for a
//!    connection inside a transaction (`thread_pool_priority = auto`) — and a sleeping worker
//!    is woken, or one created, if no worker is active. When the queue was empty the listener
//!    keeps the first ready connection and serves it itself, and wakes nobody for the rest:
//!    it takes them from the queue when done ("keep one thread per group active"). With
//!    little load a request costs no hand-off between threads.
//! 3. **Steer** ([`steer`], `thread_pool_steering`, `ON` by default): each group serves the
//!    clients on one CPU. A worker that takes a connection whose client (on this host) last
//!    sent from another group's CPU moves it to that group's epoll and queue instead of
//!    serving it; a group's threads are then woken only from its CPU and settle there
//!    (`PINNED` pins them), so client and worker wake each other on one CPU, as with a
//!    thread per connection.
//! 4. **Serve** ([`worker`], [`conn`]): a worker takes a connection from the queue (if the
//!    group has fewer than `1 + thread_pool_oversubscribe` active workers), reads what the
//!    client sent, feeds the session, writes the answer, lets go of it. With nothing to
//!    do it becomes the listener if there is none, else polls once without waiting, else
//!    sleeps on its own condition variable (last in, first woken) and exits after
//!    `thread_pool_idle_timeout` seconds.
//! 5. **Block** ([`worker::WorkerObserver`]): every blocking wait of the server goes through
//!    [`crate::wait`]; on pool workers it tells the group. A blocked worker stops counting as
//!    active, and if it was the last active one while work is queued or nobody listens, a
//!    sleeper is woken or a worker created at once. So a session stuck on a row lock never
//!    stalls its group.
//! 6. **Stall** ([`stall`]): a timer checks every group each `thread_pool_stall_limit` ms. A
//!    group with queued work and no dequeue since the last check (long CPU-bound statements,
//!    waits nobody reported) is *stalled*: the oversubscribe cap is lifted and a worker is
//!    woken or created. The timer also closes connections idle past `wait_timeout` (10 s
//!    during the handshake) or blocked writing past `net_write_timeout`.
//!
//! # Asynchronous commit completion
//!
//! A connection whose commit waits for durability holds no thread. When a statement's last
//! step is a commit, the session hands the transaction to
//! [`crate::log::CommitPipeline::commit_async`] and ends with [`crate::session::Flow::AwaitCommit`]
//! with its response held ([`crate::session::commit`]). The worker *parks* the connection —
//! not in epoll, not queued, no thread — and serves others. If the session found the commit
//! queue empty it led the group on this worker first (the leader's serial work: write, fsync,
//! engine commit; the fsync is a reported wait, so the group carries on meanwhile).
//!
//! The leader completes every member's ticket by calling its notifier, on the leader's
//! thread. The notifier stores the outcome and queues the parked connection, high priority,
//! in its own group; a worker there releases the held response (or replaces it with ERR on
//! failure) and goes on with the connection. The outcome can arrive before the worker parks
//! (the session led its own group, or another leader was quick): [`conn`]'s rendezvous (one
//! small mutex: `parked`, `outcome`) makes sure exactly one of the two queues it.
//!
//! Why a callback and not a waker/future: the pipeline stays synchronous Rust (no runtime),
//! the tickets keep their targeted completion, and completing is one call per member. Chained
//! engine commit (`binlog_optimize_thread_scheduling = OFF`) needs each member's thread, so a
//! group with a deferred member is committed by its leader: that variable applies to
//! thread-per-connection only.
//!
//! # Limits and defaults
//!
//! `thread_pool_size` = CPUs; `thread_pool_oversubscribe` = 3; `thread_pool_stall_limit` =
//! 500 ms; `thread_pool_idle_timeout` = 60 s; `thread_pool_priority` = auto;
//! `thread_pool_max_threads` = 10000 — not MariaDB's 65536: Linux's default `vm.max_map_count`
//! (65530) allows roughly 32k thread stacks, and workers beyond one per session that can be
//! blocked at once never help (`max_connections` defaults to 10000 in pool mode); a group may
//! always have 2 threads. `extra_port` serves one thread per connection (up to
//! `extra_max_connections`) for administration when the pool is saturated. The variables
//! other than `thread_pool_size` are dynamic; the timer reads them every tick.
//!
//! # Resizing
//!
//! `SET GLOBAL thread_pool_size = n` takes effect at once ([`PoolShared::resize`]), as in
//! MariaDB. The group table is sized at start (the larger of the startup size and
//! [`MIN_GROUP_TABLE`]); a larger `n`, or 0, is refused with 1231.
//!
//! 1. Groups `0..n` not yet started start (an epoll instance each; workers come on demand),
//!    then new connections go to `token % n`.
//! 2. A connection in another group moves at its next request, before it is served: to its
//!    home group `token % n` — or, while steering applies (`n` = the CPUs), wherever
//!    steering sends it. The move is the one steering makes (out of one group's epoll and
//!    table, into the other's queue), by the connection's holder.
//! 3. Groups at or beyond `n` are never dropped (connections name their group by index):
//!    an idle connection stays there, served by that group, until it sends something. Their
//!    sleeping workers time out; the listener stays.
//!
//! `information_schema.THREAD_POOL_GROUPS` shows the groups below `n`, and those beyond it
//! that still hold connections or threads.
//!
//! `thread_pool_prio_kickup_timer` (1000 ms): the timer moves a low-priority connection that has
//! waited that long to the high-priority queue.
//!
//! Not done: `thread_pool_dedicated_listener`.

pub mod accept;
pub mod admission;
mod conn;
mod epoll;
mod group;
mod listener;
mod stall;
pub mod steer;
mod worker;

pub use conn::PoolConn;
use group::ThreadGroup;

use crate::net::Admitted;
use crate::session::ServerContext;
use crate::types::Value;
use crate::vars::SystemVariables;
pub use group::GroupRow;
use parking_lot::Mutex;
use std::io;
use std::sync::atomic::{
    AtomicU64, AtomicU8, AtomicUsize, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// `thread_pool_priority`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    High,
    Low,
    /// High inside a transaction.
    Auto,
}

impl Priority {
    fn from_var(v: Option<Value>) -> Priority {
        match v {
            Some(Value::Bytes(b)) if b == b"high" => Priority::High,
            Some(Value::Bytes(b)) if b == b"low" => Priority::Low,
            _ => Priority::Auto,
        }
    }

    /// Does a connection (inside a transaction or not) go to the high-priority queue?
    pub fn is_high(self, in_transaction: bool) -> bool {
        match self {
            Priority::High => true,
            Priority::Low => false,
            Priority::Auto => in_transaction,
        }
    }
}

/// The dynamic settings as the pool's rules read them.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub oversubscribe: usize,
    pub max_threads: usize,
    pub stall_limit: Duration,
    pub idle_timeout: Duration,
    pub priority: Priority,
    pub prio_kickup: Duration,
}

/// The dynamic variables, cached in atomics (refreshed by the timer every tick) so that the
/// hot paths do not read the variable table.
struct Settings {
    oversubscribe: AtomicUsize,
    max_threads: AtomicUsize,
    stall_limit_ms: AtomicU64,
    idle_timeout_s: AtomicU64,
    priority: AtomicU8,
    prio_kickup_ms: AtomicU64,
    net_write_timeout_s: AtomicU64,
}

impl Settings {
    fn read(vars: &SystemVariables) -> Settings {
        let s = Settings {
            oversubscribe: AtomicUsize::new(0),
            max_threads: AtomicUsize::new(0),
            stall_limit_ms: AtomicU64::new(0),
            idle_timeout_s: AtomicU64::new(0),
            priority: AtomicU8::new(0),
            prio_kickup_ms: AtomicU64::new(0),
            net_write_timeout_s: AtomicU64::new(0),
        };
        s.refresh(vars);
        s
    }

    fn refresh(&self, vars: &SystemVariables) {
        let u = |name| vars.global_u64(name);
        self.oversubscribe
            .store(u("thread_pool_oversubscribe") as usize, Relaxed);
        self.max_threads
            .store(u("thread_pool_max_threads") as usize, Relaxed);
        self.stall_limit_ms
            .store(u("thread_pool_stall_limit").max(1), Relaxed);
        self.idle_timeout_s
            .store(u("thread_pool_idle_timeout").max(1), Relaxed);
        let p = Priority::from_var(vars.global("thread_pool_priority"));
        self.priority.store(p as u8, Relaxed);
        self.prio_kickup_ms
            .store(u("thread_pool_prio_kickup_timer"), Relaxed);
        self.net_write_timeout_s
            .store(u("net_write_timeout").max(1), Relaxed);
    }
}

/// What every group and connection of the pool shares.
pub struct PoolShared {
    pub ctx: Arc<ServerContext>,
    settings: Settings,
    /// Zero of the pool's millisecond clock (connection deadlines).
    epoch: Instant,
    /// Every group the pool may have; groups `0..n` are started when `thread_pool_size`
    /// first reaches `n`, and a started group is never dropped (a connection names its group
    /// by index). Sized at start: the larger of `thread_pool_size` and [`MIN_GROUP_TABLE`].
    groups: Box<[OnceLock<Arc<ThreadGroup>>]>,
    /// `thread_pool_size` in force: new connections, and connections that move, go to the
    /// groups below it. Set after those groups are started.
    size: AtomicUsize,
    /// Held while the pool follows a `SET GLOBAL thread_pool_size` (two at once).
    resizing: Mutex<()>,
    /// `thread_pool_steering`, when on; it applies while `size` is its number of CPUs.
    steering: Option<steer::Steering>,
}

/// The group table holds at least this many groups, so `thread_pool_size` can grow to it at
/// run time (as MariaDB's, whose table has 128).
pub const MIN_GROUP_TABLE: usize = 128;

impl PoolShared {
    pub fn limits(&self) -> Limits {
        let s = &self.settings;
        Limits {
            oversubscribe: s.oversubscribe.load(Relaxed),
            max_threads: s.max_threads.load(Relaxed),
            stall_limit: Duration::from_millis(s.stall_limit_ms.load(Relaxed)),
            idle_timeout: Duration::from_secs(s.idle_timeout_s.load(Relaxed)),
            priority: match s.priority.load(Relaxed) {
                x if x == Priority::High as u8 => Priority::High,
                x if x == Priority::Low as u8 => Priority::Low,
                _ => Priority::Auto,
            },
            prio_kickup: Duration::from_millis(s.prio_kickup_ms.load(Relaxed)),
        }
    }

    /// Milliseconds since the pool started (never 0: 0 means "no deadline").
    pub fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64 + 1
    }

    /// A started group (a connection's group always is).
    pub fn group(&self, ix: usize) -> &Arc<ThreadGroup> {
        self.groups[ix]
            .get()
            .expect("a connection's group is started")
    }

    /// Every started group, including those beyond a reduced `thread_pool_size` that still
    /// serve connections until they move.
    pub fn started_groups(&self) -> impl Iterator<Item = &Arc<ThreadGroup>> {
        self.groups.iter().map_while(|g| g.get())
    }

    /// `thread_pool_size` in force.
    pub fn size(&self) -> usize {
        self.size.load(Acquire)
    }

    /// The group a connection belongs to when steering does not choose: by its token.
    pub fn home_group(&self, token: u64) -> usize {
        PoolShared::home_group_of(token, self.size())
    }

    /// The home group of `token` in a pool of `size` groups.
    fn home_group_of(token: u64, size: usize) -> usize {
        (token % size as u64) as usize
    }

    /// Steering, if it applies at pool size `size` (one group per CPU).
    fn steering_at(&self, size: usize) -> Option<&steer::Steering> {
        self.steering.as_ref().filter(|s| s.groups() == size)
    }

    pub fn net_write_timeout_ms(&self) -> u64 {
        self.settings.net_write_timeout_s.load(Relaxed) * 1000
    }

    /// Follow `thread_pool_size = n`: start the groups below `n` that are not yet, then
    /// send new connections to `0..n`. Shrinking stops nothing: a connection in a group at or
    /// beyond `n` moves to its home group when it is next served, and that group's idle
    /// workers time out. If a group cannot be started, the size stops below it (and the
    /// variable says so).
    fn resize(self: &Arc<Self>, n: usize) -> io::Result<()> {
        let _one_at_a_time = self.resizing.lock();
        let n = n.clamp(1, self.groups.len());
        for (i, slot) in self.groups[..n].iter().enumerate() {
            if slot.get().is_none() {
                match ThreadGroup::new(i, self.clone()) {
                    Ok(group) => drop(slot.set(Arc::new(group))),
                    Err(e) => {
                        // Groups 0..i are started, and i >= the size in force.
                        if i > 0 {
                            self.size.store(i, Release);
                        }
                        return Err(e);
                    }
                }
            }
        }
        self.size.store(n, Release);
        Ok(())
    }

    /// `SET GLOBAL thread_pool_size` happened.
    fn follow_size(self: &Arc<Self>, vars: &SystemVariables) {
        let n = vars.global_u64("thread_pool_size") as usize;
        if let Err(e) = self.resize(n) {
            let size = self.size();
            tracing::warn!(
                "thread pool: cannot start group {size}: {e}; thread_pool_size stays {size}"
            );
            let _ = vars.set_startup("thread_pool_size", Value::UInt(size as u64));
        }
    }

    /// One row per group for `information_schema.THREAD_POOL_GROUPS`: the groups below
    /// `thread_pool_size`, and any beyond it that still hold connections or threads.
    pub fn group_rows(&self) -> Vec<GroupRow> {
        let size = self.size();
        self.started_groups()
            .map(|g| g.snapshot())
            .filter(|r| r.id < size || r.connections > 0 || r.threads > 0)
            .collect()
    }
}

/// The pool: its thread groups.
pub struct Pool {
    shared: Arc<PoolShared>,
    /// Tokens of connections (epoll data, group table key); never reused.
    next_token: AtomicU64,
}

/// `thread_pool_steering`: the plan if it is on (and the CPUs can be read).
fn plan_steering(vars: &SystemVariables) -> Option<steer::Steering> {
    let pin = match vars.global("thread_pool_steering") {
        Some(Value::Bytes(b)) if b.eq_ignore_ascii_case(b"PINNED") => true,
        Some(Value::Bytes(b)) if b.eq_ignore_ascii_case(b"ON") => false,
        _ => return None,
    };
    steer::Steering::plan(pin)
        .inspect_err(|why| tracing::warn!("thread_pool_steering is off: {why}"))
        .ok()
}

/// Serve the server's ports with the pool until the process is killed (the extra port is
/// served one thread per connection).
pub fn serve_pool(ctx: Arc<ServerContext>, doors: accept::Doors) -> io::Result<()> {
    let pool = Pool::start(ctx.clone())?;
    accept::accept_forever(&ctx, doors, |admitted| pool.add(admitted))
}

impl Pool {
    /// Create the groups (`thread_pool_size`) and the timer thread, and follow `SET GLOBAL
    /// thread_pool_size` from now on. Workers are created on demand, when a group gets its
    /// first connection.
    pub fn start(ctx: Arc<ServerContext>) -> io::Result<Arc<Pool>> {
        let n = ctx.vars.global_u64("thread_pool_size").max(1) as usize;
        let capacity = n.max(MIN_GROUP_TABLE);
        let shared = Arc::new(PoolShared {
            settings: Settings::read(&ctx.vars),
            ctx: ctx.clone(),
            epoch: Instant::now(),
            groups: (0..capacity).map(|_| OnceLock::new()).collect(),
            size: AtomicUsize::new(0),
            resizing: Mutex::new(()),
            steering: plan_steering(&ctx.vars),
        });
        shared.resize(n)?;
        if let Some(s) = shared.steering.as_ref().filter(|s| s.groups() != n) {
            tracing::warn!(
                "thread_pool_steering applies while thread_pool_size = {} (the CPUs this process may use); it is {n}",
                s.groups()
            );
        }
        ctx.vars.bound("thread_pool_size", 1, capacity as u64);
        let weak = Arc::downgrade(&shared);
        ctx.vars.watch(&["thread_pool_size"], move |vars| {
            if let Some(shared) = weak.upgrade() {
                shared.follow_size(vars);
            }
        });
        let _ = ctx.thread_pool.set(Arc::downgrade(&shared));
        let pool = Arc::new(Pool {
            shared,
            next_token: AtomicU64::new(1),
        });
        stall::spawn_timer(pool.clone())?;
        Ok(pool)
    }

    /// Take over an accepted connection, in its home group.
    pub fn add(&self, admitted: Admitted) {
        let token = self.next_token.fetch_add(1, Relaxed);
        let group = self.shared.group(self.shared.home_group(token));
        PoolConn::open(group, token, admitted);
    }
}
