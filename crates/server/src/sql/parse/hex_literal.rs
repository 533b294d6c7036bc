//! The two spellings of a hex literal, which `sqlparser` tokenizes alike, told apart as
//! MariaDB 10.11 does:
//!
//! * `X'41'` is a binary *string*: in a numeric context it reads as a string (`X'41' + 0` is
//!   0), so it is given the `_binary` introducer; an odd number of digits (`X'4'`) is 1064.
//! * `0x41` is a hybrid (a number in a numeric context, a string elsewhere), left as it is.
//!   Only `0x` followed by at least one hex digit and nothing that continues a word is one:
//!   `0x`, `0x41G`, `0X41` are identifiers (MariaDB then reports an unknown column).
//!
//! Statements without a hex literal pay one scan of their tokens.

use super::syntax_error;
use crate::error::Result;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Whitespace};

/// Byte offsets of token positions, found walking forward through the text once (tokens come
/// in order), so a statement with many hex literals costs one pass.
pub(super) struct Cursor<'a> {
    sql: &'a str,
    at: usize,
    line: u64,
    col: u64,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(sql: &'a str) -> Cursor<'a> {
        Cursor {
            sql,
            at: 0,
            line: 1,
            col: 1,
        }
    }

    /// A hex literal token's text as written (`0x41`, `x'41'`), for a column name.
    pub(super) fn source_text(&mut self, t: &TokenWithSpan) -> Option<&'a str> {
        let Token::HexStringLiteral(h) = &t.token else {
            return None;
        };
        let at = self.offset(t.span.start);
        let src = &self.sql[at..];
        let len = if src.starts_with("0x") {
            2 + h.len()
        } else {
            3 + h.len()
        };
        src.get(..len)
    }

    fn offset(&mut self, loc: Location) -> usize {
        if (loc.line, loc.column) < (self.line, self.col) {
            // Not expected (positions only grow); start over.
            (self.at, self.line, self.col) = (0, 1, 1);
        }
        for (i, c) in self.sql[self.at..].char_indices() {
            if (self.line, self.col) == (loc.line, loc.column) {
                self.at += i;
                return self.at;
            }
            if c == '\n' {
                self.line += 1;
                self.col = 1;
            } else {
                self.col += 1;
            }
        }
        self.at = self.sql.len();
        self.at
    }
}

/// Rewrite the hex literals of `tokens` (tokenized from `sql`) as the module doc says.
pub(super) fn rewrite(tokens: &mut Vec<TokenWithSpan>, sql: &str) -> Result<()> {
    if !tokens
        .iter()
        .any(|t| matches!(t.token, Token::HexStringLiteral(_)))
    {
        return Ok(());
    }
    let mut cursor = Cursor::new(sql);
    let mut i = 0;
    while i < tokens.len() {
        let Token::HexStringLiteral(h) = &tokens[i].token else {
            i += 1;
            continue;
        };
        let start = cursor.offset(tokens[i].span.start);
        let src = &sql[start..];
        if src.starts_with("X'") || src.starts_with("x'") {
            if h.len() % 2 == 1 {
                let body = sql.trim_end().trim_end_matches(';').trim_end();
                return Err(syntax_error(body, Some(tokens[i].span.start)));
            }
            let introduced = tokens[..i]
                .iter()
                .rev()
                .find(|t| !matches!(t.token, Token::Whitespace(_)))
                .is_some_and(|t| {
                    matches!(&t.token, Token::Word(w) if w.quote_style.is_none() && w.value.starts_with('_'))
                });
            if !introduced {
                let span = tokens[i].span;
                tokens.splice(
                    i..i,
                    [
                        TokenWithSpan::new(Token::make_word("_binary", None), span),
                        TokenWithSpan::new(Token::Whitespace(Whitespace::Space), span),
                    ],
                );
                i += 2;
            }
            i += 1;
            continue;
        }
        // `0x…`: the word it starts, as far as identifier characters go.
        let len = src
            .char_indices()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
            .map_or(src.len(), |(n, _)| n);
        let word = &src[..len];
        let hybrid = word.len() > 2
            && word.starts_with("0x")
            && word[2..].bytes().all(|b| b.is_ascii_hexdigit());
        if hybrid {
            i += 1;
            continue;
        }
        // An identifier: this token and those that continue the word become one.
        let end = start + len;
        let mut j = i + 1;
        while j < tokens.len() && cursor.offset(tokens[j].span.start) < end {
            j += 1;
        }
        let span = tokens[i].span;
        tokens.splice(
            i..j,
            [TokenWithSpan::new(Token::make_word(word, None), span)],
        );
        i += 1;
    }
    Ok(())
}
