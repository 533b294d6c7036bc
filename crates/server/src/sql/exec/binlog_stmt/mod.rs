//! The `BINLOG '…'` statement: row events of a binlog applied as a replica would, for
//! point-in-time recovery with `mariadb-binlog binlog.000001 | mariadb`.
//!
//! `mariadb-binlog` prints each row event (and, first, the file's Format_description) as a
//! `BINLOG` statement whose string is the events' bytes in base64; an event too large for one
//! string is split over two user variables, `BINLOG @binlog_fragment_0, @binlog_fragment_1`.
//! Running one takes two steps:
//!
//! 1. **decode** (`decode.rs`): base64 (1575 when it is not), then the events one after the
//!    other with the session's [`EventDecoder`] in *detached* mode (an event's `next_pos` is
//!    where it was in its file, not here; checksums are not verified, as MariaDB's BINLOG does
//!    not). The decoder is the session's [`ReplayState`]: the Format_description of the first
//!    BINLOG statement says how later ones are framed (without it: 1609), a Table_map binds a
//!    table id for the rows events of later statements. Only Format_description, Table_map
//!    and Write/Update/Delete_rows events are taken (others: 1730). Any malformed, truncated
//!    or unknown event is 1149, as in MariaDB; nothing is applied then.
//! 2. **apply** (`apply.rs`): each rows event's rows go into the named table through the
//!    same writes as INSERT / UPDATE / DELETE, inside the session's transaction, under one
//!    statement savepoint: a failure undoes the whole statement, `START TRANSACTION … COMMIT`
//!    around several commits them together, and the rows reach Cohort's own binlog like any
//!    DML. Updates and deletes find their row by the primary key of the before image, or,
//!    without one, by the whole before image (a table scan), as a replica does; a missing row
//!    is 1032, a duplicate key 1062. `foreign_key_checks` applies as the session set it,
//!    and is off for a statement whose rows events carry NO_FOREIGN_KEY_CHECKS_F (written
//!    with `foreign_key_checks = 0`), as a replica applies them.
//!    The event's column types must be the table's (1677), and its column count too (1532).
//!
//! Privilege: SUPER or BINLOG REPLAY (1227), as in MariaDB 10.11. Not in prepared statements
//! (1295).

mod apply;
mod decode;
#[cfg(test)]
mod tests;

use crate::error::{Error, Result};
use crate::session::{ServerContext, SessionState};
use crate::sql::env::{split_session, Env};
use crate::sql::parse::binlog::BinlogSource;
use crate::sql::QueryResult;
use crate::types::Value;
use cohort_binlog::{EventDecoder, NO_FOREIGN_KEY_CHECKS_F};
use cohort_protocol::ErrorCode;

/// What a session's BINLOG statements leave for the next ones: the Format_description seen
/// and the Table_maps by table id.
#[derive(Debug)]
pub struct ReplayState {
    decoder: EventDecoder,
}

impl Default for ReplayState {
    fn default() -> ReplayState {
        ReplayState {
            decoder: EventDecoder::detached(),
        }
    }
}

/// Run one BINLOG statement.
pub fn run(
    ctx: &ServerContext,
    sess: &mut SessionState,
    src: &BinlogSource,
    prev: usize,
) -> Result<QueryResult> {
    super::admin::need_admin(ctx, sess, "SUPER, BINLOG REPLAY")?;
    let text = source_text(sess, src)?;
    let bytes = decode::base64(&text)?;
    let state = sess.binlog_replay.get_or_insert_with(Box::default);
    let events = decode::events(&mut state.decoder, &bytes)?;
    if events.is_empty() {
        return Ok(QueryResult::ok());
    }
    // Rows a statement wrote with `foreign_key_checks = 0` carry NO_FOREIGN_KEY_CHECKS_F: they
    // are applied without the checks, as a replica does (a dump restored on the primary, for
    // one, inserts children before their parents).
    let no_fk = events
        .iter()
        .any(|s| s.rows.flags & NO_FOREIGN_KEY_CHECKS_F != 0);
    if !no_fk {
        return apply(ctx, sess, &events, prev);
    }
    let key = "foreign_key_checks";
    let saved = sess.session_vars.insert(key.to_string(), Value::str("OFF"));
    let r = apply(ctx, sess, &events, prev);
    // The rows keep the flag in this server's binlog (`SessionState::annotate`).
    sess.extra_rows_flags |= NO_FOREIGN_KEY_CHECKS_F;
    match saved {
        Some(v) => sess.session_vars.insert(key.to_string(), v),
        None => sess.session_vars.remove(key),
    };
    r
}

/// Step 2 under one statement savepoint.
fn apply(
    ctx: &ServerContext,
    sess: &mut SessionState,
    events: &[decode::RowsStep],
    prev: usize,
) -> Result<QueryResult> {
    let (txn, view) = split_session(ctx, sess, prev);
    if txn.is_read_only() {
        return Err(crate::storage::read_only_error());
    }
    let mut env = Env::new(ctx, view, &[]);
    env.writes = true;
    let sp = ctx.engine.savepoint(txn);
    let r = apply::apply_all(&env, txn, events);
    if r.is_err() {
        ctx.engine.rollback_to_savepoint(txn, sp);
    }
    let effects = env.into_effects();
    r?;
    effects.apply(sess);
    Ok(QueryResult::ok())
}

/// The statement's base64 text: the string, or the two user variables' values joined.
fn source_text(sess: &SessionState, src: &BinlogSource) -> Result<Vec<u8>> {
    match src {
        BinlogSource::Text(s) => Ok(s.as_bytes().to_vec()),
        BinlogSource::Fragments(names) => {
            let mut out = Vec::new();
            for n in names {
                match sess.user_vars.get(n) {
                    Some(Value::Bytes(b)) => out.extend_from_slice(b),
                    _ => {
                        return Err(Error::new(
                            ErrorCode::WrongTypeForVar,
                            format!("Incorrect argument type to variable '{n}'"),
                        ))
                    }
                }
            }
            Ok(out)
        }
    }
}

/// 1149, MariaDB's answer to a BINLOG payload it cannot read.
fn syntax_error() -> Error {
    Error::new(
        ErrorCode::SyntaxError,
        "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use",
    )
}
