//! FOREIGN KEY locking as InnoDB does it: a child insert reads its parent row with a shared
//! lock, so it waits for a transaction that deleted the parent (and fails with 1452 once that
//! one commits, succeeds if it rolls back), and a parent delete waits for a transaction that
//! inserted a child (and fails with 1451 once it commits).

mod common;

use common::Server;
use mysql::prelude::*;
use mysql::Conn;
use std::sync::mpsc;
use std::time::Duration;

fn code(r: &mysql::Result<()>) -> Option<u16> {
    match r {
        Ok(()) => None,
        Err(mysql::Error::MySqlError(e)) => Some(e.code),
        Err(e) => panic!("{e}"),
    }
}

/// Run `sql` on `c` in a thread; the receiver gets its outcome.
fn background(mut c: Conn, sql: &'static str) -> mpsc::Receiver<(Option<u16>, Conn)> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = c.query_drop(sql);
        let _ = tx.send((code(&r), c));
    });
    rx
}

fn setup(server: &Server) -> (Conn, Conn) {
    let mut a = server.conn();
    a.query_drop("CREATE DATABASE IF NOT EXISTS d").unwrap();
    a.query_drop("DROP TABLE IF EXISTS d.c, d.p").unwrap();
    a.query_drop("CREATE TABLE d.p (id INT PRIMARY KEY)")
        .unwrap();
    a.query_drop(
        "CREATE TABLE d.c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))",
    )
    .unwrap();
    a.query_drop("INSERT INTO d.p VALUES (1), (2)").unwrap();
    let b = server.conn();
    (a, b)
}

#[test]
fn child_insert_waits_for_parent_delete() {
    let datadir = common::temp_datadir("fk", "locks1");
    let server = Server::start(&datadir, &[]);
    for commit in [false, true] {
        let (mut a, b) = setup(&server);
        a.query_drop("BEGIN").unwrap();
        a.query_drop("DELETE FROM d.p WHERE id = 1").unwrap();
        let rx = background(b, "INSERT INTO d.c VALUES (1, 1)");
        assert!(
            rx.recv_timeout(Duration::from_millis(500)).is_err(),
            "the child insert must wait for the parent's delete"
        );
        a.query_drop(if commit { "COMMIT" } else { "ROLLBACK" })
            .unwrap();
        let (outcome, _) = rx.recv_timeout(Duration::from_secs(20)).unwrap();
        assert_eq!(outcome, commit.then_some(1452), "commit={commit}");
    }
}

#[test]
fn parent_delete_waits_for_child_insert() {
    let datadir = common::temp_datadir("fk", "locks2");
    let server = Server::start(&datadir, &[]);
    for commit in [false, true] {
        let (mut a, b) = setup(&server);
        a.query_drop("BEGIN").unwrap();
        a.query_drop("INSERT INTO d.c VALUES (1, 2)").unwrap();
        let rx = background(b, "DELETE FROM d.p WHERE id = 2");
        assert!(
            rx.recv_timeout(Duration::from_millis(500)).is_err(),
            "the parent delete must wait for the child's insert"
        );
        a.query_drop(if commit { "COMMIT" } else { "ROLLBACK" })
            .unwrap();
        let (outcome, _) = rx.recv_timeout(Duration::from_secs(20)).unwrap();
        assert_eq!(outcome, commit.then_some(1451), "commit={commit}");
    }
}

#[test]
fn cascade_changes_children_in_the_same_transaction() {
    let datadir = common::temp_datadir("fk", "locks3");
    let server = Server::start(&datadir, &[]);
    let mut a = server.conn();
    a.query_drop("CREATE DATABASE d").unwrap();
    a.query_drop("CREATE TABLE d.p (id INT PRIMARY KEY)")
        .unwrap();
    a.query_drop(
        "CREATE TABLE d.c (id INT PRIMARY KEY, pid INT, \
         FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE)",
    )
    .unwrap();
    a.query_drop("INSERT INTO d.p VALUES (1)").unwrap();
    a.query_drop("INSERT INTO d.c VALUES (1, 1), (2, 1)")
        .unwrap();
    a.query_drop("BEGIN").unwrap();
    a.query_drop("DELETE FROM d.p WHERE id = 1").unwrap();
    let n: u32 = a.query_first("SELECT COUNT(*) FROM d.c").unwrap().unwrap();
    assert_eq!(n, 0, "the cascade is visible to its own transaction");
    // Another transaction's locking read of a cascaded child waits (it is X-locked).
    let b = server.conn();
    let rx = background(b, "UPDATE d.c SET id = id + 10");
    assert!(rx.recv_timeout(Duration::from_millis(500)).is_err());
    a.query_drop("ROLLBACK").unwrap();
    let (outcome, mut b) = rx.recv_timeout(Duration::from_secs(20)).unwrap();
    assert_eq!(outcome, None);
    let ids: Vec<u32> = b.query("SELECT id FROM d.c ORDER BY id").unwrap();
    assert_eq!(ids, vec![11, 12], "the rollback undid the cascade");
}
