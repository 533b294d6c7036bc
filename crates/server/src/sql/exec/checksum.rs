//! `CHECKSUM TABLE t [, t2 …] [QUICK | EXTENDED]`: one row per table, (Table, Checksum).
//!
//! The checksum is computed from the rows the statement's consistent read sees, exactly as
//! MariaDB computes it for an InnoDB table: the sum modulo 2^32 of each row's CRC-32 over
//! MariaDB's record image of the row ([`record_image`] explains the image per type). So a
//! table dumped from MariaDB and restored into Cohort (or back) checksums the same on both.
//! QUICK asks for a live checksum, which InnoDB tables (and Cohort's) do not keep: NULL, as
//! MariaDB answers. A missing table is a row with a NULL checksum and an error-level warning
//! 1146, as in MariaDB. The session's TEMPORARY tables are checksummed too (one hides the base
//! table of its name).

mod record_image;

use crate::error::Result;
use crate::session::state::{ServerContext, SessionState, Warning};
use crate::sql::bind::coldef::expr_column;
use crate::sql::bind::sqltype::SqlType;
use crate::sql::env::{Env, SessView};
use crate::sql::plan::{check_db_access, is_system_schema};
use crate::sql::QueryResult;
use crate::storage::{KeyRange, LockMode, ScanControl};
use crate::types::Value;
use cohort_protocol::ErrorCode;

/// The result columns, as MariaDB sends them: `Table` VARCHAR(384), `Checksum` BIGINT.
pub fn columns() -> Vec<cohort_protocol::ColumnDefinition> {
    vec![
        expr_column("Table", &SqlType::varchar(384)),
        expr_column("Checksum", &SqlType::bigint()),
    ]
}

pub fn checksum_tables(
    ctx: &ServerContext,
    sess: &mut SessionState,
    tables: &[(Option<String>, String)],
    quick: bool,
) -> Result<QueryResult> {
    let mut rows = Vec::new();
    let mut warnings = Vec::new();
    for (db, t) in tables {
        let db = match db {
            Some(d) => d.clone(),
            None => sess.db.clone().ok_or_else(crate::error::Error::no_db)?,
        };
        {
            let env = Env::new(ctx, SessView::of(sess, 0), &[]);
            check_db_access(&env, &db)?;
        }
        let name = format!("{db}.{t}");
        // A TEMPORARY table hides the base table of its name, as in MariaDB.
        let temporary = sess
            .temp_tables
            .iter()
            .find(|x| x.db() == db && x.name() == t)
            .cloned();
        let table = if temporary.is_some() {
            temporary
        } else if is_system_schema(&db) {
            None
        } else {
            ctx.engine.table(&db, t).ok()
        };
        let Some(table) = table else {
            warnings.push(Warning {
                level: "Error",
                code: ErrorCode::NoSuchTable.number(),
                message: format!("Table '{name}' doesn't exist"),
            });
            rows.push(vec![Value::str(&name), Value::Null]);
            continue;
        };
        if quick {
            rows.push(vec![Value::str(&name), Value::Null]);
            continue;
        }
        let mut sum: u32 = 0;
        let def = table.def();
        let mut image = record_image::RecordImage::new(&def);
        let txn = sess.txn(ctx);
        table.scan_primary(txn, &KeyRange::all(), LockMode::None, &mut |_, row| {
            sum = sum.wrapping_add(image.row_crc(row));
            crate::interrupt::check()?;
            Ok(ScanControl::Continue)
        })?;
        rows.push(vec![Value::str(&name), Value::Int(i64::from(sum))]);
    }
    sess.warnings.extend(warnings);
    Ok(QueryResult::Rows {
        columns: columns(),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::state::{ServerContext, SessionState};
    use crate::testkit::{root_session, rows, run_all};

    fn checksums(ctx: &ServerContext, sess: &mut SessionState, sql: &str) -> Vec<Value> {
        rows(ctx, sess, sql)
            .into_iter()
            .map(|r| r[1].clone())
            .collect()
    }

    /// Equal contents give equal checksums whatever the insertion order; a changed value, or
    /// NULL for '', changes it; the session's own uncommitted rows are seen.
    #[test]
    fn checksum_follows_contents() {
        let ctx = ServerContext::for_tests();
        let mut sess = root_session(1);
        run_all(
            &ctx,
            &mut sess,
            &[
                "CREATE DATABASE c",
                "USE c",
                "CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(10))",
                "CREATE TABLE b (id INT PRIMARY KEY, v VARCHAR(10))",
                "INSERT INTO a VALUES (1, 'x'), (2, NULL), (3, '')",
                "INSERT INTO b VALUES (3, ''), (2, NULL), (1, 'x')",
            ],
        );
        let s = checksums(&ctx, &mut sess, "CHECKSUM TABLE a, b");
        assert_eq!(s[0], s[1]);
        assert_ne!(s[0], Value::Int(0));
        run_all(
            &ctx,
            &mut sess,
            &["BEGIN", "UPDATE b SET v = NULL WHERE id = 3"],
        );
        let t = checksums(&ctx, &mut sess, "CHECKSUM TABLE a, b");
        assert_eq!(t[0], s[0]);
        assert_ne!(t[1], s[1]);
    }
}
