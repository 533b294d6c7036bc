//! Experiment reports: `report/<experiment>/index.md`, `index.html`, one SVG per chart and
//! `results.json` / `results.csv` with every point.
//!
//! A report holds the environment (CPU, kernel, memory, fsync latency of the data
//! directory, versions), the variants with their flags (or why they are not available), the
//! server variables whose values differ between variants, one table per section (workload)
//! and, per section, charts of throughput, latency percentiles and CPU against connections
//! with one line per variant.

pub mod html;
pub mod md;
pub mod svg;

use crate::result::RunResult;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The machine and software the experiment ran on.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Environment {
    pub date: String,
    pub host_cpu: String,
    pub cpus: usize,
    pub kernel: String,
    pub memory: String,
    /// Where the servers kept their data, and its fsync latency.
    pub datadir: String,
    pub fsync: Option<FsyncLatency>,
    pub bench_version: String,
    /// Server versions by variant.
    pub versions: BTreeMap<String, String>,
    pub notes: Vec<String>,
}

/// fsync latency measured by writing and syncing 4 KiB blocks.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FsyncLatency {
    pub samples: usize,
    pub mean_us: f64,
    pub p50_us: f64,
    pub p99_us: f64,
}

/// Measures fsync latency in `dir`: up to `max` rounds of write 4 KiB + fsync, at most
/// `budget` long. The file is removed afterwards.
pub fn measure_fsync(dir: &Path, max: usize, budget: Duration) -> Option<FsyncLatency> {
    std::fs::create_dir_all(dir).ok()?;
    let path = dir.join(format!(".cohort-bench-fsync-{}", std::process::id()));
    let mut f = std::fs::File::create(&path).ok()?;
    let block = [0xA5u8; 4096];
    let mut lat = Vec::with_capacity(max);
    let start = Instant::now();
    while lat.len() < max && start.elapsed() < budget {
        let t = Instant::now();
        if f.write_all(&block).is_err() || f.sync_data().is_err() {
            break;
        }
        lat.push(t.elapsed().as_secs_f64() * 1e6);
    }
    drop(f);
    let _ = std::fs::remove_file(&path);
    if lat.is_empty() {
        return None;
    }
    let mean = lat.iter().sum::<f64>() / lat.len() as f64;
    lat.sort_by(f64::total_cmp);
    let q = |p: f64| lat[((lat.len() - 1) as f64 * p).round() as usize];
    Some(FsyncLatency {
        samples: lat.len(),
        mean_us: mean,
        p50_us: q(0.5),
        p99_us: q(0.99),
    })
}

fn first_line_with(path: &str, key: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()?
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

impl Environment {
    /// Describes this machine; `datadir` is where the servers write.
    pub fn capture(datadir: &Path) -> Environment {
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| format!("Linux {}", s.trim()))
            .unwrap_or_else(|_| std::env::consts::OS.to_string());
        Environment {
            date: now_utc(),
            host_cpu: first_line_with("/proc/cpuinfo", "model name").unwrap_or_default(),
            cpus: crate::server_probe::cpu_count(),
            kernel,
            memory: first_line_with("/proc/meminfo", "MemTotal").unwrap_or_default(),
            datadir: datadir.display().to_string(),
            fsync: measure_fsync(datadir, 500, Duration::from_secs(2)),
            bench_version: env!("CARGO_PKG_VERSION").to_string(),
            versions: BTreeMap::new(),
            notes: Vec::new(),
        }
    }
}

/// UTC date and time, `YYYY-MM-DD HH:MM:SS UTC`.
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // Civil from days (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// One variant of an experiment.
#[derive(Clone, Debug, Serialize)]
pub struct VariantInfo {
    pub name: String,
    pub about: String,
    /// How it was started (command-line flags) or reached.
    pub setup: String,
    /// `None` when it ran; otherwise why it could not.
    pub unavailable: Option<String>,
}

/// One workload's results.
#[derive(Clone, Debug, Serialize)]
pub struct Section {
    pub title: String,
    pub about: String,
    /// Results of every variant (label = variant name).
    pub results: Vec<RunResult>,
}

/// A whole experiment report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub name: String,
    pub title: String,
    /// Markdown: what is measured and what was published.
    pub about: String,
    pub quick: bool,
    pub env: Environment,
    pub variants: Vec<VariantInfo>,
    /// Server variables that differ between variants: name → variant → value.
    pub differing_variables: BTreeMap<String, BTreeMap<String, String>>,
    pub sections: Vec<Section>,
    pub notes: Vec<String>,
}

/// The charts of one section: file name, title, y label, metric.
pub type Metric = fn(&RunResult) -> Option<f64>;

pub fn chart_specs() -> Vec<(&'static str, &'static str, &'static str, Metric)> {
    vec![
        ("nopm", "TPC-C new-orders per minute", "NOPM", |r| {
            r.tpcc.as_ref().map(|t| t.nopm)
        }),
        ("tps", "Throughput", "transactions / s", |r| Some(r.tps)),
        ("p50", "Latency p50", "ms", |r| Some(r.latency_ms.p50)),
        ("p95", "Latency p95", "ms", |r| Some(r.latency_ms.p95)),
        ("p99", "Latency p99", "ms", |r| Some(r.latency_ms.p99)),
        ("server-cpu", "Server CPU", "% of one CPU", |r| {
            r.server_cpu.as_ref().map(|c| c.cpu_pct)
        }),
        (
            "server-cpu-per-txn",
            "Server CPU per transaction",
            "µs",
            |r| r.server_us_per_txn,
        ),
        ("client-cpu", "Client CPU per transaction", "µs", |r| {
            Some(r.client_cpu.us_per_txn)
        }),
    ]
}

/// Order of the variants (series) in a section, as listed in the report.
fn series_names(report: &Report, section: &Section) -> Vec<String> {
    let mut names: Vec<String> = report
        .variants
        .iter()
        .filter(|v| v.unavailable.is_none())
        .map(|v| v.name.clone())
        .collect();
    for r in &section.results {
        if !names.contains(&r.label) {
            names.push(r.label.clone());
        }
    }
    names
}

/// Builds the charts of one section.
pub fn section_charts(report: &Report, section: &Section) -> Vec<(String, svg::Chart)> {
    let names = series_names(report, section);
    chart_specs()
        .into_iter()
        .filter_map(|(file, title, ylabel, metric)| {
            let series: Vec<svg::Series> = names
                .iter()
                .map(|n| svg::Series {
                    name: n.clone(),
                    points: section
                        .results
                        .iter()
                        .filter(|r| &r.label == n && r.fatal.is_none() && r.txns > 0)
                        .filter_map(|r| metric(r).map(|y| (r.connections as f64, y)))
                        .collect(),
                })
                .collect();
            if series.iter().all(|s| s.points.is_empty()) {
                return None;
            }
            Some((
                file.to_string(),
                svg::Chart {
                    title: format!("{title} — {}", section.title),
                    x_label: "connections".into(),
                    y_label: ylabel.into(),
                    log_x: true,
                    series,
                },
            ))
        })
        .collect()
}

/// A file-name-safe slug.
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// Writes the report into `dir`; returns the files written.
pub fn write(report: &Report, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut files = Vec::new();
    let mut charts = Vec::new();
    for section in &report.sections {
        let mut names = Vec::new();
        for (metric, chart) in section_charts(report, section) {
            let name = format!("{}-{metric}.svg", slug(&section.title));
            let path = dir.join(&name);
            std::fs::write(&path, svg::render(&chart))?;
            files.push(path);
            names.push((name, chart.title.clone()));
        }
        charts.push(names);
    }
    let md_path = dir.join("index.md");
    std::fs::write(&md_path, md::render(report, &charts))?;
    files.push(md_path);
    let html_path = dir.join("index.html");
    std::fs::write(&html_path, html::render(report, &charts))?;
    files.push(html_path);
    let all: Vec<RunResult> = report
        .sections
        .iter()
        .flat_map(|s| s.results.iter().cloned())
        .collect();
    crate::result::write_results(dir, &all)?;
    files.push(dir.join("results.json"));
    files.push(dir.join("results.csv"));
    let meta = serde_json::to_string_pretty(report).map_err(std::io::Error::other)?;
    std::fs::write(dir.join("report.json"), meta + "\n")?;
    Ok(files)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::stats::Latency;

    pub(crate) fn sample_report() -> Report {
        let mk = |label: &str, conns: usize, tps: f64| RunResult {
            label: label.into(),
            workload: "replace".into(),
            connections: conns,
            mode: "closed".into(),
            time_s: 5.0,
            txns: (tps * 5.0) as u64,
            tps,
            qps: tps,
            latency_ms: Latency {
                min: 0.1,
                mean: 1.0,
                p50: 0.8,
                p95: 2.5,
                p99: 4.0,
                max: 10.0,
            },
            server_version: "8.0.36-cohort".into(),
            ..RunResult::default()
        };
        Report {
            name: "group-commit-scheduling".into(),
            title: "Who runs the serial part of group commit".into(),
            about: "Leader versus chained.".into(),
            quick: true,
            env: Environment {
                date: now_utc(),
                cpus: 2,
                fsync: Some(FsyncLatency {
                    samples: 10,
                    mean_us: 150.0,
                    p50_us: 140.0,
                    p99_us: 300.0,
                }),
                ..Environment::default()
            },
            variants: vec![
                VariantInfo {
                    name: "leader".into(),
                    about: "the leader commits the group".into(),
                    setup: "cohort serve --binlog-optimize-thread-scheduling ON".into(),
                    unavailable: None,
                },
                VariantInfo {
                    name: "chained".into(),
                    about: "each thread wakes the next".into(),
                    setup: "cohort serve --binlog-optimize-thread-scheduling OFF".into(),
                    unavailable: Some(
                        "error: unexpected argument '--binlog-optimize-thread-scheduling' found"
                            .into(),
                    ),
                },
                VariantInfo {
                    name: "mariadb".into(),
                    about: "MariaDB 10.11".into(),
                    setup: "mariadbd".into(),
                    unavailable: None,
                },
            ],
            differing_variables: BTreeMap::from([(
                "binlog_optimize_thread_scheduling".to_string(),
                BTreeMap::from([
                    ("leader".to_string(), "ON".to_string()),
                    ("mariadb".to_string(), "ON".to_string()),
                ]),
            )]),
            sections: vec![Section {
                title: "replace".into(),
                about: "single-row REPLACE".into(),
                results: vec![
                    mk("leader", 1, 1900.0),
                    mk("leader", 16, 8000.0),
                    mk("mariadb", 1, 1700.0),
                    mk("mariadb", 16, 6000.0),
                ],
            }],
            notes: vec!["quick mode".into()],
        }
    }

    #[test]
    fn writes_markdown_html_and_charts() {
        let dir = std::env::temp_dir().join(format!("cohort-report-{}", std::process::id()));
        let report = sample_report();
        let files = write(&report, &dir).unwrap();
        let svg = std::fs::read_to_string(dir.join("replace-tps.svg")).unwrap();
        assert_eq!(
            svg.matches("<polyline").count(),
            2,
            "one line per available variant"
        );
        assert!(svg.contains(">8k<") || svg.contains("8000"));
        let md = std::fs::read_to_string(dir.join("index.md")).unwrap();
        assert!(md.contains("not available: error: unexpected argument"));
        assert!(md.contains("replace-tps.svg"));
        assert!(md.contains("| leader | 16 | 8000.0 |"), "{md}");
        assert!(md.contains("140"), "fsync latency");
        let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
        assert!(html.contains("<img src=\"replace-p95.svg\""));
        assert!(html.contains("binlog_optimize_thread_scheduling"));
        assert!(files.iter().all(|f| f.exists()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn fsync_loop_and_dates() {
        let dir = std::env::temp_dir();
        let f = measure_fsync(&dir, 5, Duration::from_secs(1)).unwrap();
        assert!(f.samples >= 1 && f.mean_us > 0.0);
        let d = now_utc();
        assert!(
            d.len() == 23 && d.ends_with("UTC") && d.starts_with("20"),
            "{d}"
        );
        assert_eq!(
            slug("OLTP read/write (16 tables)"),
            "oltp-read-write-16-tables"
        );
    }
}
