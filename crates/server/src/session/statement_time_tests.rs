//! Protocol tests of `max_statement_time` (issue 21): a statement past its limit ends with
//! 1969 at the next interruption point (a SLEEP, a lock wait), the limit applies per statement,
//! and `SET STATEMENT max_statement_time = N FOR …` (Connector/J's setQueryTimeout) does the
//! same for one statement.

use super::multi_kill_tests::{run, session};
use super::tests::context_on;
use crate::log::device::SimDir;
use std::time::{Duration, Instant};

fn r(items: &[(&str, bool)]) -> Vec<(String, bool)> {
    items.iter().map(|(a, b)| (a.to_string(), *b)).collect()
}

#[test]
fn a_sleep_past_max_statement_time_ends_with_1969_and_the_next_statement_runs() {
    let ctx = context_on(&SimDir::new());
    let mut s = session(&ctx, 1, "root", 0);
    assert_eq!(
        run(&mut s, "SET max_statement_time = 0.2"),
        r(&[("ok 0", false)])
    );
    let began = Instant::now();
    assert_eq!(run(&mut s, "SELECT SLEEP(2)"), r(&[("err 1969", false)]));
    assert!(began.elapsed() < Duration::from_millis(1500), "cut early");
    // Each statement has its own limit: a short one after the timed-out one runs.
    assert_eq!(run(&mut s, "SELECT SLEEP(0.05)"), r(&[("rows 0", false)]));
    run(&mut s, "SET max_statement_time = 0");
    let began = Instant::now();
    assert_eq!(
        run(
            &mut s,
            "SET STATEMENT max_statement_time = 0.1 FOR SELECT SLEEP(2)"
        ),
        r(&[("err 1969", false)])
    );
    assert!(began.elapsed() < Duration::from_millis(1500), "cut early");
    assert_eq!(
        run(&mut s, "SELECT @@max_statement_time"),
        r(&[("rows 0.000000", false)])
    );
}

#[test]
fn a_lock_wait_is_cut_by_max_statement_time_and_the_transaction_stays() {
    let ctx = context_on(&SimDir::new());
    let mut a = session(&ctx, 1, "root", 0);
    run(&mut a, "CREATE DATABASE d");
    run(&mut a, "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)");
    run(&mut a, "INSERT INTO d.t VALUES (1, 0)");
    run(&mut a, "BEGIN");
    run(&mut a, "UPDATE d.t SET v = 1 WHERE id = 1");
    let mut b = session(&ctx, 2, "root", 0);
    run(&mut b, "BEGIN");
    run(&mut b, "INSERT INTO d.t VALUES (2, 0)");
    let began = Instant::now();
    assert_eq!(
        run(
            &mut b,
            "SET STATEMENT max_statement_time = 0.3 FOR UPDATE d.t SET v = 2 WHERE id = 1"
        ),
        r(&[("err 1969", false)])
    );
    assert!(
        began.elapsed() < Duration::from_secs(10),
        "not the lock wait timeout"
    );
    // Only the statement ended: B's transaction still holds its insert.
    assert_eq!(
        run(&mut b, "SELECT COUNT(*) FROM d.t"),
        r(&[("rows 2", false)])
    );
    run(&mut b, "COMMIT");
    run(&mut a, "COMMIT");
    assert_eq!(
        run(&mut a, "SELECT COUNT(*) FROM d.t WHERE v = 1"),
        r(&[("rows 1", false)])
    );
}

#[test]
fn com_stmt_prepare_refuses_set_statement_with_1235() {
    let ctx = context_on(&SimDir::new());
    let mut s = session(&ctx, 1, "root", 0);
    let mut payload = vec![0x16];
    payload.extend_from_slice(b"SET STATEMENT max_statement_time = 1 FOR SELECT 1");
    let mut bytes = Vec::new();
    cohort_protocol::write_packet(&mut bytes, &mut 0, &payload);
    let mut out = Vec::new();
    s.on_bytes(&bytes, &mut out);
    assert_eq!(
        super::multi_kill_tests::results(&out),
        r(&[("err 1235", false)])
    );
}
