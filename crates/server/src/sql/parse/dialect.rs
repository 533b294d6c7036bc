//! The parser's dialect: MySQL's, with expression trees kept shallow.
//!
//! `sqlparser` builds an operator chain (`1+1+…+1`, `a AND b AND …`, `x IS NULL IS NULL …`)
//! iteratively into a left-deep tree whose depth is the length of the chain, and only its
//! *recursive* descent (parentheses, function calls, prefix operators) is bounded by its
//! recursion limit. Dropping, cloning or comparing such a tree recurses once per level, and
//! 100 000 terms overflow any thread stack, inside `sqlparser` (a syntax error after the chain
//! drops it) as well as in our code.
//!
//! [`ShallowMySql`] therefore hooks the two places where `sqlparser` finishes an expression
//! node, the prefix and infix steps of its Pratt parser. When the finished node is deeper than
//! [`SET_ASIDE_DEPTH`], it is moved into the statement's *set-aside list* and replaced in the tree
//! by a placeholder leaf that names its index ([`placeholder_index`]). Every node left in a
//! tree, and every node in the list, is then at most `SET_ASIDE_DEPTH` + a few levels deep, so
//! nothing that walks the tree (drop glue, `Clone`, `Display`, the binder) ever recurses deeper
//! than that, whatever the statement. The binder follows placeholders to the set-aside nodes
//! (iteratively along operator chains, see `bind/mod.rs`).
//!
//! The placeholder is an identifier quoted with `[`, which MySQL's tokenizer never produces,
//! so no statement text can forge one. Statements of at most `SET_ASIDE_DEPTH` tokens
//! cannot nest that deep, and are parsed without the hooks: ordinary statements keep exactly
//! the tree `sqlparser` builds.
//!
//! Recursion itself is bounded by [`MAX_NESTING`] (nested parentheses, function calls,
//! subqueries, prefix operators); `sqlparser` grows its stack as it recurses
//! (`recursive-protection`), so that limit bounds the memory a statement's parse can take, not
//! the safety of the thread's stack.

use crate::sql::sql_mode::{parse_bit, ParseMode};
use sqlparser::ast::{self, Expr, Statement};
use sqlparser::dialect::{Dialect, MySqlDialect};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Span;
use sqlparser::tokenizer::Token;
use std::any::TypeId;
use std::cell::{Cell, RefCell};

/// A finished expression node deeper than this is set aside.
pub const SET_ASIDE_DEPTH: usize = 16;

/// Deepest recursive nesting the parser accepts (parentheses, function calls, subqueries,
/// prefix operators); deeper is error 1064. MariaDB accepts about 590 nested function calls.
pub const MAX_NESTING: usize = 1000;

/// The quote character of a placeholder identifier: MySQL's tokenizer never quotes with `[`
/// (and never produces an identifier without a position), so no text can forge one. It
/// displays as `[7]`.
const PLACEHOLDER_QUOTE: char = '[';

/// MySQL's dialect, setting deep expression nodes aside (see the module doc).
#[derive(Debug)]
pub struct ShallowMySql {
    inner: MySqlDialect,
    /// False for statements too short to nest deeply: the hooks do nothing.
    active: bool,
    set_aside: RefCell<Vec<Expr>>,
    /// Set while our prefix / infix hook calls back into the parser, whose first act is to
    /// call the hook again: that call must let the parser do the work.
    in_prefix: Cell<bool>,
    in_infix: Cell<bool>,
    /// The recursion limit was hit: every later expression fails at once, so that the
    /// parser's fallbacks (a keyword retried as an identifier…) do not each descend again
    /// (which made a failing deep CASE nest quadratic).
    exceeded: Cell<bool>,
    /// The parse-affecting `sql_mode` bits (ANSI_QUOTES, NO_BACKSLASH_ESCAPES,
    /// PIPES_AS_CONCAT, HIGH_NOT_PRECEDENCE): how the text is tokenized and read.
    mode: ParseMode,
}

/// The binding strength of `||` under PIPES_AS_CONCAT: tighter than `*` and `^` (MariaDB's
/// `2 * 3 || 4` is 68, `2 ^ 3 || 1` is 29), looser than `!`, COLLATE and `::`.
const CONCAT_PREC: u8 = 45;

/// The binding strength of `NOT` under HIGH_NOT_PRECEDENCE: that of `!`.
const HIGH_NOT_PREC: u8 = 50;

impl ShallowMySql {
    /// A dialect for a statement of `tokens` (non-whitespace) tokens.
    pub fn new(tokens: usize) -> ShallowMySql {
        ShallowMySql {
            inner: MySqlDialect {},
            active: tokens > SET_ASIDE_DEPTH,
            set_aside: RefCell::new(Vec::new()),
            in_prefix: Cell::new(false),
            in_infix: Cell::new(false),
            exceeded: Cell::new(false),
            mode: ParseMode(0),
        }
    }

    /// The same dialect reading the text under `mode`'s parse-affecting `sql_mode` bits.
    pub fn with_mode(mut self, mode: ParseMode) -> ShallowMySql {
        self.mode = mode;
        self
    }

    /// True if the parse hit the nesting limit ([`MAX_NESTING`]).
    pub fn nesting_exceeded(&self) -> bool {
        self.exceeded.get()
    }

    /// A finished hook result: set aside if deep; a recursion error makes the rest fail.
    fn finish_result(&self, r: Result<Expr, ParserError>) -> Option<Result<Expr, ParserError>> {
        if let Err(ParserError::RecursionLimitExceeded) = r {
            self.exceeded.set(true);
        }
        Some(r.map(|e| self.finish(e)))
    }

    /// The nodes set aside while parsing, indexed by their placeholders.
    pub fn into_set_aside(self) -> Vec<Expr> {
        self.set_aside.into_inner()
    }

    fn finish(&self, e: Expr) -> Expr {
        if within_depth(&e, SET_ASIDE_DEPTH) {
            return e;
        }
        let mut list = self.set_aside.borrow_mut();
        list.push(e);
        placeholder(list.len() - 1)
    }
}

fn placeholder(index: usize) -> Expr {
    Expr::Identifier(ast::Ident {
        value: index.to_string(),
        quote_style: Some(PLACEHOLDER_QUOTE),
        span: Span::empty(),
    })
}

/// The set-aside index a placeholder stands for; None for any other expression.
pub fn placeholder_index(e: &Expr) -> Option<usize> {
    match e {
        Expr::Identifier(id)
            if id.quote_style == Some(PLACEHOLDER_QUOTE) && id.span == Span::empty() =>
        {
            id.value.parse().ok()
        }
        _ => None,
    }
}

/// True if `e` is at most `budget` expression levels deep. Conservative: a kind of node it
/// does not look into counts as too deep (and is set aside, which is always correct). It
/// recurses at most `budget` levels.
fn within_depth(e: &Expr, budget: usize) -> bool {
    let Some(b) = budget.checked_sub(1) else {
        return false;
    };
    let ok = |x: &Expr| within_depth(x, b);
    let ok_opt = |x: &Option<Box<Expr>>| x.as_deref().is_none_or(ok);
    match e {
        Expr::Identifier(_)
        | Expr::CompoundIdentifier(_)
        | Expr::Value(_)
        | Expr::TypedString(_)
        | Expr::Wildcard(_)
        | Expr::QualifiedWildcard(..) => true,
        Expr::IsFalse(x)
        | Expr::IsNotFalse(x)
        | Expr::IsTrue(x)
        | Expr::IsNotTrue(x)
        | Expr::IsNull(x)
        | Expr::IsNotNull(x)
        | Expr::IsUnknown(x)
        | Expr::IsNotUnknown(x)
        | Expr::Nested(x)
        | Expr::UnaryOp { expr: x, .. }
        | Expr::Cast { expr: x, .. }
        | Expr::Collate { expr: x, .. }
        | Expr::Ceil { expr: x, .. }
        | Expr::Floor { expr: x, .. }
        | Expr::Prefixed { value: x, .. } => ok(x),
        Expr::Convert { expr, styles, .. } => ok(expr) && styles.iter().all(ok),
        Expr::IsDistinctFrom(x, y)
        | Expr::IsNotDistinctFrom(x, y)
        | Expr::BinaryOp {
            left: x, right: y, ..
        }
        | Expr::AnyOp {
            left: x, right: y, ..
        }
        | Expr::AllOp {
            left: x, right: y, ..
        }
        | Expr::Position { expr: x, r#in: y } => ok(x) && ok(y),
        Expr::Like { expr, pattern, .. }
        | Expr::ILike { expr, pattern, .. }
        | Expr::SimilarTo { expr, pattern, .. }
        | Expr::RLike { expr, pattern, .. } => ok(expr) && ok(pattern),
        Expr::InList { expr, list, .. } => ok(expr) && list.iter().all(ok),
        Expr::Between {
            expr, low, high, ..
        } => ok(expr) && ok(low) && ok(high),
        Expr::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => ok(expr) && ok_opt(substring_from) && ok_opt(substring_for),
        Expr::Trim {
            expr,
            trim_what,
            trim_characters,
            ..
        } => {
            ok(expr)
                && ok_opt(trim_what)
                && trim_characters.as_ref().is_none_or(|v| v.iter().all(ok))
        }
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            ok_opt(operand)
                && conditions.iter().all(|c| ok(&c.condition) && ok(&c.result))
                && ok_opt(else_result)
        }
        Expr::Tuple(v) => v.iter().all(ok),
        Expr::Function(f) => function_within_depth(f, b),
        _ => false,
    }
}

fn function_within_depth(f: &ast::Function, budget: usize) -> bool {
    if f.filter.is_some()
        || f.over.is_some()
        || !f.within_group.is_empty()
        || !matches!(f.parameters, ast::FunctionArguments::None)
    {
        return false;
    }
    match &f.args {
        ast::FunctionArguments::None => true,
        ast::FunctionArguments::Subquery(_) => false,
        ast::FunctionArguments::List(l) => {
            l.clauses.is_empty()
                && l.args.iter().all(|a| match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => {
                        within_depth(x, budget)
                    }
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard) => true,
                    _ => false,
                })
        }
    }
}

/// `concat(a, b)`: what `a || b` means under PIPES_AS_CONCAT (and how MariaDB prints it).
fn concat_call(a: Expr, b: Expr) -> Expr {
    let arg = |x| ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x));
    Expr::Function(ast::Function {
        name: ast::ObjectName::from(vec![ast::Ident::new("concat")]),
        uses_odbc_syntax: false,
        parameters: ast::FunctionArguments::None,
        args: ast::FunctionArguments::List(ast::FunctionArgumentList {
            duplicate_treatment: None,
            args: vec![arg(a), arg(b)],
            clauses: Vec::new(),
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: Vec::new(),
    })
}

/// Parse an expression kept as text (a CHECK constraint, generated column or DEFAULT, as
/// `exec/expr_print.rs` printed it) with the statement dialect's MySQL forms.
pub fn parse_kept_expr(text: &str) -> Result<Expr, ParserError> {
    let dialect = ShallowMySql::new(0);
    Parser::new(&dialect)
        .with_recursion_limit(400)
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
}

/// MySQL prefix forms `sqlparser` does not read: `!x` (NOT binding tighter than any operator;
/// kept as `(NOT (x))`, so that the tree prints back with the same meaning) and a quoted user
/// variable name (`` @`x` ``, `@'x'`, `@"x"`: the identifier `@x`, as `@x` parses).
fn mysql_prefix(parser: &mut Parser, mode: ParseMode) -> Option<Result<Expr, ParserError>> {
    match &parser.peek_token_ref().token {
        // HIGH_NOT_PRECEDENCE: `NOT x` is `!x` (but `NOT EXISTS` stays the parser's).
        Token::Word(w)
            if w.keyword == Keyword::NOT
                && mode.has(parse_bit::HIGH_NOT_PRECEDENCE)
                && !matches!(&parser.peek_nth_token_ref(1).token,
                    Token::Word(n) if n.keyword == Keyword::EXISTS) =>
        {
            parser.next_token();
            Some(parser.parse_subexpr(HIGH_NOT_PREC).map(|x| {
                Expr::Nested(Box::new(Expr::UnaryOp {
                    op: ast::UnaryOperator::Not,
                    expr: Box::new(Expr::Nested(Box::new(x))),
                }))
            }))
        }
        Token::ExclamationMark | Token::DoubleExclamationMark => {
            let twice = parser.next_token().token == Token::DoubleExclamationMark;
            let prec = MySqlDialect {}.prec_value(sqlparser::dialect::Precedence::DoubleColon);
            let not = |x: Expr| {
                Expr::Nested(Box::new(Expr::UnaryOp {
                    op: ast::UnaryOperator::Not,
                    expr: Box::new(Expr::Nested(Box::new(x))),
                }))
            };
            Some(
                parser
                    .parse_subexpr(prec)
                    .map(|x| if twice { not(not(x)) } else { not(x) }),
            )
        }
        Token::AtSign => {
            let name = match &parser.peek_nth_token_ref(1).token {
                Token::Word(w) if w.quote_style.is_some() => w.value.clone(),
                Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => s.clone(),
                _ => return None,
            };
            parser.next_token();
            parser.next_token();
            Some(Ok(Expr::Identifier(ast::Ident::new(format!("@{name}")))))
        }
        _ => None,
    }
}

impl Dialect for ShallowMySql {
    /// The parser's `dialect_of!(… is MySqlDialect)` checks must still see MySQL.
    fn dialect(&self) -> TypeId {
        self.inner.dialect()
    }

    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        let nested = self.in_prefix.replace(false);
        if let Some(r) = mysql_prefix(parser, self.mode) {
            return if self.active && !nested {
                self.finish_result(r)
            } else {
                Some(r)
            };
        }
        if super::interval::at_interval(parser) {
            // MariaDB's INTERVAL (compound units): parsed here, shallow or not.
            if self.exceeded.get() {
                return Some(Err(ParserError::RecursionLimitExceeded));
            }
            let r = super::interval::parse(parser);
            return if self.active && !nested {
                self.finish_result(r)
            } else {
                Some(r)
            };
        }
        if !self.active || nested {
            return self.inner.parse_prefix(parser);
        }
        if self.exceeded.get() {
            return Some(Err(ParserError::RecursionLimitExceeded));
        }
        self.in_prefix.set(true);
        let r = parser.parse_prefix();
        self.in_prefix.set(false);
        self.finish_result(r)
    }

    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        if self.mode.has(parse_bit::PIPES_AS_CONCAT)
            && parser.peek_token_ref().token == Token::StringConcat
        {
            // `a || b` is `concat(a, b)`, left-associative.
            let nested = self.in_infix.replace(false);
            parser.next_token();
            let r = parser
                .parse_subexpr(CONCAT_PREC)
                .map(|right| concat_call(expr.clone(), right));
            return if self.active && !nested {
                self.finish_result(r)
            } else {
                Some(r)
            };
        }
        if !self.active || self.in_infix.replace(false) {
            return self.inner.parse_infix(parser, expr, precedence);
        }
        if self.exceeded.get() {
            return Some(Err(ParserError::RecursionLimitExceeded));
        }
        // `expr` is itself a finished (so shallow) node: cloning it is cheap.
        self.in_infix.set(true);
        let r = parser.parse_infix(expr.clone(), precedence);
        self.in_infix.set(false);
        self.finish_result(r)
    }

    // Everything else is MySQL's.

    /// EXTRACT(DAY_HOUR FROM …): MariaDB's compound units reach the binder as custom fields.
    fn allow_extract_custom(&self) -> bool {
        true
    }
    fn is_identifier_start(&self, ch: char) -> bool {
        self.inner.is_identifier_start(ch)
    }
    fn is_identifier_part(&self, ch: char) -> bool {
        self.inner.is_identifier_part(ch)
    }
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        (ch == '"' && self.mode.has(parse_bit::ANSI_QUOTES))
            || self.inner.is_delimited_identifier_start(ch)
    }
    fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>> {
        (self.mode.has(parse_bit::PIPES_AS_CONCAT)
            && parser.peek_token_ref().token == Token::StringConcat)
            .then_some(Ok(CONCAT_PREC))
    }
    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        self.inner.identifier_quote_style(identifier)
    }
    fn supports_string_literal_backslash_escape(&self) -> bool {
        !self.mode.has(parse_bit::NO_BACKSLASH_ESCAPES)
            && self.inner.supports_string_literal_backslash_escape()
    }
    fn supports_string_literal_concatenation(&self) -> bool {
        self.inner.supports_string_literal_concatenation()
    }
    fn ignores_wildcard_escapes(&self) -> bool {
        self.inner.ignores_wildcard_escapes()
    }
    fn supports_numeric_prefix(&self) -> bool {
        self.inner.supports_numeric_prefix()
    }
    fn supports_bitwise_shift_operators(&self) -> bool {
        self.inner.supports_bitwise_shift_operators()
    }
    fn supports_multiline_comment_hints(&self) -> bool {
        self.inner.supports_multiline_comment_hints()
    }
    fn parse_statement(&self, parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
        self.inner.parse_statement(parser)
    }
    fn require_interval_qualifier(&self) -> bool {
        self.inner.require_interval_qualifier()
    }
    fn supports_limit_comma(&self) -> bool {
        self.inner.supports_limit_comma()
    }
    fn supports_create_table_select(&self) -> bool {
        self.inner.supports_create_table_select()
    }
    fn supports_insert_set(&self) -> bool {
        self.inner.supports_insert_set()
    }
    fn supports_user_host_grantee(&self) -> bool {
        self.inner.supports_user_host_grantee()
    }
    /// MariaDB's `PERSISTENT` (a synonym of STORED after a generated column's expression)
    /// and `ZEROFILL`, which `sqlparser` does not know: handed to the DDL as dialect options.
    fn parse_column_option(
        &self,
        parser: &mut Parser,
    ) -> Result<Option<Result<Option<ast::ColumnOption>, ParserError>>, ParserError> {
        let t = parser.peek_token_ref();
        if let sqlparser::tokenizer::Token::Word(w) = &t.token {
            if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("PERSISTENT") {
                let tok = parser.next_token().token;
                return Ok(Some(Ok(Some(ast::ColumnOption::DialectSpecific(vec![
                    tok,
                ])))));
            }
            // `ZEROFILL [UNSIGNED]` after an integer type (checked by the DDL).
            if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("ZEROFILL") {
                let mut toks = vec![parser.next_token().token];
                if parser.parse_keyword(Keyword::UNSIGNED) {
                    toks.push(sqlparser::tokenizer::Token::make_keyword("UNSIGNED"));
                }
                return Ok(Some(Ok(Some(ast::ColumnOption::DialectSpecific(toks)))));
            }
        }
        Ok(None)
    }
    fn is_table_factor_alias(&self, explicit: bool, kw: &Keyword, parser: &mut Parser) -> bool {
        self.inner.is_table_factor_alias(explicit, kw, parser)
    }
    fn supports_table_hints(&self) -> bool {
        self.inner.supports_table_hints()
    }
    fn requires_single_line_comment_whitespace(&self) -> bool {
        self.inner.requires_single_line_comment_whitespace()
    }
    fn supports_match_against(&self) -> bool {
        self.inner.supports_match_against()
    }
    fn supports_select_modifiers(&self) -> bool {
        self.inner.supports_select_modifiers()
    }
    fn supports_set_names(&self) -> bool {
        self.inner.supports_set_names()
    }
    fn supports_comma_separated_set_assignments(&self) -> bool {
        self.inner.supports_comma_separated_set_assignments()
    }
    fn supports_update_order_by(&self) -> bool {
        self.inner.supports_update_order_by()
    }
    fn supports_data_type_signed_suffix(&self) -> bool {
        self.inner.supports_data_type_signed_suffix()
    }
    fn supports_cross_join_constraint(&self) -> bool {
        self.inner.supports_cross_join_constraint()
    }
    fn supports_double_ampersand_operator(&self) -> bool {
        self.inner.supports_double_ampersand_operator()
    }
    fn supports_binary_kw_as_cast(&self) -> bool {
        self.inner.supports_binary_kw_as_cast()
    }
    fn supports_comment_optimizer_hint(&self) -> bool {
        self.inner.supports_comment_optimizer_hint()
    }
    fn supports_constraint_keyword_without_name(&self) -> bool {
        self.inner.supports_constraint_keyword_without_name()
    }
    fn supports_key_column_option(&self) -> bool {
        self.inner.supports_key_column_option()
    }
    fn supports_group_by_with_modifier(&self) -> bool {
        self.inner.supports_group_by_with_modifier()
    }
    fn supports_left_associative_joins_without_parens(&self) -> bool {
        self.inner.supports_left_associative_joins_without_parens()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_with(d: &dyn Dialect, sql: &str) -> String {
        let r = Parser::new(d)
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_statement());
        format!("{r:?}")
    }

    /// Every statement of the golden scripts parses to the same tree with the hooks active (so
    /// every MySQL-specific dialect method is forwarded), unless a node was set aside.
    #[test]
    fn same_trees_as_mysql() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/sql/testscripts");
        let mut compared = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            for stmt in text.split(";\n") {
                let sql: String = stmt
                    .lines()
                    .filter(|l| !l.starts_with('#') && !l.starts_with("----"))
                    .collect::<Vec<_>>()
                    .join("\n");
                // INTERVAL and EXTRACT units are MariaDB's own here (parse/interval.rs).
                let upper = sql.to_ascii_uppercase();
                // So is PERSISTENT after a generated column's expression, and ZEROFILL.
                // And `!x` and quoted user variables (`mysql_prefix`).
                if upper.contains("INTERVAL")
                    || upper.contains("EXTRACT")
                    || upper.contains("PERSISTENT")
                    || upper.contains("ZEROFILL")
                    || sql.replace("!=", "").contains('!')
                    || ["@`", "@'", "@\""].iter().any(|q| sql.contains(q))
                {
                    continue;
                }
                let shallow = ShallowMySql::new(usize::MAX);
                let got = parse_with(&shallow, &sql);
                if !shallow.into_set_aside().is_empty() {
                    continue;
                }
                assert_eq!(got, parse_with(&MySqlDialect {}, &sql), "{sql}");
                compared += 1;
            }
        }
        assert!(compared > 300, "{compared}");
    }

    #[test]
    fn chains_are_set_aside_and_stay_shallow() {
        let sql = format!("SELECT 1{}", " + 1".repeat(1000));
        let d = ShallowMySql::new(usize::MAX);
        let stmt = Parser::new(&d)
            .try_with_sql(&sql)
            .and_then(|mut p| p.parse_statement())
            .unwrap();
        let list = d.into_set_aside();
        assert!(list.len() > 1000 / SET_ASIDE_DEPTH - 2, "{}", list.len());
        for e in &list {
            assert!(within_depth(e, SET_ASIDE_DEPTH + 1));
        }
        let sql_text = stmt.to_string();
        assert!(sql_text.len() < 200, "{sql_text}");
        assert_eq!(placeholder_index(&placeholder(7)), Some(7));
        let forged = Expr::Identifier(ast::Ident::with_quote('`', "7"));
        assert_eq!(placeholder_index(&forged), None);
        let sql = "SELECT `7`, [7]";
        let d = ShallowMySql::new(usize::MAX);
        let stmt = Parser::new(&d)
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_statement());
        assert!(
            format!("{stmt:?}").contains("quote_style: Some('`')"),
            "{stmt:?}"
        );
    }
}
