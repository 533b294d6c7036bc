//! The prepared statements of one connection.

use super::ServerContext;
use crate::sql::Prepared;
use crate::status::StatusCounter;
use cohort_protocol::ParamType;
use std::collections::HashMap;

/// One prepared statement and what the client told us about its parameters.
pub(super) struct StmtEntry {
    pub prepared: Prepared,
    /// Parameter types from the last execute that sent them (sysbench sends them once).
    pub types: Vec<ParamType>,
    /// COM_STMT_SEND_LONG_DATA chunks per parameter, consumed by the next execute.
    pub long_data: Vec<Option<Vec<u8>>>,
}

/// Statement id → statement. Ids start at 1 and are never reused within a connection.
#[derive(Default)]
pub(super) struct Statements {
    map: HashMap<u32, StmtEntry>,
    last_id: u32,
}

impl Statements {
    pub fn add(&mut self, ctx: &ServerContext, prepared: Prepared) -> u32 {
        self.last_id = self.last_id.wrapping_add(1).max(1);
        let params = prepared.params;
        self.map.insert(
            self.last_id,
            StmtEntry {
                prepared,
                types: Vec::new(),
                long_data: vec![None; params],
            },
        );
        ctx.status.incr(StatusCounter::PreparedStmtCount);
        self.last_id
    }

    pub fn get_mut(&mut self, id: u32) -> Option<&mut StmtEntry> {
        self.map.get_mut(&id)
    }

    pub fn remove(&mut self, ctx: &ServerContext, id: u32) {
        if self.map.remove(&id).is_some() {
            ctx.status.sub(StatusCounter::PreparedStmtCount, 1);
        }
    }

    pub fn clear(&mut self, ctx: &ServerContext) {
        ctx.status
            .sub(StatusCounter::PreparedStmtCount, self.map.len() as u64);
        self.map.clear();
    }
}
