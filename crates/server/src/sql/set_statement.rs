//! MariaDB's `SET STATEMENT a = v [, b = w …] FOR <statement>`: the session variables take
//! the given values for the length of one statement, then return to what they were, whether
//! the statement succeeded or not (Connector/J's `setQueryTimeout` sends
//! `SET STATEMENT max_statement_time = N FOR …`).
//!
//! The form is recognised on the text, before the parser: the assignments end at the first
//! `FOR` keyword outside quotes, parentheses and comments. Each name must be a plain
//! (possibly back-quoted) identifier: `@x` / `@@x` are 1064, `scope.x` is 4081, and the
//! variables MariaDB refuses here (autocommit, the connection's character set and collation,
//! tx_isolation) are 1971. The assignments then run as one `SET` (unknown names give 1193,
//! bad values their usual errors), the inner statement runs, and the session's variables are
//! put back. A `max_statement_time` given here sets the statement's deadline
//! ([`crate::interrupt`]).

use crate::error::{Error, Result};
use crate::session::{ServerContext, SessionState};
use crate::sql::QueryResult;
use cohort_protocol::ErrorCode;

/// Variables MariaDB does not let SET STATEMENT change.
const REFUSED: &[&str] = &[
    "autocommit",
    "character_set_client",
    "character_set_connection",
    "collation_connection",
    "tx_isolation",
];

/// How deep `SET STATEMENT … FOR SET STATEMENT …` may nest.
const MAX_NESTING: usize = 8;

/// The parts of a `SET STATEMENT` text: the assignments (name and the offset where the
/// assignment begins) and where the inner statement begins.
struct Parts<'a> {
    assignments: &'a str,
    assignments_at: usize,
    inner: &'a str,
}

/// If `sql` is `SET STATEMENT … FOR …`, run it; None for any other text.
pub(super) fn execute(
    ctx: &ServerContext,
    sess: &mut SessionState,
    sql: &str,
    mode: crate::sql::sql_mode::ParseMode,
) -> Option<Result<QueryResult>> {
    // A client's trailing `;` is no part of the statement (nor of a syntax error's text).
    let sql = sql.trim_end().trim_end_matches(';');
    let parts = split(sql)?;
    Some(run(ctx, sess, sql, parts, 0, mode))
}

/// True if `sql` starts with `SET STATEMENT` (for COM_STMT_PREPARE, which refuses it).
pub(super) fn is_set_statement(sql: &str) -> bool {
    starts_set_statement(sql).is_some()
}

fn run(
    ctx: &ServerContext,
    sess: &mut SessionState,
    sql: &str,
    parts: Parts<'_>,
    depth: usize,
    mode: crate::sql::sql_mode::ParseMode,
) -> Result<QueryResult> {
    if depth >= MAX_NESTING {
        return Err(Error::unsupported("SET STATEMENT nested this deep"));
    }
    let mut names = Vec::new();
    let mut at = parts.assignments_at;
    for piece in split_top(parts.assignments, b',') {
        match check_name(sql, at, piece) {
            Ok(name) => names.push(name),
            Err(e) => {
                super::record_error(sess, &e);
                return Err(e);
            }
        }
        at += piece.len() + 1;
    }
    let saved = sess.session_vars.clone();
    let set = format!("SET {}", parts.assignments);
    let result = super::execute_text(ctx, sess, &set).and_then(|_| {
        let limit = names
            .iter()
            .any(|n| n == "max_statement_time")
            .then(|| sess.stmt_vars(ctx).max_statement_us);
        let _deadline = limit.map(Deadline::set);
        match split(parts.inner) {
            Some(inner) => {
                let offset = sql.len() - parts.inner.len();
                let inner = Parts {
                    assignments_at: inner.assignments_at + offset,
                    ..inner
                };
                run(ctx, sess, sql, inner, depth + 1, mode)
            }
            None if parts.inner.trim().is_empty() => Err(Error::parse("", 1)),
            None => super::execute_text_in(ctx, sess, parts.inner, Some(mode)),
        }
    });
    restore(ctx, sess, saved);
    result
}

/// Put the session's variables back as they were before the statement.
fn restore(
    ctx: &ServerContext,
    sess: &mut SessionState,
    saved: std::collections::HashMap<String, crate::types::Value>,
) {
    sess.session_vars = saved;
    sess.refresh_charsets(ctx);
    sess.txn_defaults = None;
    sess.stmt_vars = None;
    sess.sql_mode_upper = None;
    if let Some(txn) = sess.txn.as_mut() {
        let secs = match sess
            .session_vars
            .get("innodb_lock_wait_timeout")
            .cloned()
            .or_else(|| ctx.vars.global("innodb_lock_wait_timeout"))
        {
            Some(crate::types::Value::UInt(s)) => s,
            _ => 50,
        };
        txn.set_lock_wait_timeout(std::time::Duration::from_secs(secs));
    }
}

/// The deadline of a statement whose `max_statement_time` SET STATEMENT gave (0: none, even
/// if the enclosing statement had one), restored when dropped.
struct Deadline(Option<std::time::Instant>);

impl Deadline {
    fn set(micros: u64) -> Deadline {
        let at = (micros > 0)
            .then(|| std::time::Instant::now() + std::time::Duration::from_micros(micros));
        Deadline(crate::interrupt::set_deadline(at))
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        crate::interrupt::set_deadline(self.0);
    }
}

/// The variable name of one assignment (`name = value`), lower case, or its error.
fn check_name(sql: &str, at: usize, piece: &str) -> Result<String> {
    let lead = piece.len() - piece.trim_start().len();
    let text = piece.trim_start();
    let near = || Error::parse(&sql[(at + lead).min(sql.len())..], 1);
    let end = text
        .find(|c: char| c == '=' || c == ':' || c.is_whitespace())
        .unwrap_or(text.len());
    let name = &text[..end];
    if name.starts_with('@') || name.is_empty() {
        return Err(near());
    }
    if let Some((scope, _)) = name.split_once('.') {
        return Err(Error::new(
            ErrorCode::UnknownStructuredVariable,
            format!("Unknown structured system variable or ROW routine variable '{scope}'"),
        ));
    }
    let name = name.trim_matches('`').to_ascii_lowercase();
    if REFUSED.contains(&name.as_str()) {
        return Err(Error::new(
            ErrorCode::SetStatementNotSupported,
            format!("The system variable {name} cannot be set in SET STATEMENT."),
        ));
    }
    Ok(name)
}

/// Where the assignments begin, if `sql` starts with `SET STATEMENT`.
fn starts_set_statement(sql: &str) -> Option<usize> {
    let b = sql.as_bytes();
    let mut i = skip_space(b, 0);
    for word in ["SET", "STATEMENT"] {
        let w = b.get(i..i + word.len())?;
        if !w.eq_ignore_ascii_case(word.as_bytes()) {
            return None;
        }
        i += word.len();
        let next = skip_space(b, i);
        if next == i {
            return None;
        }
        i = next;
    }
    Some(i)
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// `SET STATEMENT <assignments> FOR <inner>`, split at the first top-level FOR.
fn split(sql: &str) -> Option<Parts<'_>> {
    let start = starts_set_statement(sql)?;
    let rest = &sql[start..];
    let b = rest.as_bytes();
    let mut i = 0;
    let mut depth = 0usize;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => i = skip_quoted(b, i, q),
            b'#' => i = skip_line(b, i),
            b'-' if b[i..].starts_with(b"--") => i = skip_line(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => i = skip_comment(b, i),
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            c if depth == 0
                && c.eq_ignore_ascii_case(&b'f')
                && b.get(i..i + 3)
                    .is_some_and(|w| w.eq_ignore_ascii_case(b"for"))
                && (i == 0 || !is_word(b[i - 1]))
                && b.get(i + 3).is_none_or(|c| !is_word(*c)) =>
            {
                return Some(Parts {
                    assignments: &rest[..i],
                    assignments_at: start,
                    inner: &rest[i + 3..],
                });
            }
            c if is_word(c) => {
                while i < b.len() && is_word(b[i]) {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    None
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'@' || c >= 0x80
}

/// The pieces of `text` between top-level `sep` bytes.
fn split_top(text: &str, sep: u8) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i, mut depth) = (0, 0, 0usize);
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => i = skip_quoted(b, i, q),
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            c if c == sep && depth == 0 => {
                out.push(&text[start..i]);
                i += 1;
                start = i;
            }
            _ => i += 1,
        }
    }
    out.push(&text[start..]);
    out
}

fn skip_quoted(b: &[u8], i: usize, q: u8) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' if q != b'`' => j += 2,
            c if c == q && b.get(j + 1) == Some(&q) => j += 2,
            c if c == q => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

fn skip_line(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| i + p + 1)
}

fn skip_comment(b: &[u8], i: usize) -> usize {
    b[i + 2..]
        .windows(2)
        .position(|w| w == b"*/")
        .map_or(b.len(), |p| i + 2 + p + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_the_top_level_for() {
        let p = split("set statement a=(select 1 for update), b='for' FOR select 1 for update")
            .unwrap();
        assert_eq!(p.assignments, "a=(select 1 for update), b='for' ");
        assert_eq!(p.inner, " select 1 for update");
        assert!(split("set statements=1").is_none());
        assert!(split("select 1").is_none());
        assert!(split("set statement a=1").is_none());
        assert!(split("set statement forx=1 for select 1").unwrap().inner == " select 1");
    }
}
