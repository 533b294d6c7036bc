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
use crate::types::{Collation, DataType, Value};
use cohort_protocol::ErrorCode;
use std::sync::Arc;

mod innodb_trx;
mod is_columns;
mod perf_waits;
pub mod processlist;
pub(crate) mod schema_objects;
mod server_state;
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
    SystemTable {
        db: "information_schema",
        name: "SCHEMATA",
        def: || is_def("SCHEMATA"),
        rows: schema_objects::schemata,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "TABLES",
        def: || is_def("TABLES"),
        rows: schema_objects::tables,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "COLUMNS",
        def: || is_def("COLUMNS"),
        rows: schema_objects::columns,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "STATISTICS",
        def: || is_def("STATISTICS"),
        rows: schema_objects::statistics,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "KEY_COLUMN_USAGE",
        def: || is_def("KEY_COLUMN_USAGE"),
        rows: schema_objects::key_column_usage,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "TABLE_CONSTRAINTS",
        def: || is_def("TABLE_CONSTRAINTS"),
        rows: schema_objects::table_constraints,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "REFERENTIAL_CONSTRAINTS",
        def: || is_def("REFERENTIAL_CONSTRAINTS"),
        rows: schema_objects::referential_constraints,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "CHECK_CONSTRAINTS",
        def: || is_def("CHECK_CONSTRAINTS"),
        rows: schema_objects::check_constraints,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "VIEWS",
        def: || is_def("VIEWS"),
        rows: schema_objects::views,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "ROUTINES",
        def: || is_def("ROUTINES"),
        rows: server_state::none,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "TRIGGERS",
        def: || is_def("TRIGGERS"),
        rows: server_state::none,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "EVENTS",
        def: || is_def("EVENTS"),
        rows: server_state::none,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "PARTITIONS",
        def: || is_def("PARTITIONS"),
        rows: server_state::none,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "FILES",
        def: || is_def("FILES"),
        rows: server_state::none,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "PARAMETERS",
        def: || is_def("PARAMETERS"),
        rows: server_state::none,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "ENGINES",
        def: || is_def("ENGINES"),
        rows: server_state::engines,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "CHARACTER_SETS",
        def: || is_def("CHARACTER_SETS"),
        rows: server_state::character_sets,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "COLLATIONS",
        def: || is_def("COLLATIONS"),
        rows: server_state::collations,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "COLLATION_CHARACTER_SET_APPLICABILITY",
        def: || is_def("COLLATION_CHARACTER_SET_APPLICABILITY"),
        rows: server_state::collation_applicability,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "GLOBAL_VARIABLES",
        def: || is_def("GLOBAL_VARIABLES"),
        rows: server_state::global_variables,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "SESSION_VARIABLES",
        def: || is_def("SESSION_VARIABLES"),
        rows: server_state::session_variables,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "GLOBAL_STATUS",
        def: || is_def("GLOBAL_STATUS"),
        rows: server_state::status,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "SESSION_STATUS",
        def: || is_def("SESSION_STATUS"),
        rows: server_state::status,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "USER_PRIVILEGES",
        def: || is_def("USER_PRIVILEGES"),
        rows: server_state::user_privileges,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "SCHEMA_PRIVILEGES",
        def: || is_def("SCHEMA_PRIVILEGES"),
        rows: server_state::schema_privileges,
        truncate: |_| {},
    },
    SystemTable {
        db: "information_schema",
        name: "TABLE_PRIVILEGES",
        def: || is_def("TABLE_PRIVILEGES"),
        rows: server_state::table_privileges,
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
        generated: None,
    }
}

/// The column types of information_schema tables (see `is_columns`).
#[derive(Clone, Copy)]
enum IsType {
    /// VARCHAR(n)
    Str(u32),
    Big,
    UBig,
    Int,
    UInt,
    /// DATETIME
    Time,
    LongText,
}

/// The definition of information_schema table `name`, with MariaDB's columns.
fn is_def(name: &str) -> TableDef {
    let columns = is_columns::TABLES
        .iter()
        .find(|(t, _)| *t == name)
        .map_or(&[][..], |(_, c)| c);
    let text = Collation::Utf8mb4GeneralCi;
    TableDef {
        name: name.to_string(),
        columns: columns
            .iter()
            .map(|(n, ty, nullable)| ColumnDef {
                nullable: *nullable,
                ..column(
                    n,
                    match ty {
                        IsType::Str(len) => DataType::VarChar {
                            len: *len,
                            collation: text,
                        },
                        IsType::Big => DataType::BigInt {
                            unsigned: false,
                            display: Default::default(),
                        },
                        IsType::UBig => DataType::BigInt {
                            unsigned: true,
                            display: Default::default(),
                        },
                        IsType::Int => DataType::Int {
                            unsigned: false,
                            display: Default::default(),
                        },
                        IsType::UInt => DataType::Int {
                            unsigned: true,
                            display: Default::default(),
                        },
                        IsType::Time => DataType::DateTime { fsp: 0 },
                        IsType::LongText => DataType::Text {
                            max_bytes: u32::MAX as u64,
                            collation: text,
                        },
                    },
                )
            })
            .collect(),
        primary_key: None,
        indexes: Vec::new(),
        engine: "MEMORY".to_string(),
        auto_increment_start: 1,
        comment: None,
        foreign_keys: Vec::new(),
        checks: Vec::new(),
        default_collation: crate::types::Collation::Utf8mb4GeneralCi,
    }
}

/// A text value.
fn text(s: &str) -> Value {
    Value::str(s)
}

/// A text value or NULL.
fn opt(s: Option<String>) -> Value {
    s.map_or(Value::Null, |s| Value::str(&s))
}
