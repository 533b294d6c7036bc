//! The statement texts of the binlog's Annotate_rows events (`binlog_annotate_row_events`).
//!
//! A statement that changed rows keeps its text in the session until its transaction ends
//! ([`crate::session::SessionState::annotate`]); the commit writes it before the rows it
//! changed ([`crate::log::encode`]). A prepared statement is annotated as MariaDB does it: its
//! text with each `?` replaced by the value it was executed with, as a literal.

use crate::types::Value;

/// Is this session's statement to be remembered for the binlog: its text for Annotate_rows,
/// or its rows-event flags (`foreign_key_checks` / `unique_checks` off, or those of the rows
/// a BINLOG statement applies)?
pub fn wanted(ctx: &super::ServerContext, state: &mut super::SessionState) -> bool {
    ctx.pipeline.writes_binlog() && {
        let v = state.stmt_vars(ctx);
        // A session replaying a binlog (BINLOG statements) may add rows flags of its own.
        v.annotate_rows || v.rows_flags != 0 || state.binlog_replay.is_some()
    }
}

/// Is the statement text to be kept (`binlog_annotate_row_events`)? [`wanted`] made the
/// session's statement variables current.
pub fn text_wanted(state: &super::SessionState) -> bool {
    state.stmt_vars.is_some_and(|(_, v)| v.annotate_rows)
}

/// `sql` with its `?` markers (outside quotes and comments) replaced by `params`.
pub fn expand(sql: &str, params: &[Value]) -> String {
    let b = sql.as_bytes();
    let mut out = String::with_capacity(sql.len() + 16 * params.len());
    let mut next = params.iter();
    let mut i = 0;
    let mut from = 0;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => i = skip_quoted(b, i, q),
            b'-' if b.get(i + 1) == Some(&b'-') => i = skip_line(b, i),
            b'#' => i = skip_line(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = b[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(b.len(), |p| i + 2 + p + 2);
            }
            b'?' => {
                out.push_str(&sql[from..i]);
                match next.next() {
                    Some(v) => push_literal(&mut out, v),
                    None => out.push('?'),
                }
                i += 1;
                from = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&sql[from..]);
    out
}

/// Past a quoted string or identifier starting at `i` (doubled quotes and backslash escapes
/// inside).
fn skip_quoted(b: &[u8], mut i: usize, q: u8) -> usize {
    i += 1;
    while i < b.len() {
        if b[i] == b'\\' && q != b'`' {
            i += 2;
        } else if b[i] == q {
            if b.get(i + 1) == Some(&q) {
                i += 2;
            } else {
                return i + 1;
            }
        } else {
            i += 1;
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

/// Append a value as a SQL literal.
fn push_literal(out: &mut String, v: &Value) {
    use std::fmt::Write;
    let _ = match v {
        Value::Null => write!(out, "NULL"),
        Value::Int(i) => write!(out, "{i}"),
        Value::UInt(u) => write!(out, "{u}"),
        Value::Double(d) => write!(out, "{d:e}"),
        Value::Decimal(d) => write!(out, "{d}"),
        Value::Bytes(b) => {
            let text = String::from_utf8_lossy(b);
            out.reserve(text.len() + 2);
            out.push('\'');
            // The characters escaped are ASCII: the text splits at them on char boundaries,
            // and the runs between them are copied whole.
            let mut from = 0;
            for (i, c) in text.bytes().enumerate() {
                let escaped = match c {
                    b'\'' => "\\'",
                    b'\\' => "\\\\",
                    0 => "\\0",
                    b'\n' => "\\n",
                    b'\r' => "\\r",
                    0x1a => "\\Z",
                    _ => continue,
                };
                out.push_str(&text[from..i]);
                out.push_str(escaped);
                from = i + 1;
            }
            out.push_str(&text[from..]);
            out.push('\'');
            Ok(())
        }
        Value::Date(d) => write!(out, "'{d}'"),
        Value::DateTime(dt) => write!(out, "'{dt}'"),
        Value::Time(t) => write!(out, "'{}'", crate::sql::time_value::format(*t, None)),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_outside_quotes_and_comments_become_literals() {
        let got = expand(
            "UPDATE t SET c = ?, d = '?' /* ? */ WHERE id = ? -- ?\n AND e = `?` AND f = ?",
            &[Value::str("it's"), Value::Int(-7), Value::Null],
        );
        assert_eq!(
            got,
            "UPDATE t SET c = 'it\\'s', d = '?' /* ? */ WHERE id = -7 -- ?\n AND e = `?` AND f = NULL"
        );
        assert_eq!(
            expand("SELECT 'a\\'?' , ?", &[Value::UInt(5)]),
            "SELECT 'a\\'?' , 5"
        );
        assert_eq!(expand("VALUES (?, ?)", &[Value::Int(1)]), "VALUES (1, ?)");
    }
}
