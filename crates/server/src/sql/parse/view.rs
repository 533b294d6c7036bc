//! `CREATE [OR REPLACE] [ALGORITHM = …] [DEFINER = …] [SQL SECURITY …] VIEW [IF NOT EXISTS]
//! name [(columns)] AS query [WITH [CASCADED | LOCAL] CHECK OPTION]`, and `ALTER … VIEW` with
//! the same clauses.
//!
//! sqlparser knows neither the CHECK OPTION clause nor ALTER VIEW's MySQL options, and a view
//! must keep its query's text as written (it is stored and planned again at each use), so the
//! head is read here from the tokens and the query after `AS` is cut from the text and parsed
//! on its own: it must be a query.

use super::{is_trivia, is_word, offset_of, parse_in, syntax_error, Stmt};
use crate::error::{Error, Result};
use crate::sql::sql_mode::{parse_bit, ParseMode};
use sqlparser::ast::Statement;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// A parsed CREATE VIEW / ALTER VIEW.
#[derive(Clone, Debug)]
pub struct ViewStmt {
    /// ALTER VIEW (the view must exist).
    pub alter: bool,
    pub or_replace: bool,
    pub if_not_exists: bool,
    pub db: Option<String>,
    pub name: String,
    pub columns: Vec<String>,
    pub algorithm: Option<String>,
    /// `user@host` as given; None for none or CURRENT_USER.
    pub definer: Option<(String, String)>,
    pub security: Option<String>,
    /// `CASCADED` or `LOCAL` when `WITH … CHECK OPTION` was given.
    pub check_option: Option<String>,
    /// The query's text.
    pub query: String,
}

/// If `sql` is a CREATE VIEW or ALTER VIEW statement, parse it.
pub fn view_statement(sql: &str, mode: ParseMode) -> Option<Result<Stmt>> {
    let tokens = super::tokenize_in(sql, mode).ok()?;
    let toks: Vec<&TokenWithSpan> = tokens.iter().filter(|t| !is_trivia(&t.token)).collect();
    let first = toks.first()?;
    let alter = if is_word(&first.token, "ALTER") {
        true
    } else if is_word(&first.token, "CREATE") {
        false
    } else {
        return None;
    };
    // Is it a view at all? `VIEW` must come before any parenthesis or `AS`.
    let view_at = toks.iter().position(|t| is_word(&t.token, "VIEW"))?;
    if toks[..view_at]
        .iter()
        .any(|t| t.token == Token::LParen || is_word(&t.token, "AS") || is_word(&t.token, "TABLE"))
    {
        return None;
    }
    Some(
        Head {
            sql,
            toks: &toks,
            i: 1,
            mode,
        }
        .parse(alter, view_at),
    )
}

struct Head<'a> {
    sql: &'a str,
    toks: &'a [&'a TokenWithSpan],
    i: usize,
    mode: ParseMode,
}

impl Head<'_> {
    fn err(&self) -> Error {
        syntax_error(self.sql, self.toks.get(self.i).map(|t| t.span.start))
    }

    fn word(&mut self, w: &str) -> bool {
        let yes = self.toks.get(self.i).is_some_and(|t| is_word(&t.token, w));
        if yes {
            self.i += 1;
        }
        yes
    }

    fn expect(&mut self, w: &str) -> Result<()> {
        if self.word(w) {
            Ok(())
        } else {
            Err(self.err())
        }
    }

    fn token(&mut self, t: &Token) -> bool {
        let yes = self.toks.get(self.i).is_some_and(|x| &x.token == t);
        if yes {
            self.i += 1;
        }
        yes
    }

    fn ident(&mut self) -> Result<String> {
        match self.toks.get(self.i).map(|t| &t.token) {
            Some(Token::Word(w)) => {
                self.i += 1;
                Ok(w.value.clone())
            }
            _ => Err(self.err()),
        }
    }

    fn parse(mut self, alter: bool, view_at: usize) -> Result<Stmt> {
        let or_replace = !alter && self.word("OR") && {
            self.expect("REPLACE")?;
            true
        };
        let (mut algorithm, mut definer, mut security) = (None, None, None);
        while self.i < view_at {
            if self.word("ALGORITHM") {
                self.token(&Token::Eq);
                let a = self.ident()?.to_ascii_uppercase();
                if !["UNDEFINED", "MERGE", "TEMPTABLE"].contains(&a.as_str()) {
                    self.i -= 1;
                    return Err(self.err());
                }
                algorithm = Some(a);
            } else if self.word("DEFINER") {
                self.token(&Token::Eq);
                definer = self.definer()?;
            } else if self.word("SQL") {
                self.expect("SECURITY")?;
                let s = self.ident()?.to_ascii_uppercase();
                if s != "DEFINER" && s != "INVOKER" {
                    self.i -= 1;
                    return Err(self.err());
                }
                security = Some(s);
            } else {
                return Err(self.err());
            }
        }
        self.expect("VIEW")?;
        let if_not_exists = !alter && self.word("IF") && {
            self.expect("NOT")?;
            self.expect("EXISTS")?;
            true
        };
        let mut name = self.ident()?;
        let mut db = None;
        if self.token(&Token::Period) {
            db = Some(std::mem::replace(&mut name, self.ident()?));
        }
        let mut columns = Vec::new();
        if self.token(&Token::LParen) {
            loop {
                columns.push(self.ident()?);
                if self.token(&Token::RParen) {
                    break;
                }
                if !self.token(&Token::Comma) {
                    return Err(self.err());
                }
            }
        }
        self.expect("AS")?;
        let (query, check_option) = self.query_text()?;
        // The query must parse as a query on its own.
        let parsed = parse_in(&query, self.mode)?;
        if !matches!(&parsed.stmt, Stmt::Sql(s) if matches!(s.as_ref(), Statement::Query(_))) {
            return Err(self.err());
        }
        // Kept as the default mode reads it: every session, and the server after a restart,
        // plans it again.
        let query = match self.mode {
            ParseMode(0) => query,
            mode => default_mode_text(&query, mode)?,
        };
        Ok(Stmt::CreateView(Box::new(ViewStmt {
            alter,
            or_replace,
            if_not_exists,
            db,
            name,
            columns,
            algorithm,
            definer,
            security,
            check_option,
            query,
        })))
    }

    /// `user@host`, `'user'@'host'`, `CURRENT_USER[()]` (None).
    fn definer(&mut self) -> Result<Option<(String, String)>> {
        if self.word("CURRENT_USER") {
            if self.token(&Token::LParen) && !self.token(&Token::RParen) {
                return Err(self.err());
            }
            return Ok(None);
        }
        let user = match self.toks.get(self.i).map(|t| &t.token) {
            Some(Token::Word(w)) => w.value.clone(),
            Some(Token::SingleQuotedString(s) | Token::DoubleQuotedString(s)) => s.clone(),
            _ => return Err(self.err()),
        };
        self.i += 1;
        // The MySQL tokenizer reads `@host` as one word, or `@` then a quoted name.
        let host = match self.toks.get(self.i).map(|t| &t.token) {
            Some(Token::Word(w)) if w.value.starts_with('@') && w.value.len() > 1 => {
                self.i += 1;
                w.value[1..]
                    .trim_matches(|c| c == '`' || c == '\'')
                    .to_string()
            }
            Some(Token::AtSign) => {
                self.i += 1;
                let host = match self.toks.get(self.i).map(|t| &t.token) {
                    Some(Token::Word(w)) => w.value.clone(),
                    Some(Token::SingleQuotedString(s) | Token::DoubleQuotedString(s)) => s.clone(),
                    _ => return Err(self.err()),
                };
                self.i += 1;
                host
            }
            _ => "%".to_string(),
        };
        Ok(Some((user, host)))
    }

    /// The text after `AS`, without a trailing `WITH [CASCADED | LOCAL] CHECK OPTION`.
    fn query_text(&mut self) -> Result<(String, Option<String>)> {
        let Some(start) = self.toks.get(self.i) else {
            return Err(self.err());
        };
        let mut end = self.toks.len();
        let mut check = None;
        let w = |k: usize, s: &str| k < self.toks.len() && is_word(&self.toks[k].token, s);
        // A trailing `;` (what a client may send) is not part of the clause.
        let mut n = self.toks.len();
        while n > 0 && self.toks[n - 1].token == Token::SemiColon {
            n -= 1;
        }
        if n >= 3 && w(n - 2, "CHECK") && w(n - 1, "OPTION") {
            if n >= 4 && w(n - 3, "WITH") {
                end = n - 3;
                check = Some("CASCADED".to_string());
            } else if n >= 4 && w(n - 4, "WITH") && (w(n - 3, "CASCADED") || w(n - 3, "LOCAL")) {
                end = n - 4;
                check = Some(
                    if w(n - 3, "LOCAL") {
                        "LOCAL"
                    } else {
                        "CASCADED"
                    }
                    .to_string(),
                );
            }
        }
        if end <= self.i {
            return Err(self.err());
        }
        let from = offset_of(self.sql, start.span.start);
        let to = match self.toks.get(end) {
            Some(t) => offset_of(self.sql, t.span.start),
            None => self.sql.len(),
        };
        let text = self.sql[from..to]
            .trim_end()
            .trim_end_matches(';')
            .trim_end();
        Ok((text.to_string(), check))
    }
}

/// `text` (a query read under `mode`) rewritten to mean the same under the default mode:
/// ANSI_QUOTES' `"name"` back-quoted, NO_BACKSLASH_ESCAPES' strings with their backslashes
/// doubled, HIGH_NOT_PRECEDENCE's prefix `NOT` written `!` (which binds as tightly). `||` as
/// concatenation (PIPES_AS_CONCAT) has no operator form in the default mode: 1235.
pub fn default_mode_text(text: &str, mode: ParseMode) -> Result<String> {
    let tokens =
        super::tokenize_in(text, mode).map_err(|e| syntax_error(text, Some(e.location)))?;
    let mut out = String::with_capacity(text.len() + 8);
    let mut prev: Option<&Token> = None;
    for (i, t) in tokens.iter().enumerate() {
        let from = offset_of(text, t.span.start);
        let to = match tokens.get(i + 1) {
            Some(n) => offset_of(text, n.span.start),
            None => text.len(),
        };
        let raw = &text[from..to];
        match &t.token {
            Token::Word(w) if w.quote_style == Some('"') => {
                out.push('`');
                out.push_str(&w.value.replace('`', "``"));
                out.push('`');
            }
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s)
                if mode.has(parse_bit::NO_BACKSLASH_ESCAPES) =>
            {
                out.push('\'');
                out.push_str(&s.replace('\\', "\\\\").replace('\'', "''"));
                out.push('\'');
            }
            Token::StringConcat if mode.has(parse_bit::PIPES_AS_CONCAT) => {
                return Err(Error::unsupported(
                    "|| as concatenation (PIPES_AS_CONCAT) in a view; use CONCAT()",
                ));
            }
            Token::Word(w)
                if w.keyword == Keyword::NOT
                    && w.quote_style.is_none()
                    && mode.has(parse_bit::HIGH_NOT_PRECEDENCE)
                    && prefix_position(prev)
                    && !next_is_exists(&tokens[i + 1..]) =>
            {
                out.push('!');
            }
            Token::EOF => {}
            _ => out.push_str(raw),
        }
        if !is_trivia(&t.token) {
            prev = Some(&t.token);
        }
    }
    Ok(out)
}

/// True if a `NOT` after `prev` is the prefix operator (not `IS NOT`, `a NOT IN`, …).
fn prefix_position(prev: Option<&Token>) -> bool {
    match prev {
        None => true,
        // After a word, only where one of these keywords leaves an operand to come.
        Some(Token::Word(w)) => {
            w.quote_style.is_none() && EXPR_BEFORE.iter().any(|k| w.value.eq_ignore_ascii_case(k))
        }
        Some(
            Token::Number(..)
            | Token::SingleQuotedString(_)
            | Token::DoubleQuotedString(_)
            | Token::HexStringLiteral(_)
            | Token::RParen
            | Token::Placeholder(_),
        ) => false,
        Some(_) => true,
    }
}

/// Keywords an expression follows (a `NOT` after them is the prefix operator).
const EXPR_BEFORE: &[&str] = &[
    "SELECT",
    "WHERE",
    "AND",
    "OR",
    "XOR",
    "NOT",
    "ON",
    "WHEN",
    "THEN",
    "ELSE",
    "HAVING",
    "CASE",
    "DISTINCT",
    "ALL",
    "BY",
    "BETWEEN",
    "LIKE",
    "DIV",
    "MOD",
    "ESCAPE",
    "REGEXP",
    "RLIKE",
    "RETURNING",
    "INTERVAL",
    "USING",
    "IF",
    "SET",
];

fn next_is_exists(rest: &[TokenWithSpan]) -> bool {
    rest.iter()
        .find(|t| !is_trivia(&t.token))
        .is_some_and(|t| is_word(&t.token, "EXISTS"))
}
