//! Binlog administration: SHOW BINARY LOGS, SHOW MASTER STATUS, SHOW BINLOG EVENTS, PURGE,
//! FLUSH BINARY LOGS.
//!
//! # Privileges
//!
//! As in MariaDB 10.11, each needs a global privilege, and a user without it gets 1227 naming
//! the ones that would do. Cohort's grants are all or nothing for now, so "has it" means
//! holding `ALL ON *.*`:
//!
//! | statement | MariaDB requires (any of) |
//! |---|---|
//! | SHOW BINLOG EVENTS | BINLOG MONITOR |
//! | SHOW BINARY LOGS / MASTER LOGS, SHOW MASTER STATUS / BINLOG STATUS | SUPER, BINLOG MONITOR |
//! | PURGE BINARY / MASTER LOGS | SUPER, BINLOG ADMIN |
//! | FLUSH [BINARY] LOGS | RELOAD |
//! | SHOW SLAVE HOSTS / REPLICA HOSTS | REPLICATION MASTER ADMIN |
//!
//! # Locking
//!
//! The SHOW statements read the binlog's committed end ([`crate::log::binlog_reader`]), never
//! the log mutex: they see exactly the committed groups, and a commit never waits for them.
//! SHOW BINLOG EVENTS streams the file through a bounded buffer and stops at its LIMIT.
//! PURGE and FLUSH BINARY LOGS change the files and take the log mutex (briefly).

use crate::error::{Error, Result};
use crate::log::binlog::BinlogFiles;
use crate::log::binlog_reader::{max_event_size, BinlogEnd, EventStream, StreamError};
use crate::session::state::{ServerContext, SessionState};
use crate::sql::bind::coldef::{int_column, text_column};
use crate::sql::env::Env;
use crate::sql::parse::PurgeTarget;
use crate::sql::QueryResult;
use crate::types::Value;
use cohort_binlog::{Event, EventDecoder};
use cohort_protocol::ErrorCode;
use std::sync::Arc;

fn no_binlog() -> Error {
    Error::new(
        ErrorCode::NoBinaryLogging,
        "You are not using binary logging",
    )
}

fn with_binlog<R>(ctx: &ServerContext, f: impl FnOnce(&mut BinlogFiles) -> R) -> Result<R> {
    ctx.pipeline.with_binlog(f).ok_or_else(no_binlog)
}

/// 1227 unless the session holds a global grant; `privileges` names what MariaDB accepts.
fn need_global(env: &Env<'_>, privileges: &str) -> Result<()> {
    let privs = crate::sql::exec::admin::privs_named(privileges);
    if env
        .ctx
        .accounts
        .has_global(env.sess.user, env.sess.host, privs)
    {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::SpecificAccessDenied,
        format!(
            "Access denied; you need (at least one of) the {privileges} privilege(s) for this operation"
        ),
    ))
}

fn committed_end(env: &Env<'_>) -> Result<Arc<BinlogEnd>> {
    env.ctx.pipeline.binlog_end().cloned().ok_or_else(no_binlog)
}

/// `SHOW BINARY LOGS`: Log_name, File_size (the current file: its committed end).
pub fn binary_logs(env: &Env<'_>) -> Result<QueryResult> {
    need_global(env, "SUPER, BINLOG MONITOR")?;
    let binlog = committed_end(env)?;
    let end = binlog.get();
    let mut rows = Vec::with_capacity(end.files.len());
    for name in end.files.iter() {
        // A file purged meanwhile is simply no longer listed.
        if let Ok(Some(size)) = binlog.readable_len(&end, name) {
            rows.push(vec![Value::str(name), Value::UInt(size)]);
        }
    }
    Ok(QueryResult::Rows {
        columns: vec![text_column("Log_name", 255), int_column("File_size")],
        rows,
    })
}

/// `SHOW MASTER STATUS`: File, Position (the committed end), Binlog_Do_DB, Binlog_Ignore_DB.
pub fn master_status(env: &Env<'_>) -> Result<QueryResult> {
    need_global(env, "SUPER, BINLOG MONITOR")?;
    let pos = committed_end(env)?.get().position();
    Ok(QueryResult::Rows {
        columns: vec![
            text_column("File", 255),
            int_column("Position"),
            text_column("Binlog_Do_DB", 255),
            text_column("Binlog_Ignore_DB", 255),
        ],
        rows: vec![vec![
            Value::str(&pos.file),
            Value::UInt(pos.pos),
            Value::str(""),
            Value::str(""),
        ]],
    })
}

/// `SHOW SLAVE HOSTS`: the replicas streaming from this server that registered
/// (COM_REGISTER_SLAVE): Server_id, Host, Port, Master_id (this server's id), as MariaDB 10.11.
pub fn slave_hosts(env: &Env<'_>) -> Result<QueryResult> {
    need_global(env, "REPLICATION MASTER ADMIN")?;
    let me = env.ctx.vars.global_u64("server_id");
    let rows = env
        .ctx
        .replication
        .hosts()
        .into_iter()
        .map(|h| {
            vec![
                Value::UInt(h.server_id as u64),
                Value::str(&h.host),
                Value::UInt(h.port as u64),
                Value::UInt(me),
            ]
        })
        .collect();
    let long = |name: &str, len: u32| {
        let mut c = int_column(name);
        c.column_type = cohort_protocol::ColumnType::LONG;
        c.column_length = len;
        c
    };
    Ok(QueryResult::Rows {
        columns: vec![
            long("Server_id", 10),
            text_column("Host", 20),
            long("Port", 7),
            long("Master_id", 10),
        ],
        rows,
    })
}

/// 1220 as MariaDB words it for SHOW BINLOG EVENTS.
fn show_events_error(what: &str) -> Error {
    Error::new(
        ErrorCode::ErrorWhenExecutingCommand,
        format!("Error when executing command SHOW BINLOG EVENTS: {what}"),
    )
}

fn stream_error(e: StreamError) -> Error {
    match e {
        StreamError::NotFound => show_events_error("Could not find target log"),
        StreamError::PastEnd { from, size } => show_events_error(&format!(
            "Invalid pos specified. Requested from pos:{from} is greater than actual file size:{size}"
        )),
        StreamError::NotAnEvent { .. } | StreamError::Io(_) => {
            show_events_error("Wrong offset or I/O error")
        }
    }
}

/// `SHOW BINLOG EVENTS [IN 'file'] [FROM pos] [LIMIT [offset,] n]`: the committed events of
/// `file` (default: the first in the index) from `pos` (an event's first byte; below 4: the
/// first event), skipping `offset` of them and returning at most `n`. Streams the file; reads
/// no further than the LIMIT needs.
pub fn binlog_events(
    env: &Env<'_>,
    file: Option<&str>,
    from: Option<u64>,
    offset: u64,
    limit: Option<u64>,
) -> Result<QueryResult> {
    need_global(env, "BINLOG MONITOR")?;
    let binlog = committed_end(env)?;
    let end = binlog.get();
    let max_event = max_event_size(env.ctx.vars.global_u64("max_allowed_packet"));
    let from = from.unwrap_or(4);
    let mut stream =
        EventStream::open(&binlog, &end, file, from, max_event).map_err(stream_error)?;
    let name = stream.name().to_string();
    let mut decoder = EventDecoder::with_checksums(stream.checksums());
    let (mut skip, mut left) = (offset, limit.unwrap_or(u64::MAX));
    let mut rows = Vec::new();
    while left > 0 {
        let Some(ev) = stream.next_event() else {
            break;
        };
        let ev = ev.map_err(stream_error)?;
        if skip > 0 {
            skip -= 1;
            continue;
        }
        let info = raw_event_info(&mut decoder, &ev)
            .map_err(|_| show_events_error("Wrong offset or I/O error"))?;
        rows.push(vec![
            Value::str(&name),
            Value::UInt(ev.pos.0),
            Value::str(ev.header.event_type.name()),
            Value::UInt(ev.header.server_id.0 as u64),
            Value::UInt(ev.end()),
            Value::str(&info),
        ]);
        left -= 1;
    }
    Ok(QueryResult::Rows {
        columns: vec![
            text_column("Log_name", 255),
            int_column("Pos"),
            text_column("Event_type", 64),
            int_column("Server_id"),
            int_column("End_log_pos"),
            text_column("Info", 1024),
        ],
        rows,
    })
}

/// The Info column of a verified event. Rows events are described from their post-header
/// (table id, flags), so a listing that starts after their Table_map needs none.
fn raw_event_info(
    decoder: &mut EventDecoder,
    ev: &crate::log::binlog_reader::RawEvent<'_>,
) -> std::result::Result<String, cohort_binlog::DecodeError> {
    if ev.header.event_type.rows_kind().is_some() {
        let body = ev.body();
        if body.len() >= 8 {
            let mut id = [0u8; 8];
            id[..6].copy_from_slice(&body[..6]);
            let table_id = u64::from_le_bytes(id);
            let flags = u16::from_le_bytes([body[6], body[7]]);
            return Ok(if flags & cohort_binlog::STMT_END_F != 0 {
                format!("table_id: {table_id} flags: STMT_END_F")
            } else {
                format!("table_id: {table_id}")
            });
        }
    }
    let decoded = decoder.decode(ev.pos, ev.bytes)?;
    Ok(event_info(&decoded.event))
}

/// The Info column, as MariaDB prints it for the events we write.
fn event_info(e: &Event) -> String {
    match e {
        Event::FormatDescription(_) => "Server ver: 10.11.0-cohort, Binlog ver: 4".into(),
        Event::Gtid(g) => match g.commit_id {
            Some(cid) => format!("BEGIN GTID 0-1-{} cid={cid}", g.seq.0),
            None => format!("GTID 0-1-{}", g.seq.0),
        },
        Event::Query(q) if q.db.is_empty() => q.sql.clone(),
        Event::Query(q) => format!("use `{}`; {}", q.db, q.sql),
        Event::TableMap(m) => format!("table_id: {} ({}.{})", m.table_id.0, m.db, m.table),
        Event::Xid(x) => format!("COMMIT /* xid={} */", x.0),
        Event::Rotate(r) => format!("{};pos=4", r.next_file),
        Event::GtidList(_) => "[]".into(),
        _ => String::new(),
    }
}

/// `FLUSH BINARY LOGS` / `FLUSH LOGS`: close the current binlog file (Rotate event, cut to its
/// exact size, synced) and start the next. Without a binlog there is nothing to do.
pub fn flush_binary_logs(ctx: &ServerContext, sess: &mut SessionState) -> Result<()> {
    crate::sql::exec::admin::need_admin(ctx, sess, "RELOAD")?;
    let delay = ctx.vars.global_u64("log_sync_delay_us");
    match ctx.pipeline.with_binlog(|b| b.rotate(delay)) {
        Some(Err(p)) => Err(p.to_error()),
        _ => Ok(()),
    }
}

/// `PURGE BINARY LOGS TO 'file' | BEFORE 'datetime'`.
pub fn purge(ctx: &ServerContext, sess: &mut SessionState, target: &PurgeTarget) -> Result<()> {
    crate::sql::exec::admin::need_admin(ctx, sess, "SUPER, BINLOG ADMIN")?;
    let io = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::new(
                ErrorCode::UnknownTargetBinlog,
                "Target log not found in binlog index",
            )
        } else {
            Error::new(
                ErrorCode::ErrorOnWrite,
                format!("Error purging binary logs: {e}"),
            )
        }
    };
    let (_, held_back) = match target {
        PurgeTarget::To(name) => with_binlog(ctx, |b| b.purge_to(name))?.map_err(io)?,
        PurgeTarget::Before(when) => {
            let (dt, _) =
                crate::sql::expr::convert::parse_datetime(when.as_bytes()).ok_or_else(|| {
                    Error::new(
                        ErrorCode::WrongValue,
                        format!("Incorrect DATETIME value: '{when}'"),
                    )
                })?;
            let secs = crate::log::rowimage::epoch_seconds(&dt).clamp(0, u32::MAX as i64) as u32;
            with_binlog(ctx, |b| b.purge_before(secs))?.map_err(io)?
        }
    };
    if held_back {
        sess.warnings.push(crate::session::Warning {
            level: "Note",
            code: 1105,
            message: "Binary logs that crash recovery still needs (not yet covered by a checkpoint) were kept".into(),
        });
    }
    Ok(())
}
