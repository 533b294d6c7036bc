//! DECIMAL values survive a restart exactly, in every log mode.
//!
//! Issue 18: a `DECIMAL(65,30)` row wrote a redo record (classic mode, `--log-bin OFF`) or a
//! checkpoint (one-log mode) that the server could not read back ("bad decimal flags"), so the
//! data directory never started again; `-0.00` came back as `0.00`. Here a table with every
//! DECIMAL extreme is written, a checkpoint is taken (small `--checkpoint-log-bytes`), more
//! rows go to the log after it, the server is killed (kill -9) and restarted, and every value
//! must read back exactly as before, over the text and the binary protocol.

mod common;

use common::{wait_for_checkpoint, Server};
use mysql::prelude::*;
use mysql::{Conn, Value};
use std::path::PathBuf;

const NINES35: &str = "99999999999999999999999999999999999";
const NINES30: &str = "999999999999999999999999999999";

/// (id, a DECIMAL(65,30), b DECIMAL(65,0), e DECIMAL(38,38), o DECIMAL(1,0), p DECIMAL(1,1),
/// c DECIMAL(10,2)) as inserted, and as every later SELECT must show them.
fn rows() -> Vec<(u32, [&'static str; 6], [String; 6])> {
    let max65 = "9".repeat(65);
    let e_max = format!("0.{}", "9".repeat(38));
    let e_min = format!("-0.{}1", "0".repeat(37));
    let a_max = format!("{NINES35}.{NINES30}");
    let a_min = format!("-{NINES35}.{NINES30}");
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    vec![
        (
            1,
            ["0.5", "0", "0", "0", "0", "-0.00"],
            [
                "0.500000000000000000000000000000".into(),
                "0".into(),
                format!("0.{}", "0".repeat(38)),
                "0".into(),
                "0.0".into(),
                "0.00".into(),
            ],
        ),
        (
            2,
            [
                leak(a_max.clone()),
                leak(max65.clone()),
                leak(e_max.clone()),
                "9",
                "0.9",
                "99999999.99",
            ],
            [
                a_max,
                max65.clone(),
                e_max,
                "9".into(),
                "0.9".into(),
                "99999999.99".into(),
            ],
        ),
        (
            3,
            [
                leak(a_min.clone()),
                leak(format!("-{max65}")),
                leak(e_min.clone()),
                "-9",
                "-0.9",
                "-0.001",
            ],
            [
                a_min,
                format!("-{max65}"),
                e_min,
                "-9".into(),
                "-0.9".into(),
                "0.00".into(),
            ],
        ),
        (
            4,
            [
                "-0.000000000000000000000000000001",
                "1",
                "0.5",
                "1",
                "0.1",
                "1.005",
            ],
            [
                "-0.000000000000000000000000000001".into(),
                "1".into(),
                format!("0.5{}", "0".repeat(37)),
                "1".into(),
                "0.1".into(),
                "1.01".into(),
            ],
        ),
    ]
}

const SELECT: &str = "SELECT id, a, b, e, o, p, c FROM d.t WHERE id < 100 ORDER BY id";

fn text(v: &Value) -> String {
    match v {
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        other => format!("{other:?}"),
    }
}

/// The table over the text protocol and over the binary protocol (prepared), as strings.
fn read(server: &Server) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let mut c = server.conn();
    let to_strings = |r: mysql::Row| r.unwrap().iter().map(text).collect::<Vec<_>>();
    let t: Vec<Vec<String>> = c.query_map(SELECT, to_strings).unwrap();
    let b: Vec<Vec<String>> = c.exec_map(SELECT, (), to_strings).unwrap();
    (t, b)
}

fn expected() -> Vec<Vec<String>> {
    rows()
        .into_iter()
        .map(|(id, _, shown)| {
            std::iter::once(id.to_string())
                .chain(shown.iter().cloned())
                .collect()
        })
        .collect()
}

fn restart_keeps_decimals(name: &str, extra: &[&str]) {
    let datadir: PathBuf =
        std::env::temp_dir().join(format!("cohort-decimal-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&datadir);
    let mut args = extra.to_vec();
    args.extend(["--checkpoint-log-bytes", "8192"]);
    let server = Server::start(&datadir, &args);
    let mut c = server.conn();
    c.query_drop("CREATE DATABASE d").unwrap();
    c.query_drop(
        "CREATE TABLE d.t (id INT PRIMARY KEY, a DECIMAL(65,30), b DECIMAL(65,0), \
         e DECIMAL(38,38), o DECIMAL(1,0), p DECIMAL(1,1), c DECIMAL(10,2), KEY (a), KEY (c))",
    )
    .unwrap();
    // Half the rows before the checkpoint, half after it (replayed from the log).
    let all = rows();
    let insert = |c: &mut Conn, (id, vals, _): &(u32, [&str; 6], [String; 6])| {
        c.query_drop(format!(
            "INSERT INTO d.t VALUES ({id}, {}, {}, {}, {}, {}, {})",
            vals[0], vals[1], vals[2], vals[3], vals[4], vals[5]
        ))
        .unwrap();
    };
    for r in &all[..2] {
        insert(&mut c, r);
    }
    // Enough log to pass --checkpoint-log-bytes.
    for i in 100..400 {
        c.query_drop(format!(
            "INSERT INTO d.t (id, a, c) VALUES ({i}, {i}.{NINES30}, -{i}.5)"
        ))
        .unwrap();
    }
    wait_for_checkpoint(&datadir);
    for r in &all[2..] {
        insert(&mut c, r);
    }
    let before = read(&server);
    assert_eq!(before.0, expected(), "{name}: text protocol before restart");
    assert_eq!(
        before.1,
        expected(),
        "{name}: binary protocol before restart"
    );
    server.kill();

    let server = Server::start(&datadir, &args);
    let after = read(&server);
    assert_eq!(after, before, "{name}: values changed across the restart");
    // Indexes were rebuilt in order: -0.00 equals 0.00, scales compare numerically.
    let mut c = server.conn();
    let ids: Vec<u32> = c
        .query("SELECT id FROM d.t WHERE c = 0 ORDER BY id")
        .unwrap();
    assert_eq!(ids, vec![1, 3], "{name}");
    let ids: Vec<u32> = c
        .query(format!(
            "SELECT id FROM d.t WHERE a >= -{NINES35}.{NINES30} AND a < 1 ORDER BY a"
        ))
        .unwrap();
    assert_eq!(ids, vec![3, 4, 1], "{name}");
    let sum: String = c
        .query_first("SELECT SUM(a) FROM d.t WHERE id >= 100")
        .unwrap()
        .unwrap();
    assert_eq!(sum, "75149.999999999999999999999999999700", "{name}");
    server.kill();
    let _ = std::fs::remove_dir_all(&datadir);
    let _ = std::fs::remove_file(datadir.with_extension("log"));
}

#[test]
fn decimals_survive_restart_in_one_log_mode() {
    restart_keeps_decimals("onelog", &[]);
}

#[test]
fn decimals_survive_restart_in_classic_mode() {
    restart_keeps_decimals("classic", &["--commit-mode", "classic"]);
}

#[test]
fn decimals_survive_restart_with_the_binlog_off() {
    restart_keeps_decimals("nobinlog", &["--log-bin", "OFF"]);
}
