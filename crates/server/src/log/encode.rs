//! Encoding a committed transaction's row changes as binlog events, outside the log mutex.
//!
//! Each session encodes its own transaction at offset 0 with a placeholder GTID; the leader
//! relocates the bytes into the file ([`super::binlog::relocate`]). The binlog records each
//! row's net change (its image before the transaction and after it), in the order the
//! transaction first changed the rows. Consecutive changes to one table made by one statement
//! form one statement in the binlog: an Annotate_rows event with the statement's text
//! (`binlog_annotate_row_events`) before its first Table_map, then the Table_map (with the
//! optional metadata `binlog_row_metadata` asks for) and rows events split at ~8 KiB.
//!
//! A row changed by several statements is attributed to the first.
//!
//! Rows only FOREIGN KEY cascades changed are not for a replica: its engine cascades them
//! itself, as MariaDB's binlog leaves them out. Where the binlog is not the log recovery
//! replays (classic mode), they are left out too. In one-log mode recovery needs them, so
//! they are written as statements of their own whose Table_map and rows events carry
//! LOG_EVENT_IGNORABLE_F: a MariaDB replica and `mariadb-binlog` skip any event with that
//! flag, Cohort's reader decodes them like any other.
//!
//! A statement that ran with `foreign_key_checks = 0` or `unique_checks = 0` marks its rows
//! events with NO_FOREIGN_KEY_CHECKS_F / RELAXED_UNIQUE_CHECKS_F, as MariaDB does, so a
//! replica applies them without those checks.
//!
//! DDL is a GTID and a Query event whose status variables carry the session's settings
//! (`cohort_binlog::querystatus`), so a replica with other defaults applies it alike.

use super::rowimage::{row_to_bin, table_map};
use crate::error::{Error, Result};
use crate::storage::RowChange;
use cohort_binlog::querystatus::{flags2, sql_mode_bits};
use cohort_binlog::{
    encode_transaction, BinlogPos, GtidEvent, GtidSeq, QueryEvent, QueryStatus,
    RowChange as BinChange, RowMetadata, RowsStatement, ServerId, TableMap, Transaction, Xid,
};

fn now_secs() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as u32)
}

/// The text of the statements of a transaction, for Annotate_rows: `(first, text)` where
/// `first` is the change count when the statement began ([`crate::storage::Txn::change_count`]),
/// ascending.
pub type Annotations = [(usize, String)];

/// How a transaction's events are written.
#[derive(Clone, Copy, Debug)]
pub struct EventOptions<'a> {
    pub server_id: u32,
    pub row_metadata: RowMetadata,
    /// Annotate_rows texts (empty: none).
    pub annotations: &'a Annotations,
    /// What becomes of the rows only FOREIGN KEY cascades changed.
    pub cascaded: CascadedRows,
    /// Statements that ran with rows flags (`foreign_key_checks` or `unique_checks` off):
    /// `(first, flags)` as in [`Annotations`], ascending; most transactions have none.
    pub statement_flags: &'a StatementFlags,
}

/// Rows-event flags of a transaction's statements: `(first change, flags)`.
pub type StatementFlags = [(usize, u16)];

/// How the rows only FOREIGN KEY cascades changed are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CascadedRows {
    /// Left out, as MariaDB does (classic mode: recovery replays the redo log).
    Omit,
    /// Written as ignorable events (one-log mode: recovery replays the binlog).
    Ignorable,
}

/// One statement's table and changes, before borrowing them into a `RowsStatement`.
struct Group<'a> {
    map: TableMap,
    changes: Vec<BinChange<'a>>,
    /// Index into the annotations, if it starts a statement of its own.
    annotate: Option<usize>,
    rows_flags: u16,
    ignorable: bool,
}

/// The annotation a change at `position` belongs to: the last statement that began at or
/// before it.
fn statement_of(annotations: &Annotations, position: usize) -> Option<usize> {
    annotations
        .partition_point(|(first, _)| *first <= position)
        .checked_sub(1)
}

/// The rows flags of the statement a change at `position` belongs to.
fn flags_of(statements: &StatementFlags, position: usize) -> u16 {
    let i = statements.partition_point(|(first, _)| *first <= position);
    i.checked_sub(1).map_or(0, |i| statements[i].1)
}

/// The events of one transaction: GTID, ([Annotate_rows] Table_map, rows…)…, Xid. `changes`
/// are the transaction's net changes with their places ([`crate::storage::Txn::changes_positioned`]).
pub fn transaction_events(
    changes: &[(usize, RowChange)],
    xid: u64,
    opts: &EventOptions<'_>,
) -> Result<Vec<u8>> {
    let mut groups: Vec<Group> = Vec::new();
    let mut last: Option<(u64, Option<usize>, u16, bool)> = None;
    let mut last_statement = None;
    for (position, c) in changes {
        if opts.cascaded == CascadedRows::Omit && c.cascaded {
            continue;
        }
        let def = c.table.def();
        let id = c.table.id().0;
        let statement = statement_of(opts.annotations, *position);
        let rows_flags = flags_of(opts.statement_flags, *position);
        let key = (id, statement, rows_flags, c.cascaded);
        if last != Some(key) {
            // An ignorable group never opens a statement's annotation: a replica would see
            // the text without its rows.
            let annotate = statement.filter(|_| statement != last_statement && !c.cascaded);
            groups.push(Group {
                map: table_map(id, c.table.db(), &def, opts.row_metadata),
                changes: Vec::new(),
                annotate,
                rows_flags,
                ignorable: c.cascaded,
            });
            last = Some(key);
            if annotate.is_some() {
                last_statement = statement;
            }
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
            annotate: g.annotate.map(|i| opts.annotations[i].1.as_str()),
            rows_flags: g.rows_flags,
            ignorable: g.ignorable,
        })
        .collect();
    let txn = Transaction {
        gtid: GtidEvent::transaction(GtidSeq(0), 0, Some(0)),
        statements: &statements,
        xid: Xid(xid),
    };
    let (bytes, _) = encode_transaction(BinlogPos(0), ServerId(opts.server_id), now_secs(), &txn)
        .map_err(|e| Error::internal(format!("binlog encoding: {e}")))?;
    Ok(bytes)
}

/// The session settings a DDL statement ran with, for its Query event.
#[derive(Clone, Debug)]
pub struct DdlSettings {
    pub sql_mode: String,
    pub auto_is_null: bool,
    /// `foreign_key_checks` was off (a replica must not check the statement's FOREIGN KEYs).
    pub no_fk_checks: bool,
    /// Collation ids: the client character set's default collation, `collation_connection`,
    /// `collation_server`.
    pub charset: [u16; 3],
    /// `time_zone` when it is not SYSTEM.
    pub time_zone: Option<String>,
    /// The statement's time (Unix microseconds) if it read its clock: the event's timestamp
    /// and `Q_HRNOW`, so that a replay or a replica fills the same values (`ddl_session.rs`).
    pub when_us: Option<u64>,
}

impl DdlSettings {
    fn status(&self, xid: Option<u64>) -> QueryStatus {
        let mut f = flags2::EXPLICIT_DEFAULTS_FOR_TIMESTAMP;
        if self.auto_is_null {
            f |= flags2::AUTO_IS_NULL;
        }
        if self.no_fk_checks {
            f |= flags2::NO_FOREIGN_KEY_CHECKS;
        }
        QueryStatus {
            flags2: Some(f),
            sql_mode: Some(sql_mode_bits(&self.sql_mode)),
            catalog: true,
            charset: Some(self.charset),
            time_zone: self.time_zone.clone(),
            hrnow: self.when_us.map(|w| (w % 1_000_000) as u32),
            xid,
        }
    }

    /// What a redo DDL record keeps of them.
    pub fn session(&self) -> super::ddl_session::DdlSession {
        super::ddl_session::DdlSession {
            when_us: self.when_us,
            sql_mode: Some(self.sql_mode.clone()),
            time_zone: self.time_zone.clone(),
        }
    }
}

/// The events of one DDL statement: GTID (standalone) and Query, whose status variables say
/// how the session was set up; in classic mode they carry its XID (MariaDB's `Q_XID`).
pub fn ddl_events(
    db: Option<&str>,
    sql: &str,
    conn_id: u32,
    server_id: u32,
    settings: &DdlSettings,
    xid: Option<u64>,
) -> Result<Vec<u8>> {
    let secs = settings
        .when_us
        .map_or_else(now_secs, |w| (w / 1_000_000) as u32);
    let mut w = cohort_binlog::EventWriter::new(BinlogPos(0), ServerId(server_id), secs);
    let mut query = QueryEvent::new(conn_id, db.unwrap_or(""), sql);
    query.status_vars = settings.status(xid).encode();
    w.write_ddl(&GtidEvent::ddl(GtidSeq(0), 0), &query)
        .map_err(|e| Error::internal(format!("binlog encoding: {e}")))?;
    Ok(w.into_bytes())
}

/// The XID of a DDL Query event (its `Q_XID` status variable), if any.
pub fn query_xid(status_vars: &[u8]) -> Option<u64> {
    QueryStatus::decode(status_vars).ok()?.xid
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_belong_to_the_last_statement_begun_before_them() {
        let a: Vec<(usize, String)> = vec![(0, "s1".into()), (3, "s2".into()), (3, "s3".into())];
        assert_eq!(statement_of(&a, 0), Some(0));
        assert_eq!(statement_of(&a, 2), Some(0));
        assert_eq!(statement_of(&a, 3), Some(2), "s2 changed nothing");
        assert_eq!(statement_of(&a, 9), Some(2));
        assert_eq!(statement_of(&[], 0), None);
        let late: Vec<(usize, String)> = vec![(2, "s".into())];
        assert_eq!(
            statement_of(&late, 1),
            None,
            "changed before any annotated statement"
        );
    }
}
