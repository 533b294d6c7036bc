//! `BINLOG 'base64'` and `BINLOG @fragment_0, @fragment_1` → [`BinlogSource`].
//!
//! `mariadb-binlog` writes every row event of a binlog as such a statement (its payload is the
//! events, base64 encoded); an event too large for one string is split into two user
//! variables that the statement concatenates. Running it is `exec/binlog_stmt`.

use super::{ident, PResult, Stmt};
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// Where the statement's base64 text is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BinlogSource {
    /// `BINLOG 'text'`.
    Text(String),
    /// `BINLOG @a, @b`: the user variables (lower case) whose values are concatenated.
    Fragments(Vec<String>),
}

/// After the word BINLOG.
pub(super) fn parse_binlog(p: &mut Parser<'_>) -> PResult<Stmt> {
    p.next_token();
    let t = p.next_token();
    let src = match t.token {
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => BinlogSource::Text(s),
        Token::AtSign | Token::Word(_) => {
            let mut names = vec![var_name(p, t.token)?];
            while p.consume_token(&Token::Comma) {
                let t = p.next_token();
                names.push(var_name(p, t.token)?);
            }
            // MariaDB takes exactly two fragments.
            if names.len() != 2 {
                return Err(ParserError::ParserError(
                    "BINLOG takes a string or two user variables".into(),
                ));
            }
            BinlogSource::Fragments(names)
        }
        other => {
            return Err(ParserError::ParserError(format!(
                "Expected a string after BINLOG, found: {other}"
            )))
        }
    };
    if p.peek_token().token != Token::EOF {
        let t = p.peek_token();
        return Err(ParserError::ParserError(format!(
            "Expected end of statement, found: {t}"
        )));
    }
    Ok(Stmt::Binlog(src))
}

fn var_name(p: &mut Parser<'_>, t: Token) -> PResult<String> {
    match t {
        Token::AtSign => Ok(ident(p)?.to_ascii_lowercase()),
        Token::Word(w) if w.value.starts_with('@') && w.value.len() > 1 => {
            Ok(w.value[1..].to_ascii_lowercase())
        }
        other => Err(ParserError::ParserError(format!(
            "Expected a user variable, found: {other}"
        ))),
    }
}
