//! Admission control: at most `innodb_thread_concurrency` sessions do engine work at once.
//!
//! This is InnoDB's concurrency gate (experiment 2 of the design). `0` (the default) switches it
//! off. A session passes the gate around the engine work of one statement:
//!
//! 1. **Enter** ([`enter`], before a statement that reads or writes tables runs). If a slot is
//!    free the session takes it; otherwise it waits, inside `wait::begin(WaitEvent::Admission)`,
//!    by the queue discipline of `concurrency_queue` (below). It then holds
//!    `innodb_concurrency_tickets` tickets.
//! 2. **Row operations** ([`spend_ticket`], once per row the statement reads, locks or inserts).
//!    Each costs one ticket instead of a trip through the gate. A session that runs out gives its
//!    slot back and queues again at the end of the line, so a long scan cannot keep shorter
//!    statements out for longer than its tickets last.
//! 3. **Waits that are not engine work** (row locks, commit completion, log syncs:
//!    [`WaitEvent::leaves_admission`]). The wait API gives the slot back when the wait begins
//!    ([`step_out`]) and takes it back when it ends ([`step_back_in`]). Taking it back does not
//!    queue: the session now holds the row lock it waited for, and queueing behind sessions that
//!    may need that row would build a convoy. So it re-enters at once, possibly above the limit,
//!    with a single ticket (InnoDB's `srv_conc_force_exit_innodb` / `srv_conc_force_enter_innodb`
//!    around lock waits).
//! 4. **Leave** (the [`Admitted`] guard drops when the statement ends, before its autocommit
//!    commit): the slot goes to the oldest waiter; unused tickets are dropped.
//!
//! The session's place in the gate (its ticket count, whether it holds its slot) lives in a
//! thread-local for the duration of the statement: a statement runs on one thread from start
//! to end, in either scheduler, and the wait API can reach it without a handle.
//!
//! # Queue disciplines (`concurrency_queue`)
//!
//! - `fifo` (default): starvation-free. Each waiter parks on its own event in a FIFO queue; a
//!   leaving session passes the freed slot to the oldest waiter itself, under the queue mutex,
//!   before it returns. A newcomer takes a free slot directly only while nobody is queued.
//! - `adaptive-sleep`: the published InnoDB algorithm on an atomic slot counter. A session that
//!   finds no free slot sleeps the current delay and tries again. The delay starts at
//!   `innodb_thread_sleep_delay` µs; a session that has slept more than one round adds 1 µs to
//!   it; a session that needed exactly one sleep takes 1 µs off; a session that gets a slot while
//!   nobody sleeps halves it; it never exceeds `innodb_adaptive_max_sleep_delay` (0 = no
//!   adaptation). Nothing is queued, so a session can be overtaken any number of times.
//!
//! # Locking and memory ordering
//!
//! `active` (slots in use) and `queued` (FIFO waiters) are atomics; the FIFO queue is behind
//! [`Gate::queue`]. A waiter registers (`queued += 1`) under the queue mutex and then tries for
//! a slot; a leaver frees its slot (`active -= 1`) and then looks at `queued`. Both are SeqCst,
//! so either the waiter's attempt sees the freed slot or the leaver sees the waiter and grants
//! it under the mutex: no wakeup is lost.
//!
//! # Status counters (SHOW GLOBAL STATUS)
//!
//! | name | meaning |
//! |---|---|
//! | `Admission_entries` | passes through the gate (statements, and re-entries after tickets ran out) |
//! | `Admission_waits` | entries that had to wait |
//! | `Admission_wait_time_us` | total time spent waiting at the gate |
//! | `Admission_ticket_requeues` | re-entries because a statement ran out of tickets |
//! | `Admission_wait_exits` | slots given back during a row-lock or commit wait |
//! | `Admission_active` | slots in use now |
//! | `Admission_queued` | sessions waiting now (FIFO queue and sleepers) |
//! | `Admission_sleep_delay_us` | the current adaptive sleep delay |

use crate::types::Value;
use crate::vars::SystemVariables;
use crate::wait::{self, ev, WaitEvent};
use parking_lot::{Condvar, Mutex};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The system variables that configure the gate.
pub const VARIABLES: &[&str] = &[
    "concurrency_queue",
    "innodb_adaptive_max_sleep_delay",
    "innodb_concurrency_tickets",
    "innodb_thread_concurrency",
    "innodb_thread_sleep_delay",
];

/// How sessions wait for a slot (`concurrency_queue`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discipline {
    Fifo,
    AdaptiveSleep,
}

/// The gate's configuration (all dynamic variables).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// `innodb_thread_concurrency`: slots; 0 = no gate.
    pub concurrency: usize,
    pub discipline: Discipline,
    /// `innodb_concurrency_tickets`: row operations per entry (at least 1).
    pub tickets: u64,
    /// `innodb_thread_sleep_delay`: the adaptive delay's starting value, µs.
    pub sleep_delay_us: u64,
    /// `innodb_adaptive_max_sleep_delay`: the adaptive delay's cap, µs; 0 = do not adapt.
    pub max_sleep_delay_us: u64,
}

impl Settings {
    pub fn from_vars(vars: &SystemVariables) -> Settings {
        let discipline = match vars.global("concurrency_queue") {
            Some(Value::Bytes(b)) if b == b"adaptive-sleep" => Discipline::AdaptiveSleep,
            _ => Discipline::Fifo,
        };
        Settings {
            concurrency: vars.global_u64("innodb_thread_concurrency") as usize,
            discipline,
            tickets: vars.global_u64("innodb_concurrency_tickets").max(1),
            sleep_delay_us: vars.global_u64("innodb_thread_sleep_delay"),
            max_sleep_delay_us: vars.global_u64("innodb_adaptive_max_sleep_delay"),
        }
    }

    /// A FIFO gate of `n` slots with InnoDB's default tickets and delays.
    pub fn fifo(n: usize) -> Settings {
        Settings {
            concurrency: n,
            discipline: Discipline::Fifo,
            tickets: 5000,
            sleep_delay_us: 10_000,
            max_sleep_delay_us: 150_000,
        }
    }
}

/// One FIFO waiter's event: set once, by whoever grants it a slot.
#[derive(Default)]
struct Event {
    granted: Mutex<bool>,
    cond: Condvar,
}

impl Event {
    fn set(&self) {
        *self.granted.lock() = true;
        self.cond.notify_one();
    }

    fn is_set(&self) -> bool {
        *self.granted.lock()
    }

    fn wait(&self) {
        let mut g = self.granted.lock();
        while !*g {
            self.cond.wait(&mut g);
        }
    }
}

/// The adaptive sleep delay, µs. Updated racily by many sessions with relaxed atomics, as in
/// InnoDB: it is a heuristic, and a lost update only nudges it.
struct AdaptiveDelay {
    current_us: AtomicU64,
    max_us: AtomicU64,
}

impl AdaptiveDelay {
    fn reset(&self, start_us: u64, max_us: u64) {
        self.max_us.store(max_us, Relaxed);
        self.current_us.store(start_us, Relaxed);
    }

    fn adapting(&self) -> bool {
        self.max_us.load(Relaxed) > 0
    }

    fn current(&self) -> u64 {
        self.current_us.load(Relaxed)
    }

    /// The length of the next sleep; a delay above the cap is lowered to it first.
    fn next_sleep(&self) -> u64 {
        let (d, max) = (self.current(), self.max_us.load(Relaxed));
        if max > 0 && d > max {
            self.current_us.store(max, Relaxed);
            return max;
        }
        d
    }

    /// After a session's `rounds`-th sleep: a session still waiting after more than one round
    /// means the delay is too short.
    fn after_sleep(&self, rounds: u32) {
        if self.adapting() && rounds > 1 {
            self.current_us.fetch_add(1, Relaxed);
        }
    }

    /// A session got a slot after `rounds` sleeps, with `sleepers` others still sleeping.
    fn on_admitted(&self, rounds: u32, sleepers: usize) {
        if !self.adapting() {
            return;
        }
        if rounds == 1 {
            let _ = self
                .current_us
                .fetch_update(Relaxed, Relaxed, |d| d.checked_sub(1));
        }
        if sleepers == 0 && self.current() > 0 {
            let _ = self
                .current_us
                .fetch_update(Relaxed, Relaxed, |d| Some(d / 2));
        }
    }
}

/// Counters for SHOW GLOBAL STATUS (relaxed atomics).
#[derive(Default)]
struct GateStats {
    entries: AtomicU64,
    waits: AtomicU64,
    wait_us: AtomicU64,
    requeues: AtomicU64,
    wait_exits: AtomicU64,
}

/// How a sleeping waiter sleeps (replaced in tests to control time).
pub type Sleeper = Box<dyn Fn(Duration) + Send + Sync>;

/// The admission gate of one server.
pub struct Gate {
    /// Slots; 0 = the gate is open to everyone and nothing is counted.
    limit: AtomicUsize,
    discipline: AtomicU8,
    tickets: AtomicU64,
    delay: AdaptiveDelay,
    /// Slots in use, including sessions that re-entered above the limit after a wait.
    active: AtomicUsize,
    /// FIFO waiters in `queue`.
    queued: AtomicUsize,
    /// Adaptive-sleep waiters asleep or between two sleeps.
    sleeping: AtomicUsize,
    /// Protected by this mutex: the FIFO waiters, oldest first.
    queue: wait::Mutex<VecDeque<Arc<Event>>, ev::AdmissionQueue>,
    sleep: Sleeper,
    stats: GateStats,
}

const FIFO: u8 = 0;
const ADAPTIVE_SLEEP: u8 = 1;

impl Gate {
    pub fn new(settings: Settings) -> Gate {
        Gate::with_sleeper(settings, Box::new(std::thread::sleep))
    }

    pub fn with_sleeper(settings: Settings, sleep: Sleeper) -> Gate {
        let gate = Gate {
            limit: AtomicUsize::new(0),
            discipline: AtomicU8::new(FIFO),
            tickets: AtomicU64::new(1),
            delay: AdaptiveDelay {
                current_us: AtomicU64::new(0),
                max_us: AtomicU64::new(0),
            },
            active: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
            sleeping: AtomicUsize::new(0),
            queue: wait::Mutex::new(VecDeque::new()),
            sleep,
            stats: GateStats::default(),
        };
        gate.configure(&settings);
        gate
    }

    /// Apply new settings (SET GLOBAL). Raising the limit, or switching the gate off, lets
    /// queued sessions in at once; lowering it takes effect as sessions leave. The adaptive
    /// delay starts again from `innodb_thread_sleep_delay`.
    pub fn configure(&self, s: &Settings) {
        self.tickets.store(s.tickets.max(1), Relaxed);
        let d = match s.discipline {
            Discipline::Fifo => FIFO,
            Discipline::AdaptiveSleep => ADAPTIVE_SLEEP,
        };
        self.discipline.store(d, Relaxed);
        self.delay.reset(s.sleep_delay_us, s.max_sleep_delay_us);
        self.limit.store(s.concurrency, SeqCst);
        self.grant_waiters();
    }

    /// `innodb_thread_concurrency` now; 0 = off.
    pub fn limit(&self) -> usize {
        self.limit.load(Relaxed)
    }

    fn tickets(&self) -> u64 {
        self.tickets.load(Relaxed)
    }

    /// Take a slot if one is free (or the gate is off).
    fn try_take(&self) -> bool {
        let limit = self.limit.load(SeqCst);
        self.active
            .fetch_update(SeqCst, SeqCst, |a| {
                (limit == 0 || a < limit).then_some(a + 1)
            })
            .is_ok()
    }

    /// Take a slot, waiting for one if necessary.
    pub fn acquire(&self) {
        self.stats.entries.fetch_add(1, Relaxed);
        let started = Instant::now();
        let waited = match self.discipline.load(Relaxed) {
            ADAPTIVE_SLEEP => self.acquire_sleeping(),
            _ => self.acquire_fifo(),
        };
        if waited {
            self.stats.waits.fetch_add(1, Relaxed);
            let us = started.elapsed().as_micros() as u64;
            self.stats.wait_us.fetch_add(us, Relaxed);
        }
    }

    /// FIFO: returns true if the session had to wait.
    fn acquire_fifo(&self) -> bool {
        if self.queued.load(SeqCst) == 0 && self.try_take() {
            return false;
        }
        let me = Arc::new(Event::default());
        {
            let mut q = self.queue.lock();
            q.push_back(me.clone());
            self.queued.fetch_add(1, SeqCst);
            self.grant_in_order(&mut q);
        }
        if me.is_set() {
            return false;
        }
        let _w = wait::begin(WaitEvent::Admission);
        me.wait();
        true
    }

    /// Give free slots to the oldest waiters (queue mutex held).
    fn grant_in_order(&self, q: &mut VecDeque<Arc<Event>>) {
        while !q.is_empty() && self.try_take() {
            let next = q.pop_front().expect("not empty");
            self.queued.fetch_sub(1, SeqCst);
            next.set();
        }
    }

    fn grant_waiters(&self) {
        if self.queued.load(SeqCst) > 0 {
            let mut q = self.queue.lock();
            self.grant_in_order(&mut q);
        }
    }

    /// Adaptive sleep: returns true if the session had to wait.
    fn acquire_sleeping(&self) -> bool {
        let mut rounds: u32 = 0;
        let mut waiting = None;
        loop {
            let limit = self.limit.load(Relaxed);
            if (limit == 0 || self.active.load(Relaxed) < limit) && self.try_take() {
                if rounds > 0 {
                    self.sleeping.fetch_sub(1, Relaxed);
                }
                self.delay.on_admitted(rounds, self.sleeping.load(Relaxed));
                drop(waiting);
                return rounds > 0;
            }
            if waiting.is_none() {
                waiting = Some(wait::begin(WaitEvent::Admission));
                self.sleeping.fetch_add(1, Relaxed);
            }
            (self.sleep)(Duration::from_micros(self.delay.next_sleep()));
            rounds = rounds.saturating_add(1);
            self.delay.after_sleep(rounds);
        }
    }

    /// Give a slot back; the oldest FIFO waiter gets it.
    pub fn release(&self) {
        self.active.fetch_sub(1, SeqCst);
        self.grant_waiters();
    }

    /// Take a slot without waiting, even above the limit (re-entry after a lock wait).
    fn force_enter(&self) {
        self.active.fetch_add(1, SeqCst);
    }

    /// Slots in use now.
    pub fn active(&self) -> usize {
        self.active.load(Relaxed)
    }

    /// Sessions waiting now.
    pub fn waiting(&self) -> usize {
        self.queued.load(Relaxed) + self.sleeping.load(Relaxed)
    }

    /// The adaptive sleep delay now, µs.
    pub fn sleep_delay_us(&self) -> u64 {
        self.delay.current()
    }

    /// Rows for SHOW GLOBAL STATUS.
    pub fn status(&self) -> Vec<(String, Value)> {
        let s = &self.stats;
        let row = |n: &str, v: u64| (n.to_string(), Value::UInt(v));
        vec![
            row("Admission_active", self.active() as u64),
            row("Admission_entries", s.entries.load(Relaxed)),
            row("Admission_queued", self.waiting() as u64),
            row("Admission_sleep_delay_us", self.sleep_delay_us()),
            row("Admission_ticket_requeues", s.requeues.load(Relaxed)),
            row("Admission_wait_exits", s.wait_exits.load(Relaxed)),
            row("Admission_wait_time_us", s.wait_us.load(Relaxed)),
            row("Admission_waits", s.waits.load(Relaxed)),
        ]
    }
}

// ---------------------------------------------------------------------------------------------
// The session's place in the gate

/// The current statement's standing at the gate (thread-local while it runs).
struct Inside {
    gate: Arc<Gate>,
    /// Row operations left before the session must queue again.
    tickets: u64,
    /// False while the session is in a wait that gave its slot back.
    holds_slot: bool,
}

thread_local! {
    static INSIDE: RefCell<Option<Inside>> = const { RefCell::new(None) };
}

/// Proof that the current statement passed the gate; dropping it leaves.
#[must_use = "the statement leaves the gate when this is dropped"]
pub struct Admitted {
    /// Dropped on the thread that entered (the standing is thread-local).
    _not_send: PhantomData<*const ()>,
}

/// Stage 1: enter the gate before a statement's engine work. None when the gate is off (or
/// the thread is already inside: nothing to do).
pub fn enter(gate: &Arc<Gate>) -> Option<Admitted> {
    if gate.limit() == 0 || INSIDE.with(|i| i.borrow().is_some()) {
        return None;
    }
    gate.acquire();
    INSIDE.with(|i| {
        *i.borrow_mut() = Some(Inside {
            gate: gate.clone(),
            tickets: gate.tickets(),
            holds_slot: true,
        })
    });
    Some(Admitted {
        _not_send: PhantomData,
    })
}

impl Drop for Admitted {
    fn drop(&mut self) {
        if let Some(inside) = INSIDE.with(|i| i.borrow_mut().take()) {
            if inside.holds_slot {
                inside.gate.release();
            }
        }
    }
}

/// Stage 2: one row operation of the current statement (no-op outside the gate).
pub fn spend_ticket() {
    let Some(mut inside) = INSIDE.with(|i| i.borrow_mut().take()) else {
        return;
    };
    if inside.holds_slot {
        if inside.tickets == 0 {
            inside.gate.release();
            inside.gate.acquire();
            inside.gate.stats.requeues.fetch_add(1, Relaxed);
            inside.tickets = inside.gate.tickets();
        }
        inside.tickets -= 1;
    }
    INSIDE.with(|i| *i.borrow_mut() = Some(inside));
}

/// Stage 3, a wait begins: give the slot back. True if the thread held one.
pub(crate) fn step_out() -> bool {
    let gate = INSIDE.with(|i| match i.borrow_mut().as_mut() {
        Some(inside) if inside.holds_slot => {
            inside.holds_slot = false;
            Some(inside.gate.clone())
        }
        _ => None,
    });
    match gate {
        Some(g) => {
            g.stats.wait_exits.fetch_add(1, Relaxed);
            g.release();
            true
        }
        None => false,
    }
}

/// Stage 3, the wait ended: take a slot back at once, with one ticket.
pub(crate) fn step_back_in() {
    INSIDE.with(|i| {
        if let Some(inside) = i.borrow_mut().as_mut() {
            if !inside.holds_slot {
                inside.gate.force_enter();
                inside.holds_slot = true;
                inside.tickets = 1;
            }
        }
    });
}

#[cfg(test)]
mod tests;
