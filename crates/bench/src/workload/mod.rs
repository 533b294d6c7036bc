//! Workloads: which statements a connection prepares and what one transaction sends.
//!
//! A workload is a fixed list of logical statements ([`StmtDef`], SQL with `?` placeholders)
//! and a generator that fills one transaction's [`Request`]s (statement index + parameters)
//! with fresh random values. The driver prepares every statement marked `prepared` on each
//! connection (server-side prepared statements, like sysbench's default `--db-ps-mode=auto`)
//! and runs the requests as COM_STMT_EXECUTE; with `--ps-mode disable`, or for statements
//! sysbench itself always sends as text (the `oltp_insert` INSERT), it substitutes the values
//! into the text (integers as decimals, strings in single quotes with no escaping, exactly as
//! sysbench's `db_print_value` does) and sends COM_QUERY.
//!
//! A transaction that fails with a retryable error (1213, 1205, 1020 by default) is run again
//! from its first statement, like sysbench, which sends no ROLLBACK before the retry. The
//! `bank` workload sends ROLLBACK first, because after a lock-wait timeout MySQL rolls back
//! only the statement and the half-done transfer must not be committed by the next BEGIN.
//!
//! [`oltp`] holds the eight sysbench `oltp_*` scripts, [`replace`] the single-row REPLACE of
//! experiment 1 and [`bank`] the transfer workload whose invariant is checked after the run.

/// Progress messages of prepare / cleanup on stderr, unless [`set_quiet`].
macro_rules! say {
    ($($t:tt)*) => {
        if !$crate::workload::is_quiet() {
            eprintln!($($t)*);
        }
    };
}

pub mod bank;
pub mod oltp;
pub mod replace;

static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Silences the prepare / cleanup messages (experiments print their own lines).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, std::sync::atomic::Ordering::Relaxed);
}

pub fn is_quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

use crate::conn::SyncClient;
use crate::rand::{DistParams, Rng};
use crate::url::DbUrl;
use serde::Serialize;

/// One logical statement of a workload.
#[derive(Clone, Debug)]
pub struct StmtDef {
    pub sql: String,
    /// Run as a server-side prepared statement (unless `--ps-mode disable`).
    pub prepared: bool,
    /// The SQL split at its `?` placeholders (for text rendering).
    pieces: Vec<String>,
}

impl StmtDef {
    pub fn new(sql: impl Into<String>, prepared: bool) -> StmtDef {
        let sql = sql.into();
        let pieces = sql.split('?').map(str::to_string).collect();
        StmtDef {
            sql,
            prepared,
            pieces,
        }
    }

    /// Number of `?` placeholders.
    pub fn param_count(&self) -> usize {
        self.pieces.len() - 1
    }

    /// The statement text with `params` substituted (sysbench's `db_print_value`).
    pub fn render(&self, params: &[Param], out: &mut Vec<u8>) {
        out.clear();
        for (i, piece) in self.pieces.iter().enumerate() {
            out.extend_from_slice(piece.as_bytes());
            if i + 1 < self.pieces.len() {
                match params.get(i) {
                    Some(Param::Int(v)) => {
                        use std::io::Write;
                        let _ = write!(out, "{v}");
                    }
                    Some(Param::Str(s)) => {
                        out.push(b'\'');
                        out.extend_from_slice(s);
                        out.push(b'\'');
                    }
                    None => out.extend_from_slice(b"NULL"),
                }
            }
        }
    }
}

/// A statement parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Param {
    Int(i64),
    Str(Vec<u8>),
}

/// One statement of a transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// Index into [`Workload::statements`].
    pub stmt: u16,
    pub params: Vec<Param>,
}

/// Options shared by all workloads (sysbench's names where they exist).
#[derive(Clone, Debug, Serialize)]
pub struct WorkloadOptions {
    pub tables: u32,
    pub table_size: u32,
    pub dist: DistParams,
    pub point_selects: u32,
    pub simple_ranges: u32,
    pub sum_ranges: u32,
    pub order_ranges: u32,
    pub distinct_ranges: u32,
    pub index_updates: u32,
    pub non_index_updates: u32,
    pub delete_inserts: u32,
    pub range_size: u32,
    pub range_selects: bool,
    pub skip_trx: bool,
    pub create_secondary: bool,
    pub storage_engine: String,
}

impl Default for WorkloadOptions {
    fn default() -> Self {
        WorkloadOptions {
            tables: 1,
            table_size: 10_000,
            dist: DistParams::default(),
            point_selects: 10,
            simple_ranges: 1,
            sum_ranges: 1,
            order_ranges: 1,
            distinct_ranges: 1,
            index_updates: 1,
            non_index_updates: 1,
            delete_inserts: 1,
            range_size: 100,
            range_selects: true,
            skip_trx: false,
            create_secondary: true,
            storage_engine: "innodb".into(),
        }
    }
}

/// A workload: statements, transaction generator, set-up, clean-up and an optional check.
pub trait Workload: Send + Sync {
    fn name(&self) -> &str;

    /// The logical statements, in the order each connection prepares them.
    fn statements(&self) -> &[StmtDef];

    /// Fills `txn` with the next transaction's requests (the vector is cleared first).
    fn next_txn(&self, rng: &mut Rng, txn: &mut Vec<Request>);

    /// The ROLLBACK statement to send before retrying a failed transaction, if any.
    fn rollback_before_retry(&self) -> Option<u16> {
        None
    }

    /// Creates and loads the tables (`prepare`), using up to `threads` connections.
    fn prepare(&self, url: &DbUrl, threads: usize) -> Result<(), String>;

    /// Drops the tables (`cleanup`).
    fn cleanup(&self, url: &DbUrl) -> Result<(), String>;

    /// Checks invariants after a run: `Some(Ok(summary))`, `Some(Err(violation))`, or
    /// `None` when the workload has nothing to check.
    fn check(&self, _client: &mut SyncClient) -> Option<Result<String, String>> {
        None
    }
}

/// The workloads `--workload` accepts.
pub const WORKLOAD_NAMES: &[&str] = &[
    "oltp_point_select",
    "oltp_read_only",
    "oltp_read_write",
    "oltp_write_only",
    "oltp_update_index",
    "oltp_update_non_index",
    "oltp_insert",
    "oltp_delete",
    "replace",
    "bank",
];

/// Builds a workload by name.
pub fn by_name(name: &str, opts: &WorkloadOptions) -> Result<Box<dyn Workload>, String> {
    let name = name.trim_end_matches(".lua");
    if let Some(kind) = oltp::OltpKind::from_name(name) {
        return Ok(Box::new(oltp::Oltp::new(kind, opts.clone())));
    }
    match name {
        "replace" => Ok(Box::new(replace::Replace::new(opts.clone()))),
        "bank" => Ok(Box::new(bank::Bank::new(opts.clone()))),
        _ => Err(format!(
            "unknown workload '{name}'; one of: {}",
            WORKLOAD_NAMES.join(", ")
        )),
    }
}

/// Bulk loader: appends rows as `,(…)` to `head` until the next would pass 512 KiB (the
/// size sysbench uses), then sends the INSERT in autocommit mode.
pub(crate) struct BulkInsert<'a> {
    client: &'a mut SyncClient,
    head: String,
    buf: String,
    rows: usize,
}

const BULK_PACKET_SIZE: usize = 512 * 1024;

impl<'a> BulkInsert<'a> {
    pub(crate) fn new(client: &'a mut SyncClient, head: String) -> BulkInsert<'a> {
        BulkInsert {
            client,
            head,
            buf: String::new(),
            rows: 0,
        }
    }

    pub(crate) fn row(&mut self, row: &str) -> Result<(), String> {
        if self.rows > 0 && self.buf.len() + row.len() + 1 > BULK_PACKET_SIZE {
            self.flush()?;
        }
        if self.rows == 0 {
            self.buf.clear();
            self.buf.push_str(&self.head);
        } else {
            self.buf.push(',');
        }
        self.buf.push_str(row);
        self.rows += 1;
        Ok(())
    }

    pub(crate) fn flush(&mut self) -> Result<(), String> {
        if self.rows > 0 {
            self.client
                .execute(&self.buf)
                .map_err(|e| format!("bulk insert: {e}"))?;
            self.rows = 0;
        }
        Ok(())
    }
}

/// Runs `f(client, table)` for tables 1..=n on up to `threads` connections in parallel
/// (thread t takes tables t+1, t+1+threads, … like sysbench).
pub(crate) fn for_each_table(
    url: &DbUrl,
    tables: u32,
    threads: usize,
    f: &(dyn Fn(&mut SyncClient, u32) -> Result<(), String> + Sync),
) -> Result<(), String> {
    let threads = threads.clamp(1, tables.max(1) as usize);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || -> Result<(), String> {
                    let mut c =
                        SyncClient::connect(url).map_err(|e| format!("connect {url}: {e}"))?;
                    let mut table = t as u32 + 1;
                    while table <= tables {
                        f(&mut c, table)?;
                        table += threads as u32;
                    }
                    c.close();
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("loader thread panicked".into()))
            })
            .collect::<Result<Vec<()>, String>>()
            .map(|_| ())
    })
}

/// Drops `{prefix}1..{prefix}n` if they exist.
pub(crate) fn drop_tables(url: &DbUrl, prefix: &str, tables: u32) -> Result<(), String> {
    let mut c = SyncClient::connect(url).map_err(|e| format!("connect {url}: {e}"))?;
    for t in 1..=tables {
        say!("Dropping table '{prefix}{t}'...");
        c.execute(&format!("DROP TABLE IF EXISTS {prefix}{t}"))
            .map_err(|e| format!("DROP TABLE {prefix}{t}: {e}"))?;
    }
    c.close();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_sysbench() {
        let s = StmtDef::new("UPDATE sbtest1 SET c=? WHERE id=?", true);
        assert_eq!(s.param_count(), 2);
        let mut out = Vec::new();
        s.render(&[Param::Str(b"12-34".to_vec()), Param::Int(-5)], &mut out);
        assert_eq!(out, b"UPDATE sbtest1 SET c='12-34' WHERE id=-5");
        let s = StmtDef::new("BEGIN", true);
        s.render(&[], &mut out);
        assert_eq!(out, b"BEGIN");
    }

    #[test]
    fn every_name_builds() {
        let opts = WorkloadOptions::default();
        for name in WORKLOAD_NAMES {
            let w = by_name(name, &opts).unwrap();
            assert_eq!(w.name(), *name);
            let mut rng = Rng::new(1, opts.dist);
            let mut txn = Vec::new();
            w.next_txn(&mut rng, &mut txn);
            assert!(!txn.is_empty());
            for r in &txn {
                let def = &w.statements()[r.stmt as usize];
                assert_eq!(def.param_count(), r.params.len(), "{name}: {}", def.sql);
            }
        }
        assert!(by_name("oltp_nothing", &opts).is_err());
        assert!(by_name("oltp_read_write.lua", &opts).is_ok());
    }
}
