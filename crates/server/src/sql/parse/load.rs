//! `LOAD DATA [LOW_PRIORITY | CONCURRENT] [LOCAL] INFILE 'file' [REPLACE | IGNORE] INTO TABLE t
//! [CHARACTER SET cs] [{FIELDS | COLUMNS} [TERMINATED BY 's'] [[OPTIONALLY] ENCLOSED BY 'c']
//! [ESCAPED BY 'c']] [LINES [STARTING BY 's'] [TERMINATED BY 's']] [IGNORE n {LINES | ROWS}]
//! [(col_or_@var, …)] [SET col = expr, …]` → [`LoadData`].
//!
//! `LOAD XML` and `PARTITION (…)` are refused (1235). The options are kept as bytes; running
//! the statement is `exec/load.rs`.

use super::{eat, expect_word, ident, qualified, unsupported, PResult, Stmt};
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Token;

/// What a duplicate key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadDup {
    /// Neither REPLACE nor IGNORE: an error (a warning with LOCAL, as MariaDB).
    Error,
    Replace,
    Ignore,
}

/// Where one field of a line goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadTarget {
    Column(String),
    /// `@name` (lower case): the user variable is set to the field.
    Var(String),
}

#[derive(Clone, Debug)]
pub struct LoadData {
    pub local: bool,
    pub file: String,
    pub dup: LoadDup,
    pub db: Option<String>,
    pub table: String,
    pub charset: Option<String>,
    pub field_term: Vec<u8>,
    pub enclosed: Vec<u8>,
    pub optionally: bool,
    pub escaped: Vec<u8>,
    pub line_start: Vec<u8>,
    pub line_term: Vec<u8>,
    pub ignore_lines: u64,
    /// Empty: every column of the table, in order.
    pub targets: Vec<LoadTarget>,
    /// `SET col = expr, …`, evaluated for each row after its fields.
    pub sets: Vec<sqlparser::ast::Assignment>,
}

fn string(p: &mut Parser<'_>) -> PResult<Vec<u8>> {
    let t = p.next_token();
    match t.token {
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => {
            Ok(crate::types::raw_text::to_bytes(&s))
        }
        _ => p.expected("string", t),
    }
}

/// After `LOAD`.
pub(super) fn parse_load(p: &mut Parser<'_>) -> PResult<Stmt> {
    p.next_token();
    if eat(p, "XML") {
        return Ok(unsupported(p, "LOAD XML"));
    }
    expect_word(p, "DATA")?;
    let _ = eat(p, "LOW_PRIORITY") || eat(p, "CONCURRENT");
    let local = eat(p, "LOCAL");
    expect_word(p, "INFILE")?;
    let file = match p.next_token().token {
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => s,
        _ => {
            p.prev_token();
            let t = p.peek_token();
            return p.expected("file name", t);
        }
    };
    let dup = if eat(p, "REPLACE") {
        LoadDup::Replace
    } else if eat(p, "IGNORE") {
        LoadDup::Ignore
    } else {
        LoadDup::Error
    };
    expect_word(p, "INTO")?;
    expect_word(p, "TABLE")?;
    let (db, table) = qualified(p)?;
    if eat(p, "PARTITION") {
        return Ok(unsupported(p, "LOAD DATA … PARTITION"));
    }
    let mut ld = LoadData {
        local,
        file,
        dup,
        db,
        table,
        charset: None,
        field_term: b"\t".to_vec(),
        enclosed: Vec::new(),
        optionally: false,
        escaped: b"\\".to_vec(),
        line_start: Vec::new(),
        line_term: b"\n".to_vec(),
        ignore_lines: 0,
        targets: Vec::new(),
        sets: Vec::new(),
    };
    if eat(p, "CHARACTER") {
        expect_word(p, "SET")?;
        ld.charset = Some(charset_name(p)?);
    } else if eat(p, "CHARSET") {
        ld.charset = Some(charset_name(p)?);
    }
    if eat(p, "FIELDS") || eat(p, "COLUMNS") {
        let mut any = false;
        loop {
            if eat(p, "TERMINATED") {
                expect_word(p, "BY")?;
                ld.field_term = string(p)?;
            } else if eat(p, "OPTIONALLY") {
                expect_word(p, "ENCLOSED")?;
                expect_word(p, "BY")?;
                ld.enclosed = string(p)?;
                ld.optionally = true;
            } else if eat(p, "ENCLOSED") {
                expect_word(p, "BY")?;
                ld.enclosed = string(p)?;
            } else if eat(p, "ESCAPED") {
                expect_word(p, "BY")?;
                ld.escaped = string(p)?;
            } else {
                break;
            }
            any = true;
        }
        if !any {
            let t = p.peek_token();
            return p.expected("TERMINATED, ENCLOSED or ESCAPED", t);
        }
    }
    if eat(p, "LINES") {
        let mut any = false;
        loop {
            if eat(p, "STARTING") {
                expect_word(p, "BY")?;
                ld.line_start = string(p)?;
            } else if eat(p, "TERMINATED") {
                expect_word(p, "BY")?;
                ld.line_term = string(p)?;
            } else {
                break;
            }
            any = true;
        }
        if !any {
            let t = p.peek_token();
            return p.expected("STARTING or TERMINATED", t);
        }
    }
    if eat(p, "IGNORE") {
        ld.ignore_lines = p.parse_literal_uint()?;
        if !eat(p, "LINES") {
            expect_word(p, "ROWS")?;
        }
    }
    if p.consume_token(&Token::LParen) && !p.consume_token(&Token::RParen) {
        loop {
            ld.targets.push(target(p)?);
            if !p.consume_token(&Token::Comma) {
                break;
            }
        }
        p.expect_token(&Token::RParen)?;
    }
    if eat(p, "SET") {
        ld.sets = p.parse_comma_separated(Parser::parse_assignment)?;
    }
    Ok(Stmt::LoadData(Box::new(ld)))
}

fn charset_name(p: &mut Parser<'_>) -> PResult<String> {
    let t = p.next_token();
    match t.token {
        Token::Word(w) => Ok(w.value.to_ascii_lowercase()),
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Ok(s.to_ascii_lowercase()),
        _ => p.expected("character set name", t),
    }
}

fn target(p: &mut Parser<'_>) -> PResult<LoadTarget> {
    let t = p.peek_token();
    match t.token {
        Token::AtSign => {
            p.next_token();
            Ok(LoadTarget::Var(ident(p)?.to_ascii_lowercase()))
        }
        Token::Word(w) if w.quote_style.is_none() && w.value.starts_with('@') => {
            p.next_token();
            Ok(LoadTarget::Var(w.value[1..].to_ascii_lowercase()))
        }
        _ => {
            let (_, col) = qualified(p)?;
            Ok(LoadTarget::Column(col))
        }
    }
}
