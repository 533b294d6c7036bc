//! The data directory against the real binary: created owner-only whatever the umask, with
//! every file in it `0600` (accounts, log-mode marker, binlog and its index, redo segments,
//! checkpoints), in each log mode; and a start refused, with the reason and a non-zero exit,
//! when the accounts file may be written by others.

mod common;

use common::{free_port, opts};
use mysql::prelude::*;
use mysql::Conn;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cohort-datadir-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// `cohort serve` under umask 000 (the loosest), so that every mode seen is the server's own.
fn serve_cmd(datadir: &Path, port: u16, extra: &[&str]) -> Command {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("umask 000; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_cohort"))
        .args(["serve", "--port", &port.to_string(), "--datadir"])
        .arg(datadir)
        .args(extra);
    cmd
}

/// Start a server; None if it exited (its port was taken meanwhile).
fn start(datadir: &Path, extra: &[&str]) -> (Child, u16) {
    for _ in 0..5 {
        let port = free_port();
        let mut child = serve_cmd(datadir, port, extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if Conn::new(opts(port)).is_ok() {
                return (child, port);
            }
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    panic!("the server did not start");
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn everything_in_a_new_data_directory_is_owner_only() {
    for (name, extra) in [
        ("one-log", &[][..]),
        ("classic", &["--commit-mode", "classic"][..]),
        ("redo", &["--log-bin", "OFF"][..]),
    ] {
        let root = scratch(name);
        let datadir = root.join("nested/data");
        let (mut child, port) = start(&datadir, extra);
        let mut c = Conn::new(opts(port)).unwrap();
        c.query_drop("CREATE USER app IDENTIFIED BY 'pw'").unwrap();
        c.query_drop("CREATE DATABASE d").unwrap();
        c.query_drop("CREATE TABLE d.t (id INT PRIMARY KEY)")
            .unwrap();
        c.query_drop("INSERT INTO d.t VALUES (1), (2)").unwrap();
        c.query_drop("FLUSH LOGS").ok();
        drop(c);
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(mode(&root.join("nested")), 0o700, "{name}");
        assert_eq!(mode(&datadir), 0o700, "{name}");
        let mut files = 0;
        for e in std::fs::read_dir(&datadir).unwrap() {
            let path = e.unwrap().path();
            if path.is_file() {
                files += 1;
                assert_eq!(mode(&path), 0o600, "{name}: {}", path.display());
            } else {
                assert_eq!(mode(&path), 0o700, "{name}: {}", path.display());
            }
        }
        assert!(files >= 3, "{name}: accounts, marker and a log at least");
        assert!(datadir.join("accounts.json").is_file(), "{name}");
        std::fs::remove_dir_all(&root).unwrap();
    }
}

fn run_to_exit(datadir: &Path) -> Output {
    let mut child = serve_cmd(datadir, free_port(), &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the server started on a group-writable accounts file");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_start_on_an_accounts_file_others_may_write_is_refused() {
    let datadir = scratch("writable");
    let (mut child, port) = start(&datadir, &[]);
    Conn::new(opts(port))
        .unwrap()
        .query_drop("CREATE USER app IDENTIFIED BY 'pw'")
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let accounts = datadir.join("accounts.json");
    for m in [0o660, 0o606] {
        std::fs::set_permissions(&accounts, std::fs::Permissions::from_mode(m)).unwrap();
        let out = run_to_exit(&datadir);
        assert!(!out.status.success(), "exit status {:?}", out.status);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("writable by its group or by others") && stderr.contains("chmod 600"),
            "{stderr}"
        );
    }
    std::fs::set_permissions(&accounts, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (mut child, _) = start(&datadir, &[]);
    let _ = child.kill();
    let _ = child.wait();
    std::fs::remove_dir_all(&datadir).unwrap();
}
