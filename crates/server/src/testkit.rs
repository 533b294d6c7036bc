//! What the unit tests share to talk SQL to a session without a socket: run a statement as a
//! client would (execute it, then end the statement so autocommit commits), and read its rows.
//!
//! Wire-level tests (a `Session` fed packets) have their own helpers in `session/`; this one
//! sits at the `SessionState` level, below the protocol.

use crate::error::Result;
use crate::session::state::{ServerContext, SessionState};
use crate::sql::{self, QueryResult};
use crate::types::Value;

/// Run one statement and end it as the session does for a client: the result, or the
/// statement's error (after `statement_failed`, which rolls back what the error says to) or
/// the error of ending it (a commit that failed).
pub(crate) fn run(
    ctx: &ServerContext,
    sess: &mut SessionState,
    sql_text: &str,
) -> Result<QueryResult> {
    match sql::execute_text(ctx, sess, sql_text) {
        Ok(q) => sess.end_statement(ctx, true).map(|()| q),
        Err(e) => {
            sess.statement_failed(ctx, &e);
            Err(e)
        }
    }
}

/// Run each statement in turn; panics with the statement's text on the first failure.
pub(crate) fn run_all(ctx: &ServerContext, sess: &mut SessionState, sqls: &[&str]) {
    for sql_text in sqls {
        if let Err(e) = run(ctx, sess, sql_text) {
            panic!("{sql_text}: {e}");
        }
    }
}

/// The rows of a result; panics on an error or a result without rows.
pub(crate) fn rows_of(r: Result<QueryResult>) -> Vec<Vec<Value>> {
    match r {
        Ok(QueryResult::Rows { rows, .. }) => rows,
        Ok(other) => panic!("not rows: {other:?}"),
        Err(e) => panic!("error instead of rows: {e}"),
    }
}

/// Run a query and return its rows; panics with the query's text when it fails.
pub(crate) fn rows(
    ctx: &ServerContext,
    sess: &mut SessionState,
    sql_text: &str,
) -> Vec<Vec<Value>> {
    match run(ctx, sess, sql_text) {
        Ok(QueryResult::Rows { rows, .. }) => rows,
        Ok(other) => panic!("{sql_text}: not rows: {other:?}"),
        Err(e) => panic!("{sql_text}: {e}"),
    }
}

/// A query's rows as text, for tests that compare what a client would read: NULL as "NULL",
/// integers in decimal, strings as UTF-8 (lossily), anything else in its `Debug` form.
/// Panics with the query's text when it fails.
pub(crate) fn text_rows(
    ctx: &ServerContext,
    sess: &mut SessionState,
    sql_text: &str,
) -> Vec<Vec<String>> {
    rows(ctx, sess, sql_text)
        .iter()
        .map(|r| r.iter().map(value_text).collect())
        .collect()
}

fn value_text(v: &Value) -> String {
    match v {
        Value::Null => "NULL".to_string(),
        Value::Int(n) => n.to_string(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        other => format!("{other:?}"),
    }
}

/// A session of `root@%` with connection id `id` and no current database.
pub(crate) fn root_session(id: u32) -> SessionState {
    SessionState::new(id, "root", "%", None)
}
