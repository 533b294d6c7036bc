//! A `cohort serve` child process: start, wait until it answers, kill, restart, read its log.
//!
//! The server under test runs as a separate process so that whatever it does — panic,
//! overflow its stack, abort on a failed allocation, hang — the fuzzer survives to report it.
//! Its stdout and stderr go to one log file (appended across restarts); [`Server::new_log`]
//! returns what was written since the last call, which the oracle scans for panics.
//!
//! The child's address space is capped (`RLIMIT_AS`, [`ServerSpec::mem_limit_mb`]) so that
//! an unbounded allocation ends as an abort the fuzzer reports, not as a machine out of
//! memory.

use crate::client::{ping, Login};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::net::{SocketAddr, TcpListener};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How to start the server.
#[derive(Clone, Debug)]
pub struct ServerSpec {
    /// The `cohort` binary.
    pub bin: PathBuf,
    /// Extra `cohort serve` flags (log mode, thread handling, …).
    pub flags: Vec<String>,
    /// Address-space limit of the child, MiB (0: none).
    pub mem_limit_mb: u64,
    /// How long startup (including recovery) may take.
    pub start_timeout: Duration,
}

/// A running (or dead) server on a fixed port and data directory.
pub struct Server {
    pub spec: ServerSpec,
    pub port: u16,
    pub datadir: PathBuf,
    log_path: PathBuf,
    child: Option<Child>,
    log_read: u64,
    /// Log length when the current process was started.
    launched_at: u64,
    exit: Option<String>,
}

/// Why the server did not come up.
#[derive(Debug)]
pub struct StartFailure {
    pub reason: String,
    pub log_tail: String,
}

impl Server {
    /// Starts a server and waits until root can run `SELECT 1`.
    pub fn start(
        spec: ServerSpec,
        port: u16,
        datadir: &Path,
        log_path: &Path,
    ) -> Result<Server, StartFailure> {
        let mut s = Server {
            spec,
            port,
            datadir: datadir.to_path_buf(),
            log_path: log_path.to_path_buf(),
            child: None,
            log_read: file_len(log_path),
            launched_at: 0,
            exit: None,
        };
        s.launch()?;
        Ok(s)
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    fn launch(&mut self) -> Result<(), StartFailure> {
        self.launched_at = file_len(&self.log_path);
        // Another process on the port would answer in our server's place.
        if let Err(e) = TcpListener::bind(("127.0.0.1", self.port)) {
            return Err(self.failure(format!("port {} is not free: {e}", self.port)));
        }
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log_path)
            .map_err(|e| self.failure(format!("cannot open the log: {e}")))?;
        let err = log
            .try_clone()
            .map_err(|e| self.failure(format!("cannot open the log: {e}")))?;
        let mut cmd = Command::new(&self.spec.bin);
        cmd.arg("serve")
            .arg("--port")
            .arg(self.port.to_string())
            .arg("--bind")
            .arg("127.0.0.1")
            .arg("--datadir")
            .arg(&self.datadir)
            .args(&self.spec.flags)
            .env("COHORT_LOG", "warn")
            // Backtraces tell apart panics inside dependencies by their callers.
            .env("RUST_BACKTRACE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::from(log))
            .stderr(Stdio::from(err));
        limit_address_space(&mut cmd, self.spec.mem_limit_mb);
        die_with_parent(&mut cmd);
        let child = cmd
            .spawn()
            .map_err(|e| self.failure(format!("cannot run {}: {e}", self.spec.bin.display())))?;
        self.child = Some(child);
        self.exit = None;
        self.wait_ready()
    }

    fn wait_ready(&mut self) -> Result<(), StartFailure> {
        let deadline = Instant::now() + self.spec.start_timeout;
        let mut last = String::new();
        while Instant::now() < deadline {
            if let Some(exit) = self.exit_status() {
                return Err(self.failure(format!("the server exited during startup: {exit}")));
            }
            match ping(self.addr(), &Login::root(), Duration::from_secs(5)) {
                Ok(()) => {
                    // Root keeps every privilege but SHUTDOWN (`client::revoke_shutdown`).
                    return crate::client::revoke_shutdown(self.addr(), Duration::from_secs(5))
                        .map_err(|e| self.failure(format!("REVOKE SHUTDOWN from root: {e}")));
                }
                Err(e) => last = e.to_string(),
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Err(self.failure(format!(
            "the server did not answer SELECT 1 within {:?} ({last})",
            self.spec.start_timeout
        )))
    }

    fn failure(&self, reason: String) -> StartFailure {
        StartFailure {
            reason,
            log_tail: self.log_since_launch(40),
        }
    }

    /// The last `lines` lines written since the current process was started.
    fn log_since_launch(&self, lines: usize) -> String {
        let text = std::fs::read(&self.log_path).unwrap_or_default();
        let from = (self.launched_at as usize).min(text.len());
        let text = String::from_utf8_lossy(&text[from..]);
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// `None` while the process runs; else how it ended ("signal 6 (SIGABRT)", "exit 1").
    pub fn exit_status(&mut self) -> Option<String> {
        if let Some(exit) = &self.exit {
            return Some(exit.clone());
        }
        let child = self.child.as_mut()?;
        match child.try_wait() {
            Ok(Some(status)) => {
                let text = match (status.code(), status.signal()) {
                    (_, Some(sig)) => format!("killed by signal {sig} ({})", signal_name(sig)),
                    (Some(code), _) => format!("exit status {code}"),
                    _ => "ended".to_string(),
                };
                self.exit = Some(text.clone());
                Some(text)
            }
            _ => None,
        }
    }

    /// SIGKILL and reap.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.exit = Some("killed by the fuzzer".into());
    }

    /// SIGTERM (clean shutdown); SIGKILL if it takes longer than 30 s. Returns how it ended.
    pub fn terminate(&mut self) -> String {
        let Some(mut child) = self.child.take() else {
            return "not running".into();
        };
        // SAFETY: kill(2) on the pid of our own child, which has not been reaped yet.
        unsafe {
            libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                self.exit = Some("terminated".into());
                return match status.code() {
                    Some(code) => format!("exit status {code}"),
                    None => format!("signal {}", status.signal().unwrap_or(0)),
                };
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                self.exit = Some("killed after SIGTERM".into());
                return "did not exit within 30 s of SIGTERM".into();
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Starts the process again on the same port and data directory.
    pub fn restart(&mut self) -> Result<(), StartFailure> {
        if self.child.is_some() {
            self.kill();
        }
        self.launch()
    }

    /// Whole log lines written since the previous call (a line still being written is left
    /// for the next call, so that no message is seen in two halves).
    pub fn new_log(&mut self) -> String {
        let Ok(mut f) = File::open(&self.log_path) else {
            return String::new();
        };
        if f.seek(SeekFrom::Start(self.log_read)).is_err() {
            return String::new();
        }
        let mut buf = Vec::new();
        let _ = f.read_to_end(&mut buf);
        let complete = match buf.iter().rposition(|&b| b == b'\n') {
            Some(i) => i + 1,
            // A dead process writes nothing more: take its last line as it is.
            None if self.exit.is_some() => buf.len(),
            None => 0,
        };
        buf.truncate(complete);
        self.log_read += buf.len() as u64;
        String::from_utf8_lossy(&buf).into_owned()
    }

    /// The last `lines` lines of the log.
    pub fn log_tail(&self, lines: usize) -> String {
        let text = std::fs::read(&self.log_path).unwrap_or_default();
        let text = String::from_utf8_lossy(&text);
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// Resident memory of the process, KiB.
    pub fn rss_kib(&self) -> Option<u64> {
        let pid = self.pid()?;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGABRT => "SIGABRT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGKILL => "SIGKILL",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGTERM => "SIGTERM",
        _ => "?",
    }
}

/// The server gets SIGKILL when the fuzzer dies (a CI timeout, ^C), instead of staying on
/// its port.
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

fn limit_address_space(cmd: &mut Command, mb: u64) {
    if mb == 0 {
        return;
    }
    let bytes = mb.saturating_mul(1 << 20);
    // SAFETY: the closure runs in the forked child before exec and only calls setrlimit,
    // which is async-signal-safe; it touches no memory of the parent.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: bytes as libc::rlim_t,
                rlim_max: bytes as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// A free loopback port (bind to port 0, read it, release it).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(4550)
}

/// The `cohort` binary to test when none is given: the workspace's release build (what is
/// shipped), else one next to this executable.
pub fn default_server_bin() -> PathBuf {
    let release = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/release/cohort");
    if release.exists() {
        return release;
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("cohort")))
        .filter(|p| p.exists())
        .unwrap_or(release)
}
