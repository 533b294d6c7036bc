//! information_schema.THREAD_POOL_GROUPS: one row per thread group.

use super::column;
use crate::error::Result;
use crate::sql::env::Env;
use crate::storage::TableDef;
use crate::types::{DataType, Value};

pub(super) fn def() -> TableDef {
    let count = |n: &str| {
        column(
            n,
            DataType::Int {
                unsigned: true,
                display: Default::default(),
            },
        )
    };
    let flag = |n: &str| {
        column(
            n,
            DataType::TinyInt {
                unsigned: true,
                display: Default::default(),
            },
        )
    };
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
        foreign_keys: Vec::new(),
        checks: Vec::new(),
        default_collation: crate::types::Collation::Utf8mb4GeneralCi,
    }
}

pub(super) fn rows(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    let ctx = env.ctx;
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
