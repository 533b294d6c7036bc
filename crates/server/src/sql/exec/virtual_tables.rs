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
use crate::storage::{ColumnDef, ColumnDefault, IndexDef, IndexPart, TableDef};
use crate::types::{Collation, DataType, Value};
use cohort_protocol::ErrorCode;
use std::sync::Arc;

/// A table computed on read, as resolved for one statement.
pub struct VirtualTable {
    pub scope: TableScope,
    /// Produces the current rows (column values in `scope.columns` order).
    pub rows: fn(&ServerContext) -> Result<Vec<Vec<Value>>>,
}

/// One system table: where it lives, its columns, its rows, what TRUNCATE does.
struct SystemTable {
    db: &'static str,
    name: &'static str,
    def: fn() -> TableDef,
    rows: fn(&ServerContext) -> Result<Vec<Vec<Value>>>,
    truncate: fn(&ServerContext),
}

static TABLES: &[SystemTable] = &[
    SystemTable {
        db: "performance_schema",
        name: "events_waits_summary_global_by_event_name",
        def: waits_summary_def,
        rows: waits_summary_rows,
        truncate: |ctx| ctx.waits.reset(),
    },
    SystemTable {
        db: "information_schema",
        name: "THREAD_POOL_GROUPS",
        def: pool_groups_def,
        rows: pool_groups_rows,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "INNODB_TRX",
        def: innodb_trx_def,
        rows: innodb_trx_rows,
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

// ---------------------------------------------------------------------------------------------
// performance_schema.events_waits_summary_global_by_event_name

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

fn waits_summary_def() -> TableDef {
    let counter = |n: &str| column(n, DataType::BigInt { unsigned: true });
    TableDef {
        name: "events_waits_summary_global_by_event_name".to_string(),
        columns: vec![
            column(
                "EVENT_NAME",
                DataType::VarChar {
                    len: 128,
                    collation: Collation::Utf8mb4GeneralCi,
                },
            ),
            counter("COUNT_STAR"),
            counter("SUM_TIMER_WAIT"),
            counter("MIN_TIMER_WAIT"),
            counter("AVG_TIMER_WAIT"),
            counter("MAX_TIMER_WAIT"),
        ],
        primary_key: Some(IndexDef {
            name: "PRIMARY".to_string(),
            parts: vec![IndexPart {
                column: 0,
                prefix_len: None,
            }],
            unique: true,
        }),
        indexes: Vec::new(),
        engine: "PERFORMANCE_SCHEMA".to_string(),
        auto_increment_start: 1,
        comment: None,
    }
}

fn waits_summary_rows(ctx: &ServerContext) -> Result<Vec<Vec<Value>>> {
    if !ctx.waits.enabled() {
        return Ok(Vec::new());
    }
    Ok(ctx
        .waits
        .summary()
        .into_iter()
        .map(|r| {
            vec![
                Value::str(r.event_name),
                Value::UInt(r.count_star),
                Value::UInt(r.sum_timer_wait),
                Value::UInt(r.min_timer_wait),
                Value::UInt(r.avg_timer_wait),
                Value::UInt(r.max_timer_wait),
            ]
        })
        .collect())
}

// ---------------------------------------------------------------------------------------------
// information_schema.THREAD_POOL_GROUPS

fn pool_groups_def() -> TableDef {
    let count = |n: &str| column(n, DataType::Int { unsigned: true });
    let flag = |n: &str| column(n, DataType::TinyInt { unsigned: true });
    TableDef {
        name: "THREAD_POOL_GROUPS".to_string(),
        columns: vec![
            count("GROUP_ID"),
            count("CONNECTIONS"),
            count("THREADS"),
            count("ACTIVE_THREADS"),
            count("STANDBY_THREADS"),
            count("QUEUE_LENGTH"),
            flag("HAS_LISTENER"),
            flag("IS_STALLED"),
        ],
        primary_key: None,
        indexes: Vec::new(),
        engine: "MEMORY".to_string(),
        auto_increment_start: 1,
        comment: None,
    }
}

fn pool_groups_rows(ctx: &ServerContext) -> Result<Vec<Vec<Value>>> {
    let Some(pool) = ctx.thread_pool.get().and_then(|p| p.upgrade()) else {
        return Ok(Vec::new());
    };
    let n = |v: usize| Value::UInt(v as u64);
    Ok(pool
        .group_rows()
        .into_iter()
        .map(|g| {
            vec![
                n(g.id),
                n(g.connections),
                n(g.threads),
                n(g.active_threads),
                n(g.standby_threads),
                n(g.queue_length),
                Value::UInt(g.has_listener as u64),
                Value::UInt(g.is_stalled as u64),
            ]
        })
        .collect())
}

// ---------------------------------------------------------------------------------------------
// information_schema.INNODB_TRX

fn innodb_trx_def() -> TableDef {
    let big = |n: &str| column(n, DataType::BigInt { unsigned: true });
    let flag = |n: &str| column(n, DataType::Int { unsigned: false });
    let text = |n: &str, len: u32, nullable: bool| ColumnDef {
        nullable,
        ..column(
            n,
            DataType::VarChar {
                len,
                collation: Collation::Utf8mb4GeneralCi,
            },
        )
    };
    let time = |n: &str, nullable: bool| ColumnDef {
        nullable,
        ..column(n, DataType::DateTime { fsp: 0 })
    };
    TableDef {
        name: "INNODB_TRX".to_string(),
        columns: vec![
            big("trx_id"),
            text("trx_state", 13, false),
            time("trx_started", false),
            text("trx_requested_lock_id", 81, true),
            time("trx_wait_started", true),
            big("trx_weight"),
            big("trx_mysql_thread_id"),
            text("trx_query", 1024, true),
            text("trx_operation_state", 64, true),
            big("trx_tables_in_use"),
            big("trx_tables_locked"),
            big("trx_lock_structs"),
            big("trx_lock_memory_bytes"),
            big("trx_rows_locked"),
            big("trx_rows_modified"),
            big("trx_concurrency_tickets"),
            text("trx_isolation_level", 16, false),
            flag("trx_unique_checks"),
            flag("trx_foreign_key_checks"),
            text("trx_last_foreign_key_error", 256, true),
            flag("trx_is_read_only"),
            flag("trx_autocommit_non_locking"),
            ColumnDef {
                nullable: true,
                ..big("trx_snapshot")
            },
        ],
        primary_key: None,
        indexes: Vec::new(),
        engine: "MEMORY".to_string(),
        auto_increment_start: 1,
        comment: None,
    }
}

fn datetime(t: std::time::SystemTime) -> Value {
    let d = t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    Value::DateTime(crate::sql::expr::convert::datetime_from_unix(
        d.as_secs() as i64,
        0,
    ))
}

fn innodb_trx_rows(ctx: &ServerContext) -> Result<Vec<Vec<Value>>> {
    let n = Value::UInt;
    let opt_text = |s: Option<String>| s.map_or(Value::Null, |s| Value::str(&s));
    let mut rows: Vec<_> = ctx.engine.transactions();
    rows.sort_by_key(|t| std::cmp::Reverse(t.id));
    Ok(rows
        .into_iter()
        .map(|t| {
            let (lock_id, wait_started) = match t.waiting {
                Some((what, since)) => (Value::str(&what), datetime(since)),
                None => (Value::Null, Value::Null),
            };
            vec![
                n(t.id.0),
                Value::str(t.state.name()),
                datetime(t.started),
                lock_id,
                wait_started,
                n(t.rows_modified + t.lock_structs),
                n(u64::from(t.thread_id)),
                opt_text(t.query),
                Value::Null,
                n(t.tables_in_use),
                n(t.tables_in_use),
                n(t.lock_structs),
                n(t.rows_locked * 16),
                n(t.rows_locked),
                n(t.rows_modified),
                n(0),
                Value::str(t.isolation.sql_name()),
                Value::Int(1),
                Value::Int(1),
                Value::Null,
                Value::Int(t.read_only as i64),
                Value::Int(t.autocommit_non_locking as i64),
                t.view.map_or(Value::Null, |v| n(v.0)),
            ]
        })
        .collect())
}
