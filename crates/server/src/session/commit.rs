//! Committing a session's transaction.
//!
//! In this version data lives in memory only: commit is engine prepare followed by engine
//! commit, and the transaction's row changes become visible to other sessions when
//! `Engine::commit` returns. The durable commit pipeline (redo log, binlog, group commit) plugs
//! in here: the session hands its prepared transaction to the pipeline and waits on the
//! completion handle through the wait API.

use super::state::{ServerContext, SessionState};
use crate::error::Result;
use crate::storage::Txn;

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
    ctx.engine.commit(txn);
    Ok(())
}
