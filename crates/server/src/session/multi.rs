//! Multi-statement queries (`CLIENT_MULTI_STATEMENTS`, or COM_SET_OPTION 0): one COM_QUERY
//! holding `a; b; c`.
//!
//! The text is split at each `;` outside quotes (`'…'`, `"…"`, `` `…` ``, with backslash
//! escapes and doubled quotes) and comments (`-- `, `#`, `/* … */`); the statements run in
//! order, each answered by its own result with `SERVER_MORE_RESULTS_EXISTS` set on every
//! result but the last. The first error ends the query: it is the last result, and what follows
//! it is not run (as MariaDB). Without the option a `;` followed by more text is a syntax
//! error (1064), as in MariaDB.
//!
//! The split works on bytes, so it is the same whatever the bytes of a string literal are.

use std::ops::Range;

/// The statements of `sql`, as byte ranges; a trailing `;` (with only whitespace or comments
/// after it) does not start another statement. Text with no `;` is one statement.
pub(super) fn split(sql: &[u8]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < sql.len() {
        match sql[i] {
            q @ (b'\'' | b'"' | b'`') => i = skip_quoted(sql, i, q),
            b'#' => i = skip_line(sql, i),
            b'-' if sql[i..].starts_with(b"--")
                && sql.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) =>
            {
                i = skip_line(sql, i)
            }
            b'/' if sql.get(i + 1) == Some(&b'*') => i = skip_comment(sql, i),
            b';' => {
                out.push(start..i);
                i += 1;
                start = i;
            }
            _ => i += 1,
        }
    }
    if out.is_empty() || !is_blank(&sql[start..]) {
        out.push(start..sql.len());
    }
    out
}

/// Past the closing quote of the literal opening at `i` (or the end, unterminated).
fn skip_quoted(sql: &[u8], i: usize, q: u8) -> usize {
    let mut j = i + 1;
    while j < sql.len() {
        match sql[j] {
            b'\\' if q != b'`' => j += 2,
            c if c == q && sql.get(j + 1) == Some(&q) => j += 2,
            c if c == q => return j + 1,
            _ => j += 1,
        }
    }
    sql.len()
}

fn skip_line(sql: &[u8], i: usize) -> usize {
    sql[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(sql.len(), |p| i + p + 1)
}

fn skip_comment(sql: &[u8], i: usize) -> usize {
    sql[i + 2..]
        .windows(2)
        .position(|w| w == b"*/")
        .map_or(sql.len(), |p| i + 2 + p + 2)
}

/// Only whitespace and comments.
fn is_blank(text: &[u8]) -> bool {
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            c if c.is_ascii_whitespace() => i += 1,
            b'#' => i = skip_line(text, i),
            b'-' if text[i..].starts_with(b"--")
                && text.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) =>
            {
                i = skip_line(text, i)
            }
            b'/' if text.get(i + 1) == Some(&b'*') && text.get(i + 2) != Some(&b'!') => {
                i = skip_comment(text, i)
            }
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(sql: &str) -> Vec<&str> {
        split(sql.as_bytes()).into_iter().map(|r| &sql[r]).collect()
    }

    #[test]
    fn splits_at_semicolons_outside_quotes_and_comments() {
        assert_eq!(pieces("select 1"), ["select 1"]);
        assert_eq!(pieces("select 1;"), ["select 1"]);
        assert_eq!(pieces("select 1; \n"), ["select 1"]);
        assert_eq!(pieces("select 1; -- done\n"), ["select 1"]);
        assert_eq!(pieces("select 1;select 2"), ["select 1", "select 2"]);
        assert_eq!(
            pieces("select ';', \"a;\", `c;d` from t; select 'it''s;\\';'"),
            ["select ';', \"a;\", `c;d` from t", " select 'it''s;\\';'"]
        );
        assert_eq!(
            pieces("select 1 /* ; */; # x;y\nselect 2 -- ;\n"),
            ["select 1 /* ; */", " # x;y\nselect 2 -- ;\n"]
        );
        assert_eq!(pieces("select 1;;select 2"), ["select 1", "", "select 2"]);
        assert_eq!(
            pieces("select 1; /*!40101 SET x=1 */"),
            ["select 1", " /*!40101 SET x=1 */"]
        );
        assert_eq!(pieces(""), [""]);
        assert_eq!(
            pieces("select 'unterminated; x"),
            ["select 'unterminated; x"]
        );
    }

    #[test]
    fn raw_bytes_in_literals_do_not_matter() {
        let sql = b"insert into t values ('\xff;\x00\\''); select 1";
        let r = split(sql);
        assert_eq!(r.len(), 2);
        assert_eq!(&sql[r[1].clone()], b" select 1");
    }
}
