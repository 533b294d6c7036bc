//! Crash test: concurrent writers record every acknowledged commit; the server is killed
//! (kill -9 at a random moment, or aborted at a failpoint in each pipeline step); it restarts on
//! the same data directory, several times in a row. After each restart:
//!
//! - every acknowledged commit is present;
//! - no transaction is partly applied (each writer's counter equals its number of log rows),
//!   and conflicting transactions are replayed in commit order (a counter every writer
//!   increments equals the number of log rows);
//! - the table equals a replay of the binlog as `mariadb-binlog` decodes it (row count of the
//!   log table = INSERT row images in the binlog), when `mariadb-binlog` is installed.

mod common;

use common::{opts, Server};
use mysql::prelude::*;
use mysql::Conn;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const WRITERS: u32 = 4;
/// The `crash.acct` row every writer increments.
const TOTAL: u32 = 1000;

/// Acknowledged commits: (writer, n).
type Acked = Arc<Mutex<BTreeSet<(u32, u64)>>>;

fn run_writers(
    port: u16,
    acked: &Acked,
    start_n: &[u64],
    stop: &Arc<AtomicBool>,
) -> Vec<std::thread::JoinHandle<()>> {
    (0..WRITERS)
        .map(|w| {
            let (acked, stop) = (acked.clone(), stop.clone());
            let mut n = start_n[w as usize];
            std::thread::spawn(move || {
                let Ok(mut c) = Conn::new(opts(port)) else {
                    return;
                };
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    let r = (|| -> mysql::Result<()> {
                        c.query_drop("BEGIN")?;
                        c.exec_drop(
                            "INSERT INTO crash.log (w, n, pad) VALUES (?, ?, REPEAT('p', 100))",
                            (w, n),
                        )?;
                        c.exec_drop("UPDATE crash.acct SET v = v + 1 WHERE id = ?", (w,))?;
                        // Every writer's row conflicts here: recovery must replay these
                        // transactions in commit order for the total to come out right.
                        c.exec_drop("UPDATE crash.acct SET v = v + 1 WHERE id = ?", (TOTAL,))?;
                        c.query_drop("COMMIT")
                    })();
                    match r {
                        Ok(()) => {
                            acked.lock().unwrap().insert((w, n));
                        }
                        Err(_) => return, // the server died: this commit is not acknowledged
                    }
                }
            })
        })
        .collect()
}

/// Check the invariants after a restart; returns each writer's highest n present.
fn check(server: &Server, acked: &Acked) -> Vec<u64> {
    let mut c = server.conn();
    let rows: Vec<(u32, u64)> = c.query("SELECT w, n FROM crash.log").unwrap();
    let present: BTreeSet<(u32, u64)> = rows.iter().copied().collect();
    for a in acked.lock().unwrap().iter() {
        assert!(present.contains(a), "acknowledged commit {a:?} lost");
    }
    let total: i64 = c
        .exec_first("SELECT v FROM crash.acct WHERE id = ?", (TOTAL,))
        .unwrap()
        .unwrap();
    assert_eq!(
        total,
        rows.len() as i64,
        "the shared counter and the log rows disagree (conflicting transactions replayed out of order, or a partial one)"
    );
    let mut highest = vec![0u64; WRITERS as usize];
    for w in 0..WRITERS {
        let count = rows.iter().filter(|(x, _)| *x == w).count() as i64;
        let v: i64 = c
            .exec_first("SELECT v FROM crash.acct WHERE id = ?", (w,))
            .unwrap()
            .unwrap();
        assert_eq!(
            v, count,
            "writer {w}: counter and log rows disagree (partial transaction)"
        );
        highest[w as usize] = rows
            .iter()
            .filter(|(x, _)| *x == w)
            .map(|(_, n)| *n)
            .max()
            .unwrap_or(0);
    }
    highest
}

/// Count the INSERT images of crash.log in every binlog file, decoded by mariadb-binlog.
fn binlog_inserts(datadir: &Path) -> Option<usize> {
    let tool = Command::new("mariadb-binlog")
        .arg("--version")
        .output()
        .ok()?;
    if !tool.status.success() {
        return None;
    }
    let index = std::fs::read_to_string(datadir.join("binlog.index")).ok()?;
    let mut total = 0;
    for line in index.lines() {
        let file = datadir.join(line.trim_start_matches("./"));
        let out = Command::new("mariadb-binlog")
            .args(["-c", "-vv", "--base64-output=decode-rows"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "mariadb-binlog failed on {}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        total += String::from_utf8_lossy(&out.stdout)
            .matches("### INSERT INTO `crash`.`log`")
            .count();
    }
    Some(total)
}

fn setup(server: &Server) {
    let mut c = server.conn();
    c.query_drop("CREATE DATABASE crash").unwrap();
    c.query_drop("CREATE TABLE crash.acct (id INT PRIMARY KEY, v BIGINT NOT NULL)")
        .unwrap();
    c.query_drop("CREATE TABLE crash.log (w INT NOT NULL, n BIGINT NOT NULL, pad VARCHAR(200), PRIMARY KEY (w, n))").unwrap();
    for w in (0..WRITERS).chain([TOTAL]) {
        c.exec_drop("INSERT INTO crash.acct VALUES (?, 0)", (w,))
            .unwrap();
    }
}

/// One scenario: `cycles` runs of {start, write, crash}, checking after every restart.
fn crash_cycles(name: &str, failpoint: Option<&str>, extra: &[&str], cycles: usize) {
    let datadir = common::temp_datadir("crash", name);
    let acked: Acked = Arc::default();
    let mut next = vec![0u64; WRITERS as usize];
    let first = Server::start(&datadir, extra);
    setup(&first);
    let mut server = first;
    for cycle in 0..cycles {
        let stop = Arc::new(AtomicBool::new(false));
        let acked_before = acked.lock().unwrap().len();
        let writers = run_writers(server.port, &acked, &next, &stop);
        std::thread::sleep(Duration::from_millis(150 + rand::random::<u64>() % 250));
        // On a loaded host the writers may not have committed yet: crash only once this cycle
        // has acknowledged something, so every cycle tests acknowledged commits.
        let deadline = Instant::now() + Duration::from_secs(30);
        while acked.lock().unwrap().len() == acked_before && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        match failpoint {
            Some(fp) => {
                // A failpoint hit by every group can abort the server before it answers the SET.
                let armed = server
                    .conn()
                    .query_drop(format!("SET GLOBAL debug_failpoint = '{fp}'"));
                if let Err(e) = armed {
                    assert!(
                        matches!(e, mysql::Error::IoError(_) | mysql::Error::DriverError(_)),
                        "{name}: arming {fp}: {e}"
                    );
                }
                let died = server.wait_exit(Duration::from_secs(20));
                assert!(died, "{name}: failpoint {fp} was never reached");
            }
            None => server.kill(),
        }
        stop.store(true, Ordering::Relaxed);
        writers.into_iter().for_each(|h| h.join().unwrap());
        server = Server::start(&datadir, extra);
        let highest = check(&server, &acked);
        // Writers continue above anything present (an unacknowledged commit may be present).
        for (i, h) in highest.iter().enumerate() {
            next[i] = next[i].max(*h) + 1000;
        }
        assert!(
            acked.lock().unwrap().len() > acked_before,
            "{name} cycle {cycle}: nothing was committed in 30 s"
        );
    }
    let rows: usize = server
        .conn()
        .query_first("SELECT COUNT(*) FROM crash.log")
        .unwrap()
        .unwrap();
    if let Some(images) = binlog_inserts(&datadir) {
        assert_eq!(
            images, rows,
            "{name}: the table differs from a replay of the binlog"
        );
    }
    server.kill();
    let _ = std::fs::remove_dir_all(&datadir);
    let _ = std::fs::remove_file(datadir.with_extension("log"));
}

#[test]
fn kill_9_at_random_moments() {
    crash_cycles("random", None, &[], 3);
}

#[test]
fn crash_at_each_pipeline_step() {
    for fp in [
        "after_prepare",
        "before_binlog_write",
        "after_binlog_write",
        "after_binlog_sync",
        "after_engine_commit",
    ] {
        crash_cycles(fp, Some(fp), &[], 2);
    }
}

#[test]
fn crash_during_rotation() {
    for fp in ["before_rotate", "after_rotate"] {
        crash_cycles(fp, Some(fp), &["--max-binlog-size", "8192"], 2);
    }
}

#[test]
fn crash_with_chained_commits_and_broadcast_wakeups() {
    let extra = [
        "--binlog-optimize-thread-scheduling",
        "OFF",
        "--commit-wakeup",
        "broadcast",
    ];
    crash_cycles("chained", None, &extra, 2);
    crash_cycles("chained-fp", Some("after_binlog_sync"), &extra, 1);
    let classic = [&extra[..], &["--commit-mode", "classic"]].concat();
    crash_cycles("chained-classic", None, &classic, 1);
    crash_cycles(
        "chained-classic-fp",
        Some("after_commit_record"),
        &classic,
        1,
    );
}

#[test]
fn crash_with_frequent_checkpoints() {
    let extra = [
        "--checkpoint-log-bytes",
        "4096",
        "--max-binlog-size",
        "65536",
    ];
    crash_cycles("checkpoints", None, &extra, 3);
    crash_cycles("during-checkpoint", Some("during_checkpoint"), &extra, 2);
}

#[test]
fn crash_with_the_binlog_off_redo_log_only() {
    let extra = ["--log-bin", "OFF", "--checkpoint-log-bytes", "8192"];
    crash_cycles("redo", None, &extra, 3);
    for fp in [
        "after_prepare",
        "after_binlog_write",
        "after_binlog_sync",
        "during_checkpoint",
    ] {
        crash_cycles(&format!("redo-{fp}"), Some(fp), &extra, 1);
    }
}

/// Classic two-phase commit (`--commit-mode classic`): kill -9 at random moments and an abort
/// at every failpoint of the classic pipeline, with frequent checkpoints and rotations so the
/// checkpoint and rotation failpoints are reached and recovery starts from a checkpoint.
fn classic_crash_cycles(placement: &str) {
    let extra = [
        "--commit-mode",
        "classic",
        "--log-flush-placement",
        placement,
        "--checkpoint-log-bytes",
        "8192",
        "--max-binlog-size",
        "32768",
    ];
    crash_cycles(&format!("classic-{placement}"), None, &extra, 3);
    for fp in [
        "after_prepare",
        "after_redo_sync",
        "before_binlog_write",
        "after_binlog_write",
        "after_binlog_sync",
        "after_engine_commit",
        "after_commit_record",
        "during_checkpoint",
        "before_rotate",
        "after_rotate",
    ] {
        crash_cycles(&format!("classic-{placement}-{fp}"), Some(fp), &extra, 2);
    }
}

#[test]
fn crash_in_classic_mode_with_the_group_flush() {
    classic_crash_cycles("group");
}

#[test]
fn crash_in_classic_mode_with_the_prepare_flush() {
    classic_crash_cycles("prepare");
}

/// A data directory keeps its log mode: classic and one-log directories refuse each other,
/// and classic without the binlog is refused with a clear message.
#[test]
fn classic_mode_is_checked_at_startup() {
    let run = |datadir: &Path, extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_cohort"))
            .args([
                "serve",
                "--port",
                &common::free_port().to_string(),
                "--datadir",
            ])
            .arg(datadir)
            .args(extra)
            .output()
            .unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let d = common::temp_datadir("crash", "classic-marker");
    let err = run(&d, &["--log-bin", "OFF", "--commit-mode", "classic"]);
    assert!(
        err.contains("commit_mode=classic needs the binary log"),
        "{err}"
    );
    let s = Server::start(&d, &["--commit-mode", "classic"]);
    s.kill();
    assert_eq!(
        std::fs::read_to_string(d.join("log_mode")).unwrap().trim(),
        "classic"
    );
    let err = run(&d, &[]);
    assert!(err.contains("log_bin=ON, commit_mode=classic"), "{err}");
    let err = run(&d, &["--log-bin", "OFF"]);
    assert!(err.contains("refusing to start"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
    let _ = std::fs::remove_file(d.with_extension("log"));
}

/// The binlog written in classic mode is the same MariaDB format: `mariadb-binlog -c -vv
/// --base64-output=decode-rows` decodes every file (across a restart, so more than one) with
/// exit 0 and shows the row images written.
#[test]
fn classic_binlog_decodes_with_mariadb_binlog() {
    if Command::new("mariadb-binlog")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIP: mariadb-binlog is not installed");
        return;
    }
    let d = common::temp_datadir("crash", "classic-decode");
    let extra = ["--commit-mode", "classic"];
    let s = Server::start(&d, &extra);
    let mut c = s.conn();
    c.query_drop("CREATE DATABASE dec").unwrap();
    c.query_drop("CREATE TABLE dec.t (id INT PRIMARY KEY, name VARCHAR(20), amount DECIMAL(10,2))")
        .unwrap();
    c.query_drop("INSERT INTO dec.t VALUES (1, 'alice', 12.50), (2, 'bob', NULL)")
        .unwrap();
    drop(c);
    s.kill();
    let s = Server::start(&d, &extra);
    let mut c = s.conn();
    c.query_drop("UPDATE dec.t SET name = 'carol' WHERE id = 2")
        .unwrap();
    c.query_drop("DELETE FROM dec.t WHERE id = 1").unwrap();
    let rows: Vec<(i32, String)> = c.query("SELECT id, name FROM dec.t").unwrap();
    assert_eq!(rows, vec![(2, "carol".to_string())]);
    drop(c);
    s.kill();
    let index = std::fs::read_to_string(d.join("binlog.index")).unwrap();
    let mut decoded = String::new();
    for line in index.lines() {
        let out = Command::new("mariadb-binlog")
            .args(["-c", "-vv", "--base64-output=decode-rows"])
            .arg(d.join(line.trim_start_matches("./")))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "mariadb-binlog failed on {line}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        decoded += &String::from_utf8_lossy(&out.stdout);
    }
    assert!(index.lines().count() >= 2, "{index}");
    for want in [
        "CREATE TABLE dec.t",
        "### INSERT INTO `dec`.`t`",
        "###   @2='alice'",
        "###   @3=12.50",
        "### UPDATE `dec`.`t`",
        "###   @2='carol'",
        "### DELETE FROM `dec`.`t`",
    ] {
        assert!(decoded.contains(want), "missing {want:?} in:\n{decoded}");
    }
    let _ = std::fs::remove_dir_all(&d);
    let _ = std::fs::remove_file(d.with_extension("log"));
}
