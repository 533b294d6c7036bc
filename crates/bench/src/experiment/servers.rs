//! Servers an experiment starts and stops: Cohort variants (`cohort serve …`) and MariaDB
//! (`mariadbd`, set up the way `shared/tools/mariadb.sh` does), each on its own port and
//! temporary data directory, optionally inside a network namespace ([`Netns`]).

use crate::conn::SyncClient;
use crate::url::DbUrl;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Password given to the servers the experiment starts.
pub const ROOT_PASSWORD: &str = "cohort-bench";
/// Database the workloads use.
pub const DATABASE: &str = "sbtest";

/// A running server.
pub struct Server {
    child: Option<Child>,
    pub url: DbUrl,
    pub pid: Option<u32>,
    pub datadir: Option<PathBuf>,
    keep_data: bool,
    pub version: String,
    log: Option<PathBuf>,
}

impl Server {
    /// A server someone else runs (`--mariadb URL`).
    pub fn external(url: DbUrl) -> Result<Server, String> {
        let mut c = SyncClient::connect(&url).map_err(|e| format!("{url}: {e}"))?;
        let version = c.server_version().to_string();
        if let Some(db) = &url.database {
            let _ = c.execute(&format!("CREATE DATABASE IF NOT EXISTS {db}"));
        }
        c.close();
        let pid = if url.is_local() {
            crate::server_probe::find_listener_pid(url.port)
        } else {
            None
        };
        Ok(Server {
            child: None,
            url,
            pid,
            datadir: None,
            keep_data: true,
            version,
            log: None,
        })
    }

    /// The last lines of the server's log (for error messages).
    pub fn log_tail(&self, lines: usize) -> String {
        self.log
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .map(|t| tail(&t, lines))
            .unwrap_or_default()
    }

    /// True while the process runs.
    pub fn alive(&mut self) -> bool {
        match self.child.as_mut() {
            Some(c) => matches!(c.try_wait(), Ok(None)),
            None => true,
        }
    }

    /// Kills the server with SIGKILL (a crash) and waits for it; the data directory stays.
    pub fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops the server (SIGTERM, then SIGKILL after 20 s) and removes its data directory.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SAFETY: signalling our own child by pid.
            unsafe {
                libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
            }
            let deadline = Instant::now() + Duration::from_secs(20);
            loop {
                match child.try_wait() {
                    Ok(Some(_)) | Err(_) => break,
                    Ok(None) if Instant::now() > deadline => {
                        let _ = child.kill();
                        let _ = child.wait();
                        break;
                    }
                    Ok(None) => std::thread::sleep(Duration::from_millis(50)),
                }
            }
        }
        if !self.keep_data {
            if let Some(d) = self.datadir.take() {
                let _ = std::fs::remove_dir_all(d);
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// What a server that refused to start said: its first `error` line (clap's "unexpected
/// argument …", a config error), else its last lines.
fn server_said(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .find(|l| l.to_ascii_lowercase().starts_with("error") || l.contains("error:"))
        .map(str::to_string)
        .unwrap_or_else(|| tail(text, 3))
}

fn tail(text: &str, lines: usize) -> String {
    let v: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    v[v.len().saturating_sub(lines)..].join(" / ")
}

/// Waits until `url` accepts a login, the child exits, or `timeout` passes.
fn wait_ready(child: &mut Child, url: &DbUrl, timeout: Duration) -> Result<SyncClient, String> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("exited with {status}"));
        }
        let err = match SyncClient::connect(url) {
            Ok(c) => return Ok(c),
            Err(e) => e.to_string(),
        };
        if Instant::now() > deadline {
            return Err(format!(
                "not accepting connections after {timeout:?}: {err}"
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// How to start Cohort.
pub struct CohortLaunch<'a> {
    pub bin: &'a Path,
    pub port: u16,
    pub datadir: PathBuf,
    pub flags: &'a [String],
    pub netns: Option<&'a Netns>,
    pub keep_data: bool,
    /// Start on the data directory as it is (a restart after a crash) instead of a fresh one.
    pub reuse_data: bool,
}

/// Starts `cohort serve` and creates the workload database. On failure the error is what
/// the server said (its last stderr lines), for "not available: …" in the report.
pub fn start_cohort(l: &CohortLaunch<'_>) -> Result<Server, String> {
    if !l.reuse_data {
        let _ = std::fs::remove_dir_all(&l.datadir);
    }
    std::fs::create_dir_all(&l.datadir).map_err(|e| format!("{}: {e}", l.datadir.display()))?;
    let log = l.datadir.with_extension("log");
    // After a crash the log goes on, so that it shows both lives of the server.
    let logf = if l.reuse_data {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
    } else {
        std::fs::File::create(&log)
    }
    .map_err(|e| format!("{}: {e}", log.display()))?;
    let host = l
        .netns
        .map(|n| n.server_addr.clone())
        .unwrap_or("127.0.0.1".into());
    let mut cmd = match l.netns {
        Some(ns) => {
            let mut c = Command::new("ip");
            c.args(["netns", "exec", &ns.name]).arg(l.bin);
            c
        }
        None => Command::new(l.bin),
    };
    cmd.arg("serve")
        .args(["--port", &l.port.to_string()])
        .arg("--datadir")
        .arg(&l.datadir)
        .args(["--root-password", ROOT_PASSWORD, "--bind", &host])
        // The "remote" client of a network namespace reaches a non-loopback address, where
        // Cohort requires TLS unless told otherwise; the bench client speaks in clear, and
        // the link never leaves this machine.
        .args(match l.netns {
            Some(_) => &["--require-secure-transport", "OFF"][..],
            None => &[][..],
        })
        .args(["--max-connections", "20000"])
        // As MariaDB is started below: thousands of sysbench threads prepare tens of
        // statements each, past the default 16382 (error 1461).
        .args(["--max-prepared-stmt-count", "1000000"])
        .args(l.flags)
        .stdin(Stdio::null())
        .stdout(logf.try_clone().map_err(|e| e.to_string())?)
        .stderr(logf)
        .env("COHORT_LOG", "warn");
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", l.bin.display()))?;
    let url = DbUrl {
        user: "root".into(),
        password: ROOT_PASSWORD.into(),
        host,
        port: l.port,
        database: None,
    };
    let read_log = || {
        std::fs::read_to_string(&log)
            .map(|t| server_said(&t))
            .unwrap_or_default()
    };
    let mut c = match wait_ready(&mut child, &url, Duration::from_secs(30)) {
        Ok(c) => c,
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            let said = read_log();
            if !l.reuse_data {
                let _ = std::fs::remove_dir_all(&l.datadir);
            }
            return Err(if said.is_empty() { e } else { said });
        }
    };
    let version = c.server_version().to_string();
    if let Err(e) = c.execute(&format!("CREATE DATABASE IF NOT EXISTS {DATABASE}")) {
        let _ = child.kill();
        let _ = child.wait();
        return Err(format!("CREATE DATABASE {DATABASE}: {e}"));
    }
    c.close();
    let pid = Some(child.id());
    Ok(Server {
        child: Some(child),
        url: url.with_database(Some(DATABASE)),
        pid,
        datadir: Some(l.datadir.clone()),
        keep_data: l.keep_data,
        version,
        log: Some(log),
    })
}

/// Starts the installed `mariadbd` like `shared/tools/mariadb.sh` (durable: ROW binlog,
/// sync_binlog=1, innodb_flush_log_at_trx_commit=1; user sb/sb, database sbtest), plus
/// `flags`.
pub fn start_mariadb(
    port: u16,
    datadir: &Path,
    flags: &[String],
    keep_data: bool,
) -> Result<Server, String> {
    let mariadbd = ["/usr/sbin/mariadbd", "/usr/bin/mariadbd"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .ok_or("mariadbd is not installed (apt-get install mariadb-server)")?;
    let _ = std::fs::remove_dir_all(datadir);
    std::fs::create_dir_all(datadir).map_err(|e| format!("{}: {e}", datadir.display()))?;
    let install = Command::new("mariadb-install-db")
        .args(["--user=root", "--auth-root-authentication-method=normal"])
        .arg(format!("--datadir={}", datadir.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("mariadb-install-db: {e}"))?;
    if !install.status.success() {
        return Err(format!(
            "mariadb-install-db: {}",
            tail(&String::from_utf8_lossy(&install.stderr), 3)
        ));
    }
    let log = datadir.join("err.log");
    let logf = std::fs::File::create(&log).map_err(|e| e.to_string())?;
    let d = datadir.display();
    let mut child = Command::new(mariadbd)
        .args([
            "--no-defaults".to_string(),
            "--user=root".into(),
            format!("--datadir={d}"),
            format!("--port={port}"),
            "--bind-address=127.0.0.1".into(),
            format!("--socket={d}/mysqld.sock"),
            format!("--pid-file={d}/mysqld.pid"),
            format!("--log-bin={d}/binlog"),
            "--server-id=1".into(),
            "--binlog-format=ROW".into(),
            "--sync-binlog=1".into(),
            "--innodb-flush-log-at-trx-commit=1".into(),
            "--innodb-buffer-pool-size=1G".into(),
            "--innodb-log-file-size=512M".into(),
            // 10,000 client connections plus the bench's status and probe connections.
            "--max-connections=10100".into(),
            "--max-prepared-stmt-count=1000000".into(),
            "--skip-name-resolve".into(),
        ])
        .args(flags)
        .stdin(Stdio::null())
        .stdout(logf.try_clone().map_err(|e| e.to_string())?)
        .stderr(logf)
        .spawn()
        .map_err(|e| format!("cannot run {mariadbd}: {e}"))?;
    let root = DbUrl {
        user: "root".into(),
        password: String::new(),
        host: "127.0.0.1".into(),
        port,
        database: None,
    };
    let mut c = match wait_ready(&mut child, &root, Duration::from_secs(60)) {
        Ok(c) => c,
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            let said = std::fs::read_to_string(&log)
                .map(|t| tail(&t, 3))
                .unwrap_or_default();
            return Err(format!("{e}: {said}"));
        }
    };
    let version = c.server_version().to_string();
    for sql in [
        format!("CREATE DATABASE IF NOT EXISTS {DATABASE}"),
        "CREATE USER IF NOT EXISTS 'sb'@'%' IDENTIFIED BY 'sb'".into(),
        "GRANT ALL ON *.* TO 'sb'@'%'".into(),
    ] {
        c.execute(&sql).map_err(|e| format!("{sql}: {e}"))?;
    }
    c.close();
    let pid = Some(child.id());
    Ok(Server {
        child: Some(child),
        url: DbUrl {
            user: "sb".into(),
            password: "sb".into(),
            host: "127.0.0.1".into(),
            port,
            database: Some(DATABASE.into()),
        },
        pid,
        datadir: Some(datadir.to_path_buf()),
        keep_data,
        version,
        log: Some(log),
    })
}

/// A network namespace joined to this one by a veth pair with netem delay on both ends:
/// a "remote" host on the same machine. Addresses are private to the pair.
pub struct Netns {
    pub name: String,
    host_if: String,
    /// The server's address inside the namespace.
    pub server_addr: String,
    /// Delay actually in place, each way.
    pub delay_us: u32,
    /// Why netem could not add the delay, if it could not.
    pub netem_error: Option<String>,
}

fn ip(args: &[&str]) -> Result<(), String> {
    run("ip", args)
}

fn run(cmd: &str, args: &[&str]) -> Result<(), String> {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .map_err(|e| format!("{cmd}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`{cmd} {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// A run killed before it cleaned up leaves its namespace and host-side veth behind, holding
/// the same addresses a new run wants (the new server would be unreachable). Remove those
/// whose process is gone: names are `cohortb<pid>` / `cbh<pid>`.
fn remove_stale_namespaces() {
    let Ok(out) = Command::new("ip").args(["netns", "list"]).output() else {
        return;
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let name = line.split_whitespace().next().unwrap_or("");
        let Some(pid) = name.strip_prefix("cohortb") else {
            continue;
        };
        if pid.parse::<u32>().is_err() || std::path::Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let _ = ip(&["netns", "del", name]);
        let _ = ip(&["link", "del", &format!("cbh{pid}")]);
    }
}

impl Netns {
    /// Creates the namespace (needs root and iproute2).
    pub fn create(delay_us: u32) -> Result<Netns, String> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err("not running as root, so no network namespace".into());
        }
        remove_stale_namespaces();
        let id = std::process::id() % 100_000;
        let ns = Netns {
            name: format!("cohortb{id}"),
            host_if: format!("cbh{id}"),
            server_addr: "10.254.77.2".into(),
            delay_us,
            netem_error: None,
        };
        let peer = format!("cbn{id}");
        let delay = format!("{delay_us}us");
        let steps: Vec<Vec<&str>> = vec![
            vec!["netns", "add", &ns.name],
            vec![
                "link",
                "add",
                &ns.host_if,
                "type",
                "veth",
                "peer",
                "name",
                &peer,
            ],
            vec!["link", "set", &peer, "netns", &ns.name],
            vec!["addr", "add", "10.254.77.1/30", "dev", &ns.host_if],
            vec!["link", "set", &ns.host_if, "up"],
            vec![
                "netns",
                "exec",
                &ns.name,
                "ip",
                "addr",
                "add",
                "10.254.77.2/30",
                "dev",
                &peer,
            ],
            vec!["netns", "exec", &ns.name, "ip", "link", "set", &peer, "up"],
            vec!["netns", "exec", &ns.name, "ip", "link", "set", "lo", "up"],
        ];
        for s in steps {
            ip(&s)?;
        }
        let mut ns = ns;
        if delay_us > 0 {
            let netem = [
                "qdisc",
                "add",
                "dev",
                &ns.host_if,
                "root",
                "netem",
                "delay",
                &delay,
            ];
            let peer_netem = [
                "netns", "exec", &ns.name, "tc", "qdisc", "add", "dev", &peer, "root", "netem",
                "delay", &delay,
            ];
            if let Err(e) = run("tc", &netem).and_then(|_| ip(&peer_netem)) {
                // The kernel may lack sch_netem: keep the namespace (a real network path
                // through veth) without the added delay, and say so.
                ns.delay_us = 0;
                ns.netem_error = Some(e);
            }
        }
        Ok(ns)
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = ip(&["netns", "del", &self.name]);
        let _ = ip(&["link", "del", &self.host_if]);
    }
}
