//! What the server did during a run: its CPU time (when it runs on this machine), the whole
//! machine's CPU split, and the change in its `SHOW GLOBAL STATUS` counters.
//!
//! * The server's pid comes from `--server-pid`, or from the listening port: the socket's
//!   inode in `/proc/net/tcp{,6}` (state `0A`, LISTEN), then the process whose
//!   `/proc/PID/fd/*` links to `socket:[inode]`.
//! * Its CPU is `utime` and `stime` from `/proc/PID/stat` (fields 14 and 15, in clock ticks),
//!   sampled at the edges of the measurement window; `%usr` and `%sys` are per one CPU, like
//!   `top` (a server using both cores of a 2-core machine shows 200%).
//! * The machine's split comes from the first line of `/proc/stat`.
//! * Status counters are read with `SHOW GLOBAL STATUS` on a separate connection before and
//!   after; every numeric value that changed is reported as `after − before`.

use crate::conn::SyncClient;
use crate::stats::CpuTimes;
use crate::url::DbUrl;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Instant;

fn clock_ticks() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

/// Number of CPUs online.
pub fn cpu_count() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// CPU time of process `pid` from `/proc/PID/stat`.
pub fn process_cpu(pid: u32) -> Option<CpuTimes> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat_cpu(&text, clock_ticks())
}

/// utime and stime out of a `/proc/PID/stat` line (the command name may hold spaces and
/// parentheses, so fields are counted after the last `)`).
pub fn parse_stat_cpu(text: &str, ticks: f64) -> Option<CpuTimes> {
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // rest starts at field 3 (state); utime is field 14, stime 15.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some(CpuTimes {
        user: utime / ticks,
        sys: stime / ticks,
    })
}

/// Whole-machine CPU ticks from `/proc/stat`.
#[derive(Clone, Copy, Debug, Default)]
pub struct MachineTicks {
    pub user: u64,
    pub sys: u64,
    pub idle: u64,
    pub total: u64,
}

impl MachineTicks {
    pub fn read() -> Option<MachineTicks> {
        parse_proc_stat(&std::fs::read_to_string("/proc/stat").ok()?)
    }
}

pub fn parse_proc_stat(text: &str) -> Option<MachineTicks> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    let get = |i: usize| v.get(i).copied().unwrap_or(0);
    // user nice system idle iowait irq softirq steal
    Some(MachineTicks {
        user: get(0) + get(1),
        sys: get(2) + get(5) + get(6),
        idle: get(3) + get(4),
        total: v.iter().take(8).sum(),
    })
}

/// Finds the pid of the process listening on TCP `port` on this machine.
pub fn find_listener_pid(port: u16) -> Option<u32> {
    let mut inodes = Vec::new();
    for f in ["/proc/net/tcp", "/proc/net/tcp6"] {
        if let Ok(text) = std::fs::read_to_string(f) {
            inodes.extend(listening_inodes(&text, port));
        }
    }
    if inodes.is_empty() {
        return None;
    }
    let wanted: Vec<String> = inodes.iter().map(|i| format!("socket:[{i}]")).collect();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(target) = std::fs::read_link(fd.path()) {
                if wanted.iter().any(|w| target.as_os_str() == w.as_str()) {
                    return Some(pid);
                }
            }
        }
    }
    None
}

/// Inodes of LISTEN sockets on `port` in a `/proc/net/tcp` table.
pub fn listening_inodes(table: &str, port: u16) -> Vec<u64> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let local = f.get(1)?;
            let p = u16::from_str_radix(local.rsplit(':').next()?, 16).ok()?;
            (p == port && *f.get(3)? == "0A").then(|| f.get(9)?.parse().ok())?
        })
        .collect()
}

/// One sample of everything the probe watches.
#[derive(Clone, Debug)]
pub struct ProbeSample {
    pub at: Instant,
    pub server: Option<CpuTimes>,
    pub machine: Option<MachineTicks>,
    pub status: Option<BTreeMap<String, String>>,
}

/// Server-side figures for one measurement window.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ServerCpu {
    pub pid: u32,
    /// Percent of one CPU.
    pub usr_pct: f64,
    pub sys_pct: f64,
    pub cpu_pct: f64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct MachineCpu {
    pub cpus: usize,
    /// Percent of the whole machine.
    pub usr_pct: f64,
    pub sys_pct: f64,
    pub idle_pct: f64,
}

/// Watches one server.
pub struct ServerProbe {
    pub pid: Option<u32>,
    client: Option<SyncClient>,
    /// Why status counters are not available, if they are not.
    pub status_error: Option<String>,
}

impl ServerProbe {
    /// `pid`: known pid, or `None` to look it up by port when the server is local.
    /// `status`: read `SHOW GLOBAL STATUS` through a connection to `url`.
    pub fn new(url: &DbUrl, pid: Option<u32>, status: bool) -> ServerProbe {
        let pid = pid.or_else(|| {
            if url.is_local() {
                find_listener_pid(url.port)
            } else {
                None
            }
        });
        let (client, status_error) = if status {
            match SyncClient::connect(url) {
                Ok(c) => (Some(c), None),
                Err(e) => (None, Some(e.to_string())),
            }
        } else {
            (None, Some("disabled".into()))
        };
        ServerProbe {
            pid,
            client,
            status_error,
        }
    }

    /// Reads `SHOW GLOBAL STATUS` (or `None`).
    pub fn status(&mut self) -> Option<BTreeMap<String, String>> {
        let c = self.client.as_mut()?;
        match c.query_pairs("SHOW GLOBAL STATUS") {
            Ok(p) => Some(p.into_iter().collect()),
            Err(e) => {
                self.status_error = Some(e.to_string());
                self.client = None;
                None
            }
        }
    }

    /// CPU only (cheap, for progress lines).
    pub fn cpu_sample(&self) -> ProbeSample {
        ProbeSample {
            at: Instant::now(),
            server: self.pid.and_then(process_cpu),
            machine: MachineTicks::read(),
            status: None,
        }
    }

    /// CPU and status counters.
    pub fn sample(&mut self) -> ProbeSample {
        let mut s = self.cpu_sample();
        s.status = self.status();
        s
    }

    /// Closes the status connection.
    pub fn close(self) {
        if let Some(c) = self.client {
            c.close();
        }
    }
}

/// Server CPU between two samples.
pub fn server_cpu(pid: Option<u32>, a: &ProbeSample, b: &ProbeSample) -> Option<ServerCpu> {
    let (x, y) = (a.server?, b.server?);
    let secs = b.at.duration_since(a.at).as_secs_f64().max(1e-9);
    let d = y.since(&x);
    Some(ServerCpu {
        pid: pid?,
        usr_pct: 100.0 * d.user / secs,
        sys_pct: 100.0 * d.sys / secs,
        cpu_pct: 100.0 * d.total() / secs,
    })
}

/// Machine CPU split between two samples.
pub fn machine_cpu(a: &ProbeSample, b: &ProbeSample) -> Option<MachineCpu> {
    let (x, y) = (a.machine?, b.machine?);
    let total = y.total.saturating_sub(x.total).max(1) as f64;
    Some(MachineCpu {
        cpus: cpu_count(),
        usr_pct: 100.0 * y.user.saturating_sub(x.user) as f64 / total,
        sys_pct: 100.0 * y.sys.saturating_sub(x.sys) as f64 / total,
        idle_pct: 100.0 * y.idle.saturating_sub(x.idle) as f64 / total,
    })
}

/// Numeric status values that changed between two samples, as `after − before`.
pub fn status_delta(a: &ProbeSample, b: &ProbeSample) -> BTreeMap<String, f64> {
    let (Some(x), Some(y)) = (&a.status, &b.status) else {
        return BTreeMap::new();
    };
    y.iter()
        .filter_map(|(k, v)| {
            let after: f64 = v.trim().parse().ok()?;
            let before: f64 = x.get(k).and_then(|v| v.trim().parse().ok()).unwrap_or(0.0);
            let d = after - before;
            (d != 0.0).then(|| (k.clone(), d))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_proc_stat_lines() {
        let line = "1234 (mariadbd (x) y) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 30 0 1000 2000000 3000";
        let c = parse_stat_cpu(line, 100.0).unwrap();
        assert_eq!((c.user, c.sys), (2.5, 0.75));
        assert!(parse_stat_cpu("garbage", 100.0).is_none());
        let m = parse_proc_stat("cpu  10 2 30 400 5 1 1 0 0 0\ncpu0 1 2 3 4\n").unwrap();
        assert_eq!((m.user, m.sys, m.idle, m.total), (12, 32, 405, 449));
    }

    #[test]
    fn finds_listening_sockets() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:0CF4 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5551 1 0000000000000000 100 0 0 10 0
   1: 0100007F:0CF4 0100007F:A1B2 01 00000000:00000000 00:00000000 00000000     0        0 5552 1 0000000000000000 20 4 30 10 -1
   2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 77 1 0000000000000000 100 0 0 10 0";
        assert_eq!(listening_inodes(table, 3316), vec![5551]);
        assert_eq!(listening_inodes(table, 22), vec![77]);
        assert!(listening_inodes(table, 80).is_empty());
    }

    #[test]
    fn finds_our_own_listener() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        assert_eq!(find_listener_pid(port), Some(std::process::id()));
        assert!(process_cpu(std::process::id()).is_some());
    }

    #[test]
    fn deltas_keep_changed_numbers() {
        let mk = |pairs: &[(&str, &str)]| ProbeSample {
            at: Instant::now(),
            server: Some(CpuTimes {
                user: 1.0,
                sys: 0.5,
            }),
            machine: None,
            status: Some(
                pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
        };
        let a = mk(&[("Binlog_commits", "10"), ("Uptime", "5"), ("Version", "x")]);
        let b = mk(&[
            ("Binlog_commits", "25"),
            ("Uptime", "5"),
            ("Version", "y"),
            ("New", "3"),
        ]);
        let d = status_delta(&a, &b);
        assert_eq!(d.get("Binlog_commits"), Some(&15.0));
        assert_eq!(d.get("New"), Some(&3.0));
        assert!(!d.contains_key("Uptime") && !d.contains_key("Version"));
    }
}
