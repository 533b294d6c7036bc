//! Encoding a committed transaction's row changes as binlog events, outside the log mutex.
//!
//! Each session encodes its own transaction at offset 0 with a placeholder GTID; the leader
//! relocates the bytes into the file ([`super::binlog::relocate`]). Consecutive changes to the
//! same table form one statement (one Table_map, then rows events split at ~8 KiB).

use super::rowimage::{row_to_bin, table_map};
use crate::error::{Error, Result};
use crate::storage::RowChange;
use cohort_binlog::{
    encode_transaction, BinlogPos, GtidEvent, GtidSeq, QueryEvent, RowChange as BinChange,
    RowsStatement, ServerId, TableMap, Transaction, Xid,
};

fn now_secs() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as u32)
}

/// One statement's table and changes, before borrowing them into a `RowsStatement`.
struct Group<'a> {
    map: TableMap,
    changes: Vec<BinChange<'a>>,
}

/// The events of one transaction: GTID, (Table_map, rows…)…, Xid.
pub fn transaction_events(changes: &[RowChange], xid: u64, server_id: u32) -> Result<Vec<u8>> {
    let mut groups: Vec<Group> = Vec::new();
    let mut last_table: Option<u64> = None;
    for c in changes {
        let def = c.table.def();
        let id = c.table.id().0;
        if last_table != Some(id) {
            groups.push(Group {
                map: table_map(id, c.table.db(), &def),
                changes: Vec::new(),
            });
            last_table = Some(id);
        }
        let bin = match (&c.before, &c.after) {
            (None, Some(a)) => BinChange::Insert(row_to_bin(&def, a)),
            (Some(b), Some(a)) => BinChange::Update {
                before: row_to_bin(&def, b),
                after: row_to_bin(&def, a),
            },
            (Some(b), None) => BinChange::Delete(row_to_bin(&def, b)),
            (None, None) => continue,
        };
        groups.last_mut().expect("pushed").changes.push(bin);
    }
    let statements: Vec<RowsStatement> = groups
        .iter()
        .map(|g| RowsStatement {
            table: &g.map,
            changes: &g.changes,
            annotate: None,
        })
        .collect();
    let txn = Transaction {
        gtid: GtidEvent::transaction(GtidSeq(0), 0, Some(0)),
        statements: &statements,
        xid: Xid(xid),
    };
    let (bytes, _) = encode_transaction(BinlogPos(0), ServerId(server_id), now_secs(), &txn)
        .map_err(|e| Error::internal(format!("binlog encoding: {e}")))?;
    Ok(bytes)
}

/// The events of one DDL statement: GTID (standalone) and Query.
pub fn ddl_events(
    db: Option<&str>,
    sql: &str,
    conn_id: u32,
    server_id: u32,
    xid: Option<u64>,
) -> Result<Vec<u8>> {
    let mut w = cohort_binlog::EventWriter::new(BinlogPos(0), ServerId(server_id), now_secs());
    let mut query = QueryEvent::new(conn_id, db.unwrap_or(""), sql);
    if let Some(xid) = xid {
        query.status_vars.push(Q_XID);
        query.status_vars.extend_from_slice(&xid.to_le_bytes());
    }
    w.write_ddl(&GtidEvent::ddl(GtidSeq(0), 0), &query)
        .map_err(|e| Error::internal(format!("binlog encoding: {e}")))?;
    Ok(w.into_bytes())
}

/// MariaDB's Query-event status variable `Q_XID` (code 129, 8 bytes): the XID of a DDL
/// statement, which its crash recovery matches against the engine's log — as ours does in
/// classic mode (the redo `PreparedDdl` record).
const Q_XID: u8 = 129;

/// The XID of a DDL Query event written by [`ddl_events`] (its only status variable), if any.
pub fn query_xid(status_vars: &[u8]) -> Option<u64> {
    match status_vars {
        [Q_XID, xid @ ..] if xid.len() == 8 => Some(u64::from_le_bytes(xid.try_into().ok()?)),
        _ => None,
    }
}
