//! One measured point (and sweeps of them): driver + server probe + result record.

use crate::conn::{Login, SyncClient};
use crate::driver::{self, DriverConfig, IgnoreErrors, Interval, Observer};
use crate::pacer::Arrival;
use crate::result::{summary_text, ClientCpu, ProgressPoint, RunResult};
use crate::server_probe::{self, ProbeSample, ServerProbe};
use crate::url::DbUrl;
use crate::workload::{Workload, WorkloadOptions};
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

/// Everything that defines a run point except the connection count.
#[derive(Clone, Debug)]
pub struct RunSpec {
    pub label: String,
    pub url: DbUrl,
    pub workload: String,
    pub opts: WorkloadOptions,
    pub client_threads: Option<usize>,
    pub time: Option<Duration>,
    pub events: Option<u64>,
    pub warmup: Duration,
    pub rate: Option<f64>,
    pub arrival: Arrival,
    pub ps: bool,
    pub ignore: IgnoreErrors,
    pub seed: u64,
    pub report_interval: Duration,
    pub progress: bool,
    pub connect_concurrency: usize,
    pub drain_timeout: Duration,
    pub server_pid: Option<u32>,
    pub server_status: bool,
}

impl RunSpec {
    /// Defaults for programmatic use (experiments).
    pub fn new(label: &str, url: DbUrl, workload: &str, opts: WorkloadOptions) -> RunSpec {
        RunSpec {
            label: label.into(),
            url,
            workload: workload.into(),
            opts,
            client_threads: None,
            time: Some(Duration::from_secs(10)),
            events: None,
            warmup: Duration::ZERO,
            rate: None,
            arrival: Arrival::Poisson,
            ps: true,
            ignore: IgnoreErrors::sysbench_default(),
            seed: 0,
            report_interval: Duration::from_secs(1),
            progress: false,
            connect_concurrency: 128,
            drain_timeout: Duration::from_secs(5),
            server_pid: None,
            server_status: true,
        }
    }
}

/// Most client threads used by default.
pub const MAX_DEFAULT_CLIENT_THREADS: usize = 64;

/// Default client threads: one per connection up to 64, then 64 event loops sharing the
/// connections.
///
/// Why not one thread for everything: on a machine the server shares, the CPU scheduler
/// gives each runnable thread a fair share. sysbench runs one thread per connection; a
/// single event-loop thread serving 16 connections competes as one thread against the
/// server's 16 and gets starved, and every connection waits for it (measured against
/// MariaDB on 2 cores: 16 connections on one loop reached ~65% of sysbench's tps, one
/// loop per connection matched it at the same client CPU per transaction). With more
/// than 64 connections the server, not the client's share, is the limit, and 64 loops of
/// many connections each keep 10 000+ connections cheap. `--client-threads` overrides.
pub fn default_client_threads(connections: usize) -> usize {
    connections.clamp(1, MAX_DEFAULT_CLIENT_THREADS)
}

struct ProgressObserver<'a> {
    probe: &'a mut ServerProbe,
    print: bool,
    first: Option<ProbeSample>,
    last: Option<ProbeSample>,
    cpu_prev: Option<ProbeSample>,
    progress: Vec<ProgressPoint>,
}

impl Observer for ProgressObserver<'_> {
    fn connected(&mut self, connections: usize, took: Duration, retried: u64) {
        if self.print {
            println!(
                "{connections} connection(s) ready in {:.2}s{}",
                took.as_secs_f64(),
                if retried > 0 {
                    format!(" ({retried} handshake(s) retried)")
                } else {
                    String::new()
                }
            );
        }
        self.cpu_prev = Some(self.probe.cpu_sample());
    }

    fn measure_start(&mut self) {
        self.first = Some(self.probe.sample());
    }

    fn measure_end(&mut self) {
        if self.last.is_none() {
            self.last = Some(self.probe.sample());
        }
    }

    fn interval(&mut self, iv: &Interval) {
        let cur = self.probe.cpu_sample();
        let srv = self
            .cpu_prev
            .as_ref()
            .and_then(|p| server_probe::server_cpu(self.probe.pid, p, &cur))
            .map(|c| c.cpu_pct);
        self.cpu_prev = Some(cur);
        let secs = iv.length.max(1e-9);
        let s = &iv.stats;
        let p = ProgressPoint {
            t: iv.at,
            warmup: iv.warmup,
            tps: s.txns as f64 / secs,
            qps: s.queries as f64 / secs,
            p95_ms: s.latency().p95,
            errors_per_s: s.error_count() as f64 / secs,
            backlog: iv.backlog,
            server_cpu_pct: srv,
        };
        if self.print {
            println!(
                "[ {:>3.0}s ]{} conns: {} tps: {:.2} qps: {:.2} (r/w/o: {:.2}/{:.2}/{:.2}) lat (ms,95%): {:.2} err/s: {:.2}{}{}",
                p.t,
                if p.warmup { " (warm-up)" } else { "" },
                iv.connections,
                p.tps,
                p.qps,
                s.reads as f64 / secs,
                s.writes as f64 / secs,
                s.others as f64 / secs,
                p.p95_ms,
                p.errors_per_s,
                if iv.backlog > 0 { format!(" backlog: {}", iv.backlog) } else { String::new() },
                srv.map(|c| format!(" srv cpu: {c:.0}%")).unwrap_or_default()
            );
            let _ = std::io::stdout().flush();
        }
        self.progress.push(p);
    }
}

/// Runs one point with `connections` connections.
pub fn run_point(spec: &RunSpec, workload: Arc<dyn Workload>, connections: usize) -> RunResult {
    crate::stats::raise_fd_limit();
    let mut result = RunResult {
        label: spec.label.clone(),
        workload: spec.workload.clone(),
        server: spec.url.to_string(),
        connections,
        mode: if spec.rate.is_some() {
            "open"
        } else {
            "closed"
        }
        .into(),
        target_rate: spec.rate,
        ps_mode: if spec.ps { "auto" } else { "disable" }.into(),
        tables: spec.opts.tables,
        table_size: spec.opts.table_size,
        warmup_s: spec.warmup.as_secs_f64(),
        ..RunResult::default()
    };
    let addr = match spec.url.socket_addr() {
        Ok(a) => a,
        Err(e) => {
            result.fatal = Some(e);
            return result;
        }
    };
    let threads = spec
        .client_threads
        .unwrap_or_else(|| default_client_threads(connections))
        .clamp(1, connections.max(1));
    result.client_threads = threads;
    let seed = if spec.seed == 0 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    } else {
        spec.seed
    };
    let cfg = DriverConfig {
        addr,
        login: Login {
            user: spec.url.user.clone(),
            password: spec.url.password.clone(),
            database: spec.url.database.clone(),
        },
        connections,
        threads,
        time: spec.time,
        events: spec.events,
        warmup: spec.warmup,
        rate: spec.rate,
        arrival: spec.arrival,
        ps: spec.ps,
        ignore_errors: spec.ignore.clone(),
        seed,
        dist: spec.opts.dist,
        report_interval: if spec.report_interval.is_zero() {
            Duration::from_secs(1)
        } else {
            spec.report_interval
        },
        connect_concurrency: spec.connect_concurrency,
        drain_timeout: spec.drain_timeout,
    };
    let mut probe = ServerProbe::new(&spec.url, spec.server_pid, spec.server_status);
    let pid = probe.pid;
    let mut obs = ProgressObserver {
        probe: &mut probe,
        print: spec.progress,
        first: None,
        last: None,
        cpu_prev: None,
        progress: Vec::new(),
    };
    let out = driver::run(&cfg, workload.clone(), &mut obs);
    let (first, last, progress) = (
        obs.first.take(),
        obs.last.take(),
        std::mem::take(&mut obs.progress),
    );
    probe.close();
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            result.fatal = Some(e);
            return result;
        }
    };
    let s = &out.stats;
    let secs = out.elapsed.as_secs_f64().max(1e-9);
    result.server_version = out.server_version.clone();
    result.time_s = out.elapsed.as_secs_f64();
    result.connect_s = out.connect_time.as_secs_f64();
    result.txns = s.txns;
    result.queries = s.queries;
    result.reads = s.reads;
    result.writes = s.writes;
    result.others = s.others;
    result.tps = s.txns as f64 / secs;
    result.qps = s.queries as f64 / secs;
    result.latency_ms = s.latency();
    result.errors = s.errors.iter().map(|(c, n)| (c.to_string(), *n)).collect();
    result.ignored_errors = s.retries;
    result.unstarted = out.unstarted;
    let cpu = out.process_cpu;
    result.client_cpu = ClientCpu {
        user_s: cpu.user,
        sys_s: cpu.sys,
        cpu_pct: 100.0 * cpu.total() / secs,
        us_per_txn: if s.txns > 0 {
            cpu.total() * 1e6 / s.txns as f64
        } else {
            0.0
        },
        threads: out.thread_cpu.clone(),
    };
    if let (Some(a), Some(b)) = (&first, &last) {
        result.server_cpu = server_probe::server_cpu(pid, a, b);
        result.machine_cpu = server_probe::machine_cpu(a, b);
        result.server_status = server_probe::status_delta(a, b);
        if let Some(sc) = &result.server_cpu {
            let wall = b.at.duration_since(a.at).as_secs_f64();
            if s.txns > 0 {
                result.server_us_per_txn = Some(sc.cpu_pct / 100.0 * wall * 1e6 / s.txns as f64);
            }
        }
    }
    result.progress = progress;
    result.fatal = out.fatal;
    if let Ok(mut c) = SyncClient::connect(&spec.url) {
        if let Some(check) = workload.check(&mut c) {
            match check {
                Ok(m) => {
                    result.check = Some(m);
                    result.check_ok = Some(true);
                }
                Err(m) => {
                    result.check = Some(m);
                    result.check_ok = Some(false);
                }
            }
        }
        c.close();
    }
    result
}

/// Runs `spec` for each connection count; prints as it goes.
pub fn sweep(
    spec: &RunSpec,
    workload: Arc<dyn Workload>,
    connections: &[usize],
    verbose: bool,
) -> Vec<RunResult> {
    let mut results = Vec::new();
    for &n in connections {
        if verbose {
            println!(
                "== {} {} with {} connection(s){} ==",
                spec.label,
                spec.workload,
                n,
                spec.rate
                    .map(|r| format!(" at {r:.0} tx/s"))
                    .unwrap_or_default()
            );
        }
        let r = run_point(spec, workload.clone(), n);
        if verbose {
            print!("{}", summary_text(&r));
            println!();
        }
        let stop = r.fatal.is_some() && r.txns == 0;
        results.push(r);
        if stop {
            break;
        }
    }
    results
}
