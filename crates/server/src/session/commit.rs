//! Committing a session's transaction, and logging DDL: the session's side of the pipeline.
//!
//! Stage 1 of the commit protocol (see [`crate::log`]) runs here, on the session's thread:
//! engine prepare, XID assignment, binlog encoding (and, in classic mode, the redo Prepare
//! record). Then the transaction goes to the pipeline and the session waits, through the wait
//! API, until it is durable and visible.

use super::state::{ServerContext, SessionState};
use crate::error::Result;
use crate::log::redo::{encode_record, encode_txn, RedoChangeRef, RedoRecord, TxnRecordKind};
use crate::log::{encode, failpoint, Work};
use crate::storage::Txn;
use std::sync::atomic::Ordering;

/// Commit `txn` (taken out of the session by the caller). On error the transaction has been
/// rolled back.
pub fn commit_transaction(
    ctx: &ServerContext,
    _sess: &mut SessionState,
    mut txn: Txn,
) -> Result<()> {
    if let Err(e) = ctx.engine.prepare(&mut txn) {
        ctx.engine.rollback(txn);
        return Err(e);
    }
    let xid = ctx.next_xid.fetch_add(1, Ordering::Relaxed);
    let work = if ctx.pipeline.two_phase() {
        prepare_two_phase(ctx, txn, xid)?
    } else if ctx.pipeline.writes_binlog() {
        match encode::transaction_events(&txn.changes(), xid, server_id(ctx)) {
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
    ctx.pipeline.commit(&ctx.vars, work)
}

/// Classic stage C1: encode the binlog events and the redo Prepare record (full row images)
/// outside any lock, then append the Prepare record (synced here with
/// `log_flush_placement = prepare`). On error the transaction is rolled back.
fn prepare_two_phase(ctx: &ServerContext, txn: Txn, xid: u64) -> Result<Work> {
    let changes = txn.changes();
    let encoded = encode::transaction_events(&changes, xid, server_id(ctx)).map(|binlog| {
        let mut redo = Vec::new();
        let refs = changes.iter().map(RedoChangeRef::from_row_change);
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

/// Log a DDL statement that has just taken effect (binlog Query event), durably.
pub fn log_ddl(
    ctx: &ServerContext,
    sess: &SessionState,
    db: Option<&str>,
    sql: &str,
) -> Result<()> {
    let ddl_record = || {
        let mut redo = Vec::new();
        let rec = RedoRecord::Ddl {
            db: db.unwrap_or("").to_string(),
            sql: sql.to_string(),
        };
        encode_record(&mut redo, &rec);
        redo
    };
    if ctx.pipeline.writes_redo() {
        return ctx
            .pipeline
            .commit(&ctx.vars, Work::with_redo(None, ddl_record()));
    }
    if !ctx.pipeline.writes_binlog() {
        return Ok(());
    }
    if ctx.pipeline.two_phase() {
        // Classic mode: the Ddl record is what recovery replays (unconditionally); the binlog
        // Query event follows for replicas and mariadb-binlog.
        ctx.pipeline.log_ddl_in_redo(&ctx.vars, &ddl_record())?;
    }
    let bytes = encode::ddl_events(db, sql, sess.conn_id, server_id(ctx))?;
    ctx.pipeline.commit(&ctx.vars, Work::new(None, bytes))
}

fn server_id(ctx: &ServerContext) -> u32 {
    ctx.vars.global_u64("server_id") as u32
}
