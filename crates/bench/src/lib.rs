//! `cohort bench`: a load generator and experiment runner for MySQL-compatible servers.
//!
//! # What it does
//!
//! * `prepare` / `run` / `cleanup` drive any MySQL-compatible server with the workloads of
//!   sysbench 1.0.20's `oltp_*` scripts — the same SQL text, statement mix and random
//!   distributions ([`workload::oltp`], [`rand`]) so the numbers compare — plus `replace`
//!   (experiment 1's single-row REPLACE) and `bank` (transfers whose total is checked after
//!   the run). Statements run as server-side prepared statements or as text.
//! * `experiment NAME` starts the Cohort variants an experiment needs (and MariaDB when
//!   asked), sweeps connection counts, and writes `report/<experiment>/` with the tables,
//!   SVG charts and the environment ([`experiment`], [`report`]).
//! * `run tpcc` (or `--workload tpcc`) runs TPC-C, written from the specification: load,
//!   the five transactions in the standard mix, NOPM, and the consistency conditions
//!   checked after the run, also through a kill -9 of Cohort ([`tpcc`]).
//! * `compare A.json B.json` prints the ratio table of two runs ([`compare`]).
//!
//! # How the load is applied
//!
//! Connections are spread over a few threads, each a mio event loop over non-blocking
//! sockets driving the sans-IO [`conn::ClientConn`] state machine built on the project's
//! protocol crate ([`driver`]). One thread can carry thousands of connections, so 10 000+
//! connections cost a few threads, not 10 000. The client's own CPU per transaction is
//! measured (getrusage) and reported, because on a shared 2-core machine the client's
//! cost is part of the result.
//!
//! * **Closed loop** (default): each connection starts its next transaction when the
//!   previous one ends, as sysbench does. Latency runs from that start to the last
//!   response.
//! * **Open loop** (`--rate`): arrivals are scheduled at the target rate regardless of the
//!   server ([`pacer`]); a due transaction waits for a free connection, and its latency is
//!   measured from its **intended** start. Queueing behind a slow server is therefore
//!   counted, not hidden (no coordinated omission), and a server that cannot hold the rate
//!   shows it as a growing backlog and latency.
//!
//! Latencies go into HdrHistograms (µs resolution, 3 significant digits) per thread, merged
//! at the end; tps and qps count what completes inside the measurement window (after the
//! warm-up). Retryable errors (1213, 1205, 1020) restart the transaction like sysbench; any
//! other error stops the run. When the server runs on this machine its CPU is read from
//! `/proc/PID/stat`, and `SHOW GLOBAL STATUS` counters are reported as deltas
//! ([`server_probe`]).

pub mod cli;
pub mod compare;
pub mod conn;
pub mod driver;
pub mod experiment;
pub mod pacer;
pub mod rand;
pub mod report;
pub mod result;
pub mod runner;
pub mod server_probe;
pub mod stats;
pub mod url;
#[macro_use]
pub mod workload;
pub mod tpcc;

pub use cli::{BenchArgs, BenchCommand};

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// Entry point of `cohort bench`.
pub fn main(mut args: BenchArgs) -> ExitCode {
    match &mut args.command {
        BenchCommand::Prepare(a) | BenchCommand::Cleanup(a) => a.workload.resolve(),
        BenchCommand::Run(a) => a.workload.resolve(),
        _ => {}
    }
    let r = match args.command {
        BenchCommand::Prepare(a) => prepare(&a),
        BenchCommand::Cleanup(a) => cleanup(&a),
        BenchCommand::Run(a) => run(&a),
        BenchCommand::Experiment(a) => experiment::main(&a),
        BenchCommand::Compare(a) => compare_files(&a),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("cohort bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn prepare(a: &cli::PrepareArgs) -> Result<ExitCode, String> {
    let url = a.workload.url()?;
    if a.workload.workload == "tpcc" {
        let scale = if a.workload.test_scale {
            tpcc::Scale::TEST
        } else {
            tpcc::Scale::FULL
        };
        tpcc::prepare(&url, a.workload.warehouses, scale, a.threads)?;
        return Ok(ExitCode::SUCCESS);
    }
    let w = workload::by_name(&a.workload.workload, &a.workload.options())?;
    w.prepare(&url, a.threads)?;
    Ok(ExitCode::SUCCESS)
}

fn cleanup(a: &cli::PrepareArgs) -> Result<ExitCode, String> {
    let url = a.workload.url()?;
    if a.workload.workload == "tpcc" {
        tpcc::cleanup(&url)?;
        return Ok(ExitCode::SUCCESS);
    }
    let w = workload::by_name(&a.workload.workload, &a.workload.options())?;
    w.cleanup(&url)?;
    Ok(ExitCode::SUCCESS)
}

/// Builds a [`runner::RunSpec`] from the command line.
pub fn spec_from_args(
    w: &cli::WorkloadArgs,
    l: &cli::LoadArgs,
    label: &str,
) -> Result<runner::RunSpec, String> {
    let url = w.url()?;
    let mut spec =
        runner::RunSpec::new(label, url, w.workload.trim_end_matches(".lua"), w.options());
    spec.client_threads = l.client_threads;
    spec.time = (l.time > 0.0).then(|| Duration::from_secs_f64(l.time));
    spec.events = (l.events > 0).then_some(l.events);
    if spec.time.is_none() && spec.events.is_none() {
        return Err("give --time or --events".into());
    }
    spec.warmup = Duration::from_secs_f64(l.warmup.max(0.0));
    spec.rate = (l.rate > 0.0).then_some(l.rate);
    spec.arrival = l.arrival;
    spec.ps = l.ps_mode == "auto";
    spec.ignore = l.ignore()?;
    spec.seed = l.seed;
    spec.report_interval = Duration::from_secs_f64(l.report_interval.max(0.0));
    spec.progress = l.report_interval > 0.0 && (l.progress || std::io::stdout().is_terminal());
    spec.connect_concurrency = l.connect_concurrency;
    spec.drain_timeout = Duration::from_secs_f64(l.drain_timeout.max(0.0));
    spec.server_pid = l.server_pid;
    spec.server_status = !l.no_server_status;
    Ok(spec)
}

fn run(a: &cli::RunArgs) -> Result<ExitCode, String> {
    if a.workload.workload == "tpcc" {
        return tpcc::main(a);
    }
    let spec = spec_from_args(&a.workload, &a.load, &a.label)?;
    let w: Arc<dyn workload::Workload> =
        Arc::from(workload::by_name(&a.workload.workload, &spec.opts)?);
    if a.prepare {
        w.prepare(&spec.url, 4)?;
    }
    println!(
        "cohort bench {} against {}: {} table(s) × {} rows, {} mode, {}",
        spec.workload,
        spec.url,
        spec.opts.tables,
        spec.opts.table_size,
        if spec.ps {
            "prepared-statement"
        } else {
            "text"
        },
        match spec.rate {
            Some(r) => format!("open loop at {r} tx/s"),
            None => "closed loop".into(),
        }
    );
    let results = runner::sweep(&spec, w.clone(), &a.load.connections, true);
    if results.len() > 1 {
        print!("{}", result::sweep_table(&results));
    }
    if let Some(dir) = &a.out {
        result::write_results(dir, &results).map_err(|e| format!("{}: {e}", dir.display()))?;
        println!("results written to {}", dir.display());
    }
    if a.prepare {
        w.cleanup(&spec.url)?;
    }
    Ok(if results.iter().all(|r| r.ok()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn compare_files(a: &cli::CompareArgs) -> Result<ExitCode, String> {
    let ra = result::read_results(&a.a)?;
    let rb = result::read_results(&a.b)?;
    print!("{}", compare::compare(&ra, &rb));
    Ok(ExitCode::SUCCESS)
}
