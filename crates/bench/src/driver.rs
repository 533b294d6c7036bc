//! The load driver: N connections spread over a few threads, each thread one mio event loop
//! over non-blocking sockets and [`ClientConn`] state machines.
//!
//! # Life of a run
//!
//! 1. Every worker thread opens its share of the connections (at most
//!    `connect_concurrency` handshakes in flight in all; a connection that gets no
//!    greeting within 3 s is retried), logs in and prepares the
//!    workload's statements on each, then reports ready.
//! 2. When all threads are ready the coordinator fixes the start instant. Transactions run
//!    from then on; those that complete during the warm-up are shown in the progress lines
//!    but not counted. The measurement window is `[start + warmup, start + warmup + time)`
//!    (or until `events` transactions have completed); a transaction counts when it
//!    *completes* inside the window.
//! 3. At the end no new transaction starts; transactions in flight are allowed to finish
//!    (up to `drain_timeout`), then every connection sends COM_QUIT.
//!
//! # Closed and open loop
//!
//! Closed loop (default, like sysbench without `--rate`): each connection starts its next
//! transaction as soon as the previous one finishes, and latency is measured from that
//! start. Open loop (`rate`): each thread schedules arrivals at its share of the rate
//! ([`Pacer`]); a due arrival waits in the backlog for a free connection, and its latency is
//! measured from its *intended* start, so time spent queued behind a slow server counts.
//!
//! Progress is published through lock-light shared per-thread counters that the
//! coordinator collects once per interval; the coordinator also samples the process CPU
//! at the window's edges and calls an [`Observer`] (which samples the server).

use crate::conn::{ClientConn, ConnError, Event, Login, Response};
use crate::pacer::{Arrival, Pacer};
use crate::rand::{DistParams, Rng};
use crate::stats::{CpuTimes, Stats};
use crate::workload::{Param, Request, StmtDef, Workload};
use cohort_protocol::Cell;
use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token};
use std::io::{ErrorKind, Read, Write};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Which server errors restart the transaction instead of stopping the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IgnoreErrors {
    All,
    Codes(Vec<u16>),
}

impl IgnoreErrors {
    /// sysbench's default `--mysql-ignore-errors`: deadlock, record changed, lock wait timeout.
    pub fn sysbench_default() -> IgnoreErrors {
        IgnoreErrors::Codes(vec![1213, 1020, 1205])
    }

    pub fn parse(s: &str) -> Result<IgnoreErrors, String> {
        match s {
            "all" => Ok(IgnoreErrors::All),
            "none" | "" => Ok(IgnoreErrors::Codes(Vec::new())),
            _ => s
                .split(',')
                .map(|c| {
                    c.trim()
                        .parse()
                        .map_err(|_| format!("'{c}' is not an error code"))
                })
                .collect::<Result<_, _>>()
                .map(IgnoreErrors::Codes),
        }
    }

    pub fn ignores(&self, code: u16) -> bool {
        match self {
            IgnoreErrors::All => true,
            IgnoreErrors::Codes(c) => c.contains(&code),
        }
    }
}

/// Everything the driver needs to know.
#[derive(Clone, Debug)]
pub struct DriverConfig {
    pub addr: SocketAddr,
    pub login: Login,
    pub connections: usize,
    pub threads: usize,
    /// Length of the measurement window; `None` = until `events` are done.
    pub time: Option<Duration>,
    /// Stop after this many transactions (counted from the start, warm-up included).
    pub events: Option<u64>,
    pub warmup: Duration,
    /// Open loop: total transactions per second.
    pub rate: Option<f64>,
    pub arrival: Arrival,
    /// Server-side prepared statements (false: everything as text).
    pub ps: bool,
    pub ignore_errors: IgnoreErrors,
    pub seed: u64,
    pub dist: DistParams,
    pub report_interval: Duration,
    pub connect_concurrency: usize,
    pub drain_timeout: Duration,
}

/// One progress interval, all threads merged.
#[derive(Debug)]
pub struct Interval {
    /// Seconds since the start (end of this interval).
    pub at: f64,
    pub length: f64,
    pub warmup: bool,
    pub stats: Stats,
    pub connections: usize,
    pub backlog: usize,
    pub in_flight: usize,
}

/// Hooks the coordinator calls on its own thread.
pub trait Observer {
    fn connected(&mut self, _connections: usize, _took: Duration, _retried: u64) {}
    fn measure_start(&mut self) {}
    fn measure_end(&mut self) {}
    fn interval(&mut self, _iv: &Interval) {}
}

/// What a run produced.
#[derive(Debug)]
pub struct DriverResult {
    /// Transactions completed inside the window.
    pub stats: Stats,
    pub elapsed: Duration,
    pub connect_time: Duration,
    /// Process CPU during the window.
    pub process_cpu: CpuTimes,
    /// Each worker thread's CPU during the window.
    pub thread_cpu: Vec<CpuTimes>,
    /// The first error that stopped the run.
    pub fatal: Option<String>,
    /// Open loop: scheduled transactions that never started (backlog at the end).
    pub unstarted: u64,
    pub server_version: String,
}

/// The coordinator reads an interval this long after its end, so that every worker has
/// published it.
const COLLECT_DELAY: Duration = Duration::from_millis(20);

#[derive(Default)]
struct Shared {
    interval: Mutex<Option<Stats>>,
    connected: AtomicUsize,
    backlog: AtomicUsize,
    in_flight: AtomicUsize,
}

enum ToCoordinator {
    Ready {
        server_version: String,
        reconnects: u64,
    },
    Failed(String),
    Fatal(String),
    Done(Box<WorkerResult>),
}

struct WorkerResult {
    stats: Stats,
    cpu: CpuTimes,
    last_completion_ns: u64,
    unstarted: u64,
}

/// Timing shared by the workers once the start is fixed (ns since `base`).
#[derive(Clone, Copy, Debug)]
struct Window {
    start: u64,
    measure_start: u64,
    end: u64,
}

/// Runs the workload; blocks until the run is over.
pub fn run(
    cfg: &DriverConfig,
    workload: Arc<dyn Workload>,
    observer: &mut dyn Observer,
) -> Result<DriverResult, String> {
    let threads = cfg.threads.clamp(1, cfg.connections.max(1));
    let base = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let tickets = Arc::new(AtomicI64::new(
        cfg.events.map(|e| e as i64).unwrap_or(i64::MAX),
    ));
    let (to_coord, from_workers) = mpsc::channel();
    let mut starts = Vec::new();
    let mut shared = Vec::new();
    let mut handles = Vec::new();
    for t in 0..threads {
        let n = cfg.connections / threads + usize::from(t < cfg.connections % threads);
        let (start_tx, start_rx) = mpsc::channel::<Option<Window>>();
        starts.push(start_tx);
        let sh = Arc::new(Shared::default());
        shared.push(sh.clone());
        let mut wcfg = cfg.clone();
        wcfg.threads = threads;
        let w = Worker::new(
            t,
            n,
            wcfg,
            workload.clone(),
            base,
            stop.clone(),
            tickets.clone(),
            sh,
        );
        let tx = to_coord.clone();
        handles.push(
            std::thread::Builder::new()
                .name(format!("bench-{t}"))
                .spawn(move || w.run(tx, start_rx))
                .map_err(|e| format!("cannot start a worker thread: {e}"))?,
        );
    }
    drop(to_coord);

    // 1. Wait until every connection is logged in and prepared.
    let mut ready = 0;
    let mut reconnects = 0;
    let mut server_version = String::new();
    let mut failure = None;
    while ready < threads && failure.is_none() {
        match from_workers.recv() {
            Ok(ToCoordinator::Ready {
                server_version: v,
                reconnects: r,
            }) => {
                ready += 1;
                server_version = v;
                reconnects += r;
            }
            Ok(ToCoordinator::Failed(e)) | Ok(ToCoordinator::Fatal(e)) => failure = Some(e),
            Ok(ToCoordinator::Done(_)) => {}
            Err(_) => failure = Some("worker threads exited".into()),
        }
    }
    if let Some(e) = failure {
        stop.store(true, Ordering::SeqCst);
        for s in &starts {
            let _ = s.send(None);
        }
        for h in handles {
            let _ = h.join();
        }
        return Err(e);
    }
    let connect_time = base.elapsed();
    observer.connected(cfg.connections, connect_time, reconnects);

    // 2. Start everyone at the same instant.
    let ns = |i: Instant| i.duration_since(base).as_nanos() as u64;
    let start = Instant::now() + Duration::from_millis(5);
    let measure_start = start + cfg.warmup;
    let end = cfg.time.map(|t| measure_start + t);
    let window = Window {
        start: ns(start),
        measure_start: ns(measure_start),
        end: end.map(ns).unwrap_or(u64::MAX),
    };
    for s in &starts {
        let _ = s.send(Some(window));
    }

    // 3. Coordinate: progress intervals, CPU samples, fatal errors.
    let mut cpu0 = None;
    let mut cpu1 = None;
    let mut fatal = None;
    let mut done = Vec::new();
    let mut next_tick = start + cfg.report_interval;
    let mut last_tick = start;
    let mut ended = false;
    while done.len() < threads {
        let now = Instant::now();
        if cpu0.is_none() && now >= measure_start {
            cpu0 = Some(CpuTimes::process());
            observer.measure_start();
        }
        if !ended && end.is_some_and(|e| now >= e) {
            ended = true;
            cpu1 = Some(CpuTimes::process());
            observer.measure_end();
        }
        if now >= next_tick + COLLECT_DELAY {
            let mut merged = Stats::new();
            let (mut conns, mut backlog, mut in_flight) = (0, 0, 0);
            for sh in &shared {
                if let Some(s) = sh.interval.lock().expect("interval lock").take() {
                    merged.merge(&s);
                }
                conns += sh.connected.load(Ordering::Relaxed);
                backlog += sh.backlog.load(Ordering::Relaxed);
                in_flight += sh.in_flight.load(Ordering::Relaxed);
            }
            let iv = Interval {
                at: next_tick.duration_since(start).as_secs_f64(),
                length: next_tick.duration_since(last_tick).as_secs_f64(),
                warmup: next_tick <= measure_start && !cfg.warmup.is_zero(),
                stats: merged,
                connections: conns,
                backlog,
                in_flight,
            };
            if !ended {
                observer.interval(&iv);
            }
            last_tick = next_tick;
            next_tick += cfg.report_interval;
        }
        let mut wake = next_tick + COLLECT_DELAY;
        if cpu0.is_none() {
            wake = wake.min(measure_start);
        }
        if let (Some(e), false) = (end, ended) {
            wake = wake.min(e);
        }
        let timeout = wake.saturating_duration_since(Instant::now());
        match from_workers.recv_timeout(timeout) {
            Ok(ToCoordinator::Done(r)) => done.push(*r),
            Ok(ToCoordinator::Fatal(e)) | Ok(ToCoordinator::Failed(e)) => {
                if fatal.is_none() {
                    fatal = Some(e);
                }
                stop.store(true, Ordering::SeqCst);
            }
            Ok(ToCoordinator::Ready { .. }) => {}
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    for h in handles {
        let _ = h.join();
    }
    let cpu0 = cpu0.unwrap_or_else(CpuTimes::process);
    let finished = Instant::now();
    let cpu1 = cpu1.unwrap_or_else(|| {
        observer.measure_end();
        CpuTimes::process()
    });
    let mut stats = Stats::new();
    let mut thread_cpu = Vec::new();
    let mut unstarted = 0;
    let mut last = window.measure_start;
    for r in &done {
        stats.merge(&r.stats);
        thread_cpu.push(r.cpu);
        unstarted += r.unstarted;
        last = last.max(r.last_completion_ns);
    }
    let elapsed = match cfg.time {
        Some(t) if end.is_some_and(|e| finished >= e) => t,
        _ => Duration::from_nanos(last.saturating_sub(window.measure_start)),
    };
    Ok(DriverResult {
        stats,
        elapsed,
        connect_time,
        process_cpu: cpu1.since(&cpu0),
        thread_cpu,
        fatal,
        unstarted,
        server_version,
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Connecting,
    Login,
    Preparing(usize),
    Idle,
    Busy,
    RollingBack,
    /// COM_QUIT sent; the client is dropped.
    Closed,
}

struct Client {
    /// Index in the worker's slab (= mio token).
    index: usize,
    stream: TcpStream,
    conn: ClientConn,
    phase: Phase,
    stmt_ids: Vec<u32>,
    types_sent: Vec<bool>,
    txn: Vec<Request>,
    step: usize,
    intended_ns: u64,
    rng: Rng,
    /// Registered for WRITABLE too (only while output is stuck or connecting: a writable
    /// edge after every send would double the wakeups).
    want_write: bool,
    /// When the current TCP connection was opened.
    since: Instant,
}

struct Worker {
    id: usize,
    n: usize,
    cfg: DriverConfig,
    workload: Arc<dyn Workload>,
    base: Instant,
    stop: Arc<AtomicBool>,
    tickets: Arc<AtomicI64>,
    shared: Arc<Shared>,
    poll: Option<Poll>,
    clients: Vec<Option<Client>>,
    idle: Vec<usize>,
    open: usize,
    opened: usize,
    opening: usize,
    connected: usize,
    window: Window,
    ending: bool,
    pacer: Option<Pacer>,
    pacer_rng: Rng,
    total: Stats,
    interval: Stats,
    scratch: Vec<u8>,
    error: Option<String>,
    server_version: String,
    last_completion_ns: u64,
    in_flight: usize,
    timer: Option<Timer>,
    reconnects: u64,
}

/// How long a new connection may wait for the server's greeting before it is retried.
const GREETING_TIMEOUT: Duration = Duration::from_secs(3);

const TIMER_TOKEN: usize = usize::MAX;

/// A timerfd in the event loop, for sub-millisecond wakeups of the open loop.
struct Timer {
    fd: libc::c_int,
    armed_for: Option<u64>,
}

impl Timer {
    fn new(poll: &Poll) -> Option<Timer> {
        // SAFETY: plain syscalls on a descriptor we own; prctl only changes this thread's
        // timer slack (default 50 µs) so the timer fires on time.
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, 1u64, 0u64, 0u64, 0u64);
            let fd = libc::timerfd_create(
                libc::CLOCK_MONOTONIC,
                libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
            );
            if fd < 0 {
                return None;
            }
            let mut src = mio::unix::SourceFd(&fd);
            if poll
                .registry()
                .register(&mut src, Token(TIMER_TOKEN), Interest::READABLE)
                .is_err()
            {
                libc::close(fd);
                return None;
            }
            Some(Timer {
                fd,
                armed_for: None,
            })
        }
    }

    /// Fire after `in_ns` (None: disarm). A zero delay fires at once.
    fn arm(&mut self, in_ns: Option<u64>) {
        let key = in_ns.map(|n| n.max(1));
        if key.is_none() && self.armed_for.is_none() {
            return;
        }
        let ns = key.unwrap_or(0);
        let spec = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: libc::timespec {
                tv_sec: (ns / 1_000_000_000) as libc::time_t,
                tv_nsec: (ns % 1_000_000_000) as libc::c_long,
            },
        };
        // SAFETY: valid fd and itimerspec.
        unsafe {
            libc::timerfd_settime(self.fd, 0, &spec, std::ptr::null_mut());
        }
        self.armed_for = key;
    }

    fn fired(&mut self) {
        let mut buf = [0u8; 8];
        // SAFETY: reading 8 bytes into a local buffer from our timerfd.
        unsafe {
            libc::read(self.fd, buf.as_mut_ptr().cast(), 8);
        }
        self.armed_for = None;
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        // SAFETY: closing the descriptor we created.
        unsafe {
            libc::close(self.fd);
        }
    }
}

const READ_CHUNK: usize = 16 * 1024;

impl Worker {
    #[allow(clippy::too_many_arguments)]
    fn new(
        id: usize,
        n: usize,
        cfg: DriverConfig,
        workload: Arc<dyn Workload>,
        base: Instant,
        stop: Arc<AtomicBool>,
        tickets: Arc<AtomicI64>,
        shared: Arc<Shared>,
    ) -> Worker {
        let pacer_rng = Rng::new(cfg.seed ^ (0xABCD_0000 + id as u64), cfg.dist);
        Worker {
            id,
            n,
            cfg,
            workload,
            base,
            stop,
            tickets,
            shared,
            poll: None,
            clients: Vec::new(),
            idle: Vec::new(),
            open: 0,
            opened: 0,
            opening: 0,
            connected: 0,
            window: Window {
                start: 0,
                measure_start: 0,
                end: u64::MAX,
            },
            ending: false,
            pacer: None,
            pacer_rng,
            total: Stats::new(),
            interval: Stats::new(),
            scratch: Vec::with_capacity(1024),
            error: None,
            server_version: String::new(),
            last_completion_ns: 0,
            in_flight: 0,
            timer: None,
            reconnects: 0,
        }
    }

    fn now(&self) -> u64 {
        self.base.elapsed().as_nanos() as u64
    }

    fn fail(&mut self, msg: String) {
        if self.error.is_none() {
            self.error = Some(msg);
        }
        self.stop.store(true, Ordering::SeqCst);
    }

    fn run(mut self, tx: mpsc::Sender<ToCoordinator>, start_rx: mpsc::Receiver<Option<Window>>) {
        let poll = match Poll::new() {
            Ok(p) => p,
            Err(e) => {
                let _ = tx.send(ToCoordinator::Failed(format!("epoll: {e}")));
                return;
            }
        };
        self.poll = Some(poll);
        let mut events = Events::with_capacity(1024);
        // Phase 1: connect, log in, prepare.
        let deadline = Instant::now() + Duration::from_secs(60 + self.n as u64 / 50);
        while self.connected < self.n && self.error.is_none() {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            if Instant::now() > deadline {
                self.fail(format!(
                    "timed out connecting: {} of {} connections ready",
                    self.connected, self.n
                ));
                break;
            }
            self.open_more();
            self.poll_once(&mut events, Some(Duration::from_millis(100)));
            self.retry_stuck_connects();
        }
        if let Some(e) = self.error.take() {
            let _ = tx.send(ToCoordinator::Failed(e));
            return;
        }
        let _ = tx.send(ToCoordinator::Ready {
            server_version: self.server_version.clone(),
            reconnects: self.reconnects,
        });
        let Ok(Some(window)) = start_rx.recv() else {
            return;
        };
        self.window = window;
        if let Some(rate) = self.cfg.rate {
            let share = rate * self.n as f64 / self.cfg.connections.max(1) as f64;
            self.pacer = Some(Pacer::new(
                window.start,
                share,
                self.cfg.arrival,
                window.end,
            ));
            self.timer = Timer::new(self.poll.as_ref().expect("poll"));
        }
        // Wait for the start instant.
        let now = self.now();
        if window.start > now {
            std::thread::sleep(Duration::from_nanos(window.start - now));
        }
        let mut cpu0 = None;
        let mut cpu1 = None;
        if self.window.measure_start <= self.now() {
            cpu0 = Some(CpuTimes::thread());
        }
        // Phase 2: run.
        let idle: Vec<usize> = std::mem::take(&mut self.idle);
        for i in idle {
            self.dispatch(i);
        }
        let mut drain_deadline = u64::MAX;
        let interval_ns = self.cfg.report_interval.as_nanos().max(1) as u64;
        let mut next_publish = self.window.start + interval_ns;
        loop {
            let now = self.now();
            if cpu0.is_none() && now >= self.window.measure_start {
                cpu0 = Some(CpuTimes::thread());
            }
            if !self.ending
                && (now >= self.window.end
                    || self.stop.load(Ordering::Relaxed)
                    || self.error.is_some()
                    || (self.tickets.load(Ordering::Relaxed) <= 0 && self.cfg.rate.is_none()))
            {
                self.begin_ending();
                drain_deadline = now + self.cfg.drain_timeout.as_nanos() as u64;
                cpu1 = Some(CpuTimes::thread());
            }
            if self.ending && (self.open == 0 || now >= drain_deadline) {
                break;
            }
            // Open loop: move due arrivals into the backlog and hand them to idle connections.
            let mut timeout_ns = 100_000_000u64;
            if let Some(p) = self.pacer.as_mut() {
                p.advance(now, &mut self.pacer_rng);
                while !self.idle.is_empty() {
                    let Some(intended) = self.pacer.as_mut().and_then(Pacer::take) else {
                        break;
                    };
                    let i = self.idle.pop().expect("idle connection");
                    self.start_txn(i, intended);
                }
                if let Some(p) = self.pacer.as_ref() {
                    self.shared.backlog.store(p.backlog(), Ordering::Relaxed);
                    // epoll_wait counts in whole milliseconds: arrivals are woken by a
                    // timerfd, so they start within microseconds of their intended time.
                    let due = if self.idle.is_empty() {
                        None
                    } else {
                        p.next_due()
                    };
                    if let Some(t) = self.timer.as_mut() {
                        t.arm(due.map(|d| d.saturating_sub(now)));
                    } else if let Some(d) = due {
                        timeout_ns = timeout_ns.min(d.saturating_sub(now));
                    }
                }
            }
            if cpu0.is_none() {
                timeout_ns = timeout_ns.min(self.window.measure_start.saturating_sub(now));
            }
            if !self.ending {
                timeout_ns = timeout_ns.min(self.window.end.saturating_sub(now));
            }
            if now >= next_publish {
                self.flush_interval();
                while next_publish <= now {
                    next_publish += interval_ns;
                }
            }
            timeout_ns = timeout_ns.min(next_publish.saturating_sub(now));
            self.shared
                .in_flight
                .store(self.in_flight, Ordering::Relaxed);
            self.shared.connected.store(self.open, Ordering::Relaxed);
            self.poll_once(&mut events, Some(Duration::from_nanos(timeout_ns)));
        }
        // Phase 3: close whatever is left.
        for i in 0..self.clients.len() {
            self.close(i);
        }
        self.flush_interval();
        let cpu0 = cpu0.unwrap_or_else(CpuTimes::thread);
        let cpu1 = cpu1.unwrap_or_else(CpuTimes::thread);
        if let Some(e) = self.error.take() {
            let _ = tx.send(ToCoordinator::Fatal(e));
        }
        let unstarted = self.pacer.as_mut().map(|p| p.stop() as u64).unwrap_or(0);
        let _ = tx.send(ToCoordinator::Done(Box::new(WorkerResult {
            stats: std::mem::take(&mut self.total),
            cpu: cpu1.since(&cpu0),
            last_completion_ns: self.last_completion_ns,
            unstarted,
        })));
    }

    /// Publishes the interval counters for the coordinator (once per interval: merging
    /// histograms is not free).
    fn flush_interval(&mut self) {
        if self.interval.queries == 0 && self.interval.error_count() == 0 {
            return;
        }
        if let Ok(mut slot) = self.shared.interval.lock() {
            match slot.as_mut() {
                Some(s) => s.merge(&self.interval),
                None => *slot = Some(self.interval.clone()),
            }
            self.interval.reset();
        }
    }

    fn begin_ending(&mut self) {
        self.ending = true;
        if let Some(p) = self.pacer.as_mut() {
            p.stop();
        }
        let idle = std::mem::take(&mut self.idle);
        for i in idle {
            self.close(i);
        }
    }

    /// Handshakes this thread may have in flight: the `connect_concurrency` budget is
    /// shared by all threads (a server's listen backlog is shared too).
    fn connect_budget(&self) -> usize {
        (self.cfg.connect_concurrency / self.cfg.threads.max(1)).max(1)
    }

    /// A connection whose greeting has not come within [`GREETING_TIMEOUT`] is closed and
    /// opened again. When a server's accept queue overflows, Linux drops the client's final
    /// ACK: the client believes it is connected and waits forever for a greeting that never
    /// comes. Retrying is what real clients' connect timeouts do.
    fn retry_stuck_connects(&mut self) {
        let now = Instant::now();
        for i in 0..self.clients.len() {
            let stuck = match self.clients[i].as_ref() {
                Some(c) => {
                    matches!(c.phase, Phase::Connecting | Phase::Login)
                        && !c.conn.greeted()
                        && now.duration_since(c.since) > GREETING_TIMEOUT
                }
                None => false,
            };
            if !stuck {
                continue;
            }
            let Some(mut old) = self.clients[i].take() else {
                continue;
            };
            if let Some(p) = self.poll.as_ref() {
                let _ = p.registry().deregister(&mut old.stream);
            }
            drop(old);
            self.reconnects += 1;
            match self.connect_stream(i) {
                Ok(stream) => {
                    let mut c = self.new_client(i, stream);
                    c.since = now;
                    self.clients[i] = Some(c);
                }
                Err(e) => {
                    self.fail(e);
                    return;
                }
            }
        }
    }

    fn connect_stream(&self, i: usize) -> Result<TcpStream, String> {
        let mut stream = TcpStream::connect(self.cfg.addr)
            .map_err(|e| format!("connect to {}: {e}", self.cfg.addr))?;
        self.poll
            .as_ref()
            .expect("poll")
            .registry()
            .register(
                &mut stream,
                Token(i),
                Interest::READABLE | Interest::WRITABLE,
            )
            .map_err(|e| format!("epoll register: {e}"))?;
        Ok(stream)
    }

    fn new_client(&self, i: usize, stream: TcpStream) -> Client {
        let nstmts = self.workload.statements().len();
        let seed = self.cfg.seed
            ^ ((self.id as u64) << 40)
            ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Client {
            index: i,
            stream,
            conn: ClientConn::new(self.cfg.login.clone()),
            phase: Phase::Connecting,
            stmt_ids: vec![0; nstmts],
            types_sent: vec![false; nstmts],
            txn: Vec::new(),
            step: 0,
            intended_ns: 0,
            rng: Rng::new(seed, self.cfg.dist),
            want_write: true,
            since: Instant::now(),
        }
    }

    fn open_more(&mut self) {
        while self.opened < self.n && self.opening < self.connect_budget() {
            let i = self.opened;
            self.opened += 1;
            match self.connect_stream(i) {
                Ok(stream) => {
                    let c = self.new_client(i, stream);
                    self.clients.push(Some(c));
                    self.open += 1;
                    self.opening += 1;
                }
                Err(e) => {
                    self.fail(e);
                    return;
                }
            }
        }
    }

    fn poll_once(&mut self, events: &mut Events, timeout: Option<Duration>) {
        let mut poll = self.poll.take().expect("poll");
        if let Err(e) = poll.poll(events, timeout) {
            if e.kind() != ErrorKind::Interrupted {
                self.fail(format!("epoll_wait: {e}"));
            }
        }
        self.poll = Some(poll);
        for ev in events.iter() {
            let i = ev.token().0;
            if i == TIMER_TOKEN {
                if let Some(t) = self.timer.as_mut() {
                    t.fired();
                }
                continue;
            }
            let Some(mut c) = self.clients.get_mut(i).and_then(Option::take) else {
                continue;
            };
            let keep = self.on_ready(i, &mut c, ev.is_readable() || ev.is_read_closed());
            if keep {
                self.clients[i] = Some(c);
            } else {
                self.drop_client(c);
            }
        }
    }

    fn drop_client(&mut self, mut c: Client) {
        if let Some(p) = self.poll.as_ref() {
            let _ = p.registry().deregister(&mut c.stream);
        }
        if matches!(c.phase, Phase::Busy | Phase::RollingBack) {
            self.in_flight = self.in_flight.saturating_sub(1);
        }
        self.open = self.open.saturating_sub(1);
    }

    /// Handles readiness of client `i`; false when the client is finished.
    fn on_ready(&mut self, i: usize, c: &mut Client, readable: bool) -> bool {
        if c.phase == Phase::Connecting {
            match c.stream.take_error() {
                Ok(Some(e)) | Err(e) => {
                    self.fail(format!("connect to {}: {e}", self.cfg.addr));
                    return false;
                }
                Ok(None) => {}
            }
            match c.stream.peer_addr() {
                Ok(_) => {
                    let _ = c.stream.set_nodelay(true);
                    c.phase = Phase::Login;
                }
                Err(e) if e.kind() == ErrorKind::NotConnected => return true,
                Err(e) => {
                    self.fail(format!("connect to {}: {e}", self.cfg.addr));
                    return false;
                }
            }
        }
        if readable {
            loop {
                let buf = c.conn.read_buf(READ_CHUNK);
                let cap = buf.len();
                match c.stream.read(buf) {
                    Ok(0) => {
                        self.fail(format!(
                            "server closed connection {} ({:?})",
                            c.conn.connection_id(),
                            c.phase
                        ));
                        return false;
                    }
                    Ok(n) => {
                        c.conn.advance(n);
                        if !self.process(i, c) {
                            return false;
                        }
                        if n < cap {
                            break;
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(e) => {
                        self.fail(format!(
                            "read from connection {}: {e}",
                            c.conn.connection_id()
                        ));
                        return false;
                    }
                }
            }
        }
        self.flush(c) && c.phase != Phase::Closed
    }

    /// Writes pending output; false on a broken connection.
    fn flush(&mut self, c: &mut Client) -> bool {
        let mut blocked = false;
        while !c.conn.output().is_empty() {
            match c.stream.write(c.conn.output()) {
                Ok(n) => c.conn.consume(n),
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    blocked = true;
                    break;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.fail(format!(
                        "write to connection {}: {e}",
                        c.conn.connection_id()
                    ));
                    return false;
                }
            }
        }
        if blocked != c.want_write && c.phase != Phase::Connecting {
            let interest = if blocked {
                Interest::READABLE | Interest::WRITABLE
            } else {
                Interest::READABLE
            };
            let token = Token(self.token_of(c));
            if let Some(p) = self.poll.as_ref() {
                if let Err(e) = p.registry().reregister(&mut c.stream, token, interest) {
                    self.fail(format!("epoll: {e}"));
                    return false;
                }
            }
            c.want_write = blocked;
        }
        true
    }

    /// Runs the state machine over the received bytes; false when the client is finished.
    fn process(&mut self, i: usize, c: &mut Client) -> bool {
        loop {
            match c.conn.poll() {
                Ok(Some(ev)) => {
                    if !self.on_event(i, c, ev) || c.phase == Phase::Closed {
                        return false;
                    }
                }
                Ok(None) => return true,
                Err(ConnError::Login(e)) => {
                    self.fail(format!("login to {} failed: {e}", self.cfg.addr));
                    return false;
                }
                Err(e) => {
                    self.fail(format!("connection {}: {e}", c.conn.connection_id()));
                    return false;
                }
            }
        }
    }

    fn token_of(&self, c: &Client) -> usize {
        c.index
    }

    fn stmts(&self) -> &[StmtDef] {
        self.workload.statements()
    }

    fn on_event(&mut self, i: usize, c: &mut Client, ev: Event) -> bool {
        match (c.phase, ev) {
            (Phase::Login, Event::Ready) => {
                if self.server_version.is_empty() {
                    self.server_version = c.conn.server_version().to_string();
                }
                self.prepare_from(i, c, 0)
            }
            (Phase::Preparing(k), Event::Done(Response::Prepared { stmt_id, .. })) => {
                c.stmt_ids[k] = stmt_id;
                self.prepare_from(i, c, k + 1)
            }
            (Phase::Preparing(k), Event::Done(Response::Err(e))) => {
                let sql = self.stmts()[k].sql.clone();
                self.fail(format!("preparing `{sql}` failed: {e}"));
                false
            }
            (Phase::Busy, Event::Done(resp)) => self.on_response(i, c, resp),
            (Phase::RollingBack, Event::Done(_)) => {
                self.count_query(None);
                if self.ending {
                    c.phase = Phase::Idle;
                    self.in_flight = self.in_flight.saturating_sub(1);
                    self.quit(c);
                    return false;
                }
                self.workload.next_txn(&mut c.rng, &mut c.txn);
                c.step = 0;
                c.phase = Phase::Busy;
                self.send_request(c);
                true
            }
            (phase, ev) => {
                self.fail(format!("unexpected {ev:?} in state {phase:?}"));
                false
            }
        }
    }

    /// Prepares the next statement from `from` on, or marks the client ready.
    fn prepare_from(&mut self, i: usize, c: &mut Client, from: usize) -> bool {
        let next = if self.cfg.ps {
            (from..self.stmts().len()).find(|&k| self.stmts()[k].prepared)
        } else {
            None
        };
        match next {
            Some(k) => {
                let sql = self.stmts()[k].sql.clone();
                if let Err(e) = c.conn.prepare(&sql) {
                    self.fail(e.to_string());
                    return false;
                }
                c.phase = Phase::Preparing(k);
            }
            None => {
                c.phase = Phase::Idle;
                self.opening -= 1;
                self.connected += 1;
                self.shared
                    .connected
                    .store(self.connected, Ordering::Relaxed);
                if self.window.start == 0 {
                    self.idle.push(i);
                } else {
                    self.dispatch_client(i, c);
                }
                self.open_more();
            }
        }
        true
    }

    fn dispatch(&mut self, i: usize) {
        let Some(mut c) = self.clients.get_mut(i).and_then(Option::take) else {
            return;
        };
        self.dispatch_client(i, &mut c);
        if self.flush(&mut c) && c.phase != Phase::Closed {
            self.clients[i] = Some(c);
        } else {
            self.drop_client(c);
        }
    }

    /// Gives an idle client its next transaction (or parks / closes it).
    fn dispatch_client(&mut self, i: usize, c: &mut Client) {
        if self.ending {
            self.quit(c);
            return;
        }
        if self.pacer.is_some() {
            match self.pacer.as_mut().and_then(Pacer::take) {
                Some(intended) => self.start_client(c, intended),
                None => self.idle.push(i),
            }
        } else {
            let now = self.now();
            self.start_client(c, now);
        }
    }

    fn start_txn(&mut self, i: usize, intended: u64) {
        let Some(mut c) = self.clients.get_mut(i).and_then(Option::take) else {
            return;
        };
        self.start_client(&mut c, intended);
        if self.flush(&mut c) && c.phase != Phase::Closed {
            self.clients[i] = Some(c);
        } else {
            self.drop_client(c);
        }
    }

    fn start_client(&mut self, c: &mut Client, intended: u64) {
        if self.cfg.events.is_some() && self.tickets.fetch_sub(1, Ordering::Relaxed) <= 0 {
            self.quit(c);
            return;
        }
        self.workload.next_txn(&mut c.rng, &mut c.txn);
        c.step = 0;
        c.intended_ns = intended;
        c.phase = Phase::Busy;
        self.in_flight += 1;
        self.send_request(c);
    }

    fn quit(&mut self, c: &mut Client) {
        c.conn.quit();
        let _ = self.flush(c);
        let _ = c.stream.shutdown(std::net::Shutdown::Write);
        c.phase = Phase::Closed;
    }

    fn close(&mut self, i: usize) {
        if let Some(mut c) = self.clients.get_mut(i).and_then(Option::take) {
            if c.conn.is_ready() && c.phase != Phase::Closed {
                self.quit(&mut c);
            }
            self.drop_client(c);
        }
    }

    fn send_request(&mut self, c: &mut Client) {
        let req = &c.txn[c.step];
        let k = req.stmt as usize;
        let def = &self.workload.statements()[k];
        let res = if self.cfg.ps && def.prepared {
            let mut cells = [Cell::Null; 8];
            for (cell, p) in cells.iter_mut().zip(&req.params) {
                *cell = match p {
                    Param::Int(v) => Cell::Int(*v),
                    Param::Str(s) => Cell::Bytes(s),
                };
            }
            let n = req.params.len().min(8);
            let send_types = !c.types_sent[k];
            c.types_sent[k] = true;
            c.conn.execute(c.stmt_ids[k], &cells[..n], send_types)
        } else {
            def.render(&req.params, &mut self.scratch);
            c.conn.query_bytes(&self.scratch)
        };
        if let Err(e) = res {
            self.fail(e.to_string());
        }
    }

    fn in_window(&self, now: u64) -> bool {
        now >= self.window.measure_start && now < self.window.end
    }

    fn count_query(&mut self, resp: Option<&Response>) {
        let now = self.now();
        let counted = self.in_window(now);
        for s in [&mut self.interval, &mut self.total] {
            s.queries += 1;
            match resp {
                Some(Response::Rows { .. }) => s.reads += 1,
                Some(Response::Ok { affected_rows, .. }) if *affected_rows > 0 => s.writes += 1,
                Some(Response::Err(e)) => s.record_error(e.code),
                _ => s.others += 1,
            }
            if !counted {
                break;
            }
        }
    }

    fn on_response(&mut self, i: usize, c: &mut Client, resp: Response) -> bool {
        self.count_query(Some(&resp));
        if let Response::Err(e) = &resp {
            let code = e.code;
            let retry = self.cfg.ignore_errors.ignores(code);
            if !retry {
                let sql = self.stmts()[c.txn[c.step].stmt as usize].sql.clone();
                self.fail(format!("{e} (statement `{sql}`)"));
                return false;
            }
            let counted = self.in_window(self.now());
            self.interval.retries += 1;
            if counted {
                self.total.retries += 1;
            }
            if let Some(rb) = self.workload.rollback_before_retry() {
                c.txn.clear();
                c.txn.push(Request {
                    stmt: rb,
                    params: Vec::new(),
                });
                c.step = 0;
                c.phase = Phase::RollingBack;
                self.send_request(c);
                return true;
            }
            if self.ending {
                c.phase = Phase::Idle;
                self.in_flight = self.in_flight.saturating_sub(1);
                self.quit(c);
                return false;
            }
            // Like sysbench: run the event again with fresh values, no ROLLBACK.
            self.workload.next_txn(&mut c.rng, &mut c.txn);
            c.step = 0;
            self.send_request(c);
            return true;
        }
        c.step += 1;
        if c.step < c.txn.len() {
            self.send_request(c);
            return true;
        }
        // Transaction complete.
        let now = self.now();
        let latency = Duration::from_nanos(now.saturating_sub(c.intended_ns));
        self.interval.record_txn(latency);
        if self.in_window(now) {
            self.total.record_txn(latency);
            self.last_completion_ns = now;
        }
        self.in_flight -= 1;
        c.phase = Phase::Idle;
        self.dispatch_client(i, c);
        c.phase != Phase::Closed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignore_error_lists() {
        let d = IgnoreErrors::sysbench_default();
        assert!(d.ignores(1213) && d.ignores(1205) && d.ignores(1020));
        assert!(!d.ignores(1062));
        assert_eq!(IgnoreErrors::parse("all").unwrap(), IgnoreErrors::All);
        assert!(!IgnoreErrors::parse("none").unwrap().ignores(1213));
        assert_eq!(
            IgnoreErrors::parse("1213, 1062").unwrap(),
            IgnoreErrors::Codes(vec![1213, 1062])
        );
        assert!(IgnoreErrors::parse("x").is_err());
    }
}
