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

/// Rewrite the character-set spellings of a statement's tokens, in one pass: linear in the
/// tokens however deep the nesting (a CAST nested 50,000 deep must not take a rescan per CAST).
pub(super) fn rewrite(tokens: &mut Vec<TokenWithSpan>, first: Option<&str>) {
    if !tokens
        .iter()
        .any(|t| is_word(&t.token, "CHARSET") || is_word(&t.token, "CAST"))
    {
        return;
    }
    let ddl = matches!(first, Some("CREATE" | "ALTER"));
    let input = std::mem::take(tokens);
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(input.len() + 8);
    let mut stack: Vec<Open> = Vec::new();
    // The last token of `out` that is not trivia.
    let mut prev: Option<usize> = None;
    for (i, tw) in input.iter().enumerate() {
        let t = &tw.token;
        if is_trivia(t) {
            out.push(tw.clone());
            continue;
        }
        let prev_token = prev.map(|p| out[p].token.clone());
        let prev_is = |f: &dyn Fn(&Token) -> bool| prev_token.as_ref().is_some_and(f);
        match t {
            Token::LParen => stack.push(Open {
                cast: prev.filter(|_| prev_is(&|p| is_word(p, "CAST"))),
                convert: prev_is(&|p| is_word(p, "CONVERT")),
                as_at: None,
                charset: false,
            }),
            Token::RParen => {
                if let Some(Open {
                    cast: Some(c),
                    as_at: Some(a),
                    charset: true,
                    ..
                }) = stack.pop()
                {
                    out[c].token = Token::make_keyword("CONVERT");
                    out[a].token = Token::Comma;
                }
            }
            t if is_word(t, "AS") => {
                if let Some(o) = stack.last_mut().filter(|o| o.cast.is_some()) {
                    o.as_at.get_or_insert(out.len());
                }
            }
            t if is_word(t, "CHARSET") || is_word(t, "CHARACTER") => {
                // A character set named after a CAST's AS, at any depth inside it.
                if let Some(o) = stack.iter_mut().rev().find(|o| o.cast.is_some()) {
                    o.charset |= o.as_at.is_some();
                }
            }
            _ => {}
        }
        let inside_cast = stack.last().is_some_and(|o| o.cast.is_some() || o.convert);
        if is_word(t, "CHARSET")
            && (ddl || inside_cast)
            && !next_is_lparen(&input, i)
            // Not a column's name (`CREATE TABLE t (charset INT, …)`).
            && !prev_is(&|p| matches!(p, Token::LParen | Token::Comma))
        {
            let at = |token| TokenWithSpan {
                token,
                span: tw.span,
            };
            out.push(at(Token::make_keyword("CHARACTER")));
            out.push(at(Token::Whitespace(Whitespace::Space)));
            prev = Some(out.len());
            out.push(at(Token::make_keyword("SET")));
            continue;
        }
        prev = Some(out.len());
        out.push(tw.clone());
    }
    *tokens = out;
}

/// An open parenthesis of the pass: for a `CAST(`, where (in the output) its name and its
/// top-level `AS` are and whether a character set is named after that `AS`; whether it is a
/// `CONVERT(`.
struct Open {
    cast: Option<usize>,
    convert: bool,
    as_at: Option<usize>,
    charset: bool,
}

fn next_is_lparen(tokens: &[TokenWithSpan], i: usize) -> bool {
    tokens[i + 1..]
        .iter()
        .find(|t| !is_trivia(&t.token))
        .is_some_and(|t| t.token == Token::LParen)
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

    #[test]
    fn the_rewrite_is_what_sqlparser_reads() {
        let mut tokens = crate::sql::parse::tokenize_in(
            "SELECT CAST(CAST(x AS CHAR CHARSET latin1) AS SIGNED), CHARSET(y) FROM t",
            crate::sql::sql_mode::ParseMode(0),
        )
        .unwrap();
        super::rewrite(&mut tokens, Some("SELECT"));
        let text: String = tokens.iter().map(|t| t.token.to_string()).collect();
        assert_eq!(
            text,
            "SELECT CAST(CONVERT(x , CHAR CHARACTER SET latin1) AS SIGNED), CHARSET(y) FROM t"
        );
    }
}
