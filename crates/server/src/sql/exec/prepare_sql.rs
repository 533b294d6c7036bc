//! SQL-level prepared statements: PREPARE, EXECUTE, DEALLOCATE PREPARE.
//!
//! They are the binary protocol's prepared statements ([`crate::sql::prepare`] /
//! [`crate::sql::execute_prepared`]: a plan bound once, bound again when a table of it changed)
//! named instead of numbered, and kept in the session ([`NamedStatements`]) as MariaDB keeps
//! them: per connection, forgotten at disconnect, COM_RESET_CONNECTION and COM_CHANGE_USER.
//!
//! | step | as MariaDB 10.11 |
//! |---|---|
//! | PREPARE | the source evaluated to text (`@var`, `CONCAT(…)`; NULL reads as the text `NULL`); a statement of the same name is dropped first, so a failed re-PREPARE leaves none; counts towards `max_prepared_stmt_count` with the protocol's statements (1461) and under `max_session_mem_used`; OK with "Statement prepared" |
//! | EXECUTE | unknown name 1243; USING values evaluated (a subquery: 1970); a count that differs from the `?` count 1210; the statement's result, warnings and binlog rows as if sent directly |
//! | DEALLOCATE / DROP PREPARE | unknown name 1243 |
//!
//! Names are case-insensitive. PREPARE, EXECUTE and DEALLOCATE cannot themselves be prepared
//! (1295, [`crate::sql::prepare`]). Status: `Com_prepare_sql`, `Com_execute_sql`,
//! `Com_dealloc_sql`, and the protocol's `Com_stmt_prepare`, `Com_stmt_execute`,
//! `Com_stmt_close` as well (MariaDB counts both).

use crate::error::{Error, Result};
use crate::session::memory::{SessionMemory, ENTRY_OVERHEAD};
use crate::session::state::{ServerContext, SessionState};
use crate::sql::parse::Parsed;
use crate::sql::{Prepared, QueryResult};
use crate::status::{Status, StatusCounter};
use crate::types::Value;
use cohort_protocol::ErrorCode;
use sqlparser::ast;
use std::collections::HashMap;
use std::sync::Arc;

/// A session's named statements (lower-cased name → statement).
#[derive(Default)]
pub struct NamedStatements {
    map: HashMap<String, Named>,
}

struct Named {
    stmt: Arc<Prepared>,
    /// Bytes counted in the session's `SessionMemory::statements`.
    cost: u64,
}

impl NamedStatements {
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Forget every statement, giving back their server-wide reservations and their bytes.
    pub fn clear(&mut self, status: &Status, mem: &mut SessionMemory) {
        for (_, n) in self.map.drain() {
            release(status, mem, n);
        }
    }

    /// Forget one statement; false if there is none of that name.
    fn remove(&mut self, status: &Status, mem: &mut SessionMemory, name: &str) -> bool {
        match self.map.remove(&key(name)) {
            Some(n) => {
                release(status, mem, n);
                true
            }
            None => false,
        }
    }
}

fn release(status: &Status, mem: &mut SessionMemory, n: Named) {
    status.sub(StatusCounter::PreparedStmtCount, 1);
    mem.statements = mem.statements.saturating_sub(n.cost);
}

fn key(name: &str) -> String {
    name.to_lowercase()
}

fn unknown(name: &str, to: &str) -> Error {
    Error::new(
        ErrorCode::UnknownStmtHandler,
        format!("Unknown prepared statement handler ({name}) given to {to}"),
    )
}

/// `PREPARE name FROM source`.
pub fn prepare(
    ctx: &ServerContext,
    sess: &mut SessionState,
    name: &str,
    source: &ast::Expr,
    parsed: &Parsed,
) -> Result<QueryResult> {
    ctx.status.incr(StatusCounter::ComPrepareSql);
    ctx.status.incr(StatusCounter::ComStmtPrepare);
    let text = match source {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
            _ => source_text(ctx, sess, source, parsed)?,
        },
        _ => source_text(ctx, sess, source, parsed)?,
    };
    if sess
        .named_statements
        .remove(&ctx.status, &mut sess.memory, name)
    {
        ctx.status.incr(StatusCounter::ComStmtClose);
    }
    crate::sql::reserve_statement(ctx)?;
    let start = crate::memory::thread_net();
    let kept = crate::memory::check(crate::session::memory::parse_estimate(&text))
        .and_then(|_| crate::sql::prepare(ctx, sess, &text))
        .and_then(|p| {
            let cost = crate::memory::kept_since(start).max(text.len() as u64) + ENTRY_OVERHEAD;
            let limit = sess.mem_limit(ctx);
            match sess.memory.held() + cost <= limit {
                true => Ok((p, cost)),
                false => Err(crate::memory::over_limit(limit)),
            }
        });
    let (stmt, cost) = match kept {
        Ok(x) => x,
        Err(e) => {
            ctx.status.sub(StatusCounter::PreparedStmtCount, 1);
            return Err(e);
        }
    };
    sess.memory.statements += cost;
    let stmt = Arc::new(stmt);
    sess.named_statements
        .map
        .insert(key(name), Named { stmt, cost });
    Ok(QueryResult::Ok {
        affected_rows: 0,
        last_insert_id: 0,
        info: Some("Statement prepared".into()),
    })
}

/// The text a non-literal source gives: its value as text (NULL as `NULL`, which then fails
/// to parse as in MariaDB).
fn source_text(
    ctx: &ServerContext,
    sess: &mut SessionState,
    source: &ast::Expr,
    parsed: &Parsed,
) -> Result<String> {
    let v = super::admin::eval_constant(ctx, sess, &[], parsed, source, false)?;
    Ok(match v {
        Value::Null => "NULL".into(),
        v => crate::types::raw_text::to_text(&crate::sql::expr::convert::to_text(&v)),
    })
}

/// `EXECUTE name [USING expr, …]`.
pub fn execute(
    ctx: &ServerContext,
    sess: &mut SessionState,
    name: &str,
    using: &[ast::Expr],
    parsed: &Parsed,
) -> Result<QueryResult> {
    ctx.status.incr(StatusCounter::ComExecuteSql);
    ctx.status.incr(StatusCounter::ComStmtExecute);
    let Some(stmt) = sess
        .named_statements
        .map
        .get(&key(name))
        .map(|n| n.stmt.clone())
    else {
        return Err(unknown(name, "EXECUTE"));
    };
    let mut values = Vec::with_capacity(using.len());
    for e in using {
        values.push(super::admin::eval_using(ctx, sess, parsed, e)?);
    }
    if values.len() != stmt.params {
        return Err(Error::new(
            ErrorCode::WrongArguments,
            "Incorrect arguments to EXECUTE",
        ));
    }
    crate::sql::execute_prepared(ctx, sess, &stmt, &values)
}

/// `DEALLOCATE PREPARE name` / `DROP PREPARE name`.
pub fn deallocate(ctx: &ServerContext, sess: &mut SessionState, name: &str) -> Result<QueryResult> {
    ctx.status.incr(StatusCounter::ComDeallocSql);
    ctx.status.incr(StatusCounter::ComStmtClose);
    match sess
        .named_statements
        .remove(&ctx.status, &mut sess.memory, name)
    {
        true => Ok(QueryResult::ok()),
        false => Err(unknown(name, "DEALLOCATE PREPARE")),
    }
}
