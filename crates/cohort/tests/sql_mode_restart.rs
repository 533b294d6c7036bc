//! Text read under a parse-affecting `sql_mode` (ANSI_QUOTES, PIPES_AS_CONCAT,
//! NO_BACKSLASH_ESCAPES) keeps its meaning in every session and across a restart.
//!
//! A table whose DEFAULT, CHECK and generated column, and a view whose body, were written
//! under those modes is used from a default-mode session, then the server is killed (kill -9)
//! and restarted: recovery replays the logged DDL under the mode it was logged with, in each
//! log mode. The client also sees SERVER_STATUS_NO_BACKSLASH_ESCAPES while the mode is on
//! (client libraries escape by it).

mod common;

use common::Server;
use mysql::prelude::*;
use std::path::PathBuf;

fn read(server: &Server) -> Vec<String> {
    let mut c = server.conn();
    let mut out: Vec<String> = c
        .query_map(
            "SELECT id, a, b, g FROM d.t ORDER BY id",
            |(id, a, b, g): (i64, String, String, String)| format!("{id}|{a}|{b}|{g}"),
        )
        .unwrap();
    let v: Vec<String> = c
        .query_map(
            "SELECT q, w FROM d.v ORDER BY q",
            |(q, w): (String, String)| format!("{q}|{w}"),
        )
        .unwrap();
    out.extend(v);
    let create: (String, String) = c.query_first("SHOW CREATE TABLE d.t").unwrap().unwrap();
    out.push(create.1);
    out
}

fn restart_keeps_mode_text(name: &str, extra: &[&str]) {
    let datadir: PathBuf =
        std::env::temp_dir().join(format!("cohort-sqlmode-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&datadir);
    let server = Server::start(&datadir, extra);
    let mut c = server.conn();
    assert!(!c.no_backslash_escape(), "{name}");
    c.query_drop("SET sql_mode = 'ANSI_QUOTES,PIPES_AS_CONCAT,NO_BACKSLASH_ESCAPES'")
        .unwrap();
    assert!(c.no_backslash_escape(), "{name}: the SET's OK packet");
    c.query_drop("CREATE DATABASE \"d\"").unwrap();
    c.query_drop(
        "CREATE TABLE d.\"t\" (\"id\" INT PRIMARY KEY, \"a\" VARCHAR(10) DEFAULT 'x\\y', \
         \"b\" VARCHAR(10) DEFAULT ('p' || 'q'), \
         \"g\" VARCHAR(30) AS (\"a\" || '\\' || \"b\") STORED, \
         CHECK (\"a\" <> 'no\\'))",
    )
    .unwrap();
    c.query_drop("CREATE VIEW d.\"v\" AS SELECT \"a\" AS \"q\", 'w\\z' AS \"w\" FROM d.t")
        .unwrap();
    c.query_drop("INSERT INTO d.t (\"id\") VALUES (1)").unwrap();
    assert!(c.no_backslash_escape(), "{name}");
    assert!(c
        .query_drop("INSERT INTO d.t (\"id\", \"a\") VALUES (2, 'no\\')")
        .is_err());
    c.query_drop("SET sql_mode = DEFAULT").unwrap();
    assert!(!c.no_backslash_escape(), "{name}");
    c.query_drop("INSERT INTO d.t (id, a) VALUES (3, 'r\\\\s')")
        .unwrap();
    let before = read(&server);
    assert_eq!(
        before[..4],
        [
            "1|x\\y|pq|x\\y\\pq".to_string(),
            "3|r\\s|pq|r\\s\\pq".to_string(),
            "r\\s|w\\z".to_string(),
            "x\\y|w\\z".to_string(),
        ],
        "{name}"
    );
    server.kill();

    let server = Server::start(&datadir, extra);
    let after = read(&server);
    assert_eq!(after, before, "{name}: changed across the restart");
    let mut c = server.conn();
    assert!(c
        .query_drop("INSERT INTO d.t (id, a) VALUES (4, 'no\\\\')")
        .is_err());
    server.kill();
    let _ = std::fs::remove_dir_all(&datadir);
    let _ = std::fs::remove_file(datadir.with_extension("log"));
}

#[test]
fn mode_text_survives_restart_in_one_log_mode() {
    restart_keeps_mode_text("onelog", &[]);
}

#[test]
fn mode_text_survives_restart_with_the_binlog_off() {
    restart_keeps_mode_text("nobinlog", &["--log-bin", "OFF"]);
}
