//! Floating-point column type spellings `sqlparser` does not read, rewritten at the token
//! level before a CREATE / ALTER statement is parsed: `REAL(M,D)` and
//! `DOUBLE PRECISION(M,D)` become `DOUBLE(M,D)` (MariaDB shows them as `double(M,D)` anyway),
//! and the no-op `SIGNED` after a FLOAT / DOUBLE / REAL type is dropped. `DOUBLE(p)` /
//! `REAL(p)` are no MariaDB syntax (only FLOAT takes a precision alone): a syntax error at
//! the `)`.

use super::{is_trivia, is_word};
use sqlparser::tokenizer::{Location, Token, TokenWithSpan};

const FLOAT_WORDS: &[&str] = &["FLOAT", "DOUBLE", "REAL", "PRECISION"];

/// Rewrite the float type spellings of a CREATE / ALTER statement's tokens; the position of
/// a syntax error (`DOUBLE(10)`'s `)`).
pub(super) fn rewrite(tokens: &mut Vec<TokenWithSpan>, first: Option<&str>) -> Option<Location> {
    if !matches!(first, Some("CREATE" | "ALTER")) {
        return None;
    }
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i].token;
        if is_word(t, "DOUBLE") || is_word(t, "REAL") || is_word(t, "PRECISION") {
            let three: Vec<&TokenWithSpan> = tokens[i + 1..]
                .iter()
                .filter(|t| !is_trivia(&t.token))
                .take(3)
                .collect();
            if let [open, num, close] = three.as_slice() {
                if open.token == Token::LParen
                    && matches!(num.token, Token::Number(..))
                    && close.token == Token::RParen
                {
                    return Some(close.span.start);
                }
            }
        }
        if is_word(t, "REAL") && next_is(tokens, i, |t| *t == Token::LParen) {
            tokens[i].token = Token::make_keyword("DOUBLE");
        } else if (is_word(t, "PRECISION")
            && prev_word(tokens, i).is_some_and(|p| is_word(&tokens[p].token, "DOUBLE"))
            && next_is(tokens, i, |t| *t == Token::LParen))
            || (is_word(t, "SIGNED") && after_float_type(tokens, i))
        {
            tokens.remove(i);
            continue;
        }
        i += 1;
    }
    None
}

fn next_is(tokens: &[TokenWithSpan], i: usize, f: impl Fn(&Token) -> bool) -> bool {
    tokens[i + 1..]
        .iter()
        .find(|t| !is_trivia(&t.token))
        .is_some_and(|t| f(&t.token))
}

fn prev_word(tokens: &[TokenWithSpan], i: usize) -> Option<usize> {
    tokens[..i].iter().rposition(|t| !is_trivia(&t.token))
}

/// Whether the token before `i` ends a FLOAT / DOUBLE / REAL type (`FLOAT`, `DOUBLE(8,2)`,
/// `DOUBLE PRECISION`).
fn after_float_type(tokens: &[TokenWithSpan], i: usize) -> bool {
    let Some(mut p) = prev_word(tokens, i) else {
        return false;
    };
    if tokens[p].token == Token::RParen {
        let Some(open) = tokens[..p].iter().rposition(|t| t.token == Token::LParen) else {
            return false;
        };
        let Some(q) = prev_word(tokens, open) else {
            return false;
        };
        p = q;
    }
    FLOAT_WORDS.iter().any(|w| is_word(&tokens[p].token, w))
}

#[cfg(test)]
mod tests {
    use crate::sql::parse::parse;

    #[test]
    fn real_and_double_precision_with_m_d_and_signed_parse() {
        for sql in [
            "CREATE TABLE t (a REAL(5,1), b DOUBLE PRECISION (7, 2) SIGNED, c FLOAT SIGNED)",
            "CREATE TABLE t (a FLOAT(8,2) SIGNED NOT NULL)",
            "ALTER TABLE t MODIFY a REAL(5,1) UNSIGNED",
        ] {
            assert!(parse(sql).is_ok(), "{sql}");
        }
        for sql in [
            "CREATE TABLE t (a DOUBLE(10))",
            "CREATE TABLE t (a REAL (5))",
        ] {
            assert!(parse(sql).is_err(), "{sql}");
        }
    }
}
