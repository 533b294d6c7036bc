//! information_schema.INNODB_TRX: one row per open transaction.

use super::column;
use crate::error::Result;
use crate::sql::env::Env;
use crate::storage::{ColumnDef, TableDef};
use crate::types::{Collation, DataType, Value};

pub(super) fn def() -> TableDef {
    let big = |n: &str| {
        column(
            n,
            DataType::BigInt {
                unsigned: true,
                display: Default::default(),
            },
        )
    };
    let flag = |n: &str| {
        column(
            n,
            DataType::Int {
                unsigned: false,
                display: Default::default(),
            },
        )
    };
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
        foreign_keys: Vec::new(),
        checks: Vec::new(),
        default_collation: crate::types::Collation::Utf8mb4GeneralCi,
    }
}

fn datetime(t: std::time::SystemTime) -> Value {
    let d = t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    Value::DateTime(crate::sql::expr::convert::datetime_from_unix(
        d.as_secs() as i64,
        0,
    ))
}

pub(super) fn rows(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    let ctx = env.ctx;
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
