//! Virtual tables of the system schemas (`performance_schema`, `information_schema`, …).
//!
//! A virtual table is a fixed list of columns and a function that produces its rows when a
//! statement reads it; `SELECT` treats it like a table without indexes (full scan, WHERE,
//! ORDER BY, aggregates all apply). [`resolve`] is the hook FROM-resolution calls for a name
//! in a system schema; a name it does not know is error 1235.
//!
//! None are defined yet: `performance_schema.events_waits_summary_global_by_event_name` comes
//! next (its rows from `crate::wait`).

use super::bind::{ScopeColumn, TableScope};
use crate::error::Result;
use crate::session::state::ServerContext;
use crate::types::Value;

/// A table computed on read.
pub struct VirtualTable {
    pub scope: TableScope,
    /// Produces the current rows (column values in `scope.columns` order).
    pub rows: fn(&ServerContext) -> Result<Vec<Vec<Value>>>,
}

impl VirtualTable {
    #[allow(dead_code)] // for the virtual tables to come
    pub fn new(
        db: &str,
        name: &str,
        alias: Option<String>,
        columns: Vec<ScopeColumn>,
        rows: fn(&ServerContext) -> Result<Vec<Vec<Value>>>,
    ) -> VirtualTable {
        VirtualTable {
            scope: TableScope {
                db: db.to_string(),
                table: name.to_string(),
                alias,
                columns,
            },
            rows,
        }
    }
}

/// The virtual table `db.name`, if there is one (names compare case-insensitively).
pub fn resolve(
    ctx: &ServerContext,
    db: &str,
    name: &str,
    alias: Option<String>,
) -> Option<VirtualTable> {
    let _ = (ctx, db, name, alias);
    None
}
