//! What both fuzzers share: the run's bounds (seeds, time, iterations), the server to test,
//! the work directory, the suppression list, and the final tally.

use crate::oracle::{Finding, Suppress};
use crate::server::ServerSpec;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Options common to `sql` and `protocol`.
#[derive(Clone, Debug)]
pub struct Common {
    pub seeds: Vec<u64>,
    /// Total time for all seeds (split evenly); shrinking comes on top.
    pub seconds: Option<u64>,
    /// Iterations per seed.
    pub iterations: Option<u64>,
    pub server: ServerSpec,
    /// Fixed port for the server under test (default: a free one).
    pub port: Option<u16>,
    pub workdir: PathBuf,
    pub keep_workdir: bool,
    pub suppress: Suppress,
    /// Continue after a finding (new data directory), collecting distinct ones.
    pub keep_going: bool,
    /// Time for minimising each finding.
    pub shrink_seconds: u64,
    /// How long one request may take before it is a hang.
    pub request_timeout: Duration,
    /// Resident memory limit of the server, MiB (0: no check).
    pub max_rss_mb: u64,
    pub verbose: bool,
}

impl Common {
    /// When a seed starting now must stop, if time-bounded: each seed gets an equal share
    /// of `--seconds` (minimising a finding extends its own seed's deadline, so it never eats
    /// into the next seed's share).
    pub fn seed_deadline(&self) -> Option<Instant> {
        let total = Duration::from_secs(self.seconds?);
        Some(Instant::now() + total / self.seeds.len().max(1) as u32)
    }

    /// Whether a seed's loop must stop before iteration `i`.
    pub fn done(&self, i: u64, deadline: Option<Instant>) -> bool {
        self.iterations.is_some_and(|n| i >= n) || deadline.is_some_and(|d| Instant::now() >= d)
    }

    pub fn port(&self) -> u16 {
        self.port.unwrap_or_else(crate::server::free_port)
    }
}

/// A finding with where it was found and how to reproduce it.
#[derive(Clone, Debug)]
pub struct Report {
    pub finding: Finding,
    pub seed: u64,
    pub iteration: u64,
    /// The minimised reproducer, ready to print.
    pub reproducer: String,
}

/// Findings of a run.
#[derive(Default)]
pub struct Tally {
    pub reports: Vec<Report>,
    pub suppressed: Vec<Finding>,
}

impl Tally {
    pub fn seen(&self, f: &Finding) -> bool {
        self.reports.iter().any(|r| r.finding.key() == f.key())
            || self.suppressed.iter().any(|s| s.key() == f.key())
    }

    /// Prints the summary; true when the run passed.
    pub fn finish(&self, what: &str) -> bool {
        println!();
        if !self.suppressed.is_empty() {
            println!(
                "{what}: {} suppressed finding(s) (local triage only):",
                self.suppressed.len()
            );
            for s in &self.suppressed {
                println!("  - {}", s.key());
            }
        }
        if self.reports.is_empty() {
            println!("{what}: PASSED (no finding)");
            return true;
        }
        println!("{what}: FAILED with {} finding(s):", self.reports.len());
        for r in &self.reports {
            println!(
                "\n- seed {} iteration {}: {}",
                r.seed,
                r.iteration,
                r.finding.key()
            );
            println!("{}", r.reproducer);
        }
        false
    }
}

/// Creates `dir` (and parents).
pub fn ensure_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// Today's date as a number (YYYYMMDD, UTC): the CI's seed of the day.
pub fn date_seed() -> u64 {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    let (y, m, d) = civil_from_days(days);
    (y as u64) * 10_000 + (m as u64) * 100 + d as u64
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (H. Hinnant's method).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(20_513), (2026, 3, 1));
        assert!(date_seed() > 20_240_101);
    }
}
