//! Executable comments: `/*! … */`, `/*!NNNNN … */`, `/*M! … */`, `/*M!NNNNNN … */`.
//!
//! Before tokenizing, each executable comment outside string literals and ordinary comments
//! is either opened (its markers become spaces, so its content is parsed as part of the
//! statement) or closed (it becomes an ordinary comment), by MariaDB's rules as observed on
//! MariaDB 10.11:
//!
//! * no version (`/*!` or `/*M!` not followed by at least five digits): run;
//! * six digits or more: the first six are a MariaDB version (`101119` is 10.11.19): run if
//!   it is not above ours ([`crate::MARIADB_COMPAT`]); the remaining digits are content;
//! * five digits: a MySQL version: run if below 50700 (MariaDB skips what MySQL 5.7 and later
//!   added, such as `/*!50717 …*/`).
//!
//! Only the markers are replaced, with as many spaces, so positions in error messages are
//! those of the text as sent. sqlparser's own handling of `/*!` (which ignores the version and
//! knows no `/*M!`) is never reached.

use std::borrow::Cow;

/// `sql` with its executable comments opened or closed.
pub(super) fn expand(sql: &str) -> Cow<'_, str> {
    if !sql.contains("/*!") && !sql.contains("/*M!") {
        return Cow::Borrowed(sql);
    }
    let ours = our_version();
    let mut out = sql.as_bytes().to_vec();
    let b = sql.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => i = skip_quoted(b, i, q),
            b'#' => i = skip_line(b, i),
            b'-' if b[i..].starts_with(b"--")
                && b.get(i + 2).is_none_or(u8::is_ascii_whitespace) =>
            {
                i = skip_line(b, i)
            }
            b'/' if b[i..].starts_with(b"/*!") || b[i..].starts_with(b"/*M!") => {
                i = rewrite_one(b, &mut out, i, ours)
            }
            b'/' if b[i..].starts_with(b"/*") => {
                i = b[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(b.len(), |p| i + 2 + p + 2)
            }
            _ => i += 1,
        }
    }
    // Only ASCII markers were replaced by ASCII spaces: still UTF-8.
    Cow::Owned(String::from_utf8(out).expect("ASCII replaced by ASCII"))
}

/// Open or close the executable comment at `start`; returns where scanning goes on (inside
/// the content of an opened one, past a closed one).
fn rewrite_one(b: &[u8], out: &mut [u8], start: usize, ours: u32) -> usize {
    let marker = if b[start + 2] == b'M' { 4 } else { 3 };
    let digits = b[start + marker..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    let (version_len, runs) = match digits {
        0..=4 => (0, true),
        5 => (5, number(&b[start + marker..start + marker + 5]) < 50700),
        _ => (6, number(&b[start + marker..start + marker + 6]) <= ours),
    };
    let content = start + marker + version_len;
    let Some(end) = b[content..]
        .windows(2)
        .position(|w| w == b"*/")
        .map(|p| content + p)
    else {
        // Unterminated: left for the tokenizer to report.
        return b.len();
    };
    if runs {
        out[start..content].fill(b' ');
        out[end..end + 2].fill(b' ');
        content
    } else {
        // An ordinary comment: `/*` … `*/` with the `!` / `M!` blanked.
        out[start + 2..start + marker].fill(b' ');
        end + 2
    }
}

fn number(digits: &[u8]) -> u32 {
    digits
        .iter()
        .fold(0u32, |n, d| n * 10 + u32::from(d - b'0'))
}

/// 10.11.19 → 101119.
fn our_version() -> u32 {
    let mut parts = crate::MARIADB_COMPAT
        .split('.')
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    let patch = parts.next().unwrap_or(0);
    major * 10000 + minor * 100 + patch
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What MariaDB 10.11.19 answered to `SELECT 1 <comment>` (2: the comment ran).
    #[test]
    fn versions_are_gated_as_mariadb_gates_them() {
        let runs = |c: &str| {
            let s = format!("select 1 {c}");
            let e = expand(&s).into_owned();
            assert_eq!(e.len(), s.len(), "positions are kept");
            e.contains("+ 1") && !e.contains("/*")
        };
        for c in [
            "/*!40101 + 1 */",
            "/*!50000 + 1 */",
            "/*!50699 + 1 */",
            "/*!100000 + 1 */",
            "/*!101119 + 1 */",
            "/*M!100100 + 1 */",
            "/*! + 1 */",
            "/*M! + 1 */",
            "/*!012345 + 1 */",
        ] {
            assert!(runs(c), "{c} runs");
        }
        for c in [
            "/*!50700 + 1 */",
            "/*!99999 + 1 */",
            "/*!101120 + 1 */",
            "/*M!999999 + 1 */",
            "/*!123456789 + 1 */",
        ] {
            assert!(!runs(c), "{c} is a comment");
        }
        // Seven digits: six are the version, the seventh is content.
        assert_eq!(
            expand("select 1 /*!1000000 + 1 */"),
            "select 1          0 + 1   "
        );
    }

    #[test]
    fn literals_and_ordinary_comments_are_left_alone() {
        let s = "select '/*!40101 x */', \"/*!1\" /* /*!40101 no */ -- /*!40101 no\n";
        assert_eq!(expand(s), s);
        assert_eq!(
            expand("/*M!999999\\- enable the sandbox mode */ select 1"),
            "/*  999999\\- enable the sandbox mode */ select 1"
        );
        assert_eq!(
            expand("/*!40000 ALTER TABLE `t` DISABLE KEYS */"),
            "         ALTER TABLE `t` DISABLE KEYS   "
        );
        assert_eq!(expand("select 1 /*!40101 + 1"), "select 1 /*!40101 + 1");
    }
}
