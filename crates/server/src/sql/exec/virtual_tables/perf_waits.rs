//! performance_schema.events_waits_summary_global_by_event_name: one row per wait event.

use super::column;
use crate::error::Result;
use crate::sql::env::Env;
use crate::storage::{IndexDef, IndexPart, TableDef};
use crate::types::{Collation, DataType, Value};

pub(super) fn def() -> TableDef {
    let counter = |n: &str| {
        column(
            n,
            DataType::BigInt {
                unsigned: true,
                display: Default::default(),
            },
        )
    };
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
            implicit: false,
        }),
        indexes: Vec::new(),
        engine: "PERFORMANCE_SCHEMA".to_string(),
        auto_increment_start: 1,
        comment: None,
        foreign_keys: Vec::new(),
        checks: Vec::new(),
        default_collation: crate::types::Collation::Utf8mb4GeneralCi,
    }
}

pub(super) fn rows(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    let ctx = env.ctx;
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
