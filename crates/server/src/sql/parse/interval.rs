//! `INTERVAL expr unit` as MariaDB writes it.
//!
//! `sqlparser` knows only single-word units (`DAY`, `HOUR`) after INTERVAL, and reads none of
//! MariaDB's compound ones (`DAY_HOUR`, `HOUR_MINUTE`, `SECOND_MICROSECOND`, `YEAR_MONTH`…).
//! The dialect's prefix hook ([`super::dialect`]) parses the whole form here instead: the value
//! is any expression, and the unit, one of [`UNITS`], is kept upper case as
//! `DateTimeField::Custom`, which the binder reads (`bind/interval.rs`).
//!
//! `INTERVAL(N, N1, N2, …)`, two arguments or more in parentheses, is MariaDB's function of
//! that name (`func/interval_index.rs`): parsed here as a call to `INTERVAL`. With one
//! parenthesized value (`INTERVAL (1) + 1 DAY`) it is the interval form again.

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
    if let Some(call) = parser.maybe_parse(function_call)? {
        return Ok(call);
    }
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

/// `(N, N1, …)` after INTERVAL: the call `INTERVAL(N, N1, …)`; an error (the caller reads
/// the interval form instead) with fewer than two arguments.
fn function_call(parser: &mut Parser) -> Result<Expr, ParserError> {
    parser.expect_token(&Token::LParen)?;
    let args = parser.parse_comma_separated(Parser::parse_expr)?;
    parser.expect_token(&Token::RParen)?;
    if args.len() < 2 {
        return Err(ParserError::ParserError("not INTERVAL()".into()));
    }
    let arg = |x| ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x));
    Ok(Expr::Function(ast::Function {
        name: ast::ObjectName::from(vec![ast::Ident::new("INTERVAL")]),
        uses_odbc_syntax: false,
        parameters: ast::FunctionArguments::None,
        args: ast::FunctionArguments::List(ast::FunctionArgumentList {
            duplicate_treatment: None,
            args: args.into_iter().map(arg).collect(),
            clauses: Vec::new(),
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: Vec::new(),
    }))
}
