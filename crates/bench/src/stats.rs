//! Counters, latency histograms and CPU times.
//!
//! Latencies are recorded in microseconds into an HdrHistogram (1 µs .. 1 h, 3 significant
//! digits) and reported in milliseconds like sysbench. Each worker thread keeps its own
//! [`Stats`] for the whole measurement and another for the current progress interval; they
//! are merged at the end (and per interval by the reporter), so recording takes no lock.

use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// Highest latency the histograms hold: one hour, in µs.
const MAX_LATENCY_US: u64 = 3_600_000_000;

/// Counts and latencies of one thread (or merged).
#[derive(Clone, Debug)]
pub struct Stats {
    pub txns: u64,
    pub queries: u64,
    /// Statements that returned a result set.
    pub reads: u64,
    /// Statements that changed rows (OK with affected rows > 0).
    pub writes: u64,
    /// Other statements (BEGIN, COMMIT, updates that changed nothing).
    pub others: u64,
    /// Transactions restarted after a retryable error (sysbench's "ignored errors").
    pub retries: u64,
    /// Every error the server returned, by code.
    pub errors: BTreeMap<u16, u64>,
    pub hist: Histogram<u64>,
}

impl Default for Stats {
    fn default() -> Self {
        Stats::new()
    }
}

impl Stats {
    pub fn new() -> Stats {
        Stats {
            txns: 0,
            queries: 0,
            reads: 0,
            writes: 0,
            others: 0,
            retries: 0,
            errors: BTreeMap::new(),
            hist: Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).expect("valid bounds"),
        }
    }

    /// Records one finished transaction of `latency`.
    pub fn record_txn(&mut self, latency: Duration) {
        self.txns += 1;
        let us = (latency.as_nanos() / 1000).clamp(1, u128::from(MAX_LATENCY_US)) as u64;
        self.hist.saturating_record(us);
    }

    pub fn record_error(&mut self, code: u16) {
        *self.errors.entry(code).or_insert(0) += 1;
    }

    pub fn error_count(&self) -> u64 {
        self.errors.values().sum()
    }

    pub fn merge(&mut self, other: &Stats) {
        self.txns += other.txns;
        self.queries += other.queries;
        self.reads += other.reads;
        self.writes += other.writes;
        self.others += other.others;
        self.retries += other.retries;
        for (code, n) in &other.errors {
            *self.errors.entry(*code).or_insert(0) += n;
        }
        let _ = self.hist.add(&other.hist);
    }

    pub fn reset(&mut self) {
        self.txns = 0;
        self.queries = 0;
        self.reads = 0;
        self.writes = 0;
        self.others = 0;
        self.retries = 0;
        self.errors.clear();
        self.hist.reset();
    }

    /// Latency summary in milliseconds.
    pub fn latency(&self) -> Latency {
        if self.hist.is_empty() {
            return Latency::default();
        }
        let ms = |us: u64| us as f64 / 1000.0;
        Latency {
            min: ms(self.hist.min()),
            mean: self.hist.mean() / 1000.0,
            p50: ms(self.hist.value_at_quantile(0.50)),
            p95: ms(self.hist.value_at_quantile(0.95)),
            p99: ms(self.hist.value_at_quantile(0.99)),
            max: ms(self.hist.max()),
        }
    }
}

/// Latency percentiles in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Latency {
    pub min: f64,
    pub mean: f64,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

/// User and system CPU time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct CpuTimes {
    pub user: f64,
    pub sys: f64,
}

impl CpuTimes {
    pub fn total(&self) -> f64 {
        self.user + self.sys
    }

    pub fn since(&self, earlier: &CpuTimes) -> CpuTimes {
        CpuTimes {
            user: (self.user - earlier.user).max(0.0),
            sys: (self.sys - earlier.sys).max(0.0),
        }
    }

    fn of(who: libc::c_int) -> CpuTimes {
        // SAFETY: getrusage only writes the struct we pass.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::getrusage(who, &mut ru) };
        if rc != 0 {
            return CpuTimes::default();
        }
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        CpuTimes {
            user: secs(ru.ru_utime),
            sys: secs(ru.ru_stime),
        }
    }

    /// CPU time of the whole process so far.
    pub fn process() -> CpuTimes {
        CpuTimes::of(libc::RUSAGE_SELF)
    }

    /// CPU time of the calling thread so far.
    pub fn thread() -> CpuTimes {
        CpuTimes::of(libc::RUSAGE_THREAD)
    }
}

/// Raises the open-file limit to the hard limit (10 000 connections need 10 000 sockets).
pub fn raise_fd_limit() -> u64 {
    // SAFETY: plain getrlimit/setrlimit on a local struct.
    unsafe {
        let mut lim: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return 0;
        }
        if lim.rlim_cur < lim.rlim_max {
            lim.rlim_cur = lim.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
        }
        lim.rlim_cur
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_and_merge() {
        let mut a = Stats::new();
        for ms in 1..=100 {
            a.record_txn(Duration::from_millis(ms));
        }
        let mut b = Stats::new();
        b.record_txn(Duration::from_secs(2));
        b.record_error(1213);
        b.record_error(1213);
        b.retries = 2;
        a.merge(&b);
        assert_eq!(a.txns, 101);
        assert_eq!(a.errors.get(&1213), Some(&2));
        let l = a.latency();
        assert!((49.0..52.0).contains(&l.p50), "{l:?}");
        assert!((94.0..97.0).contains(&l.p95), "{l:?}");
        assert!((1990.0..2010.0).contains(&l.max), "{l:?}");
        assert!(l.mean > 50.0 && l.mean < 80.0);
        a.reset();
        assert_eq!(a.latency(), Latency::default());
        assert_eq!(a.error_count(), 0);
    }

    #[test]
    fn cpu_times_move() {
        // Spin until the thread's CPU time moves (it is counted in clock ticks, so a fixed
        // loop can finish inside one tick in a release build); fail if it never does.
        let t0 = CpuTimes::thread();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let mut x = 0u64;
        let d = loop {
            for i in 0..1_000_000u64 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
            }
            let d = CpuTimes::thread().since(&t0);
            if d.total() > 0.0 || std::time::Instant::now() > deadline {
                break d;
            }
        };
        assert!(d.total() > 0.0, "5 s of spinning used no thread CPU time");
        assert!(CpuTimes::process().total() >= d.total());
        assert!(raise_fd_limit() > 0);
    }
}
