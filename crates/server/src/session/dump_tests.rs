//! What a MariaDB dump sends, driven as a client sends it: raw bytes in literals,
//! executable comments, the variables dumps set, ALTER TABLE … DISABLE KEYS, LOCK TABLES.

use super::multi_kill_tests::{run, session};
use super::tests::{context_on, queries};
use crate::log::device::SimDir;
use std::time::Duration;

fn one(s: &mut super::Session, sql: &str) -> String {
    let got = run(s, sql);
    assert_eq!(got.len(), 1, "{sql}: {got:?}");
    got[0].0.clone()
}

#[test]
fn raw_bytes_in_a_literal_reach_a_blob_unchanged() {
    let ctx = context_on(&SimDir::new());
    let mut s = session(&ctx, 1, "root", 0);
    one(&mut s, "CREATE DATABASE d");
    one(
        &mut s,
        "CREATE TABLE d.t (id INT PRIMARY KEY, b BLOB DEFAULT NULL)",
    );
    // Every byte value, escaped as mariadb-dump escapes them, the rest raw.
    let mut sql = b"INSERT INTO d.t VALUES (1, '".to_vec();
    for b in 0..=255u8 {
        match b {
            0 => sql.extend_from_slice(b"\\0"),
            b'\'' | b'"' | b'\\' => sql.extend_from_slice(&[b'\\', b]),
            b'\n' => sql.extend_from_slice(b"\\n"),
            b'\r' => sql.extend_from_slice(b"\\r"),
            0x1a => sql.extend_from_slice(b"\\Z"),
            _ => sql.push(b),
        }
    }
    sql.extend_from_slice(b"')");
    let mut bytes = Vec::new();
    let mut payload = vec![cohort_protocol::command_code::QUERY];
    payload.extend_from_slice(&sql);
    cohort_protocol::write_packet(&mut bytes, &mut 0, &payload);
    let mut out = Vec::new();
    s.on_bytes(&bytes, &mut out);
    assert_eq!(super::multi_kill_tests::results(&out)[0].0, "ok 1");
    let all: String = (0..=255u8).map(|b| format!("{b:02X}")).collect();
    assert_eq!(one(&mut s, "SELECT HEX(b) FROM d.t"), format!("rows {all}"));
    assert_eq!(one(&mut s, "SELECT LENGTH(b) FROM d.t"), "rows 256");
}

#[test]
fn executable_comments_and_dump_variables() {
    let ctx = context_on(&SimDir::new());
    let mut s = session(&ctx, 1, "root", 0);
    assert_eq!(
        one(&mut s, "SELECT 1 /*!40101 + 1 */ /*!50700 + 10 */"),
        "rows 2"
    );
    assert_eq!(
        one(&mut s, "SELECT 1 /*M!100100 + 1 */ /*M!999999 + 10 */"),
        "rows 2"
    );
    assert_eq!(
        one(
            &mut s,
            "/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */"
        ),
        "ok 0"
    );
    assert_eq!(
        one(&mut s, "SELECT @OLD_UNIQUE_CHECKS + 0, @@unique_checks + 0"),
        "rows 1"
    );
    for sql in [
        "/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */",
        "/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */",
        "/*!40103 SET TIME_ZONE='+00:00' */",
        "/*!40101 SET character_set_client = utf8mb4 */",
    ] {
        assert_eq!(one(&mut s, sql), "ok 0", "{sql}");
    }
    // sql_notes = 0: the note of DROP TABLE IF EXISTS is not kept.
    one(&mut s, "DROP TABLE IF EXISTS test.nosuch");
    assert_eq!(one(&mut s, "SELECT @@warning_count"), "rows 0");
    one(&mut s, "SET sql_notes = 1");
    one(&mut s, "CREATE DATABASE d");
    one(&mut s, "DROP TABLE IF EXISTS d.nosuch");
    assert_eq!(one(&mut s, "SELECT @@warning_count"), "rows 1");
    one(
        &mut s,
        "CREATE TABLE d.t (id INT PRIMARY KEY, x TEXT DEFAULT NULL)",
    );
    assert_eq!(
        one(&mut s, "/*!40000 ALTER TABLE d.t DISABLE KEYS */"),
        "ok 0"
    );
    assert_eq!(one(&mut s, "ALTER TABLE d.t ENABLE KEYS"), "ok 0");
    assert_eq!(one(&mut s, "ALTER TABLE d.nosuch ENABLE KEYS"), "err 1146");
}

#[test]
fn lock_tables_confines_the_holder_and_makes_others_wait() {
    let ctx = context_on(&SimDir::new());
    let mut a = session(&ctx, 1, "root", 0);
    one(&mut a, "CREATE DATABASE d");
    one(&mut a, "CREATE TABLE d.t (id INT PRIMARY KEY)");
    one(&mut a, "CREATE TABLE d.r (id INT PRIMARY KEY)");
    one(&mut a, "CREATE TABLE d.o (id INT PRIMARY KEY)");
    one(&mut a, "USE d");
    assert_eq!(one(&mut a, "LOCK TABLES t WRITE, r READ"), "ok 0");
    assert_eq!(one(&mut a, "INSERT INTO t VALUES (1)"), "ok 1");
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM r"), "rows 0");
    assert_eq!(one(&mut a, "INSERT INTO r VALUES (1)"), "err 1099");
    assert_eq!(one(&mut a, "SELECT * FROM o"), "err 1100");
    assert_eq!(
        one(
            &mut a,
            "SELECT COUNT(*) > 0 FROM information_schema.PROCESSLIST"
        ),
        "rows 1"
    );
    // Another session reads the READ-locked table, waits for the WRITE-locked one.
    let mut b = session(&ctx, 2, "root", 0);
    one(&mut b, "SET lock_wait_timeout = 1");
    assert_eq!(one(&mut b, "SELECT COUNT(*) FROM d.r"), "rows 0");
    assert_eq!(one(&mut b, "INSERT INTO d.r VALUES (2)"), "err 1205");
    assert_eq!(one(&mut b, "SELECT COUNT(*) FROM d.o"), "rows 0");
    one(&mut b, "SET lock_wait_timeout = 30");
    let waiter = std::thread::spawn(move || {
        let got = run(&mut b, "SELECT COUNT(*) FROM d.t");
        (b, got)
    });
    std::thread::sleep(Duration::from_millis(200));
    assert!(!waiter.is_finished(), "waits for the WRITE lock");
    assert_eq!(one(&mut a, "UNLOCK TABLES"), "ok 0");
    let (_b, got) = waiter.join().unwrap();
    assert_eq!(got[0].0, "rows 1");
    // Released at the end of the connection too.
    one(&mut a, "LOCK TABLES t WRITE");
    let mut out = Vec::new();
    a.on_bytes(&queries(&[]), &mut out);
    a.on_disconnect();
    let mut c = session(&ctx, 3, "root", 0);
    one(&mut c, "SET lock_wait_timeout = 1");
    assert_eq!(one(&mut c, "SELECT COUNT(*) FROM d.t"), "rows 1");
}

/// The statement texts kept for Annotate_rows follow `binlog_annotate_row_events` as the
/// session sets it (its value is cached between statements), and only statements that
/// changed rows keep theirs.
#[test]
fn annotations_follow_the_session_variable() {
    let ctx = context_on(&SimDir::new());
    let mut s = session(&ctx, 1, "root", 0);
    let texts = |s: &super::Session| -> Vec<String> {
        let state = s.state.as_ref().expect("logged in");
        state.annotations.iter().map(|(_, t)| t.clone()).collect()
    };
    one(&mut s, "CREATE DATABASE d");
    one(&mut s, "CREATE TABLE d.t (id INT PRIMARY KEY, x INT)");
    one(&mut s, "INSERT INTO d.t VALUES (1, 1)");
    one(&mut s, "BEGIN");
    assert_eq!(one(&mut s, "SELECT x FROM d.t WHERE id = 1"), "rows 1");
    assert_eq!(one(&mut s, "UPDATE d.t SET x = x WHERE id = 1"), "ok 0");
    assert!(texts(&s).is_empty());
    assert_eq!(one(&mut s, "UPDATE d.t SET x = 2 WHERE id = 1"), "ok 1");
    assert_eq!(texts(&s), ["UPDATE d.t SET x = 2 WHERE id = 1"]);
    one(&mut s, "COMMIT");
    one(&mut s, "SET SESSION binlog_annotate_row_events = OFF");
    one(&mut s, "BEGIN");
    assert_eq!(one(&mut s, "UPDATE d.t SET x = 3 WHERE id = 1"), "ok 1");
    assert!(texts(&s).is_empty());
    one(&mut s, "COMMIT");
    one(&mut s, "SET SESSION binlog_annotate_row_events = ON");
    one(&mut s, "BEGIN");
    assert_eq!(one(&mut s, "UPDATE d.t SET x = 4 WHERE id = 1"), "ok 1");
    assert_eq!(texts(&s).len(), 1);
    one(&mut s, "ROLLBACK");
}
