//! `SELECT … INTO @a, @b`: a query's single row into user variables.
//!
//! The clause is cut out of the token stream before parsing, so the query parses and binds as
//! it would without it, and the targets travel beside it ([`SelectInto`]); the statement runs
//! as `Plan::Into` (`sql/mod.rs`): 1222 when the column and variable counts differ, 1172 for
//! more than one row, warning 1329 (variables unchanged) for none.
//!
//! MariaDB takes the clause after the select list, or at the end of the whole query (after
//! FROM … LIMIT, a set operation, a WITH query, or FOR UPDATE), where it is deprecated
//! (warning 1287). Only user variables are targets here: a plain name is a stored-program
//! variable (1327 outside one), and `INTO OUTFILE` / `INTO DUMPFILE` write server files, which
//! Cohort does not do (1235).

use super::{is_trivia, is_word};
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Where a query's row goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectInto {
    /// The user variables, in order (names as written, without `@`).
    pub vars: Vec<String>,
    /// The clause came after the query's FROM or at its end: MariaDB's deprecation warning.
    pub trailing: bool,
}

/// What the INTO clause of a query says, if it has one.
pub(super) enum Found {
    Into(SelectInto),
    /// `INTO OUTFILE` / `INTO DUMPFILE` (1235).
    File,
    /// `INTO name` without `@`: the name (1327 "Undeclared variable").
    Undeclared(String),
    /// Another INTO (a second one, or one in a subquery): MariaDB's 1064 at this token.
    Misplaced(sqlparser::tokenizer::Location),
}

/// Clauses after which an INTO is at the query's end rather than after its select list.
const LATER: &[&str] = &[
    "FROM",
    "WHERE",
    "GROUP",
    "HAVING",
    "ORDER",
    "LIMIT",
    "UNION",
    "INTERSECT",
    "EXCEPT",
    "WINDOW",
    "FOR",
    "LOCK",
];

/// Cut the top-level INTO clause out of a query's tokens (a statement that starts with
/// SELECT, WITH or a parenthesis). Any other INTO in such a statement is a syntax error.
pub(super) fn strip(tokens: &mut Vec<TokenWithSpan>) -> Option<Found> {
    let found = strip_top(tokens);
    if matches!(found, None | Some(Found::Into(_))) {
        let starts_query = starts_query(tokens);
        if let Some(t) = tokens
            .iter()
            .find(|t| starts_query && is_word(&t.token, "INTO"))
        {
            return Some(Found::Misplaced(t.span.start));
        }
    }
    found
}

fn starts_query(tokens: &[TokenWithSpan]) -> bool {
    tokens
        .iter()
        .find(|t| !is_trivia(&t.token))
        .is_some_and(|t| {
            matches!(t.token, Token::LParen)
                || is_word(&t.token, "SELECT")
                || is_word(&t.token, "WITH")
        })
}

fn strip_top(tokens: &mut Vec<TokenWithSpan>) -> Option<Found> {
    if !starts_query(tokens) {
        return None;
    }
    let first = tokens.iter().position(|t| !is_trivia(&t.token))?;
    let mut depth = 0i32;
    let mut trailing = !is_word(&tokens[first].token, "SELECT");
    let mut at = None;
    for (i, t) in tokens.iter().enumerate().skip(first) {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            tok if depth == 0 && is_word(tok, "INTO") => {
                at = Some(i);
                break;
            }
            tok if depth == 0 && LATER.iter().any(|w| is_word(tok, w)) => trailing = true,
            _ => {}
        }
    }
    let at = at?;
    let mut i = next_word(tokens, at + 1)?;
    if is_word(&tokens[i].token, "OUTFILE") || is_word(&tokens[i].token, "DUMPFILE") {
        return Some(Found::File);
    }
    let mut vars = Vec::new();
    let end = loop {
        let (name, after) = match user_var(tokens, i) {
            Ok(v) => v,
            Err(Some(name)) => return Some(Found::Undeclared(name)),
            Err(None) => return None, // not a target list: the parser gives the 1064
        };
        vars.push(name);
        match next_word(tokens, after) {
            Some(j) if tokens[j].token == Token::Comma => match next_word(tokens, j + 1) {
                Some(k) => i = k,
                None => return None,
            },
            _ => break after,
        }
    };
    tokens.drain(at..end);
    Some(Found::Into(SelectInto { vars, trailing }))
}

/// The next token at or after `i` that is not whitespace.
fn next_word(tokens: &[TokenWithSpan], i: usize) -> Option<usize> {
    (i..tokens.len()).find(|&k| !is_trivia(&tokens[k].token))
}

/// A user variable at `i` (`@x`, `@'x'`, `` @`x` ``): its name and the index after it. Err with
/// the name for a plain word, Err(None) for anything else.
fn user_var(tokens: &[TokenWithSpan], i: usize) -> Result<(String, usize), Option<String>> {
    match &tokens[i].token {
        Token::Word(w)
            if w.quote_style.is_none() && w.value.len() > 1 && w.value.starts_with('@') =>
        {
            if w.value.starts_with("@@") {
                return Err(None);
            }
            Ok((w.value[1..].to_string(), i + 1))
        }
        Token::AtSign => match tokens.get(i + 1).map(|t| &t.token) {
            Some(Token::Word(w)) => Ok((w.value.clone(), i + 2)),
            Some(Token::SingleQuotedString(s) | Token::DoubleQuotedString(s)) => {
                Ok((s.clone(), i + 2))
            }
            _ => Err(None),
        },
        Token::Word(w) if w.quote_style.is_none() && !is_word(&tokens[i].token, "OUTFILE") => {
            Err(Some(w.value.clone()))
        }
        _ => Err(None),
    }
}
