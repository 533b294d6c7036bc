//! Generated columns survive a restart, in every log mode.
//!
//! A table with VIRTUAL and STORED generated columns (one reading an earlier generated column,
//! indexes on both kinds, a UNIQUE one) is written, a checkpoint is taken (small
//! `--checkpoint-log-bytes`: the checkpoint carries the definition with the expressions), a
//! column is added by ALTER TABLE and more rows go to the log after it (replayed from the
//! binlog or the redo log), the server is killed (kill -9) and restarted. Every value, the
//! definition and the keys must be as before, and new writes must still compute the columns.

mod common;

use common::{wait_for_checkpoint, Server};
use mysql::prelude::*;
use mysql::Value;
use std::path::PathBuf;

const SELECT: &str = "SELECT id, a, b, c, d, e, f FROM d.t ORDER BY id";

fn text(v: &Value) -> String {
    match v {
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::NULL => "NULL".into(),
        other => format!("{other:?}"),
    }
}

fn read(server: &Server) -> Vec<Vec<String>> {
    let mut c = server.conn();
    let to_strings = |r: mysql::Row| r.unwrap().iter().map(text).collect::<Vec<_>>();
    let mut out: Vec<Vec<String>> = c.query_map(SELECT, to_strings).unwrap();
    let create: (String, String) = c.query_first("SHOW CREATE TABLE d.t").unwrap().unwrap();
    out.push(vec![create.1]);
    let by_virtual: Vec<u32> = c
        .query("SELECT id FROM d.t WHERE c = 'X3' ORDER BY id")
        .unwrap();
    out.push(by_virtual.iter().map(|i| i.to_string()).collect());
    let by_stored: Vec<u32> = c.query("SELECT id FROM d.t WHERE d = 8").unwrap();
    out.push(by_stored.iter().map(|i| i.to_string()).collect());
    out
}

fn restart_keeps_generated(name: &str, extra: &[&str]) {
    let datadir: PathBuf =
        std::env::temp_dir().join(format!("cohort-gencol-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&datadir);
    let mut args = extra.to_vec();
    args.extend(["--checkpoint-log-bytes", "8192"]);
    let server = Server::start(&datadir, &args);
    let mut c = server.conn();
    c.query_drop("CREATE DATABASE d").unwrap();
    c.query_drop(
        "CREATE TABLE d.t (id INT PRIMARY KEY, a INT, b VARCHAR(10), \
         c VARCHAR(20) AS (UPPER(CONCAT(b, a))) VIRTUAL, \
         d INT GENERATED ALWAYS AS (a * 2) PERSISTENT UNIQUE, \
         e INT AS (d + 1) STORED COMMENT 'reads d', KEY (c))",
    )
    .unwrap();
    c.query_drop("INSERT INTO d.t (id, a, b) VALUES (1, 3, 'x'), (2, 4, NULL)")
        .unwrap();
    // Enough log to pass --checkpoint-log-bytes.
    for i in 100..400 {
        c.query_drop(format!(
            "INSERT INTO d.t (id, a, b) VALUES ({i}, {}, 'r')",
            i * 10
        ))
        .unwrap();
    }
    wait_for_checkpoint(&datadir);
    c.query_drop("ALTER TABLE d.t ADD f INT AS (a + id) STORED")
        .unwrap();
    c.query_drop("INSERT INTO d.t (id, a, b) VALUES (3, 5, 'y')")
        .unwrap();
    c.query_drop("UPDATE d.t SET b = 'x', a = 3 + 0 WHERE id = 2")
        .unwrap_err();
    c.query_drop("UPDATE d.t SET b = 'x' WHERE id = 2").unwrap();
    c.query_drop("DELETE FROM d.t WHERE id >= 100 AND id < 390")
        .unwrap();
    let before = read(&server);
    assert_eq!(
        before[0],
        vec!["1", "3", "x", "X3", "6", "7", "4"],
        "{name}"
    );
    assert_eq!(
        before[1],
        vec!["2", "4", "x", "X4", "8", "9", "6"],
        "{name}"
    );
    server.kill();

    let server = Server::start(&datadir, &args);
    let after = read(&server);
    assert_eq!(after, before, "{name}: values changed across the restart");
    let mut c = server.conn();
    // The columns are still computed, and the unique key on one still holds.
    c.query_drop("INSERT INTO d.t (id, a, b) VALUES (4, 7, 'z')")
        .unwrap();
    let row: (String, i64, i64, i64) = c
        .query_first("SELECT c, d, e, f FROM d.t WHERE id = 4")
        .unwrap()
        .unwrap();
    assert_eq!(row, ("Z7".to_string(), 14, 15, 11), "{name}");
    assert!(c
        .query_drop("INSERT INTO d.t (id, a) VALUES (5, 7)")
        .is_err());
    assert!(c
        .query_drop("INSERT INTO d.t (id, a, d) VALUES (6, 1, 2)")
        .is_err());
    server.kill();
    let _ = std::fs::remove_dir_all(&datadir);
    let _ = std::fs::remove_file(datadir.with_extension("log"));
}

#[test]
fn generated_columns_survive_restart_in_one_log_mode() {
    restart_keeps_generated("onelog", &[]);
}

#[test]
fn generated_columns_survive_restart_in_classic_mode() {
    restart_keeps_generated("classic", &["--commit-mode", "classic"]);
}

#[test]
fn generated_columns_survive_restart_with_the_binlog_off() {
    restart_keeps_generated("nobinlog", &["--log-bin", "OFF"]);
}
