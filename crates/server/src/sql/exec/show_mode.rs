//! How `sql_mode` changes what SHOW CREATE TABLE / VIEW / DATABASE print, as MariaDB 10.11
//! prints them:
//!
//! * ANSI_QUOTES: every identifier is quoted with `"` (a `"` inside doubled) instead of a
//!   backquote, in the kept expressions too (CHECK, DEFAULT, generated columns).
//! * NO_TABLE_OPTIONS, and the "foreign" combination modes (ANSI, POSTGRESQL, MSSQL, DB2,
//!   MAXDB, ORACLE): no table options after the closing parenthesis (ENGINE, charset, …).
//! * NO_FIELD_OPTIONS: no AUTO_INCREMENT and no ON UPDATE on a column.
//! * NO_KEY_OPTIONS: no index options; Cohort prints none in any mode.

/// What the session's `sql_mode` asks of SHOW CREATE output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShowOptions {
    pub ansi_quotes: bool,
    pub no_table_options: bool,
    pub no_field_options: bool,
    /// A foreign combination mode: a view is shown without its ALGORITHM, DEFINER and SQL
    /// SECURITY.
    pub foreign: bool,
}

impl ShowOptions {
    /// The options of an upper-case `sql_mode` text.
    pub fn of(mode: &str) -> ShowOptions {
        let has = |m: &str| mode.split(',').any(|x| x == m);
        let foreign = ["ANSI", "POSTGRESQL", "MSSQL", "DB2", "MAXDB", "ORACLE"]
            .iter()
            .any(|m| has(m));
        ShowOptions {
            ansi_quotes: has("ANSI_QUOTES"),
            no_table_options: foreign || has("NO_TABLE_OPTIONS"),
            no_field_options: has("NO_FIELD_OPTIONS"),
            foreign,
        }
    }
}

/// SHOW CREATE VIEW's text (`CREATE ALGORITHM=… VIEW …`) as `opts` asks.
pub fn view_text(text: String, opts: ShowOptions) -> String {
    let text = match (opts.foreign, text.find(" VIEW ")) {
        (true, Some(at)) => format!("CREATE{}", &text[at..]),
        _ => text,
    };
    match opts.ansi_quotes {
        true => double_quoted(&text),
        false => text,
    }
}

/// `text` with every back-quoted identifier quoted with `"` instead (string literals, which
/// the text writes with `''` and backslash escapes, are copied as they are).
pub fn double_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                out.push(c);
                while let Some(d) = chars.next() {
                    out.push(d);
                    if d == '\\' {
                        if let Some(e) = chars.next() {
                            out.push(e);
                        }
                    } else if d == '\'' {
                        if chars.peek() == Some(&'\'') {
                            out.push(chars.next().unwrap_or('\''));
                        } else {
                            break;
                        }
                    }
                }
            }
            '`' => {
                out.push('"');
                while let Some(d) = chars.next() {
                    match d {
                        '`' if chars.peek() == Some(&'`') => {
                            chars.next();
                            out.push('`');
                        }
                        '`' => break,
                        '"' => out.push_str("\"\""),
                        other => out.push(other),
                    }
                }
                out.push('"');
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requoting() {
        assert_eq!(
            double_quoted("CREATE TABLE `t` (`a\"b` int CHECK (`a` <> 'x`\\'y'''))"),
            "CREATE TABLE \"t\" (\"a\"\"b\" int CHECK (\"a\" <> 'x`\\'y'''))"
        );
        assert_eq!(double_quoted("`a``b`"), "\"a`b\"");
        let o = ShowOptions::of("REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ANSI");
        assert!(o.ansi_quotes && o.no_table_options && !o.no_field_options);
    }
}
