//! The TPC-C run: one terminal per connection, each on its own thread with a blocking
//! client, because a TPC-C transaction reads before it writes (D_NEXT_O_ID becomes O_ID,
//! the customer found by name is the one updated), so its statements cannot be generated
//! up front the way the sysbench driver ([`crate::driver`]) does.
//!
//! Terminal `i` has home warehouse `i mod W + 1` and home district `(i / W) mod 10 + 1`
//! (clause 2.8.1.1 binds Stock-Level to a district; clause 5.2.2 lets terminals share a
//! warehouse). There is no keying or think time. A transaction aborted with 1213, 1205 or
//! 1020 is rolled back and retried with the same inputs; its latency runs from the first
//! attempt to the commit and the retries are counted per type. A statement the server
//! refuses with 1235 is recorded with its text, the transaction rolled back and counted as
//! unsupported, and the terminal goes on with its next transaction, so a server without
//! some feature still runs the rest of the mix.

use super::random::{CConstants, Tr};
use super::txn::{take_counts, Done, Kind, Terminal, TxnError};
use super::{Scale, DISTRICTS};
use crate::conn::SyncClient;
use crate::stats::Stats;
use crate::url::DbUrl;
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a run needs.
#[derive(Clone, Debug)]
pub struct RunConfig {
    pub url: DbUrl,
    pub warehouses: u32,
    pub connections: usize,
    pub duration: Duration,
    pub warmup: Duration,
    pub scale: Scale,
    pub split_joins: bool,
    pub seed: u64,
    /// Print a progress line every second.
    pub progress: bool,
    /// A lost connection ends that terminal instead of the run (crash runs).
    pub expect_crash: bool,
}

/// Counts of one transaction type.
#[derive(Clone, Debug, Default)]
pub struct KindStats {
    /// Completed inside the window (committed, or New-Order's deliberate rollback), with
    /// latencies.
    pub done: Stats,
    pub rolled_back: u64,
    /// Retries after a deadlock or lock-wait timeout, by error code.
    pub retries: BTreeMap<u16, u64>,
    /// Transactions abandoned on a 1235.
    pub unsupported: u64,
}

impl KindStats {
    fn merge(&mut self, o: &KindStats) {
        self.done.merge(&o.done);
        self.rolled_back += o.rolled_back;
        for (c, n) in &o.retries {
            *self.retries.entry(*c).or_insert(0) += n;
        }
        self.unsupported += o.unsupported;
    }
}

/// What the terminals did.
#[derive(Debug, Default)]
pub struct RunOutcome {
    pub kinds: BTreeMap<Kind, KindStats>,
    /// Refused statements (literals replaced by `?`) and how often, inside the window.
    pub unsupported: BTreeMap<String, u64>,
    pub elapsed: Duration,
    pub fatal: Option<String>,
    /// The first lost connection (crash runs).
    pub lost: Option<String>,
    /// The highest O_ID whose New-Order commit was acknowledged, per (w, d), index
    /// `(w − 1) · 10 + d − 1`.
    pub acked: Vec<u32>,
}

impl RunOutcome {
    /// New-Orders committed in the window.
    pub fn new_orders(&self) -> u64 {
        self.kinds
            .get(&Kind::NewOrder)
            .map(|k| k.done.txns - k.rolled_back)
            .unwrap_or(0)
    }

    pub fn nopm(&self) -> f64 {
        self.new_orders() as f64 * 60.0 / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn total(&self) -> Stats {
        let mut s = Stats::new();
        for k in self.kinds.values() {
            s.merge(&k.done);
        }
        s
    }
}

/// Literals out of a statement, to group refused statements by shape.
pub fn shape(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    let mut prev_word = false;
    while let Some(c) = chars.next() {
        if c == '\'' {
            for d in chars.by_ref() {
                if d == '\'' {
                    break;
                }
            }
            out.push('?');
            prev_word = false;
        } else if c.is_ascii_digit() && !prev_word {
            while chars
                .peek()
                .is_some_and(|d| d.is_ascii_digit() || *d == '.')
            {
                chars.next();
            }
            out.push('?');
        } else {
            prev_word = c.is_ascii_alphanumeric() || c == '_';
            out.push(c);
        }
    }
    out
}

struct Shared {
    stop: AtomicBool,
    new_orders: AtomicU64,
    txns: AtomicU64,
    acked: Vec<AtomicU32>,
    unsupported: Mutex<BTreeMap<String, u64>>,
    fatal: Mutex<Option<String>>,
    lost: Mutex<Option<String>>,
}

/// Runs the terminals for the warm-up and the duration; blocks until they are done.
/// `on_window(start)` is called at the start and end of the measurement window.
pub fn run(cfg: &RunConfig, on_window: &mut dyn FnMut(bool)) -> RunOutcome {
    let w = cfg.warehouses.max(1);
    let shared = Arc::new(Shared {
        stop: AtomicBool::new(false),
        new_orders: AtomicU64::new(0),
        txns: AtomicU64::new(0),
        acked: (0..w * DISTRICTS).map(|_| AtomicU32::new(0)).collect(),
        unsupported: Mutex::new(BTreeMap::new()),
        fatal: Mutex::new(None),
        lost: Mutex::new(None),
    });
    let consts = CConstants::for_run(&mut Tr::new(cfg.seed));
    // Connect every terminal before the clock starts.
    let mut clients = Vec::with_capacity(cfg.connections);
    for _ in 0..cfg.connections {
        match SyncClient::connect(&cfg.url) {
            Ok(c) => clients.push(c),
            Err(e) => {
                return RunOutcome {
                    fatal: Some(format!("connect {}: {e}", cfg.url)),
                    ..RunOutcome::default()
                }
            }
        }
    }
    let start = Instant::now();
    let measure_start = start + cfg.warmup;
    let end = measure_start + cfg.duration;
    let mut handles = Vec::new();
    for (i, client) in clients.into_iter().enumerate() {
        let term = Terminal {
            w_id: i as u32 % w + 1,
            d_id: (i as u32 / w) % DISTRICTS + 1,
            warehouses: w,
            scale: cfg.scale,
            consts,
            split_joins: cfg.split_joins,
            rng: Tr::new(cfg.seed ^ (i as u64 + 1).wrapping_mul(0x2545_F491_4F6C_DD1D)),
        };
        let sh = shared.clone();
        let expect_crash = cfg.expect_crash;
        let h = std::thread::Builder::new()
            .name(format!("tpcc-{i}"))
            .stack_size(256 * 1024)
            .spawn(move || terminal_loop(term, client, &sh, measure_start, end, expect_crash));
        match h {
            Ok(h) => handles.push(h),
            Err(e) => {
                shared.stop.store(true, Ordering::SeqCst);
                set_once(
                    &shared.fatal,
                    format!("cannot start a terminal thread: {e}"),
                );
                break;
            }
        }
    }
    coordinate(cfg, &shared, start, measure_start, end, on_window);
    let mut out = RunOutcome::default();
    for h in handles {
        if let Ok(kinds) = h.join() {
            for (k, s) in kinds {
                out.kinds.entry(k).or_default().merge(&s);
            }
        }
    }
    out.elapsed = cfg.duration;
    out.unsupported = std::mem::take(&mut *lock(&shared.unsupported));
    out.fatal = lock(&shared.fatal).take();
    out.lost = lock(&shared.lost).take();
    out.acked = shared
        .acked
        .iter()
        .map(|a| a.load(Ordering::SeqCst))
        .collect();
    out
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn set_once(m: &Mutex<Option<String>>, msg: String) {
    lock(m).get_or_insert(msg);
}

/// Waits for the end of the run (or a fatal error), printing progress.
fn coordinate(
    cfg: &RunConfig,
    sh: &Shared,
    start: Instant,
    measure_start: Instant,
    end: Instant,
    on_window: &mut dyn FnMut(bool),
) {
    let mut measuring = false;
    let mut next = start + Duration::from_secs(1);
    let (mut last_no, mut last_tx) = (0, 0);
    loop {
        let now = Instant::now();
        if !measuring && now >= measure_start {
            measuring = true;
            on_window(true);
        }
        if now >= end || sh.stop.load(Ordering::Relaxed) {
            break;
        }
        if now >= next {
            let no = sh.new_orders.load(Ordering::Relaxed);
            let tx = sh.txns.load(Ordering::Relaxed);
            if cfg.progress {
                println!(
                    "[ {:>3.0}s ] NOPM {:>8.0}  tps {:>8.1}{}",
                    now.duration_since(start).as_secs_f64(),
                    (no - last_no) as f64 * 60.0,
                    (tx - last_tx) as f64,
                    if now < measure_start {
                        " (warm-up)"
                    } else {
                        ""
                    }
                );
                let _ = std::io::stdout().flush();
            }
            (last_no, last_tx) = (no, tx);
            next += Duration::from_secs(1);
        }
        let wake = next
            .min(end)
            .min(if measuring { end } else { measure_start });
        std::thread::sleep(
            wake.saturating_duration_since(Instant::now())
                .min(Duration::from_millis(100)),
        );
    }
    if measuring {
        on_window(false);
    }
    sh.stop.store(true, Ordering::SeqCst);
}

fn terminal_loop(
    mut t: Terminal,
    mut c: SyncClient,
    sh: &Shared,
    measure_start: Instant,
    end: Instant,
    expect_crash: bool,
) -> BTreeMap<Kind, KindStats> {
    let mut kinds: BTreeMap<Kind, KindStats> = Kind::ALL
        .iter()
        .map(|k| (*k, KindStats::default()))
        .collect();
    'txns: while !sh.stop.load(Ordering::Relaxed) && Instant::now() < end {
        let kind = t.next_kind();
        let inputs = t.inputs(kind);
        let began = Instant::now();
        loop {
            let r = t.run(&mut c, &inputs);
            let now = Instant::now();
            let in_window = now >= measure_start && now < end;
            let ks = kinds.entry(kind).or_default();
            let n = take_counts();
            if in_window {
                ks.done.reads += n.reads;
                ks.done.writes += n.writes;
                ks.done.others += n.others;
                ks.done.queries += n.reads + n.writes + n.others;
            }
            match r {
                Ok(done) => {
                    sh.txns.fetch_add(1, Ordering::Relaxed);
                    match done {
                        Done::NewOrder { d_id, o_id } => {
                            sh.new_orders.fetch_add(1, Ordering::Relaxed);
                            let k = ((t.w_id - 1) * DISTRICTS + d_id - 1) as usize;
                            if let Some(a) = sh.acked.get(k) {
                                a.fetch_max(o_id, Ordering::SeqCst);
                            }
                        }
                        Done::RolledBack if in_window => ks.rolled_back += 1,
                        _ => {}
                    }
                    if in_window {
                        ks.done.record_txn(now.duration_since(began));
                    }
                    break;
                }
                Err(TxnError::Retry(code)) => {
                    if in_window {
                        *ks.retries.entry(code).or_insert(0) += 1;
                    }
                    if !rollback(&mut c, sh, expect_crash) || sh.stop.load(Ordering::Relaxed) {
                        break 'txns;
                    }
                }
                Err(TxnError::Unsupported(sql)) => {
                    if in_window {
                        ks.unsupported += 1;
                        *lock(&sh.unsupported).entry(shape(&sql)).or_insert(0) += 1;
                    }
                    if !rollback(&mut c, sh, expect_crash) {
                        break 'txns;
                    }
                    break;
                }
                Err(TxnError::Lost(e)) => {
                    lost(sh, e, expect_crash);
                    break 'txns;
                }
                Err(TxnError::Fatal(e)) => {
                    set_once(&sh.fatal, format!("{}: {e}", kind.name()));
                    sh.stop.store(true, Ordering::SeqCst);
                    break 'txns;
                }
            }
        }
    }
    c.close();
    kinds
}

fn lost(sh: &Shared, e: String, expect_crash: bool) {
    if expect_crash {
        set_once(&sh.lost, e);
    } else {
        set_once(&sh.fatal, format!("connection lost: {e}"));
        sh.stop.store(true, Ordering::SeqCst);
    }
}

/// Rolls back after an error; false when the connection is gone.
fn rollback(c: &mut SyncClient, sh: &Shared, expect_crash: bool) -> bool {
    match c.execute("ROLLBACK") {
        Ok(_) => true,
        Err(e) if e.code().is_some() => {
            set_once(&sh.fatal, format!("ROLLBACK failed: {e}"));
            sh.stop.store(true, Ordering::SeqCst);
            false
        }
        Err(e) => {
            lost(sh, e.to_string(), expect_crash);
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_drop_literals() {
        assert_eq!(
            shape(
                "SELECT c_id FROM customer WHERE c_w_id = 12 AND c_last = 'BARBAR' AND x1 = 2.50"
            ),
            "SELECT c_id FROM customer WHERE c_w_id = ? AND c_last = ? AND x1 = ?"
        );
        assert_eq!(
            shape("SELECT s_dist_05 FROM stock"),
            "SELECT s_dist_05 FROM stock"
        );
    }
}
