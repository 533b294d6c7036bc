//! Open-loop pacing: transactions are *scheduled* at a fixed rate, independent of how fast
//! the server answers.
//!
//! Each arrival gets an intended start time (evenly spaced with `--arrival fixed`, or with
//! exponential gaps — a Poisson process, like sysbench's `--rate` — with `poisson`). Due
//! arrivals queue in a backlog until a connection is free; the transaction's latency is then
//! measured from its *intended* start, not from the moment a connection picked it up. A
//! server that stalls for a second therefore shows a second of extra latency on every
//! transaction that should have started during the stall — the "coordinated omission" that a
//! closed loop (or a naive rate limiter) hides.

use crate::rand::Rng;
use std::collections::VecDeque;

/// Spacing of the arrivals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Arrival {
    /// Exponential gaps (Poisson process), as sysbench's `--rate`.
    Poisson,
    /// Even gaps.
    Fixed,
}

/// Arrival schedule and backlog of one worker thread.
#[derive(Debug)]
pub struct Pacer {
    next_ns: u64,
    gap_ns: f64,
    arrival: Arrival,
    end_ns: u64,
    backlog: VecDeque<u64>,
}

impl Pacer {
    /// `rate` transactions per second from `start_ns` until `end_ns` (exclusive).
    pub fn new(start_ns: u64, rate: f64, arrival: Arrival, end_ns: u64) -> Pacer {
        Pacer {
            next_ns: start_ns,
            gap_ns: 1e9 / rate.max(1e-9),
            arrival,
            end_ns,
            backlog: VecDeque::new(),
        }
    }

    fn gap(&self, rng: &mut Rng) -> u64 {
        match self.arrival {
            Arrival::Fixed => self.gap_ns as u64,
            Arrival::Poisson => (-(1.0 - rng.next_f64()).ln() * self.gap_ns) as u64,
        }
        .max(1)
    }

    /// Moves every arrival due by `now_ns` into the backlog.
    pub fn advance(&mut self, now_ns: u64, rng: &mut Rng) {
        while self.next_ns <= now_ns && self.next_ns < self.end_ns {
            self.backlog.push_back(self.next_ns);
            self.next_ns += self.gap(rng);
        }
    }

    /// When the next arrival is due (`None` after the end).
    pub fn next_due(&self) -> Option<u64> {
        (self.next_ns < self.end_ns).then_some(self.next_ns)
    }

    /// The intended start of the oldest waiting transaction.
    pub fn take(&mut self) -> Option<u64> {
        self.backlog.pop_front()
    }

    /// Arrivals waiting for a free connection.
    pub fn backlog(&self) -> usize {
        self.backlog.len()
    }

    /// Stops scheduling: drops the backlog and every later arrival; returns how many were
    /// dropped from the backlog.
    pub fn stop(&mut self) -> usize {
        self.end_ns = 0;
        let n = self.backlog.len();
        self.backlog.clear();
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rand::DistParams;
    use crate::stats::Stats;
    use std::time::Duration;

    const MS: u64 = 1_000_000;

    /// One connection, a server that needs `service` per transaction and stalls once:
    /// returns the latency stats an open-loop client records.
    fn simulate(rate: f64, service: u64, stall_at: u64, stall: u64, total: u64) -> Stats {
        let mut rng = Rng::new(1, DistParams::default());
        let mut p = Pacer::new(0, rate, Arrival::Fixed, total);
        let mut stats = Stats::new();
        let mut now = 0u64;
        let mut stalled = false;
        loop {
            p.advance(now, &mut rng);
            match p.take() {
                Some(intended) => {
                    let start = now.max(intended);
                    let mut done = start + service;
                    if !stalled && start >= stall_at {
                        stalled = true;
                        done += stall;
                    }
                    stats.record_txn(Duration::from_nanos(done - intended));
                    now = done;
                }
                None => match p.next_due() {
                    Some(t) => now = t,
                    None => break,
                },
            }
        }
        stats
    }

    #[test]
    fn arrivals_are_evenly_spaced_and_stop_at_the_end() {
        let mut rng = Rng::new(1, DistParams::default());
        let mut p = Pacer::new(100, 1000.0, Arrival::Fixed, 100 + 10 * MS);
        p.advance(100 + 5 * MS, &mut rng);
        assert_eq!(p.backlog(), 6);
        let starts: Vec<u64> = std::iter::from_fn(|| p.take()).collect();
        assert_eq!(starts, (0..6).map(|i| 100 + i * MS).collect::<Vec<_>>());
        p.advance(u64::MAX / 2, &mut rng);
        assert_eq!(p.backlog(), 4);
        assert_eq!(p.next_due(), None);
        assert_eq!(p.stop(), 4);
    }

    #[test]
    fn poisson_keeps_the_mean_rate() {
        let mut rng = Rng::new(9, DistParams::default());
        let mut p = Pacer::new(0, 10_000.0, Arrival::Poisson, 1_000 * MS);
        p.advance(u64::MAX / 2, &mut rng);
        let n = p.backlog() as f64;
        assert!((9_700.0..10_300.0).contains(&n), "{n}");
    }

    #[test]
    fn a_stall_shows_in_the_latency_of_every_delayed_transaction() {
        // 100 tx/s, 1 ms service, one 500 ms stall after 1 s, 3 s in all.
        let s = simulate(100.0, MS, 1_000 * MS, 500 * MS, 3_000 * MS);
        assert_eq!(s.txns, 300);
        let l = s.latency();
        // A closed loop would record one slow transaction out of 300 (p99 ≈ 1 ms); measured
        // from the intended start, the ~50 transactions scheduled during the stall are all
        // late, by up to 500 ms.
        assert!(l.max >= 500.0, "{l:?}");
        assert!(l.p95 > 100.0, "{l:?}");
        assert!(l.p50 < 2.0, "{l:?}");
        // Without the stall every transaction takes the service time.
        let s = simulate(100.0, MS, u64::MAX, 0, 3_000 * MS);
        assert!(s.latency().max < 1.1, "{:?}", s.latency());
    }

    #[test]
    fn an_overloaded_server_builds_latency_linearly() {
        // Service 20 ms at 100 tx/s: capacity is half the offered rate.
        let s = simulate(100.0, 20 * MS, u64::MAX, 0, 2_000 * MS);
        // The last of 200 transactions starts at ~4 s instead of ~2 s.
        assert!(s.latency().max > 1_900.0, "{:?}", s.latency());
    }
}
