//! Virtual tables of the system schemas (`performance_schema`, `information_schema`, …).
//!
//! A virtual table is a fixed definition and a function that produces its rows when a
//! statement reads it; `SELECT` treats it like a table without indexes (full scan, WHERE,
//! ORDER BY, LIMIT, aggregates all apply). [`resolve`] is the hook FROM-resolution calls for a
//! name in a system schema; a name it does not know is error 1235.
//!
//! | table | rows | TRUNCATE |
//! |---|---|---|
//! | `performance_schema.events_waits_summary_global_by_event_name` | one per [`WaitEvent`](crate::wait::WaitEvent), from the server's [`WaitStats`](crate::wait::WaitStats); times in picoseconds | resets every counter (the rows stay) |
//! | `information_schema.THREAD_POOL_GROUPS` | one per thread group of the pool (MariaDB's columns); none with a thread per connection | nothing |
//! | `information_schema.INNODB_TRX` | one per open transaction (MariaDB's columns, then Cohort's `trx_snapshot`: the commit sequence number its read view sees through, NULL without one) | nothing |
//!
//! As in MySQL: with `performance_schema = OFF` the tables exist and read empty; INSERT,
//! UPDATE and DELETE on them are refused with 1142 (ER_TABLEACCESS_DENIED_ERROR) even for
//! root; TRUNCATE resets a summary, is not binlogged, and (like all TRUNCATE) commits the open
//! transaction first.

use crate::error::{Error, Result};
use crate::session::state::ServerContext;
use crate::sql::bind::TableScope;
use crate::sql::env::Env;
use crate::storage::{ColumnDef, ColumnDefault, TableDef};
use crate::types::{DataType, Value};
use cohort_protocol::ErrorCode;
use std::sync::Arc;

mod innodb_trx;
mod perf_waits;
pub mod processlist;
mod thread_pool;

/// A table computed on read, as resolved for one statement.
pub struct VirtualTable {
    pub scope: TableScope,
    /// Produces the current rows (column values in `scope.columns` order).
    pub rows: fn(&Env<'_>) -> Result<Vec<Vec<Value>>>,
}

/// One system table: where it lives, its columns, its rows, what TRUNCATE does.
struct SystemTable {
    db: &'static str,
    name: &'static str,
    def: fn() -> TableDef,
    rows: fn(&Env<'_>) -> Result<Vec<Vec<Value>>>,
    truncate: fn(&ServerContext),
}

static TABLES: &[SystemTable] = &[
    SystemTable {
        db: "performance_schema",
        name: "events_waits_summary_global_by_event_name",
        def: perf_waits::def,
        rows: perf_waits::rows,
        truncate: |ctx| ctx.waits.reset(),
    },
    SystemTable {
        db: "information_schema",
        name: "THREAD_POOL_GROUPS",
        def: thread_pool::def,
        rows: thread_pool::rows,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "INNODB_TRX",
        def: innodb_trx::def,
        rows: innodb_trx::rows,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "PROCESSLIST",
        def: processlist::def,
        rows: processlist::rows,
        truncate: |_| {},
    },
];

fn find(db: &str, name: &str) -> Option<&'static SystemTable> {
    TABLES
        .iter()
        .find(|t| t.db.eq_ignore_ascii_case(db) && t.name.eq_ignore_ascii_case(name))
}

/// The virtual table `db.name`, if there is one (names compare case-insensitively).
pub fn resolve(
    ctx: &ServerContext,
    db: &str,
    name: &str,
    alias: Option<String>,
) -> Option<VirtualTable> {
    let _ = ctx;
    let t = find(db, name)?;
    Some(VirtualTable {
        scope: TableScope::of_def(t.db, &(t.def)(), alias),
        rows: t.rows,
    })
}

/// The definition of `db.name` (SHOW CREATE TABLE, SHOW COLUMNS).
pub fn definition(db: &str, name: &str) -> Option<Arc<TableDef>> {
    find(db, name).map(|t| Arc::new((t.def)()))
}

/// The virtual tables of a schema, sorted (SHOW TABLES).
pub fn names(db: &str) -> Vec<String> {
    let mut v: Vec<String> = TABLES
        .iter()
        .filter(|t| t.db.eq_ignore_ascii_case(db))
        .map(|t| t.name.to_string())
        .collect();
    v.sort();
    v
}

/// `TRUNCATE TABLE db.name` of a system table.
pub fn truncate(env: &Env<'_>, db: &str, name: &str) -> Result<()> {
    let t = find(db, name).ok_or_else(|| Error::no_such_table(db, name))?;
    (t.truncate)(env.ctx);
    Ok(())
}

/// INSERT / UPDATE / DELETE on a virtual table: 1142, as MySQL answers for its read-only
/// performance_schema tables (`command` is the statement's verb).
pub fn refuse_write(env: &Env<'_>, db: &str, name: &str, command: &str) -> Result<()> {
    match find(db, name) {
        Some(t) => Err(Error::new(
            ErrorCode::TableaccessDenied,
            format!(
                "{command} command denied to user '{}'@'{}' for table '{}'",
                env.sess.user, env.sess.host, t.name
            ),
        )),
        None => Ok(()),
    }
}

/// A NOT NULL column without a default (the virtual tables' building block).
fn column(name: &str, data_type: DataType) -> ColumnDef {
    ColumnDef {
        name: name.to_string(),
        data_type,
        nullable: false,
        default: ColumnDefault::None,
        auto_increment: false,
        on_update_current_timestamp: false,
        comment: None,
    }
}
