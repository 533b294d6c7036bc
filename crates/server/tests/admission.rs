//! Admission control through real SQL sessions (the Rust `mysql` crate over loopback), with
//! `innodb_thread_concurrency = 1`: sessions all complete, and a session blocked on a row lock
//! gives its slot back so that it does not block the others.

mod common;

use cohort_server::session::ServerContext;
use cohort_server::types::Value as SqlValue;
use common::{root as connect, serve_on_loopback};
use mysql::prelude::*;
use mysql::Conn;
use std::sync::mpsc;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(20);

/// Start a server with the gate at 1 slot and the given queue discipline; returns the port.
fn start_server(queue: &str) -> u16 {
    let ctx = ServerContext::for_tests();
    ctx.vars
        .set_global("innodb_thread_concurrency", SqlValue::UInt(1))
        .unwrap();
    ctx.vars
        .set_global("concurrency_queue", SqlValue::str(queue))
        .unwrap();
    ctx.vars
        .set_global("innodb_thread_sleep_delay", SqlValue::UInt(100))
        .unwrap();
    serve_on_loopback(ctx)
}

fn status(c: &mut Conn, name: &str) -> u64 {
    let row: Option<(String, u64)> = c
        .query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'"))
        .unwrap();
    row.expect("status row").1
}

/// Run `f` on a thread; its result, or a failure if it takes longer than TIMEOUT.
fn within_timeout<T: Send + 'static>(
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> mpsc::Receiver<T> {
    let (tx, rx) = mpsc::channel();
    let what = what.to_string();
    std::thread::Builder::new()
        .name(what)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .unwrap();
    rx
}

fn setup(port: u16) -> Conn {
    let mut c = connect(port);
    c.query_drop("CREATE DATABASE adm").unwrap();
    c.query_drop("CREATE TABLE adm.t (id INT PRIMARY KEY, v INT)")
        .unwrap();
    c.query_drop("INSERT INTO adm.t VALUES (1, 0), (2, 0), (3, 0), (4, 0)")
        .unwrap();
    c
}

fn lock_waiter_does_not_block_others(queue: &str) {
    let port = start_server(queue);
    let mut c1 = setup(port);
    c1.query_drop("BEGIN").unwrap();
    c1.query_drop("UPDATE adm.t SET v = 1 WHERE id = 1")
        .unwrap();

    // c2 blocks on c1's row lock.
    let blocked = within_timeout("blocked session", move || {
        let mut c2 = connect(port);
        c2.query_drop("UPDATE adm.t SET v = 2 WHERE id = 1")
    });
    let mut admin = connect(port);
    let deadline = Instant::now() + TIMEOUT;
    while status(&mut admin, "Admission_wait_exits") < 1 {
        assert!(Instant::now() < deadline, "c2 never reached its lock wait");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(status(&mut admin, "Admission_active"), 0);

    // With the only slot given back, a third session reads and writes.
    let third = within_timeout("third session", move || {
        let mut c3 = connect(port);
        let v: Option<i64> = c3.query_first("SELECT v FROM adm.t WHERE id = 2")?;
        c3.query_drop("UPDATE adm.t SET v = 3 WHERE id = 3")?;
        Ok::<_, mysql::Error>(v)
    });
    let v = third
        .recv_timeout(TIMEOUT)
        .expect("the third session was kept out of the gate by a lock waiter")
        .unwrap();
    assert_eq!(v, Some(0));

    c1.query_drop("COMMIT").unwrap();
    blocked
        .recv_timeout(TIMEOUT)
        .expect("the lock waiter never finished")
        .unwrap();
    let rows: Vec<(i64, i64)> = c1.query("SELECT id, v FROM adm.t").unwrap();
    assert_eq!(rows, vec![(1, 2), (2, 0), (3, 3), (4, 0)]);
    assert_eq!(status(&mut admin, "Admission_active"), 0);
    assert_eq!(status(&mut admin, "Admission_queued"), 0);
}

#[test]
fn fifo_lock_waiter_does_not_block_others() {
    lock_waiter_does_not_block_others("fifo");
}

#[test]
fn adaptive_sleep_lock_waiter_does_not_block_others() {
    lock_waiter_does_not_block_others("adaptive-sleep");
}

fn sessions_all_complete(queue: &str) {
    let port = start_server(queue);
    let mut admin = setup(port);
    // Four sessions at one slot: two on their own rows, two on the same row (lock waits).
    let rows = [1, 2, 3, 3];
    let workers: Vec<_> = rows
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            within_timeout(&format!("worker {i}"), move || {
                let mut c = connect(port);
                for _ in 0..150 {
                    c.query_drop(format!("UPDATE adm.t SET v = v + 1 WHERE id = {id}"))?;
                    let _: Option<i64> =
                        c.query_first(format!("SELECT v FROM adm.t WHERE id = {id}"))?;
                }
                Ok::<_, mysql::Error>(())
            })
        })
        .collect();
    for w in workers {
        w.recv_timeout(TIMEOUT)
            .expect("a session never finished")
            .unwrap();
    }
    let rows: Vec<(i64, i64)> = admin.query("SELECT id, v FROM adm.t").unwrap();
    assert_eq!(rows, vec![(1, 150), (2, 150), (3, 300), (4, 0)]);
    assert!(status(&mut admin, "Admission_entries") >= 1200);
    assert_eq!(status(&mut admin, "Admission_active"), 0);
    assert_eq!(status(&mut admin, "Admission_queued"), 0);
}

#[test]
fn fifo_sessions_all_complete() {
    sessions_all_complete("fifo");
}

#[test]
fn adaptive_sleep_sessions_all_complete() {
    sessions_all_complete("adaptive-sleep");
}
