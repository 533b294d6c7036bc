//! What the integration tests share: a `cohort serve` child process on a free port, its data
//! directory, and client options for it.
//!
//! Each test binary includes this module (`mod common;`) and uses what it needs.
#![allow(dead_code)]

use mysql::{Conn, OptsBuilder};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A running `cohort serve`.
pub struct Server {
    pub child: Child,
    pub port: u16,
}

/// Ports handed out so far in this process (tests run in parallel).
static NEXT_PORT: Mutex<usize> = Mutex::new(0);

/// A free port: from `COHORT_TEST_PORTS=FIRST-LAST` when set, else one the kernel picks.
pub fn free_port() -> u16 {
    let Ok(range) = std::env::var("COHORT_TEST_PORTS") else {
        return TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
    };
    let (a, b) = range.split_once('-').expect("COHORT_TEST_PORTS=FIRST-LAST");
    let (a, b): (u16, u16) = (a.parse().unwrap(), b.parse().unwrap());
    let mut next = NEXT_PORT.lock().unwrap();
    for _ in 0..=(b - a) {
        let port = a + (*next % (b - a + 1) as usize) as u16;
        *next += 1;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port in {range}");
}

/// Client options for root on `port`, over TCP.
pub fn opts(port: u16) -> OptsBuilder {
    OptsBuilder::new()
        .ip_or_hostname(Some("127.0.0.1"))
        .tcp_port(port)
        .user(Some("root"))
        .prefer_socket(false)
}

/// A fresh (removed) data directory path for test `name` of the family `kind`.
pub fn temp_datadir(kind: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cohort-{kind}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The server's stderr, appended to `<datadir>.log` (kept for failure messages).
pub fn server_log(datadir: &Path) -> Stdio {
    let f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(datadir.with_extension("log"))
        .unwrap();
    Stdio::from(f)
}

impl Server {
    /// Start on `datadir` with `extra` flags. The port from [`free_port`] can be taken by
    /// another test's socket before the server binds it; the server then exits at once, and
    /// we try another port.
    pub fn start(datadir: &Path, extra: &[&str]) -> Server {
        for _ in 0..5 {
            if let Some(server) = Server::try_start(datadir, extra) {
                return server;
            }
        }
        let log = std::fs::read_to_string(datadir.with_extension("log")).unwrap_or_default();
        panic!("server did not start; its log:\n{log}");
    }

    /// One attempt: None if the server exits or does not answer within 60 s.
    pub fn try_start(datadir: &Path, extra: &[&str]) -> Option<Server> {
        let port = free_port();
        let mut child = Command::new(env!("CARGO_BIN_EXE_cohort"))
            .args(["serve", "--port", &port.to_string(), "--datadir"])
            .arg(datadir)
            .args(extra)
            .stdout(Stdio::null())
            .stderr(server_log(datadir))
            .spawn()
            .expect("start cohort");
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if Conn::new(opts(port)).is_ok() {
                return Some(Server { child, port });
            }
            if let Ok(Some(_)) = child.try_wait() {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        None
    }

    pub fn conn(&self) -> Conn {
        Conn::new(opts(self.port)).unwrap()
    }

    /// kill -9, and reap.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Wait for the process to die by itself (a failpoint), or kill it after `limit`.
    pub fn wait_exit(mut self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill();
        false
    }
}

/// A server a test did not stop (it finished, or panicked) is killed with it: no process
/// outlives its test (CI found fk_locks' servers still running after the suite).
impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Wait until `datadir` holds a checkpoint file (the server wrote one), at most 30 s.
pub fn wait_for_checkpoint(datadir: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        let found = std::fs::read_dir(datadir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                n.starts_with("checkpoint.") && n != "checkpoint.current"
            });
        if found {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no checkpoint was written in {}", datadir.display());
}
