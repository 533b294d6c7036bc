//! information_schema.PROCESSLIST (and SHOW [FULL] PROCESSLIST, which shows its first
//! columns): one row per connection, from the server's process list
//! ([`crate::session::processlist`]). A user without administrator rights (MariaDB's PROCESS
//! privilege) sees only the connections of its own user name.

use super::column;
use crate::error::Result;
use crate::sql::env::Env;
use crate::storage::{ColumnDef, TableDef};
use crate::types::{Collation, DataType, Value};
use cohort_decimal::Decimal;

pub(super) fn def() -> TableDef {
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
    let big = |n: &str| {
        column(
            n,
            DataType::BigInt {
                unsigned: false,
                display: Default::default(),
            },
        )
    };
    let int = |n: &str| {
        column(
            n,
            DataType::Int {
                unsigned: false,
                display: Default::default(),
            },
        )
    };
    let tiny = |n: &str| {
        column(
            n,
            DataType::TinyInt {
                unsigned: false,
                display: Default::default(),
            },
        )
    };
    let dec = |n: &str, precision: u8| {
        column(
            n,
            DataType::Decimal {
                precision,
                scale: 3,
            },
        )
    };
    TableDef {
        name: "PROCESSLIST".to_string(),
        columns: vec![
            big("ID"),
            text("USER", 128, false),
            text("HOST", 64, false),
            text("DB", 64, true),
            text("COMMAND", 16, false),
            int("TIME"),
            text("STATE", 64, true),
            ColumnDef {
                nullable: true,
                ..column(
                    "INFO",
                    DataType::Text {
                        max_bytes: u32::MAX as u64,
                        collation: Collation::Utf8mb4GeneralCi,
                    },
                )
            },
            dec("TIME_MS", 22),
            tiny("STAGE"),
            tiny("MAX_STAGE"),
            dec("PROGRESS", 7),
            big("MEMORY_USED"),
            big("MAX_MEMORY_USED"),
            int("EXAMINED_ROWS"),
            big("QUERY_ID"),
            ColumnDef {
                nullable: true,
                ..column("INFO_BINARY", DataType::Blob { max_bytes: 65535 })
            },
            big("TID"),
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

/// One connection as SHOW PROCESSLIST and information_schema show it.
pub struct ProcessRow {
    pub id: u32,
    pub user: String,
    pub host: String,
    pub db: Option<String>,
    pub command: &'static str,
    pub time_ms: u128,
    pub state: &'static str,
    pub info: Option<String>,
}

/// The connections `env`'s user may see, by id.
pub fn visible(env: &Env<'_>) -> Vec<ProcessRow> {
    let admin = env.ctx.accounts.has_global(
        env.sess.user,
        env.sess.host,
        crate::accounts::Privs::PROCESS,
    );
    env.ctx
        .processes
        .snapshot()
        .into_iter()
        .filter_map(|p| {
            let shown = p.shown();
            if !admin && shown.user != env.sess.user {
                return None;
            }
            let state = match shown.command {
                "Query" => "Sending data",
                _ => "",
            };
            Some(ProcessRow {
                id: p.id,
                user: shown.user,
                host: p.host.clone(),
                db: shown.db,
                command: shown.command,
                time_ms: shown.since.elapsed().as_millis(),
                state,
                info: shown.info,
            })
        })
        .collect()
}

pub(super) fn rows(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    let text = |s: Option<&str>| s.map_or(Value::Null, Value::str);
    Ok(visible(env)
        .into_iter()
        .map(|p| {
            vec![
                Value::Int(i64::from(p.id)),
                Value::str(&p.user),
                Value::str(&p.host),
                text(p.db.as_deref()),
                Value::str(p.command),
                Value::Int((p.time_ms / 1000) as i64),
                Value::str(p.state),
                text(p.info.as_deref()),
                Value::Decimal(Decimal::new(p.time_ms as i128, 3)),
                Value::Int(0),
                Value::Int(0),
                Value::Decimal(Decimal::new(0, 3)),
                Value::Int(0),
                Value::Int(0),
                Value::Int(0),
                Value::Int(0),
                p.info.map_or(Value::Null, |i| Value::Bytes(i.into_bytes())),
                Value::Int(i64::from(p.id)),
            ]
        })
        .collect())
}
