//! SQL-level prepared statements: `PREPARE name FROM {'text' | expr}`,
//! `EXECUTE name [USING expr, …]` and `{DEALLOCATE | DROP} PREPARE name` → [`Stmt`].
//!
//! The text to prepare may be any expression MariaDB 10.11 accepts there (a string literal,
//! `@var`, `CONCAT(…)`): it is evaluated when PREPARE runs. USING takes expressions too;
//! its `DEFAULT` and `IGNORE` indicators are refused (1235). Running them is
//! `exec/prepare_sql.rs`.

use super::{eat, expect_word, ident, unsupported, PResult, Stmt};
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Token;

/// `PREPARE name FROM source`.
pub(super) fn parse_prepare(p: &mut Parser<'_>) -> PResult<Stmt> {
    p.next_token();
    let name = ident(p)?;
    expect_word(p, "FROM")?;
    let source = Box::new(p.parse_expr()?);
    Ok(Stmt::PrepareSql { name, source })
}

/// `EXECUTE name [USING expr, …]`.
pub(super) fn parse_execute(p: &mut Parser<'_>) -> PResult<Stmt> {
    p.next_token();
    let name = ident(p)?;
    let mut using = Vec::new();
    if eat(p, "USING") {
        loop {
            if matches!(super::peek_word(p).as_deref(), Some("DEFAULT" | "IGNORE")) {
                return Ok(unsupported(p, "DEFAULT / IGNORE in EXECUTE … USING"));
            }
            using.push(p.parse_expr()?);
            if !p.consume_token(&Token::Comma) {
                break;
            }
        }
    }
    Ok(Stmt::ExecuteSql { name, using })
}

/// `DEALLOCATE PREPARE name` / `DROP PREPARE name` (the first word not yet consumed).
pub(super) fn parse_deallocate(p: &mut Parser<'_>) -> PResult<Stmt> {
    p.next_token();
    expect_word(p, "PREPARE")?;
    Ok(Stmt::DeallocateSql(ident(p)?))
}
