//! `cohort bench experiment NAME`: the five experiments of DESIGN.md §1 and the headline
//! sweep, each with one command.
//!
//! For every variant the runner starts a fresh server on a temporary data directory
//! (`cohort serve --port P --datadir D --root-password … <variant flags>`, or `mariadbd`
//! with `--with-mariadb`, or the server at `--mariadb URL`), prepares each section's tables,
//! sweeps the connection counts, drops the tables and stops the server. A variant whose
//! server refuses to start (an unknown flag: that feature is not built yet) is reported as
//! "not available: <the server's message>" and the experiment goes on. The report goes to
//! `<out>/<experiment>/` ([`crate::report`]).
//!
//! Fixed-rate sections are sized once, on the first variant that runs: flat out at 16
//! connections, times the section's fraction; every variant then gets the same rate.
//! Sections marked remote run the server in a network namespace behind a veth pair with
//! netem delay when we are root ([`servers::Netns`]); otherwise they run on loopback and
//! the report says so.

pub mod defs;
pub mod servers;

use crate::cli::ExperimentArgs;
use crate::conn::SyncClient;
use crate::report::{self, Environment, Report, Section, VariantInfo};
use crate::result::RunResult;
use crate::runner::{self, RunSpec};
use crate::url::DbUrl;
use crate::workload;
use defs::{Engine, ExperimentDef, Load};
use servers::{Netns, Server};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Network delay of the "remote" namespace, each direction.
const NETEM_DELAY_US: u32 = 100;

pub fn main(a: &ExperimentArgs) -> Result<ExitCode, String> {
    let names: Vec<&str> = if a.name == "all" {
        defs::NAMES.to_vec()
    } else if defs::NAMES.contains(&a.name.as_str()) {
        vec![a.name.as_str()]
    } else {
        return Err(format!(
            "unknown experiment '{}'; one of: {}, all",
            a.name,
            defs::NAMES.join(", ")
        ));
    };
    let mut ok = true;
    workload::set_quiet(true);
    for name in names {
        let started = Instant::now();
        let report = run(name, a)?;
        let dir = a.out.join(name);
        report::write(&report, &dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let ran = report
            .variants
            .iter()
            .filter(|v| v.unavailable.is_none())
            .count();
        let failed = report
            .sections
            .iter()
            .flat_map(|s| &s.results)
            .filter(|r| !r.ok())
            .count();
        println!(
            "experiment {name}: {ran} of {} variants ran, {failed} failed point(s), {:.0}s; report in {}",
            report.variants.len(),
            started.elapsed().as_secs_f64(),
            dir.join("index.md").display()
        );
        ok &= failed == 0;
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The variants this invocation runs.
fn select_variants(def: &ExperimentDef, a: &ExperimentArgs) -> Vec<defs::VariantDef> {
    let mut out = Vec::new();
    for v in &def.variants {
        if let Some(filter) = &a.variants {
            if !filter.iter().any(|f| v.name.contains(f.as_str())) {
                continue;
            }
        }
        match &v.engine {
            Engine::Cohort(_) if a.no_cohort => continue,
            Engine::MariaDb(flags) => {
                if !a.with_mariadb && a.mariadb.is_none() {
                    continue;
                }
                // A running server cannot take startup flags: keep its plain variant only.
                if !a.with_mariadb && !flags.is_empty() {
                    continue;
                }
            }
            _ => {}
        }
        out.push(v.clone());
    }
    out
}

/// The running executable when it is `cohort`; otherwise (e.g. `cohort-bench-dev`) a
/// `cohort` binary beside it.
pub(crate) fn default_cohort_bin() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current executable: {e}"))?;
    if exe.file_stem().is_some_and(|s| s == "cohort") {
        return Ok(exe);
    }
    let sibling = exe.with_file_name("cohort");
    if sibling.exists() {
        Ok(sibling)
    } else {
        Err(format!(
            "{} is not the cohort binary and there is no cohort beside it: pass --cohort-bin",
            exe.display()
        ))
    }
}

fn data_base(on_shm: bool) -> PathBuf {
    let root = if on_shm && Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    root.join(format!("cohort-bench-{}", std::process::id()))
}

/// Variables not worth comparing (paths, ports, ids, clocks).
fn noisy(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "port",
        "dir",
        "file",
        "path",
        "socket",
        "basename",
        "uuid",
        "gtid",
        "timestamp",
        "rand_seed",
        "pid",
        "hostname",
        "version",
        "server_id",
    ]
    .iter()
    .any(|k| n.contains(k))
}

fn variables(url: &DbUrl) -> BTreeMap<String, String> {
    let Ok(mut c) = SyncClient::connect(url) else {
        return BTreeMap::new();
    };
    let pairs = c
        .query_pairs("SHOW GLOBAL VARIABLES")
        .or_else(|_| c.query_pairs("SHOW VARIABLES"))
        .unwrap_or_default();
    c.close();
    pairs.into_iter().collect()
}

/// Variables whose values differ between variants of the same server kind.
fn differing(
    vars: &[(String, bool, BTreeMap<String, String>)],
) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for kind in [true, false] {
        let group: Vec<&(String, bool, BTreeMap<String, String>)> =
            vars.iter().filter(|v| v.1 == kind).collect();
        if group.len() < 2 {
            continue;
        }
        let names: std::collections::BTreeSet<&String> =
            group.iter().flat_map(|g| g.2.keys()).collect();
        for n in names {
            if noisy(n) {
                continue;
            }
            let vals: Vec<Option<&String>> = group.iter().map(|g| g.2.get(n)).collect();
            if vals.windows(2).any(|w| w[0] != w[1]) {
                for g in &group {
                    out.entry(n.clone()).or_default().insert(
                        g.0.clone(),
                        g.2.get(n).cloned().unwrap_or_else(|| "–".into()),
                    );
                }
            }
        }
    }
    out
}

fn start(
    v: &defs::VariantDef,
    a: &ExperimentArgs,
    bin: &Path,
    port: u16,
    datadir: PathBuf,
    netns: Option<&Netns>,
) -> Result<(Server, String), String> {
    match &v.engine {
        Engine::Cohort(flags) => {
            let setup = format!(
                "{} serve --port {port} --datadir {} --max-connections 20000 \
                 --max-prepared-stmt-count 1000000{}{}",
                bin.file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                datadir.display(),
                if flags.is_empty() {
                    String::new()
                } else {
                    format!(" {}", flags.join(" "))
                },
                netns
                    .map(|n| format!(" (in netns {}, netem {} µs)", n.name, n.delay_us))
                    .unwrap_or_default()
            );
            let s = servers::start_cohort(&servers::CohortLaunch {
                bin,
                port,
                datadir,
                flags,
                netns,
                keep_data: a.keep_data,
                reuse_data: false,
            })?;
            Ok((s, setup))
        }
        Engine::MariaDb(flags) => {
            if a.with_mariadb {
                let setup = format!(
                    "mariadbd (as tools/mariadb.sh) --port={port} {}",
                    flags.join(" ")
                );
                let s = servers::start_mariadb(port, &datadir, flags, a.keep_data)?;
                Ok((s, setup))
            } else {
                let url = DbUrl::parse(a.mariadb.as_deref().unwrap_or_default())?;
                let url = if url.database.is_none() {
                    url.with_database(Some(servers::DATABASE))
                } else {
                    url
                };
                let setup = format!("running server {url}");
                Ok((Server::external(url)?, setup))
            }
        }
    }
}

fn failed(label: &str, s: &defs::SectionDef, msg: String) -> RunResult {
    RunResult {
        label: label.into(),
        workload: s.workload.clone(),
        connections: s.connections.first().copied().unwrap_or(1),
        fatal: Some(msg),
        ..RunResult::default()
    }
}

/// Runs one experiment and returns its report.
pub fn run(name: &str, a: &ExperimentArgs) -> Result<Report, String> {
    let mut def = defs::get(name, a.quick).ok_or_else(|| format!("unknown experiment {name}"))?;
    if let Some(c) = &a.connections {
        for s in &mut def.sections {
            s.connections = c.clone();
        }
    }
    if let Some(t) = a.time {
        def.time = t;
    }
    if let Some(n) = a.table_size {
        for s in &mut def.sections {
            s.opts.table_size = n;
        }
    }
    let bin = match &a.cohort_bin {
        Some(b) => b.clone(),
        None => default_cohort_bin()?,
    };
    let variants = select_variants(&def, a);
    let base = data_base(def.on_shm);
    std::fs::create_dir_all(&base).map_err(|e| format!("{}: {e}", base.display()))?;
    println!("== experiment {name}: {}", def.title);
    let mut env = Environment::capture(&base);
    let mut notes = Vec::new();
    if a.quick {
        notes.push(format!(
            "Quick mode: {:.0} s per point after {:.0} s of warm-up, small tables, few connection counts. Trends only; run without --quick for the real figures.",
            def.time, def.warmup
        ));
    }
    let mut netns = None;
    if def.sections.iter().any(|s| s.remote) {
        match Netns::create(NETEM_DELAY_US) {
            Ok(ns) => {
                env.notes.push(match &ns.netem_error {
                    None => format!(
                        "remote client: server in network namespace {} behind a veth pair, netem delay {} µs each way",
                        ns.name, ns.delay_us
                    ),
                    Some(e) => format!(
                        "remote client: server in network namespace {} behind a veth pair, no added delay ({e})",
                        ns.name
                    ),
                });
                netns = Some(ns);
            }
            Err(e) => {
                notes.push(format!(
                    "The \"remote client\" sections ran on the same host over loopback: {e}."
                ));
                for s in &mut def.sections {
                    if s.remote {
                        s.remote = false;
                        s.title.push_str(" (ran on loopback: no network namespace)");
                    }
                }
            }
        }
    }
    let mut infos = Vec::new();
    let mut results: Vec<Vec<RunResult>> = vec![Vec::new(); def.sections.len()];
    let mut vars = Vec::new();
    let mut rate: Option<f64> = None;
    for (vi, v) in variants.iter().enumerate() {
        let mut info = VariantInfo {
            name: v.name.clone(),
            about: v.about.clone(),
            setup: String::new(),
            unavailable: None,
        };
        let mut placements: Vec<bool> = def.sections.iter().map(|s| s.remote).collect();
        placements.sort();
        placements.dedup();
        for (pi, remote) in placements.into_iter().enumerate() {
            let ns = if remote { netns.as_ref() } else { None };
            if remote && matches!(v.engine, Engine::MariaDb(_)) {
                for (si, s) in def.sections.iter().enumerate().filter(|(_, s)| s.remote) {
                    results[si].push(failed(
                        &v.name,
                        s,
                        "remote placement is only set up for Cohort".into(),
                    ));
                }
                continue;
            }
            let port = a.base_port + (vi * 2 + pi) as u16;
            let datadir = base.join(format!("{}-{vi}-{pi}", report::slug(&v.name)));
            let (server, setup) = match start(v, a, &bin, port, datadir, ns) {
                Ok(x) => x,
                Err(e) => {
                    println!("  {:<28} not available: {e}", v.name);
                    if info.unavailable.is_none() && info.setup.is_empty() {
                        info.unavailable = Some(e);
                        info.setup = match &v.engine {
                            Engine::Cohort(f) => format!("cohort serve … {}", f.join(" ")),
                            Engine::MariaDb(f) => format!("mariadbd … {}", f.join(" ")),
                        };
                    }
                    break;
                }
            };
            if info.setup.is_empty() {
                info.setup = setup;
                env.versions.insert(v.name.clone(), server.version.clone());
                vars.push((
                    v.name.clone(),
                    matches!(v.engine, Engine::Cohort(_)),
                    variables(&server.url),
                ));
            }
            let mut server = server;
            for (si, s) in def.sections.iter().enumerate() {
                if s.remote != remote {
                    continue;
                }
                let r = run_section(&def, s, v, &mut server, a, &mut rate, &mut notes);
                results[si].extend(r);
            }
            server.stop();
        }
        infos.push(info);
    }
    drop(netns);
    if !a.keep_data {
        let _ = std::fs::remove_dir_all(&base);
    }
    let sections = def
        .sections
        .iter()
        .zip(results)
        .map(|(s, r)| Section {
            title: s.title.clone(),
            about: match (s.load, rate) {
                (Load::RateFraction(f), Some(rt)) => format!(
                    "{} Target rate: {rt:.0} tx/s ({:.0}% of the flat-out rate at 16 connections).",
                    s.about,
                    f * 100.0
                ),
                _ => s.about.clone(),
            },
            results: r,
        })
        .collect();
    Ok(Report {
        name: def.name.into(),
        title: def.title.into(),
        about: def.about.clone(),
        quick: a.quick,
        env,
        variants: infos,
        differing_variables: differing(&vars),
        sections,
        notes,
    })
}

fn run_section(
    def: &ExperimentDef,
    s: &defs::SectionDef,
    v: &defs::VariantDef,
    server: &mut Server,
    a: &ExperimentArgs,
    rate: &mut Option<f64>,
    notes: &mut Vec<String>,
) -> Vec<RunResult> {
    if s.workload == "tpcc" {
        return run_tpcc_section(def, s, v, server);
    }
    let mut out = Vec::new();
    let w: Arc<dyn workload::Workload> = match workload::by_name(&s.workload, &s.opts) {
        Ok(w) => Arc::from(w),
        Err(e) => return vec![failed(&v.name, s, e)],
    };
    let _ = w.cleanup(&server.url);
    if let Err(e) = w.prepare(&server.url, 4) {
        println!("  {:<28} {}: prepare failed: {e}", v.name, s.title);
        return vec![failed(&v.name, s, format!("prepare failed: {e}"))];
    }
    let mut spec = RunSpec::new(&v.name, server.url.clone(), &s.workload, s.opts.clone());
    spec.time = Some(Duration::from_secs_f64(def.time));
    spec.warmup = Duration::from_secs_f64(def.warmup);
    spec.client_threads = a.client_threads;
    spec.server_pid = server.pid;
    spec.arrival = defs::ARRIVAL;
    if let Load::RateFraction(f) = s.load {
        if rate.is_none() {
            let mut cal = spec.clone();
            cal.time = Some(Duration::from_secs_f64(def.time.min(5.0)));
            let r = runner::run_point(&cal, w.clone(), 16);
            if r.fatal.is_none() && r.tps > 0.0 {
                *rate = Some((f * r.tps).max(1.0));
                notes.push(format!(
                    "Fixed rate sized on `{}`: {:.0} tx/s flat out at 16 connections, so the target is {:.0} tx/s.",
                    v.name,
                    r.tps,
                    f * r.tps
                ));
            }
        }
        match *rate {
            Some(r) => spec.rate = Some(r),
            None => {
                return vec![failed(
                    &v.name,
                    s,
                    "could not size the fixed rate (flat-out calibration failed)".into(),
                )]
            }
        }
    }
    for &n in &s.connections {
        let r = runner::run_point(&spec, w.clone(), n);
        println!(
            "  {:<28} {:<36} {:>5} conns {:>10.1} tps  p95 {:>8.2} ms  srv cpu {:>4}  {}",
            v.name,
            s.title.chars().take(36).collect::<String>(),
            n,
            r.tps,
            r.latency_ms.p95,
            r.server_cpu
                .as_ref()
                .map(|c| format!("{:.0}%", c.cpu_pct))
                .unwrap_or_else(|| "-".into()),
            report::md::status(&r)
        );
        let dead = r.fatal.is_some() && !server.alive();
        out.push(r);
        if dead {
            let tail = server.log_tail(3);
            if let Some(last) = out.last_mut() {
                if let Some(f) = last.fatal.as_mut() {
                    f.push_str(&format!(" (server exited: {tail})"));
                }
            }
            break;
        }
    }
    let _ = w.cleanup(&server.url);
    out
}

/// A TPC-C section: load the warehouses, run each connection count, check after each.
fn run_tpcc_section(
    def: &ExperimentDef,
    s: &defs::SectionDef,
    v: &defs::VariantDef,
    server: &mut Server,
) -> Vec<RunResult> {
    use crate::tpcc;
    let scale = if s.opts.table_size == tpcc::Scale::TEST.items {
        tpcc::Scale::TEST
    } else {
        tpcc::Scale::FULL
    };
    if let Err(e) = tpcc::prepare(&server.url, s.opts.tables, scale, 4) {
        println!("  {:<28} {}: load failed: {e}", v.name, s.title);
        return vec![failed(&v.name, s, format!("load failed: {e}"))];
    }
    let o = tpcc::TpccOptions {
        url: server.url.clone(),
        warehouses: s.opts.tables,
        scale,
        split_joins: false,
        duration: Duration::from_secs_f64(def.time),
        warmup: Duration::from_secs_f64(def.warmup),
        seed: 0x7ACC,
        progress: false,
        server_pid: server.pid,
        server_status: true,
        label: v.name.clone(),
    };
    let mut out = Vec::new();
    for &n in &s.connections {
        let r = tpcc::run_point(&o, n);
        println!(
            "  {:<28} {:<36} {:>5} conns {:>10.0} NOPM  p95 {:>8.2} ms  srv µs/tx {:>7}  {}",
            v.name,
            s.title.chars().take(36).collect::<String>(),
            n,
            r.tpcc.as_ref().map(|t| t.nopm).unwrap_or(0.0),
            r.latency_ms.p95,
            r.server_us_per_txn
                .map(|u| format!("{u:.0}"))
                .unwrap_or_else(|| "-".into()),
            report::md::status(&r)
        );
        let dead = r.fatal.is_some() && !server.alive();
        out.push(r);
        if dead {
            break;
        }
    }
    let _ = tpcc::cleanup(&server.url);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differing_variables_compare_within_a_server_kind() {
        let m = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let vars = vec![
            (
                "default".to_string(),
                true,
                m(&[("a", "1"), ("port", "4400"), ("b", "x")]),
            ),
            (
                "leader".to_string(),
                true,
                m(&[("a", "2"), ("port", "4401"), ("b", "x")]),
            ),
            ("mariadb".to_string(), false, m(&[("a", "9"), ("c", "y")])),
        ];
        let d = differing(&vars);
        assert_eq!(d.keys().collect::<Vec<_>>(), vec!["a"]);
        assert_eq!(d["a"]["leader"], "2");
        assert!(!d["a"].contains_key("mariadb"));
    }
}
