//! Concurrent isolation checker: bank transfers alongside readers at every isolation level,
//! unique-key churn, and kill -9 in the middle, several times in a row.
//!
//! - `bank.acct`: transfers between its rows (UPDATE pairs, each transaction at a random
//!   isolation level). A `SELECT SUM(bal)` is one statement: at READ COMMITTED, REPEATABLE
//!   READ and SERIALIZABLE it must always see the total (READ UNCOMMITTED may see half a
//!   transfer: not checked). Inside a REPEATABLE READ transaction every re-read of the sum
//!   and of single rows must return what the first read saw (the snapshot is frozen).
//! - `bank.x1` / `bank.x2`: transfers from one table to the other. A REPEATABLE READ
//!   transaction that sums each table in its own statement must find the total (what
//!   `mariadb-dump --single-transaction` relies on to dump every table consistently).
//! - `bank.u`: inserts and deletes of random keys through a UNIQUE index: never a duplicate.
//! - Every transfer that was acknowledged is logged in the same transaction: after each
//!   restart every acknowledged transfer is present, the totals are unchanged, and each
//!   balance equals its start plus what the transfer log says.

mod common;

use common::{opts, Server};
use mysql::prelude::*;
use mysql::Conn;
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const ACCOUNTS: i64 = 20;
const START: i64 = 1000;
const LEVELS: [&str; 4] = [
    "READ UNCOMMITTED",
    "READ COMMITTED",
    "REPEATABLE READ",
    "SERIALIZABLE",
];

fn setup(server: &Server) {
    let mut c = server.conn();
    c.query_drop("CREATE DATABASE bank").unwrap();
    for t in ["acct", "x1", "x2"] {
        c.query_drop(format!(
            "CREATE TABLE bank.{t} (id INT PRIMARY KEY, bal BIGINT NOT NULL)"
        ))
        .unwrap();
        for id in 0..ACCOUNTS {
            c.exec_drop(format!("INSERT INTO bank.{t} VALUES (?, ?)"), (id, START))
                .unwrap();
        }
    }
    c.query_drop(
        "CREATE TABLE bank.xfer (id BIGINT PRIMARY KEY, tbl_from VARCHAR(8) NOT NULL, \
         src INT NOT NULL, tbl_to VARCHAR(8) NOT NULL, dst INT NOT NULL, amount BIGINT NOT NULL)",
    )
    .unwrap();
    c.query_drop(
        "CREATE TABLE bank.u (id INT PRIMARY KEY AUTO_INCREMENT, k INT NOT NULL, UNIQUE KEY k (k))",
    )
    .unwrap();
}

/// Deadlock or lock wait timeout: roll back and try again.
fn retryable(e: &mysql::Error) -> bool {
    matches!(e, mysql::Error::MySqlError(m) if m.code == 1213 || m.code == 1205)
}

fn is_server_error(e: &mysql::Error) -> bool {
    matches!(e, mysql::Error::MySqlError(_))
}

/// Acknowledged transfer ids.
type Acked = Arc<Mutex<BTreeSet<u64>>>;

/// A transfer worker: moves money within `acct` or from `x1` to `x2` (and back), at a random
/// isolation level, logging each transfer in the same transaction.
fn transfer_worker(port: u16, seed: u64, ids: Arc<AtomicU64>, acked: Acked, stop: Arc<AtomicBool>) {
    let Ok(mut c) = Conn::new(opts(port)) else {
        return;
    };
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    while !stop.load(Ordering::Relaxed) {
        let level = LEVELS[rng.gen_range(0..4)];
        let (from, to) = match rng.gen_range(0..3) {
            0 => ("acct", "acct"),
            1 => ("x1", "x2"),
            _ => ("x2", "x1"),
        };
        let src = rng.gen_range(0..ACCOUNTS);
        let mut dst = rng.gen_range(0..ACCOUNTS);
        if from == to && dst == src {
            dst = (dst + 1) % ACCOUNTS;
        }
        let amount = rng.gen_range(1..50);
        let id = ids.fetch_add(1, Ordering::Relaxed);
        let r = (|| -> mysql::Result<()> {
            c.query_drop(format!("SET SESSION TRANSACTION ISOLATION LEVEL {level}"))?;
            c.query_drop("BEGIN")?;
            c.exec_drop(
                format!("UPDATE bank.{from} SET bal = bal - ? WHERE id = ?"),
                (amount, src),
            )?;
            c.exec_drop(
                format!("UPDATE bank.{to} SET bal = bal + ? WHERE id = ?"),
                (amount, dst),
            )?;
            c.exec_drop(
                "INSERT INTO bank.xfer VALUES (?, ?, ?, ?, ?, ?)",
                (id, from, src, to, dst, amount),
            )?;
            c.query_drop("COMMIT")
        })();
        match r {
            Ok(()) => {
                acked.lock().unwrap().insert(id);
            }
            Err(e) if retryable(&e) => {
                let _ = c.query_drop("ROLLBACK");
            }
            Err(e) if is_server_error(&e) => panic!("transfer {id}: {e}"),
            Err(_) => return, // the server died
        }
    }
}

/// Readers at RC, RR and SER: every statement sees the total; an RR transaction's re-reads are
/// frozen, and its per-table sums of x1 and x2 add up. Returns the number of checks made.
fn reader(port: u16, level: &'static str, stop: Arc<AtomicBool>) -> u64 {
    let Ok(mut c) = Conn::new(opts(port)) else {
        return 0;
    };
    let total = ACCOUNTS * START;
    let mut checks = 0;
    let run = |c: &mut Conn, checks: &mut u64| -> mysql::Result<()> {
        c.query_drop(format!("SET SESSION TRANSACTION ISOLATION LEVEL {level}"))?;
        // One statement, autocommit: always the total.
        let s: i64 = c.query_first("SELECT SUM(bal) FROM bank.acct")?.unwrap();
        assert_eq!(s, total, "{level}: a single SELECT SUM saw half a transfer");
        *checks += 1;
        c.query_drop("BEGIN")?;
        let first: i64 = c.query_first("SELECT SUM(bal) FROM bank.acct")?.unwrap();
        assert_eq!(first, total, "{level}: SELECT SUM in a transaction");
        let row0: i64 = c
            .query_first("SELECT bal FROM bank.acct WHERE id = 0")?
            .unwrap();
        let x1: i64 = c.query_first("SELECT SUM(bal) FROM bank.x1")?.unwrap();
        std::thread::sleep(Duration::from_millis(2));
        let x2: i64 = c.query_first("SELECT SUM(bal) FROM bank.x2")?.unwrap();
        if level != "READ COMMITTED" {
            // One snapshot for the whole transaction: the two tables add up.
            assert_eq!(
                x1 + x2,
                2 * total,
                "{level}: x1 + x2 read in two statements"
            );
        }
        for _ in 0..3 {
            std::thread::sleep(Duration::from_millis(3));
            let again: i64 = c.query_first("SELECT SUM(bal) FROM bank.acct")?.unwrap();
            assert_eq!(again, total, "{level}: SELECT SUM in a transaction");
            if level != "READ COMMITTED" {
                let r: i64 = c
                    .query_first("SELECT bal FROM bank.acct WHERE id = 0")?
                    .unwrap();
                assert_eq!(r, row0, "{level}: a re-read changed inside the transaction");
            }
            *checks += 1;
        }
        c.query_drop("COMMIT")
    };
    while !stop.load(Ordering::Relaxed) {
        match run(&mut c, &mut checks) {
            Ok(()) => {}
            Err(e) if retryable(&e) => {
                let _ = c.query_drop("ROLLBACK");
            }
            Err(e) if is_server_error(&e) => panic!("{level} reader: {e}"),
            Err(_) => break,
        }
    }
    checks
}

/// Inserts and deletes random keys of `bank.u` (UNIQUE k): duplicates must be refused.
fn unique_worker(port: u16, seed: u64, stop: Arc<AtomicBool>) {
    let Ok(mut c) = Conn::new(opts(port)) else {
        return;
    };
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    while !stop.load(Ordering::Relaxed) {
        let level = LEVELS[rng.gen_range(0..4)];
        let k = rng.gen_range(0..30);
        let r = (|| -> mysql::Result<()> {
            c.query_drop(format!("SET SESSION TRANSACTION ISOLATION LEVEL {level}"))?;
            c.query_drop("BEGIN")?;
            if rng.gen_bool(0.6) {
                match c.exec_drop("INSERT INTO bank.u (k) VALUES (?)", (k,)) {
                    Err(mysql::Error::MySqlError(m)) if m.code == 1062 => {}
                    other => other?,
                }
            } else {
                c.exec_drop("DELETE FROM bank.u WHERE k = ?", (k,))?;
            }
            c.query_drop("COMMIT")
        })();
        match r {
            Ok(()) => {}
            Err(e) if retryable(&e) => {
                let _ = c.query_drop("ROLLBACK");
            }
            Err(e) if is_server_error(&e) => panic!("unique worker: {e}"),
            Err(_) => return,
        }
    }
}

/// After a restart: nothing acknowledged is lost, totals hold, balances match the log, no
/// duplicate unique key.
fn check(server: &Server, acked: &Acked) {
    let mut c = server.conn();
    let logged: Vec<(u64, String, i64, String, i64, i64)> = c
        .query("SELECT id, tbl_from, src, tbl_to, dst, amount FROM bank.xfer")
        .unwrap();
    let present: BTreeSet<u64> = logged.iter().map(|r| r.0).collect();
    for id in acked.lock().unwrap().iter() {
        assert!(present.contains(id), "acknowledged transfer {id} lost");
    }
    let total = ACCOUNTS * START;
    for t in ["acct", "x1", "x2"] {
        let rows: Vec<(i64, i64)> = c
            .query(format!("SELECT id, bal FROM bank.{t} ORDER BY id"))
            .unwrap();
        assert_eq!(rows.len() as i64, ACCOUNTS);
        for (id, bal) in rows {
            let delta: i64 = logged
                .iter()
                .map(|(_, tf, s, tt, d, a)| {
                    let out = if tf == t && *s == id { -a } else { 0 };
                    let inn = if tt == t && *d == id { *a } else { 0 };
                    out + inn
                })
                .sum();
            assert_eq!(bal, START + delta, "{t} {id}: balance differs from the log");
        }
    }
    let s: i64 = c
        .query_first("SELECT SUM(bal) FROM bank.acct")
        .unwrap()
        .unwrap();
    assert_eq!(s, total);
    let x: i64 = c
        .query_first("SELECT SUM(bal) FROM bank.x1")
        .unwrap()
        .unwrap();
    let y: i64 = c
        .query_first("SELECT SUM(bal) FROM bank.x2")
        .unwrap()
        .unwrap();
    assert_eq!(x + y, 2 * total);
    let dups: Vec<(i64, i64)> = c
        .query("SELECT k, COUNT(*) AS n FROM bank.u GROUP BY k HAVING n > 1")
        .unwrap();
    assert!(dups.is_empty(), "duplicate unique keys: {dups:?}");
    let ks: Vec<i64> = c.query("SELECT k FROM bank.u ORDER BY k").unwrap();
    assert!(
        ks.windows(2).all(|w| w[0] < w[1]),
        "unique index holds a duplicate"
    );
}

fn bank_cycles(name: &str, extra: &[&str], cycles: usize) {
    let datadir = common::temp_datadir("bank", name);
    let acked: Acked = Arc::default();
    let ids = Arc::new(AtomicU64::new(1));
    let mut server = Server::start(&datadir, extra);
    setup(&server);
    let mut reads = 0;
    for cycle in 0..cycles {
        let stop = Arc::new(AtomicBool::new(false));
        let port = server.port;
        let mut workers = Vec::new();
        for w in 0..4u64 {
            let (ids, acked, stop) = (ids.clone(), acked.clone(), stop.clone());
            let seed = cycle as u64 * 100 + w;
            workers.push(std::thread::spawn(move || {
                transfer_worker(port, seed, ids, acked, stop)
            }));
        }
        for w in 0..2u64 {
            let stop = stop.clone();
            let seed = 1000 + cycle as u64 * 100 + w;
            workers.push(std::thread::spawn(move || unique_worker(port, seed, stop)));
        }
        let readers: Vec<_> = ["READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"]
            .into_iter()
            .map(|level| {
                let stop = stop.clone();
                std::thread::spawn(move || reader(port, level, stop))
            })
            .collect();
        std::thread::sleep(Duration::from_millis(1200 + rand::random::<u64>() % 800));
        server.kill();
        stop.store(true, Ordering::Relaxed);
        for w in workers {
            w.join().unwrap();
        }
        for r in readers {
            reads += r.join().unwrap();
        }
        server = Server::start(&datadir, extra);
        check(&server, &acked);
    }
    assert!(
        acked.lock().unwrap().len() > 50,
        "{name}: too few transfers"
    );
    assert!(reads > 20, "{name}: too few reads checked ({reads})");
    server.kill();
    let _ = std::fs::remove_dir_all(&datadir);
    let _ = std::fs::remove_file(datadir.with_extension("log"));
}

#[test]
fn bank_at_every_level_survives_kill_9() {
    bank_cycles("thread", &[], 3);
}

#[test]
fn bank_at_every_level_survives_kill_9_in_the_pool() {
    bank_cycles("pool", &["--thread-handling", "pool-of-threads"], 3);
}
