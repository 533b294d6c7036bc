//! The record of one run point, and its JSON, CSV and text forms.

use crate::server_probe::{MachineCpu, ServerCpu};
use crate::stats::{CpuTimes, Latency};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One progress line.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ProgressPoint {
    pub t: f64,
    pub warmup: bool,
    pub tps: f64,
    pub qps: f64,
    pub p95_ms: f64,
    pub errors_per_s: f64,
    pub backlog: usize,
    pub server_cpu_pct: Option<f64>,
}

/// The client's own CPU during the window.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ClientCpu {
    pub user_s: f64,
    pub sys_s: f64,
    /// Percent of one CPU.
    pub cpu_pct: f64,
    /// Client CPU per transaction, µs.
    pub us_per_txn: f64,
    /// Each worker thread's CPU (s).
    pub threads: Vec<CpuTimes>,
}

/// Everything measured for one (workload, server, connection count) point.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunResult {
    pub label: String,
    pub workload: String,
    pub server: String,
    pub server_version: String,
    pub connections: usize,
    pub client_threads: usize,
    /// `closed` (flat out) or `open` (fixed rate).
    pub mode: String,
    pub target_rate: Option<f64>,
    pub ps_mode: String,
    pub tables: u32,
    pub table_size: u32,
    pub time_s: f64,
    pub warmup_s: f64,
    pub connect_s: f64,
    pub txns: u64,
    pub queries: u64,
    pub reads: u64,
    pub writes: u64,
    pub others: u64,
    pub tps: f64,
    pub qps: f64,
    pub latency_ms: Latency,
    /// Every error by code (retried ones included).
    pub errors: BTreeMap<String, u64>,
    /// Transactions restarted after a retryable error.
    pub ignored_errors: u64,
    /// Open loop: scheduled transactions never started.
    pub unstarted: u64,
    pub client_cpu: ClientCpu,
    pub server_cpu: Option<ServerCpu>,
    pub machine_cpu: Option<MachineCpu>,
    /// Server CPU per transaction, µs.
    pub server_us_per_txn: Option<f64>,
    /// `SHOW GLOBAL STATUS` values that changed (after − before).
    pub server_status: BTreeMap<String, f64>,
    pub check: Option<String>,
    pub check_ok: Option<bool>,
    /// The error that stopped the run early.
    pub fatal: Option<String>,
    pub progress: Vec<ProgressPoint>,
    /// TPC-C runs: NOPM and the per-transaction counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpcc: Option<crate::tpcc::TpccSummary>,
}

impl RunResult {
    pub fn ok(&self) -> bool {
        self.fatal.is_none() && self.check_ok != Some(false)
    }
}

/// Status counters worth showing first (commit pipeline, scheduling, waits).
fn interesting(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "commit",
        "fsync",
        "sync",
        "binlog",
        "group",
        "flush",
        "wait",
        "thread",
        "admission",
        "wakeup",
        "pool",
        "queue",
        "lock",
        "deadlock",
    ]
    .iter()
    .any(|k| n.contains(k))
}

/// The text report of one run (sysbench-like).
pub fn summary_text(r: &RunResult) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "SQL statistics:");
    let _ = writeln!(
        s,
        "    queries performed: read {}, write {}, other {}, total {}",
        r.reads, r.writes, r.others, r.queries
    );
    let _ = writeln!(
        s,
        "    transactions:        {:<10} ({:.2} per sec.)",
        r.txns, r.tps
    );
    let _ = writeln!(
        s,
        "    queries:             {:<10} ({:.2} per sec.)",
        r.queries, r.qps
    );
    let _ = writeln!(
        s,
        "    ignored errors:      {:<10} ({:.2} per sec.)",
        r.ignored_errors,
        r.ignored_errors as f64 / r.time_s.max(1e-9)
    );
    if !r.errors.is_empty() {
        let list: Vec<String> = r.errors.iter().map(|(c, n)| format!("{c}: {n}")).collect();
        let _ = writeln!(s, "    errors by code:      {}", list.join(", "));
    }
    if r.unstarted > 0 {
        let _ = writeln!(
            s,
            "    not started:         {} (backlog at the end: the target rate was not held)",
            r.unstarted
        );
    }
    let l = &r.latency_ms;
    let _ = writeln!(
        s,
        "Latency (ms{}):",
        if r.mode == "open" {
            ", from intended start"
        } else {
            ""
        }
    );
    let _ = writeln!(
        s,
        "    min {:.2}  avg {:.2}  p50 {:.2}  p95 {:.2}  p99 {:.2}  max {:.2}",
        l.min, l.mean, l.p50, l.p95, l.p99, l.max
    );
    let c = &r.client_cpu;
    let _ = writeln!(s, "CPU:");
    let _ = writeln!(
        s,
        "    client: {:.1}% of one CPU (usr {:.2}s sys {:.2}s), {:.1} µs per transaction, {} thread(s)",
        c.cpu_pct, c.user_s, c.sys_s, c.us_per_txn, r.client_threads
    );
    match &r.server_cpu {
        Some(sc) => {
            let _ = writeln!(
                s,
                "    server (pid {}): %usr {:.1} %sys {:.1} %cpu {:.1}{}",
                sc.pid,
                sc.usr_pct,
                sc.sys_pct,
                sc.cpu_pct,
                r.server_us_per_txn
                    .map(|u| format!(", {u:.1} µs per transaction"))
                    .unwrap_or_default()
            );
        }
        None => {
            let _ = writeln!(s, "    server: not local or pid not found");
        }
    }
    if let Some(m) = &r.machine_cpu {
        let _ = writeln!(
            s,
            "    machine ({} CPUs): usr {:.1}% sys {:.1}% idle {:.1}%",
            m.cpus, m.usr_pct, m.sys_pct, m.idle_pct
        );
    }
    if !r.server_status.is_empty() {
        let _ = writeln!(
            s,
            "Server status (changed during the window, per transaction in brackets):"
        );
        let mut names: Vec<&String> = r.server_status.keys().collect();
        names.sort_by_key(|n| (!interesting(n), n.to_ascii_lowercase()));
        let per_txn = |v: f64| {
            if r.txns > 0 {
                format!(" [{:.3}]", v / r.txns as f64)
            } else {
                String::new()
            }
        };
        for n in names {
            let v = r.server_status[n];
            let _ = writeln!(s, "    {n:<44} {v:>14.0}{}", per_txn(v));
        }
    }
    if let Some(c) = &r.check {
        let _ = writeln!(s, "Check: {c}");
    }
    if let Some(f) = &r.fatal {
        let _ = writeln!(s, "FATAL: {f}");
    }
    s
}

/// A compact table of several runs (one row per point).
pub fn sweep_table(results: &[RunResult]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<14} {:>6} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8} {:>8}  status",
        "label",
        "conns",
        "tps",
        "qps",
        "avg ms",
        "p95 ms",
        "p99 ms",
        "max ms",
        "cli µs/tx",
        "srv %cpu",
        "errors",
    );
    for r in results {
        let _ = writeln!(
            s,
            "{:<14} {:>6} {:>10.1} {:>10.1} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>8.1} {:>8} {:>8}  {}",
            truncate(&r.label, 14),
            r.connections,
            r.tps,
            r.qps,
            r.latency_ms.mean,
            r.latency_ms.p95,
            r.latency_ms.p99,
            r.latency_ms.max,
            r.client_cpu.us_per_txn,
            r.server_cpu
                .as_ref()
                .map(|c| format!("{:.0}", c.cpu_pct))
                .unwrap_or_else(|| "-".into()),
            r.errors.values().sum::<u64>(),
            match (&r.fatal, r.check_ok) {
                (Some(f), _) => format!("FAILED: {}", truncate(f, 60)),
                (None, Some(false)) => "CHECK FAILED".into(),
                _ => "ok".into(),
            }
        );
    }
    s
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).collect::<String>() + "…"
    }
}

/// CSV header and one line per run.
pub fn to_csv(results: &[RunResult]) -> String {
    let mut s = String::from(
        "label,workload,server_version,connections,client_threads,mode,target_rate,time_s,txns,queries,tps,qps,lat_min_ms,lat_mean_ms,lat_p50_ms,lat_p95_ms,lat_p99_ms,lat_max_ms,errors,ignored_errors,unstarted,client_cpu_pct,client_us_per_txn,server_usr_pct,server_sys_pct,server_cpu_pct,server_us_per_txn,machine_idle_pct,check_ok,fatal\n",
    );
    for r in results {
        let l = &r.latency_ms;
        let sc = r.server_cpu.as_ref();
        let opt = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or_default();
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{:.3},{},{},{:.3},{:.3},{:.3},{:.3},{:.3},{:.3},{:.3},{:.3},{},{},{},{:.2},{:.2},{},{},{},{},{},{},{}",
            csv_field(&r.label),
            csv_field(&r.workload),
            csv_field(&r.server_version),
            r.connections,
            r.client_threads,
            r.mode,
            opt(r.target_rate),
            r.time_s,
            r.txns,
            r.queries,
            r.tps,
            r.qps,
            l.min,
            l.mean,
            l.p50,
            l.p95,
            l.p99,
            l.max,
            r.errors.values().sum::<u64>(),
            r.ignored_errors,
            r.unstarted,
            r.client_cpu.cpu_pct,
            r.client_cpu.us_per_txn,
            opt(sc.map(|c| c.usr_pct)),
            opt(sc.map(|c| c.sys_pct)),
            opt(sc.map(|c| c.cpu_pct)),
            opt(r.server_us_per_txn),
            opt(r.machine_cpu.as_ref().map(|m| m.idle_pct)),
            r.check_ok.map(|b| b.to_string()).unwrap_or_default(),
            csv_field(r.fatal.as_deref().unwrap_or("")),
        );
    }
    s
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Writes `results.json` and `results.csv` into `dir`.
pub fn write_results(dir: &std::path::Path, results: &[RunResult]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let json = serde_json::to_string_pretty(results).map_err(std::io::Error::other)?;
    std::fs::write(dir.join("results.json"), json + "\n")?;
    std::fs::write(dir.join("results.csv"), to_csv(results))?;
    Ok(())
}

/// Reads results written by [`write_results`] (a JSON array, or one object).
pub fn read_results(path: &std::path::Path) -> Result<Vec<RunResult>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str::<Vec<RunResult>>(&text)
        .or_else(|_| serde_json::from_str::<RunResult>(&text).map(|r| vec![r]))
        .map_err(|e| format!("{}: not a results file: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample(label: &str, conns: usize, tps: f64) -> RunResult {
        RunResult {
            label: label.into(),
            workload: "oltp_point_select".into(),
            connections: conns,
            client_threads: 1,
            mode: "closed".into(),
            time_s: 10.0,
            txns: (tps * 10.0) as u64,
            queries: (tps * 10.0) as u64,
            tps,
            qps: tps,
            latency_ms: Latency {
                min: 0.1,
                mean: 1.0,
                p50: 0.9,
                p95: 2.0,
                p99: 3.0,
                max: 9.0,
            },
            ..RunResult::default()
        }
    }

    #[test]
    fn csv_and_json_round_trip() {
        let mut a = sample("a,b", 16, 1000.0);
        a.fatal = Some("ERROR 1062 (23000): \"dup\"".into());
        let csv = to_csv(&[a.clone(), sample("x", 1, 5.0)]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[1].starts_with("\"a,b\",oltp_point_select,,16,"));
        assert!(lines[1].ends_with("\"ERROR 1062 (23000): \"\"dup\"\"\""));
        let dir = std::env::temp_dir().join(format!("cohort-bench-res-{}", std::process::id()));
        write_results(&dir, &[a.clone()]).unwrap();
        let back = read_results(&dir.join("results.json")).unwrap();
        assert_eq!(back, vec![a]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn text_forms_mention_the_numbers() {
        let mut r = sample("cohort", 64, 1234.5);
        r.server_status.insert("Binlog_group_commits".into(), 100.0);
        r.server_status.insert("Bytes_sent".into(), 9000.0);
        let t = summary_text(&r);
        assert!(t.contains("1234.50 per sec."));
        let bg = t.find("Binlog_group_commits").unwrap();
        assert!(bg < t.find("Bytes_sent").unwrap(), "commit counters first");
        let table = sweep_table(&[r]);
        assert!(table.contains("1234.5") && table.contains("ok"));
    }
}
