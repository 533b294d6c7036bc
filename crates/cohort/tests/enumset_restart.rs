//! ENUM, SET and JSON columns survive a restart, in every log mode.
//!
//! A table with ENUM / SET / JSON columns (a SET of more than 8 members, whose binlog form is
//! 2 bytes; secondary and unique keys on them) is written, a checkpoint is taken (small
//! `--checkpoint-log-bytes`: the checkpoint carries the table definition with its members),
//! more rows go to the log after it (replayed from the binlog, where ENUM and SET are packed
//! numbers, or from the redo log), the server is killed (kill -9) and restarted. Every value,
//! the definition, the keys and the JSON column's CHECK must be as before.

mod common;

use common::{wait_for_checkpoint, Server};
use mysql::prelude::*;
use mysql::Value;
use std::path::PathBuf;

const SELECT: &str = "SELECT id, e, e + 0, s, s + 0, j, w FROM d.t ORDER BY id";

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
    let binary: Vec<Vec<String>> = c.exec_map(SELECT, (), to_strings).unwrap();
    assert_eq!(out, binary, "text and binary protocol differ");
    let create: (String, String) = c.query_first("SHOW CREATE TABLE d.t").unwrap().unwrap();
    out.push(vec![create.1]);
    let by_key: Vec<u32> = c
        .query("SELECT id FROM d.t WHERE e = 'MID' ORDER BY id")
        .unwrap();
    out.push(by_key.iter().map(|i| i.to_string()).collect());
    let by_set: Vec<u32> = c
        .query("SELECT id FROM d.t WHERE w = 'm1,m9' ORDER BY id")
        .unwrap();
    out.push(by_set.iter().map(|i| i.to_string()).collect());
    out
}

fn restart_keeps_enums(name: &str, extra: &[&str]) {
    let datadir: PathBuf =
        std::env::temp_dir().join(format!("cohort-enumset-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&datadir);
    let mut args = extra.to_vec();
    args.extend(["--checkpoint-log-bytes", "8192"]);
    let server = Server::start(&datadir, &args);
    let mut c = server.conn();
    c.query_drop("CREATE DATABASE d").unwrap();
    c.query_drop(
        "CREATE TABLE d.t (id INT PRIMARY KEY, e ENUM('lo','mid','hi') NOT NULL, \
         s SET('a','b','c'), j JSON, \
         w SET('m0','m1','m2','m3','m4','m5','m6','m7','m8','m9'), KEY (e), UNIQUE KEY (s))",
    )
    .unwrap();
    c.query_drop(
        "INSERT INTO d.t VALUES (1, 'mid', 'c,a', '{\"k\": [1, 2]}', 'm9,m1'), \
         (2, 3, NULL, NULL, '')",
    )
    .unwrap();
    // Enough log to pass --checkpoint-log-bytes.
    for i in 100..400 {
        c.query_drop(format!(
            "INSERT INTO d.t (id, e, j) VALUES ({i}, {}, '[{i}]')",
            i % 3 + 1
        ))
        .unwrap();
    }
    wait_for_checkpoint(&datadir);
    c.query_drop("INSERT INTO d.t VALUES (3, 'Mid', 'b', 'true', 'm1,m9')")
        .unwrap();
    c.query_drop("UPDATE d.t SET e = 'lo', s = 'a,b,c' WHERE id = 2")
        .unwrap();
    c.query_drop("DELETE FROM d.t WHERE id >= 100 AND id < 390")
        .unwrap();
    let before = read(&server);
    assert_eq!(
        before[0],
        vec!["1", "mid", "2", "a,c", "5", "{\"k\": [1, 2]}", "m1,m9"],
        "{name}"
    );
    server.kill();

    let server = Server::start(&datadir, &args);
    let after = read(&server);
    assert_eq!(after, before, "{name}: values changed across the restart");
    let mut c = server.conn();
    // The JSON column's CHECK and the unique SET key still hold.
    assert!(c
        .query_drop("INSERT INTO d.t (id, e, j) VALUES (4, 'lo', '{bad')")
        .is_err());
    assert!(c
        .query_drop("INSERT INTO d.t (id, e, s) VALUES (4, 'lo', 'b')")
        .is_err());
    server.kill();
    let _ = std::fs::remove_dir_all(&datadir);
    let _ = std::fs::remove_file(datadir.with_extension("log"));
}

#[test]
fn enums_survive_restart_in_one_log_mode() {
    restart_keeps_enums("onelog", &[]);
}

#[test]
fn enums_survive_restart_in_classic_mode() {
    restart_keeps_enums("classic", &["--commit-mode", "classic"]);
}

#[test]
fn enums_survive_restart_with_the_binlog_off() {
    restart_keeps_enums("nobinlog", &["--log-bin", "OFF"]);
}
