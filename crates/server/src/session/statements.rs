//! The prepared statements of one connection, and their COM_STMT_SEND_LONG_DATA.
//!
//! What each statement keeps is counted in the session's [`SessionMemory`]: its cost (what
//! preparing it kept) and its long data, released when the data is consumed by an execute, on
//! COM_STMT_RESET / COM_STMT_CLOSE, and when the session is reset or closed.

use super::memory::SessionMemory;
use super::ServerContext;
use crate::error::Error;
use crate::sql::Prepared;
use crate::status::StatusCounter;
use cohort_protocol::{ErrorCode, ParamType};
use std::collections::HashMap;

/// One prepared statement and what the client told us about its parameters.
pub(super) struct StmtEntry {
    pub prepared: Prepared,
    /// Parameter types from the last execute that sent them (sysbench sends them once).
    pub types: Vec<ParamType>,
    /// COM_STMT_SEND_LONG_DATA chunks per parameter, consumed by the next execute (empty
    /// until the first chunk: a statement of 65 535 parameters does not pay for 65 535 slots
    /// it never uses).
    pub long_data: Vec<Option<Vec<u8>>>,
    /// The error a COM_STMT_SEND_LONG_DATA met; every execute answers it until
    /// COM_STMT_RESET (as MariaDB does: long data has no reply of its own).
    pub long_data_error: Option<Error>,
    /// Bytes counted for the statement itself.
    cost: u64,
    /// Bytes counted for its long data (in the session's `long_data`).
    long_bytes: u64,
}

/// What a COM_STMT_SEND_LONG_DATA chunk did.
pub(super) enum LongData {
    Appended,
    /// Nothing appended; the statement now answers this error at execute.
    Refused,
}

impl StmtEntry {
    /// Bytes the long data holds (allocated, not only used).
    fn long_data_bytes(&self) -> u64 {
        let slots = self.long_data.capacity() * std::mem::size_of::<Option<Vec<u8>>>();
        let data: usize = self.long_data.iter().flatten().map(Vec::capacity).sum();
        (slots + data) as u64
    }

    /// Append a chunk for parameter `param`, holding each parameter to `max_packet` bytes
    /// (`max_allowed_packet`) and the session to `limit` (`max_session_mem_used`).
    pub fn append_long_data(
        &mut self,
        mem: &mut SessionMemory,
        param: u16,
        data: &[u8],
        max_packet: u64,
        limit: u64,
    ) -> LongData {
        if self.long_data_error.is_some() {
            return LongData::Refused;
        }
        let param = usize::from(param);
        if param >= self.prepared.params {
            return self.refuse(
                mem,
                Error::new(
                    ErrorCode::WrongArguments,
                    "Incorrect arguments to mysqld_stmt_send_long_data",
                ),
            );
        }
        let len = self
            .long_data
            .get(param)
            .and_then(Option::as_ref)
            .map_or(0, Vec::len);
        if (len + data.len()) as u64 > max_packet {
            return self.refuse(
                mem,
                Error::new(
                    ErrorCode::Unknown,
                    "Parameter of prepared statement which is set through mysql_send_long_data() \
                     is longer than 'max_allowed_packet' bytes",
                ),
            );
        }
        // Room for the slots and the data, grown by doubling where the limit allows (so many
        // small chunks do not copy the data again and again), else exactly.
        let slots = self.prepared.params;
        let extra_slots = slots.saturating_sub(self.long_data.len()) as u64
            * std::mem::size_of::<Option<Vec<u8>>>() as u64;
        let cap = self
            .long_data
            .get(param)
            .and_then(Option::as_ref)
            .map_or(0, Vec::capacity);
        let need = len + data.len();
        let doubled = need.max(cap * 2).min(max_packet as usize);
        let grow = |to: usize| extra_slots + to.saturating_sub(cap) as u64;
        let target = if mem.held() + grow(doubled) <= limit {
            doubled
        } else if mem.held() + grow(need) <= limit {
            need
        } else {
            return self.refuse(mem, crate::memory::over_limit(limit));
        };
        if self.long_data.len() < slots {
            self.long_data.resize(slots, None);
        }
        let slot = self.long_data[param].get_or_insert_with(Vec::new);
        if target > slot.capacity() {
            slot.reserve_exact(target - slot.len());
        }
        slot.extend_from_slice(data);
        let now = self.long_data_bytes();
        mem.long_data = (mem.long_data + now).saturating_sub(self.long_bytes);
        self.long_bytes = now;
        LongData::Appended
    }

    /// Forget the long data (consumed by an execute, reset or refused), giving its bytes back.
    pub fn drop_long_data(&mut self, mem: &mut SessionMemory) {
        mem.long_data = mem.long_data.saturating_sub(self.long_bytes);
        self.long_bytes = 0;
        self.long_data = Vec::new();
    }

    fn refuse(&mut self, mem: &mut SessionMemory, e: Error) -> LongData {
        self.drop_long_data(mem);
        self.long_data_error = Some(e);
        LongData::Refused
    }
}

/// Statement id → statement. Ids start at 1 and are never reused within a connection.
#[derive(Default)]
pub(super) struct Statements {
    map: HashMap<u32, StmtEntry>,
    last_id: u32,
    /// The statement the last COM_STMT_PREPARE made, None after it failed: the one id
    /// [`LAST_STATEMENT`] names.
    last_prepared: Option<u32>,
}

/// The statement id 0xFFFFFFFF (-1) in COM_STMT_EXECUTE / SEND_LONG_DATA / RESET / CLOSE names
/// the statement the connection's last COM_STMT_PREPARE made, as in MariaDB: a client can send
/// the prepare and the execute without waiting for the prepare's answer (MariaDB's own
/// Connector/Node.js and Connector/J pipeline them so).
pub(super) const LAST_STATEMENT: u32 = u32::MAX;

impl Statements {
    /// Give back a reservation that did not become a statement.
    pub fn unreserve(ctx: &ServerContext) {
        ctx.status.sub(StatusCounter::PreparedStmtCount, 1);
    }

    /// Keep a prepared statement (its reservation taken), counted as `cost` bytes.
    pub fn add(&mut self, mem: &mut SessionMemory, prepared: Prepared, cost: u64) -> u32 {
        self.last_id = self.last_id.wrapping_add(1).max(1);
        if self.last_id == LAST_STATEMENT {
            self.last_id = 1;
        }
        self.last_prepared = Some(self.last_id);
        self.map.insert(
            self.last_id,
            StmtEntry {
                prepared,
                types: Vec::new(),
                long_data: Vec::new(),
                long_data_error: None,
                cost,
                long_bytes: 0,
            },
        );
        mem.statements += cost;
        self.last_id
    }

    /// The id a command names: [`LAST_STATEMENT`] is the last prepared statement's (unknown, and
    /// so 1243, when the last prepare failed or there was none).
    pub fn resolve(&self, id: u32) -> u32 {
        match id {
            LAST_STATEMENT => self.last_prepared.unwrap_or(LAST_STATEMENT),
            _ => id,
        }
    }

    /// A COM_STMT_PREPARE failed: -1 names no statement until the next one succeeds.
    pub fn prepare_failed(&mut self) {
        self.last_prepared = None;
    }

    pub fn get_mut(&mut self, id: u32) -> Option<&mut StmtEntry> {
        self.map.get_mut(&id)
    }

    pub fn remove(&mut self, ctx: &ServerContext, mem: Option<&mut SessionMemory>, id: u32) {
        if self.last_prepared == Some(id) {
            self.last_prepared = None;
        }
        if let Some(mut entry) = self.map.remove(&id) {
            ctx.status.sub(StatusCounter::PreparedStmtCount, 1);
            if let Some(mem) = mem {
                entry.drop_long_data(mem);
                mem.statements = mem.statements.saturating_sub(entry.cost);
            }
        }
    }

    /// Forget every statement; the session's counts of them go to zero.
    pub fn clear(&mut self, ctx: &ServerContext, mem: Option<&mut SessionMemory>) {
        ctx.status
            .sub(StatusCounter::PreparedStmtCount, self.map.len() as u64);
        self.map.clear();
        self.last_prepared = None;
        if let Some(mem) = mem {
            mem.statements = 0;
            mem.long_data = 0;
        }
    }
}
