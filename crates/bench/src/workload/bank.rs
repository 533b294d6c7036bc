//! Correctness under load: money transfers between accounts whose total must not change.
//!
//! Tables `sbbankN (id INTEGER PRIMARY KEY, balance BIGINT)` hold `table_size` accounts of
//! 1000 each. A transaction moves 1..100 from one account to another of the same table:
//!
//! ```sql
//! BEGIN; UPDATE sbbankN SET balance = balance - ? WHERE id = ?;
//!        UPDATE sbbankN SET balance = balance + ? WHERE id = ?; COMMIT
//! ```
//!
//! Accounts come from `--rand-type`, so with the default `special` distribution most
//! transfers fight over a few hot rows, and opposite transfers deadlock (1213). A failed
//! transfer is rolled back (ROLLBACK) and retried. After the run every table must still have
//! `table_size` rows summing to `1000 · table_size`; anything else is a lost or partial
//! transaction and fails the run.

use super::{
    drop_tables, for_each_table, BulkInsert, Param, Request, StmtDef, Workload, WorkloadOptions,
};
use crate::conn::SyncClient;
use crate::rand::Rng;
use crate::url::DbUrl;

/// Starting balance of every account.
pub const INITIAL_BALANCE: i64 = 1000;

const BEGIN: u16 = 0;
const COMMIT: u16 = 1;
const ROLLBACK: u16 = 2;

pub struct Bank {
    opts: WorkloadOptions,
    stmts: Vec<StmtDef>,
}

impl Bank {
    pub fn new(opts: WorkloadOptions) -> Bank {
        let mut stmts = vec![
            StmtDef::new("BEGIN", true),
            StmtDef::new("COMMIT", true),
            StmtDef::new("ROLLBACK", true),
        ];
        for t in 1..=opts.tables.max(1) {
            stmts.push(StmtDef::new(
                format!("UPDATE sbbank{t} SET balance = balance - ? WHERE id = ?"),
                true,
            ));
            stmts.push(StmtDef::new(
                format!("UPDATE sbbank{t} SET balance = balance + ? WHERE id = ?"),
                true,
            ));
        }
        Bank { opts, stmts }
    }
}

impl Workload for Bank {
    fn name(&self) -> &str {
        "bank"
    }

    fn statements(&self) -> &[StmtDef] {
        &self.stmts
    }

    fn next_txn(&self, rng: &mut Rng, txn: &mut Vec<Request>) {
        txn.clear();
        let n = self.opts.table_size.max(2);
        let t = (rng.uniform(1, self.opts.tables.max(1)) - 1) as u16;
        let from = rng.default_dist(1, n);
        let mut to = rng.default_dist(1, n);
        if to == from {
            to = from % n + 1;
        }
        let amount = i64::from(rng.uniform(1, 100));
        txn.push(Request {
            stmt: BEGIN,
            params: vec![],
        });
        txn.push(Request {
            stmt: 3 + 2 * t,
            params: vec![Param::Int(amount), Param::Int(i64::from(from))],
        });
        txn.push(Request {
            stmt: 4 + 2 * t,
            params: vec![Param::Int(amount), Param::Int(i64::from(to))],
        });
        txn.push(Request {
            stmt: COMMIT,
            params: vec![],
        });
    }

    fn rollback_before_retry(&self) -> Option<u16> {
        Some(ROLLBACK)
    }

    fn prepare(&self, url: &DbUrl, threads: usize) -> Result<(), String> {
        for_each_table(url, self.opts.tables, threads, &|c, t| {
            say!("Creating table 'sbbank{t}'...");
            c.execute(&format!(
                "CREATE TABLE sbbank{t} (id INTEGER NOT NULL, balance BIGINT NOT NULL, PRIMARY KEY (id)) /*! ENGINE = {} */",
                self.opts.storage_engine
            ))
            .map_err(|e| format!("CREATE TABLE sbbank{t}: {e}"))?;
            say!(
                "Inserting {} accounts into 'sbbank{t}'",
                self.opts.table_size.max(2)
            );
            let mut bulk = BulkInsert::new(c, format!("INSERT INTO sbbank{t}(id, balance) VALUES"));
            for id in 1..=self.opts.table_size.max(2) {
                bulk.row(&format!("({id}, {INITIAL_BALANCE})"))?;
            }
            bulk.flush()
        })
    }

    fn cleanup(&self, url: &DbUrl) -> Result<(), String> {
        drop_tables(url, "sbbank", self.opts.tables)
    }

    fn check(&self, c: &mut SyncClient) -> Option<Result<String, String>> {
        let n = i64::from(self.opts.table_size.max(2));
        let mut total = 0i64;
        for t in 1..=self.opts.tables.max(1) {
            let row = match c.query(&format!("SELECT COUNT(*), SUM(balance) FROM sbbank{t}")) {
                Ok(rows) => rows.into_iter().next().unwrap_or_default(),
                Err(e) => return Some(Err(format!("bank check on sbbank{t}: {e}"))),
            };
            let num = |i: usize| -> i64 {
                row.get(i)
                    .cloned()
                    .flatten()
                    .and_then(|v| v.split('.').next().and_then(|x| x.parse().ok()))
                    .unwrap_or(-1)
            };
            let (count, sum) = (num(0), num(1));
            if count != n || sum != n * INITIAL_BALANCE {
                return Some(Err(format!(
                    "bank check FAILED on sbbank{t}: {count} accounts holding {sum}, expected {n} holding {}",
                    n * INITIAL_BALANCE
                )));
            }
            total += sum;
        }
        Some(Ok(format!(
            "bank check passed: {} tables, total balance {total} unchanged",
            self.opts.tables.max(1)
        )))
    }
}
