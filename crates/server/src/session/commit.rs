//! Committing a session's transaction, and logging DDL: the session's side of the pipeline.
//!
//! Stage 1 of the commit protocol (see [`crate::log`]) runs here, on the session's thread:
//! engine prepare, XID assignment, binlog encoding (and, in classic mode, the redo Prepare
//! record). Then the transaction goes to the pipeline,
//! and one of two things happens:
//!
//! - **Blocking** (thread-per-connection, and every commit that is not a statement's last step):
//!   the session waits, through the wait API, until it is durable and visible.
//! - **Deferred** (pool of threads; the commit ends the statement — COMMIT, BEGIN,
//!   `SET autocommit = 1`, autocommit): the transaction is handed to
//!   [`crate::log::CommitPipeline::commit_async`] and the statement finishes as if it had
//!   succeeded. Its response is *held*:
//!
//! ```text
//!   command ─► stage 1 ─► commit_async ─► response bytes held, Flow::AwaitCommit ─► worker freed
//!                                   ...group durable and committed (leader's thread)...
//!   notifier(result) ─► scheduler re-queues the connection ─► Session::on_commit_done:
//!        Ok  → the held bytes are sent
//!        Err → they are discarded; ERR (same sequence id) is sent instead; the pipeline has
//!              already rolled the transaction back
//!   ─► buffered commands, if any, are served
//! ```
//!
//! Nothing else of the connection runs while a commit is pending: the session stops reading
//! packets at the command that deferred, so the next command of the client sees its own
//! commit done (read-your-writes), exactly as with the blocking path.

use super::state::{ServerContext, SessionState};
use super::{Flow, Session};
use crate::error::{Error, Result};
use crate::log::redo::{encode_record, encode_txn, RedoChangeRef, RedoRecord, TxnRecordKind};
use crate::log::{encode, failpoint, Work};
use crate::status::StatusCounter;
use crate::storage::Txn;
use std::sync::atomic::Ordering;

/// Called with the outcome of a deferred commit, on the thread that completes its group.
/// Installed by the scheduler with [`Session::defer_commits`]; the pipeline's own callback
/// type, so each deferred commit hands over a clone of it.
pub type CommitNotifier = crate::log::group::OnDone;

/// Commit `txn` (taken out of the session by the caller). On error the transaction has been
/// rolled back. With `may_defer` and a commit notifier, returns once the transaction is queued
/// and sets `sess.pending_commit` (the outcome goes to the notifier).
pub fn commit_transaction(
    ctx: &ServerContext,
    sess: &mut SessionState,
    mut txn: Txn,
    may_defer: bool,
) -> Result<()> {
    if let Err(e) = ctx.engine.prepare(&mut txn) {
        ctx.engine.rollback(txn);
        return Err(e);
    }
    let xid = ctx.next_xid.fetch_add(1, Ordering::Relaxed);
    let (annotations, statement_flags) = sess.take_statements();
    let opts = event_options(ctx, &annotations, &statement_flags);
    let work = if txn.only_temporary_changes() {
        // Nothing to log: MariaDB does not log TEMPORARY tables' rows either.
        Work::new(Some(txn), Vec::new())
    } else if ctx.pipeline.two_phase() {
        prepare_two_phase(ctx, txn, xid, &opts)?
    } else if ctx.pipeline.writes_binlog() {
        match encode::transaction_events(&txn.changes_positioned(), xid, &opts) {
            Ok(b) => Work::new(Some(txn), b),
            Err(e) => {
                ctx.engine.rollback(txn);
                return Err(e);
            }
        }
    } else if ctx.pipeline.writes_redo() {
        let changes = txn.changes();
        let mut redo = Vec::new();
        let refs = changes.iter().map(RedoChangeRef::from_row_change);
        encode_txn(&mut redo, TxnRecordKind::Committed, xid, refs);
        Work::with_redo(Some(txn), redo)
    } else {
        Work::new(Some(txn), Vec::new())
    };
    failpoint::hit("after_prepare");
    match sess.commit_notifier.as_ref().filter(|_| may_defer) {
        Some(notify) => {
            sess.pending_commit = true;
            ctx.pipeline.commit_async(&ctx.vars, work, notify.clone());
            Ok(())
        }
        None => ctx.pipeline.commit(&ctx.vars, work),
    }
}

/// Classic stage C1: encode the binlog events and the redo Prepare record (full row images)
/// outside any lock, then append the Prepare record (synced here with
/// `log_flush_placement = prepare`). On error the transaction is rolled back.
fn prepare_two_phase(
    ctx: &ServerContext,
    txn: Txn,
    xid: u64,
    opts: &encode::EventOptions<'_>,
) -> Result<Work> {
    let changes = txn.changes_positioned();
    let encoded = encode::transaction_events(&changes, xid, opts).map(|binlog| {
        let mut redo = Vec::new();
        let refs = changes
            .iter()
            .map(|(_, c)| RedoChangeRef::from_row_change(c));
        encode_txn(&mut redo, TxnRecordKind::Prepare, xid, refs);
        (binlog, redo)
    });
    drop(changes);
    let prepared = encoded.and_then(|(binlog, redo)| {
        let p = ctx.pipeline.prepare_in_redo(&ctx.vars, xid, &redo)?;
        Ok((binlog, p))
    });
    match prepared {
        Ok((binlog, p)) => Ok(Work::prepared(txn, binlog, p)),
        Err(e) => {
            ctx.engine.rollback(txn);
            Err(e)
        }
    }
}

/// Log a DDL statement that has just taken effect (binlog Query event), durably. On error
/// nothing of it will be replayed, and the caller undoes it. `when_us` is the statement's
/// time if it read its clock (Unix microseconds): recovery and replicas replay it at that
/// time (`log/ddl_session.rs`).
pub fn log_ddl(
    ctx: &ServerContext,
    sess: &SessionState,
    db: Option<&str>,
    sql: &str,
    when_us: Option<u64>,
) -> Result<()> {
    let db_name = db.unwrap_or("").to_string();
    let settings = ddl_settings(ctx, sess, when_us);
    if ctx.pipeline.writes_redo() {
        let mut redo = Vec::new();
        let sql = sql.to_string();
        let session = settings.session();
        encode_record(
            &mut redo,
            &RedoRecord::Ddl {
                db: db_name,
                sql,
                session,
            },
        );
        return ctx.pipeline.commit(&ctx.vars, Work::with_redo(None, redo));
    }
    if !ctx.pipeline.writes_binlog() {
        return Ok(());
    }
    let conn = sess.conn_id;
    if ctx.pipeline.two_phase() {
        // Classic mode: a PreparedDdl record, resolved at recovery against the Query event,
        // which carries the same XID (the binlog decides, as for a transaction).
        let xid = ctx.next_xid.fetch_add(1, Ordering::Relaxed);
        let bytes = encode::ddl_events(db, sql, conn, server_id(ctx), &settings, Some(xid))?;
        let mut redo = Vec::new();
        let sql = sql.to_string();
        encode_record(
            &mut redo,
            &RedoRecord::PreparedDdl {
                xid,
                db: db_name,
                sql,
                session: settings.session(),
            },
        );
        let prepared = ctx.pipeline.log_ddl_in_redo(&ctx.vars, xid, &redo)?;
        return ctx
            .pipeline
            .commit(&ctx.vars, Work::prepared_ddl(bytes, prepared));
    }
    let bytes = encode::ddl_events(db, sql, conn, server_id(ctx), &settings, None)?;
    ctx.pipeline.commit(&ctx.vars, Work::new(None, bytes))
}

fn server_id(ctx: &ServerContext) -> u32 {
    ctx.vars.global_u64("server_id") as u32
}

thread_local! {
    /// The last [`event_settings`] read on this thread: (the variables' address, their
    /// generation, server_id, binlog_row_metadata).
    static EVENT_SETTINGS: std::cell::Cell<Option<(usize, u64, u32, cohort_binlog::RowMetadata)>> =
        const { std::cell::Cell::new(None) };
}

/// `server_id` and `binlog_row_metadata`, read again only when a global variable changed
/// (their generation moved): every commit needs them.
fn event_settings(ctx: &ServerContext) -> (u32, cohort_binlog::RowMetadata) {
    let key = (&ctx.vars as *const _ as usize, ctx.vars.generation());
    if let Some((addr, generation, id, meta)) = EVENT_SETTINGS.get() {
        if (addr, generation) == key {
            return (id, meta);
        }
    }
    let meta = match ctx.vars.global("binlog_row_metadata") {
        Some(crate::types::Value::Bytes(b)) if b == b"FULL" => cohort_binlog::RowMetadata::Full,
        Some(crate::types::Value::Bytes(b)) if b == b"MINIMAL" => {
            cohort_binlog::RowMetadata::Minimal
        }
        _ => cohort_binlog::RowMetadata::NoLog,
    };
    let id = server_id(ctx);
    EVENT_SETTINGS.set(Some((key.0, key.1, id, meta)));
    (id, meta)
}

/// How the session's transactions are written (`binlog_row_metadata`, `server_id`), with the
/// transaction's statement texts.
fn event_options<'a>(
    ctx: &ServerContext,
    annotations: &'a [(usize, String)],
    statement_flags: &'a [(usize, u16)],
) -> encode::EventOptions<'a> {
    let (server_id, row_metadata) = event_settings(ctx);
    encode::EventOptions {
        server_id,
        row_metadata,
        annotations,
        // Classic mode recovers from the redo log: the binlog can be MariaDB's. One-log
        // recovery replays the binlog, so cascaded rows stay in it, ignorable to a replica.
        cascaded: if ctx.pipeline.two_phase() {
            encode::CascadedRows::Omit
        } else {
            encode::CascadedRows::Ignorable
        },
        statement_flags,
    }
}

/// The session settings a DDL statement's Query event carries.
fn ddl_settings(
    ctx: &ServerContext,
    sess: &SessionState,
    when_us: Option<u64>,
) -> encode::DdlSettings {
    let text = |name: &str| {
        sess.var(ctx, name)
            .map(|v| crate::vars::display(&v))
            .unwrap_or_default()
    };
    let time_zone = text("time_zone");
    encode::DdlSettings {
        sql_mode: text("sql_mode"),
        auto_is_null: text("sql_auto_is_null") == "ON",
        no_fk_checks: matches!(text("foreign_key_checks").as_str(), "OFF" | "0"),
        charset: [
            // The statement's text is kept as UTF-8 whatever the client sent it in (a latin1
            // client's is decoded on arrival): the event says so.
            match sess.charsets.client {
                super::charsets::WireCharset::Latin1 => 45,
                _ => charset_collation_id(&text("character_set_client")),
            },
            collation_id(&text("collation_connection")),
            collation_id(&text("collation_server")),
        ],
        time_zone: (!time_zone.eq_ignore_ascii_case("SYSTEM")).then_some(time_zone),
        when_us,
    }
}

/// MariaDB's id of a collation a session may name (45, utf8mb4_general_ci, otherwise).
fn collation_id(name: &str) -> u16 {
    let name = name.to_ascii_lowercase();
    let name = match name.strip_prefix("utf8_") {
        Some(rest) => format!("utf8mb3_{rest}"),
        None => name,
    };
    super::charsets::collation_id(&name).unwrap_or(45)
}

/// The id of a character set's default collation.
fn charset_collation_id(name: &str) -> u16 {
    match name.to_ascii_lowercase().as_str() {
        "utf8mb3" | "utf8" => 33,
        "latin1" => 8,
        "binary" => 63,
        "ascii" => 11,
        _ => 45,
    }
}

impl Session {
    /// Defer the commits that end a statement: their outcome goes to `notifier`, and the
    /// statement's response is held until [`Session::on_commit_done`]. The pool of threads
    /// calls this once, before the login.
    pub fn defer_commits(&mut self, notifier: CommitNotifier) {
        self.commit_notifier = Some(notifier.clone());
        if let Some(state) = self.state.as_mut() {
            state.commit_notifier = Some(notifier);
        }
    }

    /// Is a response held for a deferred commit?
    pub fn awaiting_commit(&self) -> bool {
        self.held_seq.is_some()
    }

    /// The outcome of the deferred commit whose response is held: on Ok the held bytes go to
    /// `out`; on Err they are replaced by an ERR packet with the same sequence id. Then the
    /// commands buffered meanwhile are served, as [`Session::on_bytes`] would.
    pub fn on_commit_done(&mut self, result: Result<()>, out: &mut Vec<u8>) -> Flow {
        // Inside TLS the held (plaintext) response is sealed now, in order with what follows.
        self.sealed(out, |s, plain| s.release_held(result, plain))
    }

    fn release_held(&mut self, result: Result<()>, out: &mut Vec<u8>) -> Flow {
        let Some(seq) = self.held_seq.take() else {
            return Flow::Continue;
        };
        self.ctx.status.sub(StatusCounter::ThreadsRunning, 1);
        let held = std::mem::take(&mut self.held);
        let mut flow = Flow::Continue;
        match result {
            Ok(()) => out.extend_from_slice(&held),
            Err(e) => flow = self.reply_commit_failed(seq, &e, out),
        }
        self.held = held;
        self.held.clear();
        if let Some(state) = self.state.as_mut() {
            state.pending_commit = false;
        }
        if flow == Flow::Close {
            self.phase = super::Phase::Closed;
            return flow;
        }
        self.serve_buffered(out)
    }

    /// The deferred commit failed: the client gets the error instead of the held response,
    /// and the session looks as after a failed blocking commit.
    fn reply_commit_failed(&mut self, seq: u8, e: &Error, out: &mut Vec<u8>) -> Flow {
        if let Some(state) = self.state.as_mut() {
            state.explicit_txn = false;
            state.row_count = -1;
            state.warnings.clear();
            state.warnings.push(super::Warning {
                level: "Error",
                code: e.code().number(),
                message: e.message().to_string(),
            });
        }
        self.writer.clear();
        self.writer.set_seq(seq);
        let flow = self.reply_error(e);
        out.extend_from_slice(self.writer.bytes());
        self.writer.clear();
        flow
    }
}
