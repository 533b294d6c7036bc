//! Binlog administration: SHOW BINARY LOGS, SHOW MASTER STATUS, SHOW BINLOG EVENTS, PURGE,
//! FLUSH BINARY LOGS.
//!
//! All of them work on the commit pipeline's binlog files, under its log mutex (so they briefly
//! hold up group commits; they are administrative statements).

use super::coldef::{int_column, text_column};
use super::env::Env;
use super::parse::PurgeTarget;
use crate::error::{Error, Result};
use crate::log::binlog::BinlogFiles;
use crate::session::state::{ServerContext, SessionState};
use crate::sql::QueryResult;
use crate::types::Value;
use cohort_binlog::{read_all, Event};
use cohort_protocol::ErrorCode;

fn no_binlog() -> Error {
    Error::new(
        ErrorCode::NoBinaryLogging,
        "You are not using binary logging",
    )
}

fn with_binlog<R>(ctx: &ServerContext, f: impl FnOnce(&mut BinlogFiles) -> R) -> Result<R> {
    ctx.pipeline.with_binlog(f).ok_or_else(no_binlog)
}

/// `SHOW BINARY LOGS`: Log_name, File_size.
pub fn binary_logs(env: &Env<'_>) -> Result<QueryResult> {
    let files = with_binlog(env.ctx, |b| b.list())?;
    Ok(QueryResult::Rows {
        columns: vec![text_column("Log_name", 255), int_column("File_size")],
        rows: files
            .into_iter()
            .map(|(name, size)| vec![Value::str(&name), Value::UInt(size)])
            .collect(),
    })
}

/// `SHOW MASTER STATUS`: File, Position, Binlog_Do_DB, Binlog_Ignore_DB.
pub fn master_status(env: &Env<'_>) -> Result<QueryResult> {
    let pos = with_binlog(env.ctx, |b| b.position())?;
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

/// `SHOW BINLOG EVENTS [IN 'file'] [FROM pos] [LIMIT [offset,] n]`.
pub fn binlog_events(
    env: &Env<'_>,
    file: Option<&str>,
    from: Option<u64>,
    offset: u64,
    limit: Option<u64>,
) -> Result<QueryResult> {
    let (name, data) = with_binlog(env.ctx, |b| {
        let name = file
            .map(str::to_string)
            .unwrap_or_else(|| b.list()[0].0.clone());
        let data = b.read_file(&name);
        (name, data)
    })?;
    let data = data.map_err(|_| {
        Error::new(
            ErrorCode::ErrorWhenExecutingCommand,
            "Error when executing command SHOW BINLOG EVENTS: Could not find target log",
        )
    })?;
    let out = read_all(&data);
    let from = from.unwrap_or(4);
    let rows = out
        .events
        .iter()
        .filter(|e| e.pos.0 >= from)
        .skip(offset as usize)
        .take(limit.unwrap_or(u64::MAX) as usize)
        .map(|e| {
            vec![
                Value::str(&name),
                Value::UInt(e.pos.0),
                Value::str(e.header.event_type.name()),
                Value::UInt(e.header.server_id.0 as u64),
                Value::UInt(e.end().0),
                Value::str(&event_info(&e.event)),
            ]
        })
        .collect();
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
        Event::Rows(r) if r.flags & cohort_binlog::STMT_END_F != 0 => {
            format!("table_id: {} flags: STMT_END_F", r.table_id.0)
        }
        Event::Rows(r) => format!("table_id: {}", r.table_id.0),
        Event::Xid(x) => format!("COMMIT /* xid={} */", x.0),
        Event::Rotate(r) => format!("{};pos=4", r.next_file),
        Event::GtidList(_) => "[]".into(),
        _ => String::new(),
    }
}

/// `PURGE BINARY LOGS TO 'file' | BEFORE 'datetime'`.
/// `FLUSH BINARY LOGS` / `FLUSH LOGS`: close the current binlog file (Rotate event, cut to its
/// exact size, synced) and start the next. Without a binlog there is nothing to do.
pub fn flush_binary_logs(ctx: &ServerContext, sess: &mut SessionState) -> Result<()> {
    super::exec_admin::need_admin(ctx, sess, "RELOAD")?;
    let delay = ctx.vars.global_u64("log_sync_delay_us");
    match ctx.pipeline.with_binlog(|b| b.rotate(delay)) {
        Some(Err(p)) => Err(p.to_error()),
        _ => Ok(()),
    }
}

pub fn purge(ctx: &ServerContext, sess: &mut SessionState, target: &PurgeTarget) -> Result<()> {
    super::exec_admin::need_admin(ctx, sess, "BINLOG ADMIN")?;
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
            let (dt, _) = super::convert::parse_datetime(when.as_bytes()).ok_or_else(|| {
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
