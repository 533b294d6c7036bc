//! The concurrent bank through a connection pool and prepared statements.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mysql::prelude::Queryable;
use mysql::{Conn, Error, Pool, TxOpts};

use crate::checks::{server_code, Report};
use crate::Config;

const START_BALANCE: i64 = 1000;
const RETRYABLE: [u16; 2] = [1213, 1205];

/// xorshift64*: enough randomness for picking accounts, no dependency.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
}

#[derive(Default)]
struct Stats {
    committed: Vec<(i64, i64, i64)>,
    insufficient: usize,
    retries: HashMap<u16, usize>,
    errors: Vec<String>,
    audits: usize,
    audit_retries: usize,
    audit_bad: Vec<String>,
}

/// A failed client-side check inside a transfer, reported like an unexpected server error
/// (code 0, never retried).
fn check_failed(message: String) -> Error {
    Error::MySqlError(mysql::MySqlError {
        state: "CHECK".into(),
        message,
        code: 0,
    })
}

enum Outcome {
    Committed,
    Insufficient,
}

/// One transfer in one transaction on a pooled connection.
fn transfer(
    pool: &Pool,
    src: i64,
    dst: i64,
    amount: i64,
    src_first: bool,
) -> Result<Outcome, Error> {
    let mut conn = pool.get_conn()?;
    let mut tx = conn.start_transaction(TxOpts::default())?;
    let order = if src_first { [src, dst] } else { [dst, src] };
    let mut balance = HashMap::new();
    for acc in order {
        let b: Option<i64> = tx.exec_first(
            "SELECT balance FROM rust_accounts WHERE id = ? FOR UPDATE",
            (acc,),
        )?;
        let Some(b) = b else {
            return Err(check_failed(format!("account {acc} not found")));
        };
        balance.insert(acc, b);
    }
    if balance[&src] < amount {
        tx.rollback()?;
        return Ok(Outcome::Insufficient);
    }
    tx.exec_drop(
        "UPDATE rust_accounts SET balance = balance - ? WHERE id = ?",
        (amount, src),
    )?;
    let a1 = tx.affected_rows();
    tx.exec_drop(
        "UPDATE rust_accounts SET balance = balance + ? WHERE id = ?",
        (amount, dst),
    )?;
    let a2 = tx.affected_rows();
    if (a1, a2) != (1, 1) {
        // Not retryable: reported as an unexpected error by the caller.
        return Err(check_failed(format!(
            "UPDATE affected rows {a1}, {a2}; want 1, 1"
        )));
    }
    tx.exec_drop(
        "INSERT INTO rust_transfers (src, dst, amount) VALUES (?, ?, ?)",
        (src, dst, amount),
    )?;
    if tx.last_insert_id().unwrap_or(0) == 0 {
        return Err(check_failed(
            "INSERT into an AUTO_INCREMENT table returned no last_insert_id".into(),
        ));
    }
    tx.commit()?;
    Ok(Outcome::Committed)
    // the pooled connection returns to the pool here: COM_RESET_CONNECTION
}

fn worker(tid: usize, cfg: &Config, pool: &Pool, stats: &Mutex<Stats>, stop_at: Instant) {
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);
    let mut rng = Rng::new(seed ^ ((tid as u64 + 1) << 32));
    for i in 0..cfg.transfers {
        let src = rng.range(1, cfg.accounts);
        let mut dst = rng.range(1, cfg.accounts - 1);
        if dst >= src {
            dst += 1;
        }
        let amount = rng.range(1, 300);
        let src_first = rng.next() & 1 == 0;
        let mut attempt = 0u64;
        loop {
            if Instant::now() > stop_at {
                stats
                    .lock()
                    .unwrap()
                    .errors
                    .push(format!("thread {tid}: deadline passed at transfer {i}"));
                return;
            }
            match transfer(pool, src, dst, amount, src_first) {
                Ok(Outcome::Committed) => {
                    stats.lock().unwrap().committed.push((src, dst, amount));
                    break;
                }
                Ok(Outcome::Insufficient) => {
                    stats.lock().unwrap().insufficient += 1;
                    break;
                }
                Err(e)
                    if server_code(&e).is_some_and(|c| RETRYABLE.contains(&c)) && attempt < 100 =>
                {
                    *stats
                        .lock()
                        .unwrap()
                        .retries
                        .entry(server_code(&e).unwrap())
                        .or_default() += 1;
                    attempt += 1;
                    thread::sleep(Duration::from_micros(rng.next() % (1000 * attempt.min(10))));
                }
                Err(e) => {
                    stats.lock().unwrap().errors.push(format!(
                        "thread {tid}: transfer {i} (attempt {attempt}): {e}"
                    ));
                    return;
                }
            }
        }
    }
}

fn auditor(cfg: &Config, stats: &Mutex<Stats>, done: &AtomicBool, stop_at: Instant) {
    let total = cfg.accounts * START_BALANCE;
    let mut conn = match Conn::new(cfg.opts()) {
        Ok(c) => c,
        Err(e) => {
            stats
                .lock()
                .unwrap()
                .errors
                .push(format!("auditor: connect: {e}"));
            return;
        }
    };
    while !done.load(Ordering::Acquire) && Instant::now() < stop_at {
        let res = (|| -> Result<Vec<(i64, i64)>, Error> {
            let mut tx = conn.start_transaction(TxOpts::default())?;
            let rows: Vec<(i64, i64)> = tx.exec(
                "SELECT id, balance FROM rust_accounts ORDER BY id FOR UPDATE",
                (),
            )?;
            tx.commit()?;
            Ok(rows)
        })();
        match res {
            Ok(rows) => {
                let sum: i64 = rows.iter().map(|r| r.1).sum();
                let mut s = stats.lock().unwrap();
                s.audits += 1;
                if rows.len() as i64 != cfg.accounts || sum != total {
                    s.audit_bad
                        .push(format!("{} rows, total {sum}", rows.len()));
                }
            }
            Err(e) if server_code(&e).is_some_and(|c| RETRYABLE.contains(&c)) => {
                stats.lock().unwrap().audit_retries += 1;
            }
            Err(e) => {
                stats.lock().unwrap().errors.push(format!("auditor: {e}"));
                return;
            }
        }
        thread::sleep(Duration::from_millis(20));
    }
}

fn setup(cfg: &Config) -> Result<(), Error> {
    let mut conn = Conn::new(cfg.opts())?;
    conn.query_drop("DROP TABLE IF EXISTS rust_accounts")?;
    conn.query_drop("DROP TABLE IF EXISTS rust_transfers")?;
    conn.query_drop(
        "CREATE TABLE rust_accounts (id INT NOT NULL PRIMARY KEY, balance BIGINT NOT NULL)",
    )?;
    conn.query_drop(
        "CREATE TABLE rust_transfers (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, \
         src INT NOT NULL, dst INT NOT NULL, amount BIGINT NOT NULL)",
    )?;
    conn.exec_batch(
        "INSERT INTO rust_accounts (id, balance) VALUES (?, ?)",
        (1..=cfg.accounts).map(|i| (i, START_BALANCE)),
    )?;
    Ok(())
}

pub fn run(cfg: &Config, report: &Report) {
    if let Err(e) = setup(cfg) {
        return report.fail("bank/setup", e.to_string());
    }
    let pool = match Pool::new(cfg.pool_opts(1, cfg.threads)) {
        Ok(p) => p,
        Err(e) => return report.fail("bank/pool", e.to_string()),
    };
    let stats = Arc::new(Mutex::new(Stats::default()));
    let done = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let stop_at = start + cfg.deadline;
    let (tx, rx) = mpsc::channel::<()>();
    for tid in 0..cfg.threads {
        let (cfg, pool, stats, tx) = (cfg.clone(), pool.clone(), stats.clone(), tx.clone());
        thread::spawn(move || {
            worker(tid, &cfg, &pool, &stats, stop_at);
            let _ = tx.send(());
        });
    }
    let aud = {
        let (cfg, stats, done) = (cfg.clone(), stats.clone(), done.clone());
        thread::spawn(move || auditor(&cfg, &stats, &done, stop_at))
    };
    drop(tx);
    let mut finished = 0;
    while finished < cfg.threads {
        let left = (stop_at + Duration::from_secs(5)).saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(()) => finished += 1,
            Err(_) => break,
        }
    }
    done.store(true, Ordering::Release);
    if finished == cfg.threads {
        let _ = aud.join();
    }
    let elapsed = start.elapsed();
    let s = stats.lock().unwrap();
    println!(
        "  bank: {} transfers committed, {} refused (insufficient funds), retries {:?}, {} audits ({} retried) in {:.1}s",
        s.committed.len(),
        s.insufficient,
        s.retries,
        s.audits,
        s.audit_retries,
        elapsed.as_secs_f64()
    );
    report.check("bank/workers-finished", finished == cfg.threads, || {
        format!(
            "{} of {} threads still running after {:?}",
            cfg.threads - finished,
            cfg.threads,
            cfg.deadline
        )
    });
    report.check("bank/no-unexpected-errors", s.errors.is_empty(), || {
        s.errors
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("; ")
    });
    report.check("bank/progress", s.committed.len() > cfg.threads, || {
        format!("only {} transfers committed", s.committed.len())
    });
    report.check(
        "bank/auditor-consistent",
        s.audit_bad.is_empty() && s.audits > 0,
        || {
            format!(
                "{} audits, inconsistent: {:?}",
                s.audits,
                &s.audit_bad[..s.audit_bad.len().min(5)]
            )
        },
    );

    let check = (|| -> Result<(), Error> {
        let mut conn = Conn::new(cfg.opts())?;
        let rows: Vec<(i64, i64)> =
            conn.query("SELECT id, balance FROM rust_accounts ORDER BY id")?;
        let log: Vec<(i64, i64, i64, i64)> =
            conn.exec("SELECT id, src, dst, amount FROM rust_transfers", ())?;
        let total: i64 = rows.iter().map(|r| r.1).sum();
        report.check(
            "bank/total-unchanged",
            rows.len() as i64 == cfg.accounts && total == cfg.accounts * START_BALANCE,
            || {
                format!(
                    "{} accounts, total {total}; want {}, {}",
                    rows.len(),
                    cfg.accounts,
                    cfg.accounts * START_BALANCE
                )
            },
        );
        let negative: Vec<_> = rows.iter().filter(|r| r.1 < 0).collect();
        report.check("bank/no-negative-balance", negative.is_empty(), || {
            format!("{negative:?}")
        });
        let mut want: Vec<(i64, i64, i64)> = s.committed.clone();
        let mut got: Vec<(i64, i64, i64)> = log.iter().map(|r| (r.1, r.2, r.3)).collect();
        want.sort_unstable();
        got.sort_unstable();
        report.check("bank/log-matches-commits", want == got, || {
            format!(
                "log has {} rows, clients committed {}",
                got.len(),
                want.len()
            )
        });
        let mut ids: Vec<i64> = log.iter().map(|r| r.0).collect();
        ids.sort_unstable();
        ids.dedup();
        report.check("bank/log-ids-distinct", ids.len() == log.len(), || {
            "duplicate AUTO_INCREMENT ids".into()
        });
        let mut expect: HashMap<i64, i64> =
            (1..=cfg.accounts).map(|i| (i, START_BALANCE)).collect();
        for &(src, dst, amount) in &s.committed {
            *expect.get_mut(&src).unwrap() -= amount;
            *expect.get_mut(&dst).unwrap() += amount;
        }
        let diff: Vec<_> = rows
            .iter()
            .filter(|r| expect.get(&r.0) != Some(&r.1))
            .take(5)
            .collect();
        report.check("bank/balances-match-commits", diff.is_empty(), || {
            format!("(id, balance) not matching the committed transfers: {diff:?}")
        });
        conn.query_drop("DROP TABLE rust_accounts")?;
        conn.query_drop("DROP TABLE rust_transfers")?;
        Ok(())
    })();
    if let Err(e) = check {
        report.fail("bank/verify", e.to_string());
    }
}
