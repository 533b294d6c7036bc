//! TIME and BIT values survive a restart exactly, in every log mode.
//!
//! A table with TIME(0), TIME(3), BIT(5) and BIT(64) columns (indexed) gets rows before a
//! checkpoint (small `--checkpoint-log-bytes`) and after it (replayed from the log), one of
//! them inserted through a prepared statement with TIME and integer parameters; the server is
//! killed (kill -9) and restarted, and every value must read back as before over the text and
//! the binary protocol, with the indexes still in order.

mod common;

use common::{wait_for_checkpoint, Server};
use mysql::prelude::*;
use mysql::{Conn, Value};
use std::path::PathBuf;

const SELECT: &str = "SELECT id, a, b, HEX(c), e + 0 FROM d.t WHERE id < 100 ORDER BY id";

fn text(v: &Value) -> String {
    match v {
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Time(neg, d, h, m, s, us) => format!(
            "{}{:02}:{m:02}:{s:02}.{us:06}",
            if *neg { "-" } else { "" },
            *d * 24 + u32::from(*h)
        ),
        other => format!("{other:?}"),
    }
}

fn read(server: &Server) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let mut c = server.conn();
    let to_strings = |r: mysql::Row| r.unwrap().iter().map(text).collect::<Vec<_>>();
    let t: Vec<Vec<String>> = c.query_map(SELECT, to_strings).unwrap();
    let b: Vec<Vec<String>> = c.exec_map(SELECT, (), to_strings).unwrap();
    (t, b)
}

fn restart_keeps_time_and_bit(name: &str, extra: &[&str]) {
    let datadir: PathBuf =
        std::env::temp_dir().join(format!("cohort-bittime-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&datadir);
    let mut args = extra.to_vec();
    args.extend(["--checkpoint-log-bytes", "8192"]);
    let server = Server::start(&datadir, &args);
    let mut c = server.conn();
    c.query_drop("CREATE DATABASE d").unwrap();
    c.query_drop(
        "CREATE TABLE d.t (id INT PRIMARY KEY, a TIME, b TIME(3) DEFAULT '-1:02:03.5', \
         c BIT(5), e BIT(64), KEY (a), KEY (c))",
    )
    .unwrap();
    let insert = |c: &mut Conn, sql: &str| c.query_drop(sql).unwrap();
    insert(
        &mut c,
        "INSERT INTO d.t VALUES (1, '838:59:59', '-838:59:59.999', b'10101', 18446744073709551615), \
         (2, '-00:00:01', '1 02:03:04.5', 0, 0)",
    );
    for i in 100..400 {
        insert(
            &mut c,
            &format!(
                "INSERT INTO d.t (id, a, c) VALUES ({i}, SEC_TO_TIME({i} * 7), {})",
                i % 32
            ),
        );
    }
    wait_for_checkpoint(&datadir);
    insert(
        &mut c,
        "INSERT INTO d.t (id, a, c, e) VALUES (3, 123456, 31, b'1')",
    );
    // Binary protocol parameters: a TIME and an integer for the BIT column.
    c.exec_drop(
        "INSERT INTO d.t (id, a, b, c, e) VALUES (?, ?, ?, ?, ?)",
        (
            4,
            Value::Time(true, 1, 2, 3, 4, 0),
            Value::Time(false, 0, 10, 0, 0, 250_000),
            7,
            1u64 << 63,
        ),
    )
    .unwrap();
    let before = read(&server);
    let want: Vec<Vec<String>> = [
        [
            "1",
            "838:59:59",
            "-838:59:59.999",
            "15",
            "18446744073709551615",
        ],
        ["2", "-00:00:01", "26:03:04.500", "0", "0"],
        ["3", "12:34:56", "-01:02:03.500", "1F", "1"],
        ["4", "-26:03:04", "10:00:00.250", "7", "9223372036854775808"],
    ]
    .iter()
    .map(|r| r.iter().map(|s| s.to_string()).collect())
    .collect();
    assert_eq!(before.0, want, "{name}: text protocol before restart");
    assert_eq!(before.1.len(), 4, "{name}: binary protocol before restart");
    server.kill();

    let server = Server::start(&datadir, &args);
    let after = read(&server);
    assert_eq!(after, before, "{name}: values changed across the restart");
    let mut c = server.conn();
    let ids: Vec<u32> = c
        .query("SELECT id FROM d.t WHERE a < '00:00:00' ORDER BY a")
        .unwrap();
    assert_eq!(ids, vec![4, 2], "{name}");
    let ids: Vec<u32> = c
        .query("SELECT id FROM d.t WHERE c = b'10101' AND id < 100 ORDER BY id")
        .unwrap();
    assert_eq!(ids, vec![1], "{name}");
    let n: u32 = c
        .query_first("SELECT COUNT(*) FROM d.t WHERE c = 21")
        .unwrap()
        .unwrap();
    assert_eq!(n, 10, "{name}");
    // A raw BIT value is its big-endian bytes over both protocols.
    let sql = "SELECT c, e FROM d.t WHERE id = 1";
    let text: Option<(Vec<u8>, Vec<u8>)> = c.query_first(sql).unwrap();
    let binary: Option<(Vec<u8>, Vec<u8>)> = c.exec_first(sql, ()).unwrap();
    let want = Some((vec![0x15], vec![0xff; 8]));
    assert_eq!(text, want, "{name}");
    assert_eq!(binary, want, "{name}");
    server.kill();
    let _ = std::fs::remove_dir_all(&datadir);
    let _ = std::fs::remove_file(datadir.with_extension("log"));
}

#[test]
fn time_and_bit_survive_restart_in_one_log_mode() {
    restart_keeps_time_and_bit("onelog", &[]);
}

#[test]
fn time_and_bit_survive_restart_in_classic_mode() {
    restart_keeps_time_and_bit("classic", &["--commit-mode", "classic"]);
}

#[test]
fn time_and_bit_survive_restart_with_the_binlog_off() {
    restart_keeps_time_and_bit("nobinlog", &["--log-bin", "OFF"]);
}
