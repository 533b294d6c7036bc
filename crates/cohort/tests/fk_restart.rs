//! FOREIGN KEY and CHECK definitions survive a restart, in every log mode: one table's constraints are
//! in a checkpoint (the catalog image), another's were added after it (replayed from the log's
//! DDL), the server is killed (kill -9) and restarted, and SHOW CREATE TABLE, the checks and
//! the cascades are as before.

mod common;

use common::Server;
use mysql::prelude::*;
use mysql::Conn;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Write filler rows until a checkpoint file appears.
fn wait_for_checkpoint(datadir: &Path, c: &mut Conn) {
    c.query_drop("CREATE TABLE d.filler (id INT PRIMARY KEY AUTO_INCREMENT, s VARCHAR(500))")
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        c.query_drop(format!(
            "INSERT INTO d.filler (s) VALUES ('{}')",
            "x".repeat(500)
        ))
        .unwrap();
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

fn show_create(c: &mut Conn, t: &str) -> String {
    let row: (String, String) = c
        .query_first(format!("SHOW CREATE TABLE d.{t}"))
        .unwrap()
        .unwrap();
    row.1
}

fn error_code(r: mysql::Result<()>) -> u16 {
    match r {
        Err(mysql::Error::MySqlError(e)) => e.code,
        other => panic!("expected a server error, got {other:?}"),
    }
}

fn restart_keeps_foreign_keys(name: &str, extra: &[&str]) {
    let datadir: PathBuf =
        std::env::temp_dir().join(format!("cohort-fk-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&datadir);
    let mut args = extra.to_vec();
    args.extend(["--checkpoint-log-bytes", "8192"]);
    let server = Server::start(&datadir, &args);
    let mut c = server.conn();
    c.query_drop("CREATE DATABASE d").unwrap();
    c.query_drop("CREATE TABLE d.p (id INT PRIMARY KEY, v INT CHECK (v >= 0), KEY (v))")
        .unwrap();
    c.query_drop(
        "CREATE TABLE d.c (id INT PRIMARY KEY, pid INT, \
         CONSTRAINT c_p FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE ON UPDATE SET NULL)",
    )
    .unwrap();
    for i in 0..300 {
        c.query_drop(format!("INSERT INTO d.p VALUES ({i}, {i})"))
            .unwrap();
    }
    c.query_drop("INSERT INTO d.c VALUES (1, 1), (2, 2), (3, 2)")
        .unwrap();
    wait_for_checkpoint(&datadir, &mut c);
    // After the checkpoint: a table and a constraint only the log knows.
    c.query_drop("CREATE TABLE d.g (id INT PRIMARY KEY, pv INT REFERENCES p (v))")
        .unwrap();
    c.query_drop("ALTER TABLE d.c ADD FOREIGN KEY (id) REFERENCES p (id)")
        .unwrap();
    c.query_drop("INSERT INTO d.g VALUES (1, 5)").unwrap();
    c.query_drop("ALTER TABLE d.g ADD CONSTRAINT small CHECK (id < 100)")
        .unwrap();
    let before: Vec<String> = ["p", "c", "g"]
        .iter()
        .map(|t| show_create(&mut c, t))
        .collect();
    assert!(
        before[1].contains("CONSTRAINT `c_ibfk_1` FOREIGN KEY (`id`)"),
        "{}",
        before[1]
    );
    server.kill();

    let server = Server::start(&datadir, &args);
    let mut c = server.conn();
    let after: Vec<String> = ["p", "c", "g"]
        .iter()
        .map(|t| show_create(&mut c, t))
        .collect();
    assert_eq!(
        after, before,
        "{name}: definitions changed across the restart"
    );
    // Still enforced: a child without parent, a referenced parent, the cascades.
    assert_eq!(
        error_code(c.query_drop("INSERT INTO d.c VALUES (500, 1)")),
        1452,
        "{name}"
    );
    assert_eq!(
        error_code(c.query_drop("DELETE FROM d.p WHERE id = 5")),
        1451,
        "{name}"
    );
    assert_eq!(error_code(c.query_drop("DROP TABLE d.p")), 1451, "{name}");
    assert_eq!(
        error_code(c.query_drop("INSERT INTO d.p VALUES (5000, -1)")),
        4025,
        "{name}"
    );
    assert_eq!(
        error_code(c.query_drop("INSERT INTO d.g VALUES (100, NULL)")),
        4025,
        "{name}"
    );
    c.query_drop("ALTER TABLE d.c DROP FOREIGN KEY c_ibfk_1")
        .unwrap();
    // ON UPDATE SET NULL, then ON DELETE CASCADE.
    c.query_drop("UPDATE d.p SET id = 2000 WHERE id = 2")
        .unwrap();
    c.query_drop("DELETE FROM d.p WHERE id = 1").unwrap();
    let left: Vec<(u32, Option<u32>)> = c.query("SELECT id, pid FROM d.c ORDER BY id").unwrap();
    assert_eq!(left, vec![(2, None), (3, None)], "{name}");
    server.kill();
    let _ = std::fs::remove_dir_all(&datadir);
    let _ = std::fs::remove_file(datadir.with_extension("log"));
}

#[test]
fn foreign_keys_survive_restart_in_one_log_mode() {
    restart_keeps_foreign_keys("onelog", &[]);
}

#[test]
fn foreign_keys_survive_restart_in_classic_mode() {
    restart_keeps_foreign_keys("classic", &["--commit-mode", "classic"]);
}

#[test]
fn foreign_keys_survive_restart_with_the_binlog_off() {
    restart_keeps_foreign_keys("nobinlog", &["--log-bin", "OFF"]);
}
