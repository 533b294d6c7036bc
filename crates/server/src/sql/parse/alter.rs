//! `ALTER TABLE` and `RENAME TABLE` in MariaDB's syntax.
//!
//! `sqlparser` covers only part of MariaDB's ALTER TABLE (no `RENAME INDEX`, `CONVERT TO
//! CHARACTER SET`, table options, `IF [NOT] EXISTS` on every operation…), so the statement is
//! parsed here into [`AlterTable`]: a list of [`AlterOp`] in the order written. Column
//! definitions and key constraints reuse `sqlparser`'s parsers (`parse_column_def`,
//! `parse_optional_table_constraint`), so they mean what they mean in CREATE TABLE.
//!
//! An operation the grammar knows but Cohort does not keep is parsed into
//! [`AlterOp::Unsupported`] (1235 at execution, before anything changes); text that is no
//! operation at all is a syntax error (1064), as in MariaDB.

use super::{eat, eat_seq, ident, peek_word, qualified, unexpected, PResult};
use sqlparser::ast;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Token;

/// `ALTER [ONLINE] [IGNORE] TABLE [IF EXISTS] name op, op…`
#[derive(Clone, Debug)]
pub struct AlterTable {
    pub db: Option<String>,
    pub table: String,
    pub if_exists: bool,
    pub ops: Vec<AlterOp>,
}

/// `FIRST` / `AFTER col`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ColumnPos {
    First,
    After(String),
}

/// One operation of an ALTER TABLE, as written.
#[derive(Clone, Debug)]
pub enum AlterOp {
    AddColumn {
        if_not_exists: bool,
        def: Box<ast::ColumnDef>,
        pos: Option<ColumnPos>,
    },
    DropColumn {
        if_exists: bool,
        name: String,
    },
    /// `MODIFY` (`old` = None: the definition's name) and `CHANGE old new …`.
    ChangeColumn {
        if_exists: bool,
        old: Option<String>,
        def: Box<ast::ColumnDef>,
        pos: Option<ColumnPos>,
    },
    RenameColumn {
        old: String,
        new: String,
    },
    SetDefault {
        column: String,
        value: Box<ast::Expr>,
    },
    DropDefault {
        column: String,
    },
    AddConstraint(Box<ast::TableConstraint>),
    DropPrimaryKey,
    DropIndex {
        if_exists: bool,
        name: String,
    },
    DropForeignKey(String),
    DropConstraint {
        if_exists: bool,
        name: String,
    },
    RenameIndex {
        old: String,
        new: String,
    },
    RenameTo {
        db: Option<String>,
        table: String,
    },
    Engine(String),
    Comment(String),
    AutoIncrement(u64),
    /// `[DEFAULT] CHARACTER SET x [COLLATE y]` / `[DEFAULT] COLLATE y` (convert = false), or
    /// `CONVERT TO CHARACTER SET x [COLLATE y]` (convert = true).
    Charset {
        convert: bool,
        charset: Option<String>,
        collate: Option<String>,
    },
    Algorithm(String),
    Lock(String),
    /// `FORCE`: rebuild.
    Force,
    /// `DISABLE KEYS` / `ENABLE KEYS`: nothing to do for an InnoDB-like table (MariaDB's
    /// InnoDB ignores them, with a note when they are the statement's only operation).
    Keys,
    Unsupported(String),
}

/// `[db.]name`.
pub type QualifiedName = (Option<String>, String);

/// `RENAME TABLE a TO b [, c TO d]…`
#[derive(Clone, Debug)]
pub struct RenameTable {
    pub pairs: Vec<(QualifiedName, QualifiedName)>,
}

/// After `ALTER`: `[ONLINE] [IGNORE] TABLE …`.
pub(super) fn parse_alter_table(p: &mut Parser<'_>) -> PResult<AlterTable> {
    let mut ops = Vec::new();
    eat(p, "ONLINE");
    if eat(p, "IGNORE") {
        ops.push(AlterOp::Unsupported("ALTER IGNORE TABLE".into()));
    }
    if !eat(p, "TABLE") {
        return unexpected(p, "TABLE");
    }
    let if_exists = eat_seq(p, &["IF", "EXISTS"]);
    let (db, table) = qualified(p)?;
    if p.peek_token().token == Token::EOF {
        return Ok(AlterTable {
            db,
            table,
            if_exists,
            ops,
        });
    }
    loop {
        ops.push(parse_op(p)?);
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    Ok(AlterTable {
        db,
        table,
        if_exists,
        ops,
    })
}

/// After `RENAME`: `TABLE a TO b [, c TO d]…`.
pub(super) fn parse_rename_table(p: &mut Parser<'_>) -> PResult<RenameTable> {
    if !eat(p, "TABLE") && !eat(p, "TABLES") {
        return unexpected(p, "TABLE");
    }
    let mut pairs = Vec::new();
    loop {
        let from = qualified(p)?;
        if eat_seq(p, &["WAIT"]) || eat(p, "NOWAIT") {
            return unexpected(p, "TO");
        }
        if !eat(p, "TO") {
            return unexpected(p, "TO");
        }
        let to = qualified(p)?;
        pairs.push((from, to));
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    Ok(RenameTable { pairs })
}

fn position(p: &mut Parser<'_>) -> PResult<Option<ColumnPos>> {
    if eat(p, "FIRST") {
        return Ok(Some(ColumnPos::First));
    }
    if eat(p, "AFTER") {
        return Ok(Some(ColumnPos::After(ident(p)?)));
    }
    Ok(None)
}

fn if_exists(p: &mut Parser<'_>) -> bool {
    eat_seq(p, &["IF", "EXISTS"])
}

fn if_not_exists(p: &mut Parser<'_>) -> bool {
    eat_seq(p, &["IF", "NOT", "EXISTS"])
}

/// `[=]`
fn equals(p: &mut Parser<'_>) {
    let _ = p.consume_token(&Token::Eq);
}

/// A name or a string (`ENGINE = 'InnoDB'`, `CHARSET utf8mb4`).
fn name_or_string(p: &mut Parser<'_>) -> PResult<String> {
    match p.peek_token().token {
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => {
            p.next_token();
            Ok(s)
        }
        _ => ident(p),
    }
}

fn starts_constraint(p: &Parser<'_>) -> bool {
    matches!(
        peek_word(p).as_deref(),
        Some(
            "CONSTRAINT"
                | "PRIMARY"
                | "UNIQUE"
                | "INDEX"
                | "KEY"
                | "FOREIGN"
                | "CHECK"
                | "FULLTEXT"
                | "SPATIAL"
        )
    )
}

fn parse_op(p: &mut Parser<'_>) -> PResult<AlterOp> {
    let Some(w) = peek_word(p) else {
        return unexpected(p, "an ALTER TABLE operation");
    };
    match w.as_str() {
        "ADD" => {
            p.next_token();
            parse_add(p)
        }
        "DROP" => {
            p.next_token();
            parse_drop(p)
        }
        "MODIFY" => {
            p.next_token();
            eat(p, "COLUMN");
            let if_exists = if_exists(p);
            let def = p.parse_column_def()?;
            let pos = position(p)?;
            Ok(AlterOp::ChangeColumn {
                if_exists,
                old: None,
                def: Box::new(def),
                pos,
            })
        }
        "CHANGE" => {
            p.next_token();
            eat(p, "COLUMN");
            let if_exists = if_exists(p);
            let old = ident(p)?;
            let def = p.parse_column_def()?;
            let pos = position(p)?;
            Ok(AlterOp::ChangeColumn {
                if_exists,
                old: Some(old),
                def: Box::new(def),
                pos,
            })
        }
        "ALTER" => {
            p.next_token();
            parse_alter_column(p)
        }
        "RENAME" => {
            p.next_token();
            parse_rename(p)
        }
        "ENGINE" => {
            p.next_token();
            equals(p);
            Ok(AlterOp::Engine(name_or_string(p)?))
        }
        "COMMENT" => {
            p.next_token();
            equals(p);
            Ok(AlterOp::Comment(p.parse_literal_string()?))
        }
        "AUTO_INCREMENT" => {
            p.next_token();
            equals(p);
            Ok(AlterOp::AutoIncrement(p.parse_literal_uint()?))
        }
        "ALGORITHM" => {
            p.next_token();
            equals(p);
            Ok(AlterOp::Algorithm(ident(p)?.to_ascii_uppercase()))
        }
        "LOCK" => {
            p.next_token();
            equals(p);
            Ok(AlterOp::Lock(ident(p)?.to_ascii_uppercase()))
        }
        "FORCE" => {
            p.next_token();
            Ok(AlterOp::Force)
        }
        "CONVERT" => {
            p.next_token();
            if !eat(p, "TO") {
                return unexpected(p, "TO");
            }
            charset_clause(p, true)
        }
        "DEFAULT" | "CHARACTER" | "CHARSET" | "COLLATE" => {
            eat(p, "DEFAULT");
            charset_clause(p, false)
        }
        "ENABLE" | "DISABLE" if super::peek_nth_word(p, 1).as_deref() == Some("KEYS") => {
            p.next_token();
            p.next_token();
            Ok(AlterOp::Keys)
        }
        "ORDER"
        | "DISCARD"
        | "IMPORT"
        | "PARTITION"
        | "REMOVE"
        | "ENABLE"
        | "DISABLE"
        | "ROW_FORMAT"
        | "KEY_BLOCK_SIZE"
        | "STATS_PERSISTENT"
        | "STATS_AUTO_RECALC"
        | "STATS_SAMPLE_PAGES"
        | "PACK_KEYS"
        | "CHECKSUM"
        | "DELAY_KEY_WRITE"
        | "MAX_ROWS"
        | "MIN_ROWS"
        | "AVG_ROW_LENGTH"
        | "PAGE_CHECKSUM"
        | "TRANSACTIONAL"
        | "ENCRYPTED"
        | "ENCRYPTION_KEY_ID"
        | "DATA"
        | "INDEX"
        | "INSERT_METHOD"
        | "UNION"
        | "CONNECTION"
        | "PAGE_COMPRESSED"
        | "PAGE_COMPRESSION_LEVEL"
        | "TABLESPACE"
        | "STORAGE"
        | "SEQUENCE"
        | "WITH"
        | "WITHOUT"
        | "ANALYZE"
        | "CHECK"
        | "COALESCE"
        | "EXCHANGE"
        | "OPTIMIZE"
        | "REBUILD"
        | "REORGANIZE"
        | "REPAIR"
        | "TRUNCATE" => {
            skip_op(p);
            Ok(AlterOp::Unsupported(format!("ALTER TABLE … {w}")))
        }
        _ => unexpected(p, "an ALTER TABLE operation"),
    }
}

/// Skip to the end of this operation (the next top-level comma).
fn skip_op(p: &mut Parser<'_>) {
    let mut depth = 0usize;
    loop {
        match p.peek_token().token {
            Token::EOF => return,
            Token::Comma if depth == 0 => return,
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            _ => {}
        }
        p.next_token();
    }
}

fn charset_clause(p: &mut Parser<'_>, convert: bool) -> PResult<AlterOp> {
    let mut charset = None;
    let mut collate = None;
    if eat_seq(p, &["CHARACTER", "SET"]) || eat(p, "CHARSET") {
        equals(p);
        charset = Some(name_or_string(p)?);
    } else if convert {
        return unexpected(p, "CHARACTER SET");
    }
    eat(p, "DEFAULT");
    if eat(p, "COLLATE") {
        equals(p);
        collate = Some(name_or_string(p)?);
    }
    if charset.is_none() && collate.is_none() {
        return unexpected(p, "CHARACTER SET or COLLATE");
    }
    Ok(AlterOp::Charset {
        convert,
        charset,
        collate,
    })
}

fn parse_add(p: &mut Parser<'_>) -> PResult<AlterOp> {
    if starts_constraint(p) {
        let ine = matches!(super::peek_nth_word(p, 1).as_deref(), Some("IF"));
        if ine {
            skip_op(p);
            return Ok(AlterOp::Unsupported(
                "ALTER TABLE … ADD INDEX IF NOT EXISTS".into(),
            ));
        }
        let Some(constraint) = p.parse_optional_table_constraint()? else {
            return unexpected(p, "a key or constraint");
        };
        return Ok(AlterOp::AddConstraint(Box::new(constraint)));
    }
    eat(p, "COLUMN");
    let if_not_exists = if_not_exists(p);
    if p.consume_token(&Token::LParen) {
        return Ok(AlterOp::Unsupported(
            "ALTER TABLE … ADD (column list)".into(),
        ));
    }
    let def = p.parse_column_def()?;
    let pos = position(p)?;
    Ok(AlterOp::AddColumn {
        if_not_exists,
        def: Box::new(def),
        pos,
    })
}

fn parse_drop(p: &mut Parser<'_>) -> PResult<AlterOp> {
    match peek_word(p).as_deref() {
        Some("PRIMARY") => {
            p.next_token();
            if !eat(p, "KEY") {
                return unexpected(p, "KEY");
            }
            Ok(AlterOp::DropPrimaryKey)
        }
        Some("INDEX" | "KEY") => {
            p.next_token();
            let if_exists = if_exists(p);
            Ok(AlterOp::DropIndex {
                if_exists,
                name: ident(p)?,
            })
        }
        Some("FOREIGN") => {
            p.next_token();
            if !eat(p, "KEY") {
                return unexpected(p, "KEY");
            }
            if_exists(p);
            Ok(AlterOp::DropForeignKey(ident(p)?))
        }
        Some("CONSTRAINT" | "CHECK") => {
            p.next_token();
            let if_exists = if_exists(p);
            Ok(AlterOp::DropConstraint {
                if_exists,
                name: ident(p)?,
            })
        }
        _ => {
            eat(p, "COLUMN");
            let if_exists = if_exists(p);
            let name = ident(p)?;
            if eat(p, "CASCADE") || eat(p, "RESTRICT") {
                // MariaDB accepts and ignores them (no dependent objects exist).
            }
            Ok(AlterOp::DropColumn { if_exists, name })
        }
    }
}

fn parse_alter_column(p: &mut Parser<'_>) -> PResult<AlterOp> {
    if eat(p, "INDEX") || eat(p, "KEY") {
        skip_op(p);
        return Ok(AlterOp::Unsupported(
            "ALTER TABLE … ALTER INDEX (index visibility)".into(),
        ));
    }
    eat(p, "COLUMN");
    if_exists(p);
    let column = ident(p)?;
    if eat_seq(p, &["SET", "DEFAULT"]) {
        // A parenthesised expression or a literal, as in a column definition.
        let value = Box::new(p.parse_expr()?);
        return Ok(AlterOp::SetDefault { column, value });
    }
    if eat_seq(p, &["DROP", "DEFAULT"]) {
        return Ok(AlterOp::DropDefault { column });
    }
    unexpected(p, "SET DEFAULT or DROP DEFAULT")
}

fn parse_rename(p: &mut Parser<'_>) -> PResult<AlterOp> {
    match peek_word(p).as_deref() {
        Some("COLUMN") => {
            p.next_token();
            let old = ident(p)?;
            if !eat(p, "TO") {
                return unexpected(p, "TO");
            }
            Ok(AlterOp::RenameColumn {
                old,
                new: ident(p)?,
            })
        }
        Some("INDEX" | "KEY") => {
            p.next_token();
            let old = ident(p)?;
            if !eat(p, "TO") {
                return unexpected(p, "TO");
            }
            Ok(AlterOp::RenameIndex {
                old,
                new: ident(p)?,
            })
        }
        _ => {
            if !eat(p, "TO") {
                eat(p, "AS");
            }
            let (db, table) = qualified(p)?;
            Ok(AlterOp::RenameTo { db, table })
        }
    }
}
