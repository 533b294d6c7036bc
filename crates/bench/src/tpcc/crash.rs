//! `--kill-after SECS`: TPC-C through a crash of Cohort.
//!
//! The bench starts its own Cohort (durable defaults) on a fresh data directory with the
//! experiment machinery ([`crate::experiment::servers`]), loads the warehouses, and runs
//! the terminals. `SECS` into the run it kills the server with SIGKILL — transactions are
//! in flight, commits are waiting for their fsync — and restarts it on the same data
//! directory. After recovery:
//!
//! 1. every New-Order whose COMMIT was acknowledged before the kill is there;
//! 2. the consistency conditions 1–4 hold (no half transaction survived);
//! 3. the workload runs again for `--time` seconds and the conditions still hold.
//!
//! Any violation fails the command.

use super::{check, measure, run, summary_text, TpccOptions};
use crate::cli::RunArgs;
use crate::conn::SyncClient;
use crate::experiment::servers::{self, CohortLaunch, Server};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// A free TCP port on loopback.
fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("bind: {e}"))?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("local_addr: {e}"))
}

fn launch(
    bin: &std::path::Path,
    port: u16,
    datadir: PathBuf,
    reuse: bool,
) -> Result<Server, String> {
    servers::start_cohort(&CohortLaunch {
        bin,
        port,
        datadir,
        flags: &[],
        netns: None,
        keep_data: false,
        reuse_data: reuse,
    })
    .map_err(|e| format!("cohort did not start: {e}"))
}

/// Runs the crash scenario; the `--url` of the arguments is not used.
pub fn main(o: &TpccOptions, a: &RunArgs, kill_after: Duration) -> Result<ExitCode, String> {
    let bin = match &a.cohort_bin {
        Some(b) => b.clone(),
        None => crate::experiment::default_cohort_bin()?,
    };
    let port = free_port()?;
    let datadir = std::env::temp_dir().join(format!("cohort-tpcc-crash-{}", std::process::id()));
    let mut server = launch(&bin, port, datadir.clone(), false)?;
    let mut o = o.clone();
    o.url = server.url.clone();
    o.server_pid = server.pid;
    println!(
        "tpcc crash test: cohort {} on port {port}, data in {}",
        server.version,
        datadir.display()
    );
    super::prepare(&o.url, o.warehouses, o.scale, 4)?;
    let connections = a.load.connections.first().copied().unwrap_or(16);
    let mut cfg = run::RunConfig {
        url: o.url.clone(),
        warehouses: o.warehouses,
        connections,
        duration: kill_after + Duration::from_secs(2),
        warmup: Duration::ZERO,
        scale: o.scale,
        split_joins: o.split_joins,
        seed: o.seed,
        progress: o.progress,
        expect_crash: true,
    };
    // Kill the server `kill_after` into the run, from another thread.
    let pid = server.pid;
    let killer = std::thread::spawn(move || {
        std::thread::sleep(kill_after);
        if let Some(p) = pid {
            // SAFETY: signalling the child process we started.
            unsafe {
                libc::kill(p as libc::pid_t, libc::SIGKILL);
            }
        }
    });
    let (first, out) = measure(&o, &cfg);
    let _ = killer.join();
    server.kill9();
    println!(
        "before the kill: {} transactions, {:.0} NOPM; {} connection(s) lost ({})",
        first.txns,
        out.nopm(),
        if out.lost.is_some() { "all" } else { "none" },
        out.lost.as_deref().unwrap_or("-")
    );
    if let Some(f) = &out.fatal {
        return Err(format!("the run failed before the kill: {f}"));
    }
    let acked_districts = out.acked.iter().filter(|a| **a > 0).count();
    println!("restarting on the same data directory…");
    let server2 = launch(&bin, port, datadir.clone(), true)?;
    let mut c = SyncClient::connect(&server2.url).map_err(|e| format!("reconnect: {e}"))?;
    let mut rep = check::check(&mut c)?;
    check::check_acked(&mut c, &out.acked, &mut rep)?;
    c.close();
    println!("after restart ({acked_districts} district(s) with acknowledged new-orders):");
    for l in &rep.lines {
        println!("    {l}");
    }
    for v in &rep.violations {
        println!("    VIOLATION: {v}");
    }
    let mut ok = rep.ok();
    // The server goes on after recovery.
    cfg.expect_crash = false;
    cfg.duration = o.duration;
    cfg.seed ^= 0x5EED;
    o.server_pid = server2.pid;
    let (r, _) = measure(&o, &cfg);
    let r = super::finish_with_check(r, &o.url);
    println!("after recovery, {connections} connection(s):");
    print!("{}", summary_text(&r));
    ok &= r.ok();
    if let Some(dir) = &a.out {
        crate::result::write_results(dir, &[first, r])
            .map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    server2.stop();
    let _ = std::fs::remove_dir_all(&datadir);
    let _ = std::fs::remove_file(datadir.with_extension("log"));
    println!("tpcc crash test: {}", if ok { "PASSED" } else { "FAILED" });
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
