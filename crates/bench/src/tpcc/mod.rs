//! `cohort bench … tpcc`: the TPC-C workload, written from the TPC-C specification
//! (revision 5.11).
//!
//! * [`schema`]: the nine tables with the specification's columns and keys, and the two
//!   secondary indexes every implementation uses (customer by last name, orders by
//!   customer).
//! * [`load`]: the initial population of clause 4.3.3.1, warehouses as the scale, loaded in
//!   parallel with multi-row INSERTs.
//! * [`txn`]: New-Order, Payment, Order-Status, Delivery and Stock-Level with the
//!   specification's inputs (NURand, 60% of customers by last name, 1% New-Order
//!   rollback, 15% remote Payment, 1% remote supply warehouse), in the 45/43/4/4/4 mix.
//! * [`run`]: one terminal per connection bound to a home warehouse and district, no
//!   think time, for a warm-up and a measured duration; the result is NOPM (New-Orders
//!   committed per minute) and per-type counts, retries and latencies.
//! * [`check`]: the consistency conditions 1–4 of clause 3.3.2, run after every run (a
//!   violation fails it) and alone with `--check-only`.
//! * [`crash`]: a run against a Cohort the bench starts, killed with SIGKILL during the
//!   run and restarted on the same data directory; the consistency conditions and the
//!   acknowledged New-Orders are checked after recovery.
//!
//! A server that refuses a statement with 1235 (not supported yet) still runs the rest of
//! the mix; the refused statements are listed in the result. `--split-joins` sends the two
//! joins of the specification's SQL as two single-table statements each.
//!
//! `--test-scale` loads 1 000 items and 300 customers and orders per district instead of
//! 100 000 and 3 000, for smoke tests; the transactions draw their ids from the scaled
//! ranges.

pub mod check;
pub mod crash;
pub mod load;
pub mod random;
pub mod run;
pub mod schema;
pub mod txn;

use crate::cli::RunArgs;
use crate::conn::SyncClient;
use crate::result::{ClientCpu, RunResult};
use crate::server_probe::{self, ServerProbe};
use crate::stats::{CpuTimes, Latency};
use crate::url::DbUrl;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Duration;

/// Districts per warehouse (clause 1.2).
pub const DISTRICTS: u32 = 10;

/// The cardinalities of clause 1.2.1 that do not depend on the warehouse count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale {
    pub items: u32,
    /// Customers per district.
    pub customers: u32,
    /// Orders loaded per district.
    pub orders: u32,
}

impl Scale {
    /// The specification's: 100 000 items, 3 000 customers and orders per district.
    pub const FULL: Scale = Scale {
        items: 100_000,
        customers: 3_000,
        orders: 3_000,
    };
    /// For smoke tests.
    pub const TEST: Scale = Scale {
        items: 1_000,
        customers: 300,
        orders: 300,
    };

    /// Orders loaded as delivered: all but the last 30% (2 100 of 3 000); the rest have a
    /// NEW-ORDER row.
    pub fn delivered_orders(&self) -> u32 {
        self.orders * 7 / 10
    }
}

/// The TPC-C part of a result (`RunResult::tpcc`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TpccSummary {
    pub warehouses: u32,
    pub items: u32,
    /// New-Orders committed per minute.
    pub nopm: f64,
    /// Per transaction type.
    pub kinds: Vec<KindSummary>,
    /// Statements the server refused with 1235 (literals as `?`) and how often.
    pub unsupported: BTreeMap<String, u64>,
    pub split_joins: bool,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct KindSummary {
    pub name: String,
    pub count: u64,
    pub per_min: f64,
    pub rolled_back: u64,
    /// Retries after deadlocks / lock-wait timeouts, by error code.
    pub retries: BTreeMap<String, u64>,
    pub unsupported: u64,
    pub latency_ms: Latency,
}

/// Options of a TPC-C run, from the command line.
#[derive(Clone, Debug)]
pub struct TpccOptions {
    pub url: DbUrl,
    pub warehouses: u32,
    pub scale: Scale,
    pub split_joins: bool,
    pub duration: Duration,
    pub warmup: Duration,
    pub seed: u64,
    pub progress: bool,
    pub server_pid: Option<u32>,
    /// Read `SHOW GLOBAL STATUS` before and after.
    pub server_status: bool,
    pub label: String,
}

impl TpccOptions {
    pub fn from_args(a: &RunArgs) -> Result<TpccOptions, String> {
        let w = &a.workload;
        Ok(TpccOptions {
            url: w.url()?,
            warehouses: w.warehouses.max(1),
            scale: if w.test_scale {
                Scale::TEST
            } else {
                Scale::FULL
            },
            split_joins: w.split_joins,
            duration: Duration::from_secs_f64(a.load.time.max(0.1)),
            warmup: Duration::from_secs_f64(a.load.warmup.max(0.0)),
            seed: if a.load.seed == 0 {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(1)
            } else {
                a.load.seed
            },
            progress: a.load.report_interval > 0.0
                && (a.load.progress || std::io::IsTerminal::is_terminal(&std::io::stdout())),
            server_pid: a.load.server_pid,
            server_status: !a.load.no_server_status,
            label: a.label.clone(),
        })
    }
}

/// `cohort bench prepare tpcc`.
pub fn prepare(url: &DbUrl, warehouses: u32, scale: Scale, threads: usize) -> Result<(), String> {
    let t0 = std::time::Instant::now();
    load::load(url, warehouses.max(1), scale, threads)?;
    say!("Loaded in {:.1}s", t0.elapsed().as_secs_f64());
    Ok(())
}

/// `cohort bench cleanup tpcc`.
pub fn cleanup(url: &DbUrl) -> Result<(), String> {
    let mut c = SyncClient::connect(url).map_err(|e| format!("connect {url}: {e}"))?;
    for name in schema::names() {
        say!("Dropping table '{name}'...");
        c.execute(&format!("DROP TABLE IF EXISTS {name}"))
            .map_err(|e| format!("DROP TABLE {name}: {e}"))?;
    }
    c.close();
    Ok(())
}

/// Runs the consistency conditions on `url`.
pub fn check_url(url: &DbUrl) -> Result<check::CheckReport, String> {
    let mut c = SyncClient::connect(url).map_err(|e| format!("connect {url}: {e}"))?;
    let r = check::check(&mut c);
    c.close();
    r
}

/// `cohort bench run tpcc …`.
pub fn main(a: &RunArgs) -> Result<ExitCode, String> {
    let o = TpccOptions::from_args(a)?;
    if a.tpcc_check_only {
        let rep = check_url(&o.url)?;
        for l in &rep.lines {
            println!("{l}");
        }
        for v in &rep.violations {
            println!("VIOLATION: {v}");
        }
        return Ok(if rep.ok() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    if let Some(after) = a.kill_after {
        return crash::main(&o, a, Duration::from_secs_f64(after));
    }
    if a.prepare {
        prepare(&o.url, o.warehouses, o.scale, 4)?;
    }
    println!(
        "cohort bench tpcc against {}: {} warehouse(s), {} items{}, {} s (+{} s warm-up)",
        o.url,
        o.warehouses,
        o.scale.items,
        if o.split_joins { ", joins split" } else { "" },
        o.duration.as_secs_f64(),
        o.warmup.as_secs_f64()
    );
    let mut results = Vec::new();
    for &n in &a.load.connections {
        println!("== {} tpcc with {n} connection(s) ==", o.label);
        let r = run_point(&o, n);
        print!("{}", summary_text(&r));
        println!();
        let stop = r.fatal.is_some() && r.txns == 0;
        results.push(r);
        if stop {
            break;
        }
    }
    if results.len() > 1 {
        print!("{}", crate::result::sweep_table(&results));
    }
    if let Some(dir) = &a.out {
        crate::result::write_results(dir, &results)
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        println!("results written to {}", dir.display());
    }
    if a.prepare {
        cleanup(&o.url)?;
    }
    Ok(if results.iter().all(RunResult::ok) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// One measured point: run, probe the server, check the consistency conditions.
pub fn run_point(o: &TpccOptions, connections: usize) -> RunResult {
    crate::stats::raise_fd_limit();
    let cfg = run::RunConfig {
        url: o.url.clone(),
        warehouses: o.warehouses,
        connections,
        duration: o.duration,
        warmup: o.warmup,
        scale: o.scale,
        split_joins: o.split_joins,
        seed: o.seed,
        progress: o.progress,
        expect_crash: false,
    };
    let (r, _) = measure(o, &cfg);
    finish_with_check(r, &o.url)
}

/// Runs `cfg` with the server probed over the measurement window.
pub fn measure(o: &TpccOptions, cfg: &run::RunConfig) -> (RunResult, run::RunOutcome) {
    let mut probe = ServerProbe::new(&o.url, o.server_pid, o.server_status);
    let pid = probe.pid;
    let mut samples = (None, None);
    let mut cpu = (None, None);
    let out = run::run(cfg, &mut |start| {
        if start {
            samples.0 = Some(probe.sample());
            cpu.0 = Some(CpuTimes::process());
        } else {
            samples.1 = Some(probe.sample());
            cpu.1 = Some(CpuTimes::process());
        }
    });
    probe.close();
    let mut r = to_result(o, cfg, &out);
    if let (Some(a), Some(b)) = (&samples.0, &samples.1) {
        r.server_cpu = server_probe::server_cpu(pid, a, b);
        r.machine_cpu = server_probe::machine_cpu(a, b);
        r.server_status = server_probe::status_delta(a, b);
        if let Some(sc) = &r.server_cpu {
            let wall = b.at.duration_since(a.at).as_secs_f64();
            if r.txns > 0 {
                r.server_us_per_txn = Some(sc.cpu_pct / 100.0 * wall * 1e6 / r.txns as f64);
            }
        }
    }
    if let (Some(a), Some(b)) = cpu {
        let c = b.since(&a);
        let secs = r.time_s.max(1e-9);
        r.client_cpu = ClientCpu {
            user_s: c.user,
            sys_s: c.sys,
            cpu_pct: 100.0 * c.total() / secs,
            us_per_txn: if r.txns > 0 {
                c.total() * 1e6 / r.txns as f64
            } else {
                0.0
            },
            threads: Vec::new(),
        };
    }
    (r, out)
}

/// Adds the consistency check to a result.
pub fn finish_with_check(mut r: RunResult, url: &DbUrl) -> RunResult {
    match check_url(url) {
        Ok(rep) => {
            r.check_ok = Some(rep.ok());
            r.check = Some(rep.summary());
        }
        Err(e) => {
            r.check_ok = Some(false);
            r.check = Some(format!("consistency check failed to run: {e}"));
        }
    }
    r
}

/// The result record of a run, in the bench's common format.
fn to_result(o: &TpccOptions, cfg: &run::RunConfig, out: &run::RunOutcome) -> RunResult {
    let total = out.total();
    let secs = out.elapsed.as_secs_f64().max(1e-9);
    let mut errors = BTreeMap::new();
    let mut retried = 0;
    let mut kinds = Vec::new();
    for (k, s) in &out.kinds {
        for (code, n) in &s.retries {
            *errors.entry(code.to_string()).or_insert(0) += n;
            retried += n;
        }
        if s.unsupported > 0 {
            *errors.entry("1235".to_string()).or_insert(0) += s.unsupported;
        }
        kinds.push(KindSummary {
            name: k.name().into(),
            count: s.done.txns,
            per_min: s.done.txns as f64 * 60.0 / secs,
            rolled_back: s.rolled_back,
            retries: s.retries.iter().map(|(c, n)| (c.to_string(), *n)).collect(),
            unsupported: s.unsupported,
            latency_ms: s.done.latency(),
        });
    }
    RunResult {
        label: o.label.clone(),
        workload: "tpcc".into(),
        server: o.url.to_string(),
        connections: cfg.connections,
        client_threads: cfg.connections,
        mode: "closed".into(),
        ps_mode: "disable".into(),
        tables: o.warehouses,
        table_size: o.scale.items,
        time_s: secs,
        warmup_s: o.warmup.as_secs_f64(),
        txns: total.txns,
        tps: total.txns as f64 / secs,
        queries: total.queries,
        reads: total.reads,
        writes: total.writes,
        others: total.others,
        qps: total.queries as f64 / secs,
        latency_ms: total.latency(),
        errors,
        ignored_errors: retried,
        fatal: out.fatal.clone(),
        tpcc: Some(TpccSummary {
            warehouses: o.warehouses,
            items: o.scale.items,
            nopm: out.nopm(),
            kinds,
            unsupported: out.unsupported.clone(),
            split_joins: o.split_joins,
        }),
        ..RunResult::default()
    }
}

/// The text report of a TPC-C point.
pub fn summary_text(r: &RunResult) -> String {
    let mut s = String::new();
    if let Some(t) = &r.tpcc {
        let _ = writeln!(
            s,
            "TPC-C: {} warehouse(s), {} connections, {:.0} s",
            t.warehouses, r.connections, r.time_s
        );
        let _ = writeln!(
            s,
            "    NOPM (new-orders committed per minute): {:.0}",
            t.nopm
        );
        let _ = writeln!(
            s,
            "    {:<13} {:>9} {:>10} {:>8} {:>9} {:>11} {:>8} {:>8} {:>8}",
            "transaction",
            "count",
            "per min",
            "rollbk",
            "retries",
            "unsupported",
            "p50 ms",
            "p95 ms",
            "p99 ms"
        );
        for k in &t.kinds {
            let _ = writeln!(
                s,
                "    {:<13} {:>9} {:>10.0} {:>8} {:>9} {:>11} {:>8.2} {:>8.2} {:>8.2}",
                k.name,
                k.count,
                k.per_min,
                k.rolled_back,
                k.retries.values().sum::<u64>(),
                k.unsupported,
                k.latency_ms.p50,
                k.latency_ms.p95,
                k.latency_ms.p99
            );
        }
        if !t.unsupported.is_empty() {
            let _ = writeln!(s, "    statements refused with 1235:");
            for (sql, n) in &t.unsupported {
                let _ = writeln!(s, "      {n:>8} × {sql}");
            }
        }
    }
    s.push_str(&crate::result::summary_text(r));
    s
}
