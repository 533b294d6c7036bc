//! Character-set spellings `sqlparser` does not read, rewritten at the token level:
//!
//! * `CHARSET cs`, MariaDB's synonym of `CHARACTER SET`, in a CREATE / ALTER statement (a
//!   column's `a VARCHAR(10) CHARSET latin1`, as well as the table options it already read);
//!   `CHARSET(x)`, the function, is left alone.
//! * `CAST(x AS CHAR[(n)] CHARACTER SET cs)` becomes `CONVERT(x, CHAR[(n)] CHARACTER SET
//!   cs)`, the spelling `sqlparser` reads and that means the same (the result's name is
//!   taken from the text as written, before this).

use super::{is_trivia, is_word};
use sqlparser::tokenizer::{Token, TokenWithSpan, Whitespace};

/// Rewrite the character-set spellings of a statement's tokens.
pub(super) fn rewrite(tokens: &mut Vec<TokenWithSpan>, first: Option<&str>) {
    if !tokens
        .iter()
        .any(|t| is_word(&t.token, "CHARSET") || is_word(&t.token, "CAST"))
    {
        return;
    }
    let ddl = matches!(first, Some("CREATE" | "ALTER"));
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i].token;
        if is_word(t, "CHARSET")
            && (ddl || inside_cast(tokens, i))
            && !next_is_lparen(tokens, i)
            && !names_a_column(tokens, i)
        {
            let span = tokens[i].span;
            let at = |token| TokenWithSpan { token, span };
            tokens.splice(
                i..=i,
                [
                    at(Token::make_keyword("CHARACTER")),
                    at(Token::Whitespace(Whitespace::Space)),
                    at(Token::make_keyword("SET")),
                ],
            );
            i += 3;
            continue;
        }
        if is_word(t, "CAST") && next_is_lparen(tokens, i) {
            cast_with_charset(tokens, i);
        }
        i += 1;
    }
}

fn next_is_lparen(tokens: &[TokenWithSpan], i: usize) -> bool {
    tokens[i + 1..]
        .iter()
        .find(|t| !is_trivia(&t.token))
        .is_some_and(|t| t.token == Token::LParen)
}

/// Whether `CHARSET` at `i` is a column's name (`CREATE TABLE t (charset INT, …)`).
fn names_a_column(tokens: &[TokenWithSpan], i: usize) -> bool {
    tokens[..i]
        .iter()
        .rposition(|t| !is_trivia(&t.token))
        .is_some_and(|p| matches!(tokens[p].token, Token::LParen | Token::Comma))
}

/// Whether token `i` is inside the parentheses of a `CAST(` (or `CONVERT(`).
fn inside_cast(tokens: &[TokenWithSpan], i: usize) -> bool {
    let mut depth = 0usize;
    for j in (0..i).rev() {
        match &tokens[j].token {
            Token::RParen => depth += 1,
            Token::LParen if depth > 0 => depth -= 1,
            Token::LParen => {
                return tokens[..j]
                    .iter()
                    .rposition(|t| !is_trivia(&t.token))
                    .is_some_and(|p| {
                        // (A CAST this rewrite renamed already.)
                        is_word(&tokens[p].token, "CAST") || is_word(&tokens[p].token, "CONVERT")
                    });
            }
            _ => {}
        }
    }
    false
}

/// `CAST(` at `cast`: when its target (after the top-level `AS`) names a character set,
/// rename it CONVERT and its `AS` a comma.
fn cast_with_charset(tokens: &mut [TokenWithSpan], cast: usize) {
    let mut depth = 0usize;
    let mut as_at = None;
    let mut charset = false;
    for (j, t) in tokens.iter().enumerate().skip(cast + 1) {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            t if depth == 1 && as_at.is_none() && is_word(t, "AS") => as_at = Some(j),
            t if depth >= 1
                && as_at.is_some()
                && (is_word(t, "CHARSET") || is_word(t, "CHARACTER")) =>
            {
                charset = true
            }
            _ => {}
        }
    }
    if let (Some(a), true) = (as_at, charset) {
        tokens[cast].token = Token::make_keyword("CONVERT");
        tokens[a].token = Token::Comma;
    }
}

#[cfg(test)]
mod tests {
    use crate::sql::parse::parse;

    #[test]
    fn charset_and_cast_character_set_parse() {
        for sql in [
            "CREATE TABLE t (a VARCHAR(10) CHARSET utf8mb3, b TEXT CHARSET utf8mb4 COLLATE utf8mb4_bin) CHARSET utf8mb4",
            "ALTER TABLE t MODIFY a VARCHAR(10) CHARSET utf8mb3",
            "SELECT CAST('a' AS CHAR CHARACTER SET utf8mb3)",
            "SELECT CAST('a' AS CHAR(3) CHARSET latin1), CHARSET('a')",
        ] {
            let r = parse(sql);
            assert!(r.is_ok(), "{sql}: {:?}", r.err());
        }
    }
}
