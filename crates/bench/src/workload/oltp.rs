//! The sysbench 1.0.20 `oltp_*` scripts (`oltp_common.lua` and the eight test scripts):
//! same statements, same mix, same random choices.
//!
//! | workload | one transaction |
//! |---|---|
//! | `oltp_point_select` | 1 point select |
//! | `oltp_read_only` | BEGIN; 10 point selects; simple, sum, order, distinct range; COMMIT |
//! | `oltp_read_write` | BEGIN; 10 point; 4 ranges; UPDATE k; UPDATE c; DELETE id=X; INSERT id=X; COMMIT |
//! | `oltp_write_only` | BEGIN; UPDATE k; UPDATE c; DELETE; INSERT; COMMIT |
//! | `oltp_update_index` | `UPDATE sbtestN SET k=k+1 WHERE id=?` (autocommit) |
//! | `oltp_update_non_index` | `UPDATE sbtestN SET c=? WHERE id=?` (autocommit) |
//! | `oltp_delete` | `DELETE FROM sbtestN WHERE id=?` (autocommit) |
//! | `oltp_insert` | text `INSERT INTO sbtestN (id, k, c, pad) VALUES (0, k, 'c', 'pad')` |
//!
//! Each group of statements (the 10 point selects, each range kind, the updates, the
//! delete+insert pair) picks its table uniformly; ids come from the `--rand-type`
//! distribution over 1..table_size; ranges are `[id, id + range_size − 1]`.

use super::{
    drop_tables, for_each_table, BulkInsert, Param, Request, StmtDef, Workload, WorkloadOptions,
};
use crate::conn::SyncClient;
use crate::rand::{Rng, C_TEMPLATE, PAD_TEMPLATE};
use crate::url::DbUrl;

/// Which script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OltpKind {
    PointSelect,
    ReadOnly,
    ReadWrite,
    WriteOnly,
    UpdateIndex,
    UpdateNonIndex,
    Insert,
    Delete,
}

impl OltpKind {
    pub fn from_name(name: &str) -> Option<OltpKind> {
        Some(match name {
            "oltp_point_select" => OltpKind::PointSelect,
            "oltp_read_only" => OltpKind::ReadOnly,
            "oltp_read_write" => OltpKind::ReadWrite,
            "oltp_write_only" => OltpKind::WriteOnly,
            "oltp_update_index" => OltpKind::UpdateIndex,
            "oltp_update_non_index" => OltpKind::UpdateNonIndex,
            "oltp_insert" => OltpKind::Insert,
            "oltp_delete" => OltpKind::Delete,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            OltpKind::PointSelect => "oltp_point_select",
            OltpKind::ReadOnly => "oltp_read_only",
            OltpKind::ReadWrite => "oltp_read_write",
            OltpKind::WriteOnly => "oltp_write_only",
            OltpKind::UpdateIndex => "oltp_update_index",
            OltpKind::UpdateNonIndex => "oltp_update_non_index",
            OltpKind::Insert => "oltp_insert",
            OltpKind::Delete => "oltp_delete",
        }
    }
}

/// The per-table statement kinds of `oltp_common.lua`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    PointSelect,
    SimpleRange,
    SumRange,
    OrderRange,
    DistinctRange,
    IndexUpdate,
    NonIndexUpdate,
    Delete,
    Insert,
    /// oltp_insert's INSERT, always sent as text.
    InsertText,
}

const ALL_KINDS: [Kind; 10] = [
    Kind::PointSelect,
    Kind::SimpleRange,
    Kind::SumRange,
    Kind::OrderRange,
    Kind::DistinctRange,
    Kind::IndexUpdate,
    Kind::NonIndexUpdate,
    Kind::Delete,
    Kind::Insert,
    Kind::InsertText,
];

fn sql_of(kind: Kind, t: u32) -> String {
    match kind {
        Kind::PointSelect => format!("SELECT c FROM sbtest{t} WHERE id=?"),
        Kind::SimpleRange => format!("SELECT c FROM sbtest{t} WHERE id BETWEEN ? AND ?"),
        Kind::SumRange => format!("SELECT SUM(k) FROM sbtest{t} WHERE id BETWEEN ? AND ?"),
        Kind::OrderRange => {
            format!("SELECT c FROM sbtest{t} WHERE id BETWEEN ? AND ? ORDER BY c")
        }
        Kind::DistinctRange => {
            format!("SELECT DISTINCT c FROM sbtest{t} WHERE id BETWEEN ? AND ? ORDER BY c")
        }
        Kind::IndexUpdate => format!("UPDATE sbtest{t} SET k=k+1 WHERE id=?"),
        Kind::NonIndexUpdate => format!("UPDATE sbtest{t} SET c=? WHERE id=?"),
        Kind::Delete => format!("DELETE FROM sbtest{t} WHERE id=?"),
        Kind::Insert | Kind::InsertText => {
            format!("INSERT INTO sbtest{t} (id, k, c, pad) VALUES (?, ?, ?, ?)")
        }
    }
}

const BEGIN: u16 = 0;
const COMMIT: u16 = 1;

/// One of the sysbench OLTP scripts.
pub struct Oltp {
    kind: OltpKind,
    opts: WorkloadOptions,
    stmts: Vec<StmtDef>,
    /// `index[table - 1][kind]` = statement index, if the script uses that kind.
    index: Vec<[Option<u16>; ALL_KINDS.len()]>,
}

impl Oltp {
    pub fn new(kind: OltpKind, mut opts: WorkloadOptions) -> Oltp {
        if kind == OltpKind::PointSelect {
            // oltp_point_select.lua: one query per event.
            opts.point_selects = 1;
        }
        let used: Vec<Kind> = match kind {
            OltpKind::PointSelect => vec![Kind::PointSelect],
            OltpKind::ReadOnly => vec![
                Kind::PointSelect,
                Kind::SimpleRange,
                Kind::SumRange,
                Kind::OrderRange,
                Kind::DistinctRange,
            ],
            OltpKind::ReadWrite => ALL_KINDS[..9].to_vec(),
            OltpKind::WriteOnly => vec![
                Kind::IndexUpdate,
                Kind::NonIndexUpdate,
                Kind::Delete,
                Kind::Insert,
            ],
            OltpKind::UpdateIndex => vec![Kind::IndexUpdate],
            OltpKind::UpdateNonIndex => vec![Kind::NonIndexUpdate],
            OltpKind::Insert => vec![Kind::InsertText],
            OltpKind::Delete => vec![Kind::Delete],
        };
        let mut stmts = vec![StmtDef::new("BEGIN", true), StmtDef::new("COMMIT", true)];
        let mut index = Vec::new();
        for t in 1..=opts.tables.max(1) {
            let mut row = [None; ALL_KINDS.len()];
            for k in &used {
                row[*k as usize] = Some(stmts.len() as u16);
                stmts.push(StmtDef::new(sql_of(*k, t), *k != Kind::InsertText));
            }
            index.push(row);
        }
        Oltp {
            kind,
            opts,
            stmts,
            index,
        }
    }

    fn table(&self, rng: &mut Rng) -> usize {
        rng.uniform(1, self.opts.tables.max(1)) as usize - 1
    }

    fn id(&self, rng: &mut Rng) -> i64 {
        i64::from(rng.default_dist(1, self.opts.table_size.max(1)))
    }

    fn stmt(&self, t: usize, k: Kind) -> u16 {
        self.index[t][k as usize].expect("statement prepared for this script")
    }

    fn rand_str(rng: &mut Rng, template: &[u8]) -> Param {
        let mut v = Vec::with_capacity(template.len());
        rng.rand_str(template, &mut v);
        Param::Str(v)
    }

    fn point_selects(&self, rng: &mut Rng, txn: &mut Vec<Request>) {
        let t = self.table(rng);
        for _ in 0..self.opts.point_selects {
            let id = self.id(rng);
            txn.push(Request {
                stmt: self.stmt(t, Kind::PointSelect),
                params: vec![Param::Int(id)],
            });
        }
    }

    fn ranges(&self, rng: &mut Rng, txn: &mut Vec<Request>) {
        for (kind, n) in [
            (Kind::SimpleRange, self.opts.simple_ranges),
            (Kind::SumRange, self.opts.sum_ranges),
            (Kind::OrderRange, self.opts.order_ranges),
            (Kind::DistinctRange, self.opts.distinct_ranges),
        ] {
            let t = self.table(rng);
            for _ in 0..n {
                let id = self.id(rng);
                txn.push(Request {
                    stmt: self.stmt(t, kind),
                    params: vec![
                        Param::Int(id),
                        Param::Int(id + i64::from(self.opts.range_size) - 1),
                    ],
                });
            }
        }
    }

    fn index_updates(&self, rng: &mut Rng, txn: &mut Vec<Request>) {
        let t = self.table(rng);
        for _ in 0..self.opts.index_updates {
            let id = self.id(rng);
            txn.push(Request {
                stmt: self.stmt(t, Kind::IndexUpdate),
                params: vec![Param::Int(id)],
            });
        }
    }

    fn non_index_updates(&self, rng: &mut Rng, txn: &mut Vec<Request>) {
        let t = self.table(rng);
        for _ in 0..self.opts.non_index_updates {
            let c = Self::rand_str(rng, C_TEMPLATE);
            let id = self.id(rng);
            txn.push(Request {
                stmt: self.stmt(t, Kind::NonIndexUpdate),
                params: vec![c, Param::Int(id)],
            });
        }
    }

    fn delete_inserts(&self, rng: &mut Rng, txn: &mut Vec<Request>) {
        let t = self.table(rng);
        for _ in 0..self.opts.delete_inserts {
            let id = self.id(rng);
            let k = self.id(rng);
            txn.push(Request {
                stmt: self.stmt(t, Kind::Delete),
                params: vec![Param::Int(id)],
            });
            let c = Self::rand_str(rng, C_TEMPLATE);
            let pad = Self::rand_str(rng, PAD_TEMPLATE);
            txn.push(Request {
                stmt: self.stmt(t, Kind::Insert),
                params: vec![Param::Int(id), Param::Int(k), c, pad],
            });
        }
    }

    fn begin(&self, txn: &mut Vec<Request>) {
        if !self.opts.skip_trx {
            txn.push(Request {
                stmt: BEGIN,
                params: Vec::new(),
            });
        }
    }

    fn commit(&self, txn: &mut Vec<Request>) {
        if !self.opts.skip_trx {
            txn.push(Request {
                stmt: COMMIT,
                params: Vec::new(),
            });
        }
    }

    fn create_table(&self, c: &mut SyncClient, t: u32) -> Result<(), String> {
        say!("Creating table 'sbtest{t}'...");
        let ddl = format!(
            "CREATE TABLE sbtest{t}(\n  id INTEGER NOT NULL AUTO_INCREMENT,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) /*! ENGINE = {} */ ",
            self.opts.storage_engine
        );
        c.execute(&ddl)
            .map_err(|e| format!("CREATE TABLE sbtest{t}: {e}"))?;
        if self.kind != OltpKind::Insert || self.opts.table_size > 0 {
            say!(
                "Inserting {} records into 'sbtest{t}'",
                self.opts.table_size
            );
            let mut rng = Rng::new(0x5eed ^ u64::from(t), self.opts.dist);
            let mut bulk = BulkInsert::new(c, format!("INSERT INTO sbtest{t}(k, c, pad) VALUES"));
            let (mut cv, mut pv) = (Vec::new(), Vec::new());
            for _ in 0..self.opts.table_size {
                let k = rng.default_dist(1, self.opts.table_size.max(1));
                rng.rand_str(C_TEMPLATE, &mut cv);
                rng.rand_str(PAD_TEMPLATE, &mut pv);
                let row = format!(
                    "({k}, '{}', '{}')",
                    String::from_utf8_lossy(&cv),
                    String::from_utf8_lossy(&pv)
                );
                bulk.row(&row)?;
            }
            bulk.flush()?;
        }
        if self.opts.create_secondary {
            say!("Creating a secondary index on 'sbtest{t}'...");
            c.execute(&format!("CREATE INDEX k_{t} ON sbtest{t}(k)"))
                .map_err(|e| format!("CREATE INDEX k_{t}: {e}"))?;
        }
        Ok(())
    }
}

impl Workload for Oltp {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn statements(&self) -> &[StmtDef] {
        &self.stmts
    }

    fn next_txn(&self, rng: &mut Rng, txn: &mut Vec<Request>) {
        txn.clear();
        match self.kind {
            OltpKind::PointSelect => self.point_selects(rng, txn),
            OltpKind::ReadOnly => {
                self.begin(txn);
                self.point_selects(rng, txn);
                if self.opts.range_selects {
                    self.ranges(rng, txn);
                }
                self.commit(txn);
            }
            OltpKind::ReadWrite => {
                self.begin(txn);
                self.point_selects(rng, txn);
                if self.opts.range_selects {
                    self.ranges(rng, txn);
                }
                self.index_updates(rng, txn);
                self.non_index_updates(rng, txn);
                self.delete_inserts(rng, txn);
                self.commit(txn);
            }
            OltpKind::WriteOnly => {
                self.begin(txn);
                self.index_updates(rng, txn);
                self.non_index_updates(rng, txn);
                self.delete_inserts(rng, txn);
                self.commit(txn);
            }
            OltpKind::UpdateIndex => self.index_updates(rng, txn),
            OltpKind::UpdateNonIndex => self.non_index_updates(rng, txn),
            OltpKind::Delete => {
                let t = self.table(rng);
                let id = self.id(rng);
                txn.push(Request {
                    stmt: self.stmt(t, Kind::Delete),
                    params: vec![Param::Int(id)],
                });
            }
            OltpKind::Insert => {
                let t = self.table(rng);
                let k = self.id(rng);
                let c = Self::rand_str(rng, C_TEMPLATE);
                let pad = Self::rand_str(rng, PAD_TEMPLATE);
                txn.push(Request {
                    stmt: self.stmt(t, Kind::InsertText),
                    params: vec![Param::Int(0), Param::Int(k), c, pad],
                });
            }
        }
    }

    fn prepare(&self, url: &DbUrl, threads: usize) -> Result<(), String> {
        for_each_table(url, self.opts.tables, threads, &|c, t| {
            self.create_table(c, t)
        })
    }

    fn cleanup(&self, url: &DbUrl) -> Result<(), String> {
        drop_tables(url, "sbtest", self.opts.tables)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqls(kind: OltpKind) -> Vec<String> {
        let opts = WorkloadOptions {
            tables: 4,
            ..WorkloadOptions::default()
        };
        let w = Oltp::new(kind, opts.clone());
        let mut rng = Rng::new(3, opts.dist);
        let mut txn = Vec::new();
        w.next_txn(&mut rng, &mut txn);
        txn.iter()
            .map(|r| {
                let mut out = Vec::new();
                w.statements()[r.stmt as usize].render(&r.params, &mut out);
                String::from_utf8(out).unwrap()
            })
            .collect()
    }

    fn shape(v: &[String]) -> Vec<String> {
        v.iter()
            .map(|s| {
                s.split(" WHERE")
                    .next()
                    .unwrap()
                    .split(" (")
                    .next()
                    .unwrap()
                    .trim_end_matches(char::is_numeric)
                    .replace(|c: char| c.is_ascii_digit(), "")
            })
            .collect()
    }

    #[test]
    fn read_write_mix_is_sysbenchs() {
        let v = sqls(OltpKind::ReadWrite);
        assert_eq!(v.len(), 20);
        assert_eq!(v[0], "BEGIN");
        assert_eq!(v[19], "COMMIT");
        let s = shape(&v);
        assert!(s[1..11].iter().all(|x| x == "SELECT c FROM sbtest"));
        assert_eq!(s[11], "SELECT c FROM sbtest");
        assert_eq!(s[12], "SELECT SUM(k) FROM sbtest");
        assert_eq!(s[15], "UPDATE sbtest SET k=k+");
        assert!(v[16].starts_with("UPDATE sbtest") && v[16].contains(" SET c='"));
        assert!(v[17].starts_with("DELETE FROM sbtest"));
        assert!(v[18].starts_with("INSERT INTO sbtest"));
        // DELETE and INSERT share the table and the id.
        let del_id = v[17].rsplit('=').next().unwrap();
        assert!(v[18].contains(&format!("VALUES ({del_id}, ")));
        assert_eq!(
            v[17][..19],
            v[18].replace("INSERT INTO", "DELETE FROM")[..19]
        );
        // One table for all ten point selects.
        assert!(v[1..11].iter().all(|x| x[..21] == v[1][..21]));
        // Range of 100 ids.
        let r: Vec<i64> = v[11]
            .split("BETWEEN ")
            .nth(1)
            .unwrap()
            .split(" AND ")
            .map(|x| x.parse().unwrap())
            .collect();
        assert_eq!(r[1] - r[0], 99);
    }

    #[test]
    fn single_statement_scripts() {
        assert_eq!(sqls(OltpKind::PointSelect).len(), 1);
        assert_eq!(sqls(OltpKind::ReadOnly).len(), 16);
        assert_eq!(sqls(OltpKind::WriteOnly).len(), 6);
        let v = sqls(OltpKind::UpdateNonIndex);
        assert_eq!(v.len(), 1);
        assert!(v[0].contains(" SET c='") && v[0].len() > 119);
        let v = sqls(OltpKind::Insert);
        assert!(v[0].starts_with("INSERT INTO sbtest") && v[0].contains("VALUES (0, "));
        let w = Oltp::new(OltpKind::Insert, WorkloadOptions::default());
        assert!(!w.statements()[2].prepared, "oltp_insert uses COM_QUERY");
        let w = Oltp::new(OltpKind::ReadWrite, WorkloadOptions::default());
        assert!(w.statements().iter().all(|s| s.prepared));
    }
}
