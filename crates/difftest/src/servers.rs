//! The two servers compared: a `cohort serve` child on a fresh data directory, and MariaDB —
//! either one the tester starts itself (`mariadb-install-db` + `mariadbd` on a fresh data
//! directory, the way `shared/tools/mariadb.sh` does, but without the binlog or fsyncs: the
//! oracle's durability does not matter here) or one already running (`--mariadb HOST:PORT`).
//!
//! Both children get SIGKILL when the tester dies (`PR_SET_PDEATHSIG`), so a CI timeout leaves
//! no server behind on its port; on a normal exit they are stopped when dropped.

use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};
use std::fs::File;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where a server listens and how to log in as root.
#[derive(Clone, Debug)]
pub struct Endpoint {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
}

impl Endpoint {
    pub fn local(port: u16) -> Endpoint {
        Endpoint {
            host: "127.0.0.1".into(),
            port,
            user: "root".into(),
            password: String::new(),
        }
    }

    /// `HOST:PORT` (root, no password).
    pub fn parse(s: &str) -> Result<Endpoint, String> {
        let (host, port) = s
            .rsplit_once(':')
            .ok_or_else(|| format!("{s:?}: expected HOST:PORT"))?;
        let port = port.parse().map_err(|_| format!("{s:?}: bad port"))?;
        Ok(Endpoint {
            host: host.to_string(),
            ..Endpoint::local(port)
        })
    }

    /// A new connection (TCP, bounded timeouts), optionally into `db`.
    pub fn connect(&self, db: Option<&str>, timeout: Duration) -> Result<Conn, String> {
        let opts = OptsBuilder::new()
            .ip_or_hostname(Some(self.host.clone()))
            .tcp_port(self.port)
            .user(Some(self.user.clone()))
            .pass(Some(self.password.clone()))
            .db_name(db.map(str::to_string))
            .prefer_socket(false)
            .tcp_connect_timeout(Some(Duration::from_secs(10)))
            .read_timeout(Some(timeout))
            .write_timeout(Some(timeout));
        Conn::new(opts).map_err(|e| format!("{}:{}: {e}", self.host, self.port))
    }
}

/// A server process the tester started.
pub struct Process {
    name: &'static str,
    child: Option<Child>,
    pub endpoint: Endpoint,
    log: PathBuf,
    /// Removed when the process has ended (the findings and logs stay).
    datadir: PathBuf,
}

impl Process {
    /// A `cohort serve` on a free port and a fresh data directory under `dir`.
    pub fn cohort(bin: &Path, dir: &Path, flags: &[String]) -> Result<Process, String> {
        let port = free_port()?;
        let datadir = dir.join("cohort-data");
        let _ = std::fs::remove_dir_all(&datadir);
        let mut cmd = Command::new(bin);
        cmd.arg("serve")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--datadir",
            ])
            .arg(&datadir)
            .args(flags)
            .env("COHORT_LOG", "warn")
            .env("RUST_BACKTRACE", "1");
        Process::spawn("cohort", cmd, dir.join("cohort.log"), port, datadir)
    }

    /// A throwaway `mariadbd` on a free port and a fresh data directory under `dir`.
    pub fn mariadb(dir: &Path) -> Result<Process, String> {
        let port = free_port()?;
        let datadir = dir.join("mariadb-data");
        let _ = std::fs::remove_dir_all(&datadir);
        std::fs::create_dir_all(&datadir).map_err(|e| format!("{}: {e}", datadir.display()))?;
        let out = Command::new("mariadb-install-db")
            .arg("--user=root")
            .arg(format!("--datadir={}", datadir.display()))
            .arg("--auth-root-authentication-method=normal")
            .arg("--skip-test-db")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run mariadb-install-db: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mariadb-install-db failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let d = datadir.display();
        let mut cmd = Command::new("mariadbd");
        cmd.arg("--no-defaults")
            .arg("--user=root")
            .arg(format!("--datadir={d}"))
            .arg(format!("--port={port}"))
            .arg("--bind-address=127.0.0.1")
            .arg(format!("--socket={d}/mysqld.sock"))
            .arg(format!("--pid-file={d}/mysqld.pid"))
            .arg("--skip-log-bin")
            .arg("--innodb-flush-log-at-trx-commit=0")
            .arg("--innodb-buffer-pool-size=128M")
            .arg("--character-set-server=utf8mb4")
            .arg("--collation-server=utf8mb4_general_ci")
            .arg("--skip-name-resolve");
        Process::spawn("mariadbd", cmd, dir.join("mariadb.log"), port, datadir)
    }

    fn spawn(
        name: &'static str,
        mut cmd: Command,
        log: PathBuf,
        port: u16,
        datadir: PathBuf,
    ) -> Result<Process, String> {
        let out = File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        cmd.stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err));
        die_with_parent(&mut cmd);
        let child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {name}: {e}"))?;
        let mut c = Process {
            name,
            child: Some(child),
            endpoint: Endpoint::local(port),
            log,
            datadir,
        };
        c.wait_ready()?;
        Ok(c)
    }

    fn wait_ready(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(90);
        let mut last = String::new();
        while Instant::now() < deadline {
            if let Some(exit) = self.exited() {
                return Err(format!(
                    "{} exited during startup ({exit}):\n{}",
                    self.name,
                    self.log_tail(30)
                ));
            }
            match self.endpoint.connect(None, Duration::from_secs(5)) {
                Ok(mut c) => {
                    if c.query_drop("SELECT 1").is_ok() {
                        return Ok(());
                    }
                }
                Err(e) => last = e,
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(format!(
            "{} did not answer within 90 s ({last}):\n{}",
            self.name,
            self.log_tail(30)
        ))
    }

    /// `None` while the process runs, else how it ended.
    pub fn exited(&mut self) -> Option<String> {
        let child = self.child.as_mut()?;
        match child.try_wait() {
            Ok(Some(status)) => Some(status.to_string()),
            _ => None,
        }
    }

    pub fn log_tail(&self, lines: usize) -> String {
        let text = std::fs::read(&self.log).unwrap_or_default();
        let text = String::from_utf8_lossy(&text);
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.datadir);
    }
}

impl Process {
    /// SIGTERM, then SIGKILL after 20 s.
    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SAFETY: kill(2) on the pid of our own child, which has not been reaped yet.
            unsafe {
                libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
            }
            let deadline = Instant::now() + Duration::from_secs(20);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port: {e}"))
}

/// The child gets SIGKILL when the tester dies.
fn die_with_parent(cmd: &mut Command) {
    // SAFETY: the closure runs in the forked child before exec and only calls prctl, which
    // is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// The `cohort` binary to test when none is given: the workspace's release build.
pub fn default_cohort_bin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/release/cohort")
}
