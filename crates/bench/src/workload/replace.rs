//! Experiment 1's workload: one single-row `REPLACE INTO sbreplaceN (a, b) VALUES (?, ?)` per
//! transaction, in autocommit mode, on tables pre-filled with `table_size` rows (so every
//! REPLACE replaces). `a` comes from `--rand-type` over 1..table_size, `b` is uniform.

use super::{
    drop_tables, for_each_table, BulkInsert, Param, Request, StmtDef, Workload, WorkloadOptions,
};
use crate::rand::Rng;
use crate::url::DbUrl;

pub struct Replace {
    opts: WorkloadOptions,
    stmts: Vec<StmtDef>,
}

impl Replace {
    pub fn new(opts: WorkloadOptions) -> Replace {
        let stmts = (1..=opts.tables.max(1))
            .map(|t| {
                StmtDef::new(
                    format!("REPLACE INTO sbreplace{t} (a, b) VALUES (?, ?)"),
                    true,
                )
            })
            .collect();
        Replace { opts, stmts }
    }
}

impl Workload for Replace {
    fn name(&self) -> &str {
        "replace"
    }

    fn statements(&self) -> &[StmtDef] {
        &self.stmts
    }

    fn next_txn(&self, rng: &mut Rng, txn: &mut Vec<Request>) {
        txn.clear();
        let t = rng.uniform(1, self.opts.tables.max(1)) - 1;
        let a = rng.default_dist(1, self.opts.table_size.max(1));
        let b = rng.uniform(0, 999_999_999);
        txn.push(Request {
            stmt: t as u16,
            params: vec![Param::Int(i64::from(a)), Param::Int(i64::from(b))],
        });
    }

    fn prepare(&self, url: &DbUrl, threads: usize) -> Result<(), String> {
        for_each_table(url, self.opts.tables, threads, &|c, t| {
            say!("Creating table 'sbreplace{t}'...");
            c.execute(&format!(
                "CREATE TABLE sbreplace{t} (a INTEGER NOT NULL, b INTEGER NOT NULL, PRIMARY KEY (a)) /*! ENGINE = {} */",
                self.opts.storage_engine
            ))
            .map_err(|e| format!("CREATE TABLE sbreplace{t}: {e}"))?;
            say!(
                "Inserting {} records into 'sbreplace{t}'",
                self.opts.table_size
            );
            let mut rng = Rng::new(u64::from(t), self.opts.dist);
            let mut bulk = BulkInsert::new(c, format!("INSERT INTO sbreplace{t}(a, b) VALUES"));
            for a in 1..=self.opts.table_size {
                bulk.row(&format!("({a}, {})", rng.uniform(0, 999_999_999)))?;
            }
            bulk.flush()
        })
    }

    fn cleanup(&self, url: &DbUrl) -> Result<(), String> {
        drop_tables(url, "sbreplace", self.opts.tables)
    }
}
