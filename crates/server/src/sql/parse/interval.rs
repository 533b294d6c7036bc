//! `INTERVAL expr unit` as MariaDB writes it.
//!
//! `sqlparser` knows only single-word units (`DAY`, `HOUR`) after INTERVAL, and reads none of
//! MariaDB's compound ones (`DAY_HOUR`, `HOUR_MINUTE`, `SECOND_MICROSECOND`, `YEAR_MONTH`…).
//! The dialect's prefix hook ([`super::dialect`]) parses the whole form here instead: the value
//! is any expression, and the unit, one of [`UNITS`], is kept upper case as
//! `DateTimeField::Custom`, which the binder reads (`bind/interval.rs`).

use sqlparser::ast::{self, DateTimeField, Expr};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// The units MariaDB accepts after INTERVAL (and in EXTRACT, DATE_ADD, …).
pub const UNITS: &[&str] = &[
    "MICROSECOND",
    "SECOND",
    "MINUTE",
    "HOUR",
    "DAY",
    "WEEK",
    "MONTH",
    "QUARTER",
    "YEAR",
    "SECOND_MICROSECOND",
    "MINUTE_MICROSECOND",
    "MINUTE_SECOND",
    "HOUR_MICROSECOND",
    "HOUR_SECOND",
    "HOUR_MINUTE",
    "DAY_MICROSECOND",
    "DAY_SECOND",
    "DAY_MINUTE",
    "DAY_HOUR",
    "YEAR_MONTH",
];

/// True if the next token starts an INTERVAL expression.
pub fn at_interval(parser: &Parser) -> bool {
    matches!(&parser.peek_token_ref().token, Token::Word(w) if w.keyword == Keyword::INTERVAL)
}

/// Parse `INTERVAL expr unit` (the parser is at INTERVAL).
pub fn parse(parser: &mut Parser) -> Result<Expr, ParserError> {
    parser.next_token();
    let value = parser.parse_expr()?;
    let tok = parser.next_token();
    let unit = match &tok.token {
        Token::Word(w) => w.value.to_ascii_uppercase(),
        _ => String::new(),
    };
    if !UNITS.contains(&unit.as_str()) {
        return Err(ParserError::ParserError(format!(
            "Expected: an INTERVAL unit, found: {}",
            tok.token
        )));
    }
    Ok(Expr::Interval(ast::Interval {
        value: Box::new(value),
        leading_field: Some(DateTimeField::Custom(ast::Ident::new(unit))),
        leading_precision: None,
        last_field: None,
        fractional_seconds_precision: None,
    }))
}
